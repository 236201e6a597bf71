"""argbench's tasks for evaluation harnesses: lm-evaluation-harness and inspect-ai.

The tasks are declared once (:mod:`argbench.tasks`); :mod:`argbench.harness.runs` runs them
(documents, prompts, predictions, scoring); two thin pieces wire them into the harnesses:
:mod:`argbench.harness.lm_eval_glue` (YAML files + ``utils.py`` written from the declarations,
loaded with ``lm_eval --include_path $(argbench harness-path)``) and
:mod:`argbench.harness.inspect_tasks` (``inspect eval argbench/cqs_gen``). ``argbench
import-harness`` turns their logs into argbench results files (:mod:`argbench.harness.convert`).
See docs/harness.md.
"""

from __future__ import annotations

from argbench.harness.lm_eval_glue import lm_eval_path

__all__ = ["lm_eval_path"]
