"""argbench's tasks for evaluation harnesses: lm-evaluation-harness and inspect-ai.

One implementation (:mod:`argbench.harness.tasks`: documents, prompts, parsers, scorers), two
thin declarations: ``lm_eval_tasks/`` (YAML + ``utils.py``, loaded with ``lm_eval
--include_path $(argbench harness-path)``) and :mod:`argbench.harness.inspect_tasks`
(``inspect eval argbench/cqs_gen``). ``argbench import-harness`` turns their logs into argbench
results files (:mod:`argbench.harness.convert`). See docs/harness.md.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["lm_eval_path"]


def lm_eval_path() -> Path:
    """The folder to pass to ``lm_eval --include_path``."""
    return Path(__file__).parent / "lm_eval_tasks"
