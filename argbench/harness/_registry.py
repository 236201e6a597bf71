"""inspect-ai's entry point for argbench (``[project.entry-points.inspect_ai]``): importing it
registers the tasks, so ``inspect eval argbench/cqs_gen`` works once argbench is installed."""

from argbench.harness.inspect_tasks import INSPECT_TASKS

globals().update(INSPECT_TASKS)
__all__ = list(INSPECT_TASKS)
