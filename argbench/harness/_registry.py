"""inspect-ai's entry point for argbench (``[project.entry-points.inspect_ai]``): importing it
registers the tasks, so ``inspect eval argbench/cqs_gen`` works once argbench is installed."""

from argbench.harness.inspect_tasks import (
    cam_answers,
    claimdiff_s,
    claimdiff_w,
    cqs_gen,
    cqs_gen_test,
)

__all__ = ["cam_answers", "claimdiff_s", "claimdiff_w", "cqs_gen", "cqs_gen_test"]
