"""What a metric states about itself, once, beside its function.

Every metric module ``argbench.scoring.<name>`` ends with ``METRIC = Metric(...)``: its plain
inputs, the record field each input reads, the figure a leaderboard shows and which way is
better, how that figure aggregates, the figures a harness table shows, and whether it is an
evaluate "measurement". Everything that used to keep a table of these facts per metric (the
command line's columns, the results' pairing key, the leaderboard's headline, the harness
tasks' figures, the evaluate module type) reads the declaration through
:func:`argbench.scoring.declared_metrics`, so adding a metric is its scoring module and its
``metrics/<name>/`` folder, and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Figure", "Headline", "Metric"]


@dataclass(frozen=True)
class Headline:
    """The one figure a leaderboard ranks systems by.

    ``value``: the result key shown; ``pair``: the per-item key ``argbench compare`` pairs
    systems on (None: a corpus-level figure such as AUROC, no per-item values);
    ``decomposes``: the value is the mean of the non-None per-item values (so a results file
    can be checked by recomputing it); ``low``/``high``: the range every per-item value and
    the headline lie in (the card defines each); ``higher_is_better``: its direction."""

    value: str
    pair: str | None
    decomposes: bool
    low: float = 0.0
    high: float = 1.0
    higher_is_better: bool = True

    @property
    def aggregation(self) -> str:
        """How the figure is made from items: ``mean`` (of the per-item values) or ``corpus``."""
        return "mean" if self.decomposes else "corpus"


@dataclass(frozen=True)
class Figure:
    """A figure a harness shows for a task: a key of the metric's result and its direction."""

    key: str
    higher_is_better: bool = True


@dataclass(frozen=True)
class Metric:
    """A metric's own facts (see the module docstring).

    ``inputs``: the plain features (:mod:`argbench.scoring`); ``columns``: compute() input ->
    the record field it reads (``"a.b"``: field b of every element of list a; inputs that are
    not features, such as ``contexts``, are used when the records have the field);
    ``headline``: None for a metric no leaderboard ranks by; ``figures``: label -> figure in a
    harness's table; ``measurement``: a statistic of predictions or ratings alone (evaluate's
    module type "measurement"); ``argument_lists``: the references are CAM argument lists
    (files may number them "N. "); ``curve``: the result has a precision-recall curve
    (``argbench evaluate --dev/--plot``); ``references_apart``: a shared-task submission FILE
    is scored against references given apart (``argbench evaluate --references FILE`` or
    ``--references-dataset``), as the shared task's own script does; ``max_questions``: at
    most three questions of an item are scored by default (the result counts the items with
    more, ``n_long``; the signature's ``max_q`` says how they were scored, ``max_q:all``
    every one, Useful / max(3, n)); ``submission_field``: the field of a shared-task
    submission record that holds the predictions, read when a record has it and not the
    declared ``predictions`` column. The code reads these facts; it never compares a
    metric's name (``tests/test_declarations.py`` checks)."""

    inputs: dict
    columns: dict[str, str]
    headline: Headline | None = None
    figures: dict[str, Figure] = field(default_factory=dict)
    measurement: bool = False
    argument_lists: bool = False
    curve: bool = False
    references_apart: bool = False
    max_questions: bool = False
    submission_field: str | None = None

    @property
    def module_type(self) -> str:
        return "measurement" if self.measurement else "metric"
