"""What ``argbench evaluate`` prints and draws: the name/value table of a result (each value
with its meaning from the metric card) and a claim_relation precision-recall curve."""

from __future__ import annotations

from argbench.io import save_figure
from argbench.metrics import metric_path, output_meanings
from argbench.results import plain
from argbench.scoring import declaration

__all__ = ["format_table", "plot_curve", "scalars"]


def plot_curve(result: dict, path, title: str) -> None:
    """The precision-recall curve of a claim_relation result, as a PNG."""
    if "pr_curve" not in result:
        raise ValueError("--plot: the result has no precision-recall curve (hard labels?)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from argbench.scoring.claim_relation import draw_pr_curve

    fig, ax = plt.subplots(figsize=(6, 4.5))
    draw_pr_curve(ax, result, "scores")
    ax.set(title=title, xlabel="recall", ylabel="precision")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


# ---- reading records ----


def scalars(result: dict, prefix: str = "") -> tuple[list[tuple[str, object]], list[str]]:
    """(name, value) of the scalar outputs (nested dicts as ``a.b``), and the other names."""
    rows, other = [], []
    for key, value in plain(result).items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            sub_rows, sub_other = scalars(value, f"{name}.")
            rows += sub_rows
            other += sub_other
        elif isinstance(value, list):
            other.append(name)
        else:
            rows.append((name, value))
    return rows, other


# what --ci adds (argbench.results.add_intervals), not the metric: defined here, not in a card
_CI_MEANINGS = {
    "ci.low": "lower end of the bootstrap interval of `{}` (--ci)",
    "ci.high": "upper end of the bootstrap interval of `{}` (--ci)",
    "ci_method": "how the intervals were computed",
}
_VALUE_WIDTH = 10  # longer values (ci_method's text) push their meaning further right


def _meaning(name: str, meanings: dict[str, str]) -> str:
    if name.startswith("ci.") and name.count(".") >= 2:
        key, end = name[3:].rsplit(".", 1)
        return _CI_MEANINGS.get(f"ci.{end}", "").format(key)
    # nested values (label_counts.Useful) take their parent's line
    return meanings.get(name) or meanings.get(name.split(".")[0]) or _CI_MEANINGS.get(name, "")


def format_table(result: dict, metric: str | None = None) -> str:
    """The scalar outputs as a name/value table (the signature is printed above it), with each
    value's one-line meaning from the metric card's Outputs table and where the card is."""
    rows, other = scalars({k: v for k, v in result.items() if k != "signature"})
    meanings = output_meanings(metric) if metric else {}
    if (
        metric
        and declaration(metric).max_questions
        and "|max_q:all|" in str(result.get("signature"))
    ):
        # the card's line is the protocol's (Useful/3); this run scored every question
        meanings["score"] = (
            "mean over interventions of Useful / max(3, n): every question scored (max_q:all)"
        )
    width = max([len("name")] + [len(name) for name, _ in rows])
    texts = [
        "undefined" if value is None else f"{value:.6g}" if isinstance(value, float) else str(value)
        for _, value in rows
    ]
    value_width = min(_VALUE_WIDTH, max([len("value")] + [len(t) for t in texts]))
    lines = [f"{'name':<{width}}  {'value':<{value_width}}  meaning".rstrip()]
    for (name, _), text in zip(rows, texts, strict=True):
        lines.append(f"{name:<{width}}  {text:<{value_width}}  {_meaning(name, meanings)}".rstrip())
    if other:
        lines.append(f"(per-item outputs, with --json: {', '.join(other)})")
    if metric:
        card = metric_path(metric) / "README.md"
        lines.append(f"(each value is defined in the metric card, section Outputs: {card})")
    return "\n".join(lines)
