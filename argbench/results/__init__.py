"""Score your own system on a corpus split, and keep the figure citable, comparable and checked.

:func:`evaluate_predictions` joins a system's predictions to a split by the corpus's own ids,
runs the metric, and returns a *results document* (:func:`build_document`: the metric values,
the per-item scores, the metric's signature, the split's name / config / version / content
hash, argbench's version, the command and the time). ``argbench evaluate ... --out`` writes
it (:func:`write_results`); :func:`read_results` reads it back verified (an edited file is a
:class:`ResultsFileError`); ``argbench compare`` tests the differences
(:func:`compare_results`); a leaderboard reads a document through :func:`headline_figure` and
:func:`per_item`.

One concern per module: ``split`` (loading a split, its content hash), ``predictions``
(reading predictions, joining them by id), ``document`` (schema, builder, digest), ``verify`` (reading back, checked), ``write``
(writing, checked first; a run never erases another), ``evaluate`` (scoring predictions), ``compare``.
"""

from __future__ import annotations

from argbench.results.compare import DATASET_FIELDS, compare_results
from argbench.results.document import RESULTS_FORMAT, build_document, content_digest, plain
from argbench.results.evaluate import add_intervals, evaluate_predictions
from argbench.results.predictions import (
    join,
    read_predictions,
    read_submission_file,
    split_item_ids,
)
from argbench.results.split import (
    DatasetChoiceError,
    Split,
    config_hint,
    configs_with,
    content_hash,
    load_split,
)
from argbench.results.verify import (
    ResultsFileError,
    headline_figure,
    per_item,
    read_results,
    verify_document,
)
from argbench.results.write import RUN_VOLATILE, same_result, write_results, write_results_once
from argbench.scoring import pair_keys as _pair_keys
from argbench.tasks import id_columns


def __getattr__(name: str):
    """``PRIMARY``: metric -> the per-item key argbench compare pairs on (each metric's declared
    headline), made when asked for: it imports every metric module, which scoring one metric
    does not need."""
    if name == "PRIMARY":
        return _pair_keys()
    if name == "ID_COLUMNS":  # the corpora's id columns, from the task declarations
        return id_columns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DATASET_FIELDS",
    "ID_COLUMNS",
    "PRIMARY",
    "RESULTS_FORMAT",
    "RUN_VOLATILE",
    "DatasetChoiceError",
    "ResultsFileError",
    "Split",
    "add_intervals",
    "build_document",
    "compare_results",
    "config_hint",
    "configs_with",
    "content_digest",
    "content_hash",
    "evaluate_predictions",
    "headline_figure",
    "join",
    "load_split",
    "per_item",
    "plain",
    "read_predictions",
    "read_results",
    "read_submission_file",
    "same_result",
    "split_item_ids",
    "verify_document",
    "write_results",
    "write_results_once",
]
