"""The sparsification study of Webis-ArgQuality-20 (Gienapp et al., ACL 2020, §3.6, Table 1).

How well does a Bradley–Terry ranking fitted on a sparse design recover the ranking fitted on
every comparison? The paper's setting, on UKPConvArg1 (every pair of a debate side's arguments,
five crowd judgments each): draw 20 debate sides and 32 of each side's arguments; fit a baseline
on all pairs of the 32 with all their judgments; then, for x judgments per pair and k groups,
draw the cyclic-group design, keep x of each drawn pair's judgments, refit, and correlate the
merits with the baseline's (Pearson ρ). ρ is averaged over the sides, with a percentile
bootstrap confidence interval over the sides.

Choices the paper leaves open, made here and exposed as arguments: which x judgments are kept
(a random subset per pair), the model's λ and τ (default: ``fit_bradley_terry``'s, the
release's model example), one design draw per side and setting (``repeats``). Pairs with fewer
than x judgments keep all they have (190 UKPConvArg1 pairs have 4), reported as
``judgments_present``.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from argbench.scoring.bradley_terry import WEBIS_EXAMPLE_PARAMETERS, fit_bradley_terry
from argbench.scoring.pair_design import cyclic_group_design, cyclic_group_pair_count

__all__ = [
    "PAPER_SETTINGS",
    "Topic",
    "paper_judgment_count",
    "sparsification_study",
    "ukpconvarg1_topics",
]

# Section 3.6 / Table 1: 20 sides of 32 arguments, x = 5..1, k = 2..32, 10,000 resamples.
PAPER_SETTINGS = {
    "n_topics": 20,
    "n_items": 32,
    "judgments": (5, 4, 3, 2, 1),
    "groups": (2, 4, 8, 16, 32),
    "bootstrap": 10_000,
}
_OUTCOMES = {"a1": 0, "a2": 1, "equal": 2}  # UKPConvArg1 values -> fit codes a / b / tie


@dataclass
class Topic:
    """Every judged pair of one topic: ``pairs[p]`` = (i, j) indices into ``items``,
    ``outcomes[p]`` its judgments (0: i better, 1: j better, 2: tie; -1 pads short rows)."""

    name: str
    items: list
    pairs: np.ndarray  # (P, 2) int
    outcomes: np.ndarray  # (P, A) int


def ukpconvarg1_topics(full) -> list[Topic]:
    """One ``Topic`` per debate side of the ``ukpconvarg1`` ``full`` config (a ``Dataset``)."""
    names = full.features["annotations"].feature["value"].names
    code = np.array([_OUTCOMES[name] for name in names])
    table = full.select_columns(["side_id", "arg1", "arg2", "annotations"]).with_format("arrow")[:]
    side = np.asarray(table.column("side_id").to_pylist(), dtype=object)
    arg1 = table.column("arg1").combine_chunks().field("id").to_numpy(zero_copy_only=False)
    arg2 = table.column("arg2").combine_chunks().field("id").to_numpy(zero_copy_only=False)
    annotations = table.column("annotations").combine_chunks()
    lengths = np.diff(annotations.offsets.to_numpy())
    values = code[annotations.flatten().field("value").to_numpy(zero_copy_only=False)]
    width = int(lengths.max())
    outcomes = np.full((len(lengths), width), -1, dtype=np.int64)
    outcomes[np.arange(width) < lengths[:, None]] = values
    topics = []
    for name in sorted(set(side)):
        rows = np.flatnonzero(side == name)
        items, inverse = np.unique(np.concatenate([arg1[rows], arg2[rows]]), return_inverse=True)
        pairs = inverse.reshape(2, -1).T.astype(np.int64)
        topics.append(Topic(name, items.tolist(), pairs, outcomes[rows]))
    return topics


def paper_judgment_count(n: int, k: int, x: int) -> int:
    """Table 1's judgment count: x·3n²/(2k) − n/2, capped at x·n(n−1)/2 (it lists k = 2 as the
    exhaustive set). For x > 1 this is not x times the pairs of eq. (8): the −n/2 is not
    multiplied by x (x = 2, k = 4, n = 32: 752, where the design has 2 × 368 = 736)."""
    return int(min(x * 3 * n * n / (2 * k) - n / 2, x * n * (n - 1) // 2))


def _seed(seed: int, *key: int) -> np.random.SeedSequence:
    """Seeds keyed by purpose and setting: a cell's draws do not depend on the other cells
    requested, the order of the settings, or the number of workers."""
    return np.random.SeedSequence(seed, spawn_key=key)


def _fit(pairs, outcomes, rows, keep, n, regularization, threshold) -> np.ndarray:
    """Merits of items 0..n-1 from the kept judgments (``keep``: mask over ``outcomes[rows]``)."""
    chosen = outcomes[rows]
    pair_of, column = np.nonzero(keep)
    a, b = pairs[rows[pair_of], 0], pairs[rows[pair_of], 1]
    fit = fit_bradley_terry(
        a, b, chosen[pair_of, column], regularization=regularization, threshold=threshold
    )
    merits = np.full(n, np.nan)
    merits[np.asarray(fit.items)] = fit.merits
    return merits


def _topic_study(topic: Topic, position, seed, n_items, judgments, groups, repeats, lam, tau):
    """ρ (and judgments present) per (x, k, repeat) for one topic; runs in a worker process."""
    rng = np.random.default_rng(_seed(seed, 1, position))
    chosen = np.sort(rng.choice(len(topic.items), n_items, replace=False))
    local = np.full(len(topic.items), -1)
    local[chosen] = np.arange(n_items)
    inside = np.flatnonzero((local[topic.pairs] >= 0).all(axis=1))
    pairs = local[topic.pairs[inside]]
    outcomes = topic.outcomes[inside]
    row_of = np.full((n_items, n_items), -1)
    for row, (i, j) in enumerate(pairs):
        if row_of[i, j] >= 0:
            raise ValueError(f"topic {topic.name!r}: items {topic.items[chosen[i]]!r} and "
                             f"{topic.items[chosen[j]]!r} are paired twice")  # fmt: skip
        row_of[i, j] = row_of[j, i] = row
    missing = n_items * (n_items - 1) // 2 - len(pairs)
    if missing:
        raise ValueError(
            f"topic {topic.name!r}: {missing} pairs of the {n_items} drawn items are never "
            "judged; the study needs every pair (an exhaustive baseline)"
        )
    present = outcomes >= 0
    everything = np.arange(len(pairs))
    baseline = _fit(pairs, outcomes, everything, present, n_items, lam, tau)

    rho = np.empty((len(judgments), len(groups), repeats))
    used = np.empty_like(rho)
    for xi, x in enumerate(judgments):
        for ki, k in enumerate(groups):
            for r in range(repeats):
                cell = np.random.default_rng(_seed(seed, 2, position, x, k, r))
                design = np.array(cyclic_group_design(range(n_items), k, seed=cell))
                rows = row_of[design[:, 0], design[:, 1]]
                # x judgments per pair, drawn at random among those the pair has
                order = np.argsort(np.where(present[rows], cell.random(present[rows].shape), 2.0))
                keep = np.zeros(order.shape, bool)
                np.put_along_axis(keep, order[:, :x], True, axis=1)
                keep &= present[rows]
                merits = _fit(pairs, outcomes, rows, keep, n_items, lam, tau)
                rho[xi, ki, r] = np.corrcoef(merits, baseline)[0, 1]
                used[xi, ki, r] = keep.sum()
    return rho, used


def sparsification_study(
    topics: Sequence[Topic],
    *,
    n_topics: int = PAPER_SETTINGS["n_topics"],
    n_items: int = PAPER_SETTINGS["n_items"],
    judgments: Sequence[int] = PAPER_SETTINGS["judgments"],
    groups: Sequence[int] = PAPER_SETTINGS["groups"],
    repeats: int = 1,
    bootstrap: int = PAPER_SETTINGS["bootstrap"],
    confidence: float = 0.95,
    regularization: float = WEBIS_EXAMPLE_PARAMETERS[0],
    threshold: float = WEBIS_EXAMPLE_PARAMETERS[1],
    seed: int = 0,
    workers: int = 1,
) -> list[dict]:
    """Table 1 of the paper: one row per (x, k), in the order given.

    ``topics``: the paper's are the 32 debate sides of ``ukpconvarg1`` (config ``full``:
    :func:`ukpconvarg1_topics` of it; the caller loads the corpus). ``n_topics`` of the topics with at least ``n_items`` items are
    drawn, and ``n_items`` items of each; ``repeats`` design draws per topic and setting are
    averaged before the bootstrap (``bootstrap`` resamples of the topics). ``workers`` > 1 fits
    the topics in that many processes; results do not depend on it.

    Row fields: ``x``, ``k``; ``pairs`` (design pairs, ``cyclic_group_pair_count``);
    ``judgments`` = x·pairs; ``judgments_paper`` (``paper_judgment_count``);
    ``judgments_percent`` = 100·judgments / (judgments per pair in the data × n(n−1)/2);
    ``judgments_present`` (mean over topics of the judgments actually fitted); ``rho`` (mean
    Pearson ρ over topics), ``ci_low``, ``ci_high``; ``topics``.
    """
    judgments, groups = [int(x) for x in judgments], [int(k) for k in groups]
    if any(x < 1 for x in judgments):
        raise ValueError(f"judgments per pair must be >= 1, not {judgments}")
    if any(not 1 <= k <= n_items for k in groups):
        raise ValueError(f"groups must be between 1 and n_items ({n_items}), not {groups}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    eligible = sorted((t for t in topics if len(t.items) >= n_items), key=lambda t: t.name)
    if len(eligible) < n_topics:
        raise ValueError(
            f"{len(eligible)} topics have at least {n_items} items; {n_topics} are needed"
        )
    drawn = np.random.default_rng(_seed(seed, 0)).choice(len(eligible), n_topics, replace=False)
    selected = [eligible[i] for i in sorted(drawn)]
    per_pair = max(t.outcomes.shape[1] for t in selected)

    args = [
        (topic, position, seed, n_items, judgments, groups, repeats, regularization, threshold)
        for position, topic in enumerate(selected)
    ]
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_topic_study, *zip(*args, strict=True)))
    else:
        results = [_topic_study(*a) for a in args]
    rho = np.stack([r for r, _ in results]).mean(axis=3)  # (topics, x, k)
    used = np.stack([u for _, u in results]).mean(axis=3)

    exhaustive = n_items * (n_items - 1) // 2
    tail = (1 - confidence) / 2
    rows = []
    for xi, x in enumerate(judgments):
        for ki, k in enumerate(groups):
            rng = np.random.default_rng(_seed(seed, 3, x, k))
            values = rho[:, xi, ki]
            means = values[rng.integers(0, len(values), (bootstrap, len(values)))].mean(axis=1)
            low, high = np.quantile(means, [tail, 1 - tail])
            pairs = cyclic_group_pair_count(n_items, k)
            rows.append(
                {
                    "x": x,
                    "k": k,
                    "pairs": pairs,
                    "judgments": x * pairs,
                    "judgments_paper": paper_judgment_count(n_items, k, x),
                    "judgments_percent": 100 * x * pairs / (per_pair * exhaustive),
                    "judgments_present": float(used[:, xi, ki].mean()),
                    "rho": float(values.mean()),
                    "ci_low": float(low),
                    "ci_high": float(high),
                    "topics": len(selected),
                }
            )
    return rows
