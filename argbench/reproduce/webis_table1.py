"""Webis-ArgQuality-20 (ACL 2020), Table 1 and §3.6: the sparsification study on UKPConvArg1,
set beside the paper's ρ̄ and 95% CIs."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from argbench.reproduce.report import (
    Context,
    Reason,
    Row,
    Section,
    published_figures,
    round_half_up,
    row,
)
from argbench.scoring.sparsification import sparsification_study, ukpconvarg1_topics

TIE = 2  # the fit's code of an 'equal' judgment (argbench.scoring.sparsification)

TABLE1_FIELDS = ("judgments", "judgments_percent", "rho", "ci_low", "ci_high")


def paper_table1() -> dict[tuple[int, int], tuple]:
    """Table 1 as published (``published.yaml``): (x, k) -> (judgments, judgments %, ρ̄, CI
    low, CI high)."""
    figures = published_figures()
    table = {}
    for key in figures:
        if key.startswith("webis/table1/") and key.endswith("/rho"):
            cell = key.split("/")[2]  # "x5_k2"
            x, k = (int(part[1:]) for part in cell.split("_"))
            table[(x, k)] = tuple(
                figures[f"webis/table1/{cell}/{field}"]["value"] for field in TABLE1_FIELDS
            )
    return table


def paper_agreement(row: dict) -> tuple[float, bool, bool] | None:
    """``row``'s ρ̄ minus Table 1's, whether each ρ̄ lies inside the other's 95 % CI ("within
    both CIs", literally, allowing for the paper's rounding to two decimals), and whether the difference is within √(h² + h_paper²) + 0.005 (h:
    the CI half-widths; 0.005: the paper's rounding), a looser test of the same idea. ``None``
    for a setting Table 1 does not list."""
    paper = paper_table1().get((row["x"], row["k"]))
    if paper is None:
        return None
    _, _, rho, low, high = paper
    diff = row["rho"] - rho
    # the paper prints two decimals: its ρ̄ and CI bounds stand for ±0.005 around them
    both = (
        low - 0.005 <= row["rho"] <= high + 0.005
        and row["ci_low"] <= rho + 0.005
        and rho - 0.005 <= row["ci_high"]
    )
    margin = math.hypot((row["ci_high"] - row["ci_low"]) / 2, (high - low) / 2) + 0.005
    return diff, both, abs(diff) <= margin


# Table 1's default: the release's model example (λ = 0.3, τ = 0.01); the release's own scores
# were fitted with λ = 0.1, τ = 0.05 (rhetorical, logical), shown beside it
TABLE1_SETTINGS = {"default": (0.3, 0.01), "release": (0.1, 0.05)}
BOTH_CIS = "each ρ̄ inside the other's 95% CI"


def webis_sparsification(ctx: Context) -> Section:
    """Table 1: the Bradley–Terry model on cyclic-group designs of UKPConvArg1 sides, at the
    default λ = 0.3 (counted) and the release's λ = 0.1 (shown beside it)."""

    section = Section(
        "Webis-ArgQuality-20", "Table 1: sparse designs vs the exhaustive ranking (UKPConvArg1)"
    )
    topics = ukpconvarg1_topics(ctx.load("ukpconvarg1", "full", "train"))
    studies = {
        name: sparsification_study(topics, seed=0, regularization=lam, threshold=tau)
        for name, (lam, tau) in TABLE1_SETTINGS.items()
    }
    rows, other = studies["default"], {(r["x"], r["k"]): r for r in studies["release"]}
    counts = {name: [0, 0, 0] for name in studies}  # listed, within both CIs, looser test
    for name, study in studies.items():
        for r in study:
            verdict = paper_agreement(r)
            if verdict is not None:
                counts[name][0] += 1
                counts[name][1] += verdict[1]
                counts[name][2] += verdict[2]
    figures = published_figures()
    for r in rows:
        cell = f"x={r['x']}, k={r['k']}"
        key = f"webis/table1/x{r['x']}_k{r['k']}"
        alt = other[(r["x"], r["k"])]
        beside = f"λ=0.1: {alt['rho']:.3f} [{alt['ci_low']:.3f}, {alt['ci_high']:.3f}]"
        ci = f"95% CI [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        verdict = paper_agreement(r)
        if verdict is not None:
            _, both, looser = verdict
            paper_ci = (
                f"[{figures[key + '/ci_low']['printed']}, {figures[key + '/ci_high']['printed']}]"
            )
            alt_both = paper_agreement(alt)[1]
            note = (
                f"{ci}; paper CI {paper_ci}; {'inside' if both else 'not inside'} both CIs"
                f" ({'within' if looser else 'outside'} the combined half-width); {beside}"
                f" ({'inside' if alt_both else 'not inside'} both)"
            )
            whole = (r["x"], r["k"]) == (5, 2)  # every judgment of every pair: the baseline
            section.rows.append(
                row(
                    f"{cell} / mean Pearson rho (λ=0.3)",
                    r["rho"],
                    key + "/rho",
                    (
                        "not counted: x=5, k=2 is the whole UKPConvArg1 set (2,480 = 496 x 5), the "
                        "baseline itself, so rho = 1 by construction; "
                        if whole
                        else ""
                    )
                    + note,
                    verdict=both,
                    test=BOTH_CIS,
                    kind="structural" if whole else "reproduction",
                )
            )
            section.rows.append(
                row(
                    f"{cell} / judgments (the paper's formula)",
                    r["judgments_paper"],
                    key + "/judgments",
                    f"circular: the formula was fitted to these counts; the design's true "
                    f"count: {r['judgments']}",
                    kind="structural",
                )
            )
        else:
            note = f"{ci}; {beside}; not in the paper's text"
            section.rows.append(Row(f"{cell} / mean Pearson rho (λ=0.3)", r["rho"], note=note))
    gain = {name: {(r["x"], r["k"]): r["rho"] for r in study} for name, study in studies.items()}
    section.rows.append(
        row(
            "§3.6: gain in rho from x=1 to x=5 at k=4 (λ=0.3)",
            gain["default"][(5, 4)] - gain["default"][(1, 4)],
            "webis/s36/gain_x1_x5_k4",
            f"λ=0.1: {gain['release'][(5, 4)] - gain['release'][(1, 4)]:.3f}",
        )
    )
    for k, label in ((4, "near-perfect"), (8, "acceptable")):
        mine = next(r for r in rows if (r["x"], r["k"]) == (1, k))
        key = f"webis/s36/x1_k{k}"
        section.rows += [
            row(f"§3.6: x=1, k={k} ('{label}') mean rho (λ=0.3)", mine["rho"], f"{key}/rho"),
            row(
                f"§3.6: x=1, k={k} ± (half argbench's 95% CI)",
                (mine["ci_high"] - mine["ci_low"]) / 2,
                f"{key}/tolerance",
            ),
        ]
    (listed, both, looser), (_, both_release, looser_release) = counts["default"], counts["release"]
    judged = [
        r
        for r in section.rows
        if "mean Pearson rho" in r.item and r.kind == "reproduction" and r.diff is not None
    ]
    exact = sum(bool(r.at_precision) for r in judged)
    direction = table1_direction(rows)
    section.reasons += direction_reasons(topics, rows, studies["release"])
    section.notes += [
        f"{rows[0]['topics']} sides x 32 arguments drawn with seed 0; one design draw per side and cell; x "
        "judgments kept at random per pair; 10,000 bootstrap resamples of the sides. The paper does not state λ "
        "for Table 1: argbench defaults to λ=0.3, τ=0.01 (the release's model example) and counts those rows; "
        "the release's own scores use λ=0.1, τ=0.05 (shown beside each row).",
        f"Test: '{BOTH_CIS}' (argbench's ρ̄ inside the paper's CI, and the paper's ρ̄ inside argbench's CI, "
        f"each printed figure of the paper standing for ±0.005). λ=0.3: {both} of {listed} published rows pass; λ=0.1: {both_release} of {listed}. The "
        f"looser test |Δ| <= √(h² + h_paper²) + 0.005 (h: half-widths) passes {looser} (λ=0.3) and "
        f"{looser_release} (λ=0.1) of {listed}. At the printed precision (two decimals) {exact} of the "
        f"{len(judged)} counted λ=0.3 rows agree (x=5, k=2, a tautology, is not counted); "
        f"{direction_text(direction)}: the CI test is looser, so its agreements are counted apart, "
        "not in the headline.",
        "The paper's judgment counts follow x*3n^2/(2k) - n/2 (the -n/2 not multiplied by x), a formula fitted to "
        "Table 1's own counts, so those rows are circular and not counted; the design's true count is x times "
        "its pairs, so they differ for x > 1.",
        "At k=32 (one argument per group: the design is a single cycle plus its neighbours) rho varies most "
        "between design draws and moves with λ (CI half-widths about 0.05, the paper's too); over seeds 0-19 "
        "those rows run 0.03-0.05 above the paper's at λ=0.3. See scoring/sparsification.",
    ]
    if ctx.plots:
        paper = paper_table1()

        def draw(ax):
            for x, color in zip((5, 3, 1), ("#4477aa", "#228833", "#cc3311"), strict=True):
                mine = [r for r in rows if r["x"] == x]
                ax.errorbar(
                    [r["judgments"] for r in mine],
                    [r["rho"] for r in mine],
                    yerr=[
                        [r["rho"] - r["ci_low"] for r in mine],
                        [r["ci_high"] - r["rho"] for r in mine],
                    ],
                    color=color,
                    marker="o",
                    capsize=3,
                    label=f"argbench λ=0.3, x={x}",
                )
                theirs = sorted(v for (px, _), v in paper.items() if px == x)
                ax.plot(
                    [v[0] for v in theirs],
                    [v[2] for v in theirs],
                    color=color,
                    linestyle=":",
                    marker="x",
                    label=f"paper, x={x}",
                )
            ax.set_xscale("log")

        ctx.figure(
            "webis_sparsification",
            "UKPConvArg1: mean Pearson rho with the exhaustive ranking vs judgments",
            "judgments (log scale)",
            "mean Pearson rho (95% CI)",
            draw,
        )
    return section


def table1_direction(study: list[dict]) -> dict:
    """How argbench's ρ̄ sits against Table 1's over the counted cells (x=5, k=2 left out: the
    baseline itself): cells, how many above, the mean difference (unrounded, and with argbench
    rounded to the paper's two decimals)."""
    paper = paper_table1()
    cells = [r for r in study if (r["x"], r["k"]) in paper and (r["x"], r["k"]) != (5, 2)]
    diffs = np.array([r["rho"] - paper[(r["x"], r["k"])][2] for r in cells], dtype=float)
    rounded = np.array(
        [round_half_up(r["rho"], 2) - paper[(r["x"], r["k"])][2] for r in cells], dtype=float
    )
    valid = ~np.isnan(diffs)
    return {
        "cells": int(valid.sum()),
        "above": int((diffs[valid] > 0).sum()),
        "mean": float(diffs[valid].mean()),
        "mean_rounded": float(rounded[valid].mean()),
    }


def direction_text(d: dict) -> str:
    return (
        f"argbench's ρ̄ is above the paper's in {d['above']} of {d['cells']} cells, by "
        f"{d['mean']:+.3f} on average ({d['mean_rounded']:+.3f} with argbench rounded to two "
        "decimals)"
    )


SEEDS = (1, 2, 3, 4)  # design draws beside the counted seed 0
LAMBDAS = (1.0,)  # beside the counted 0.3 and the release's 0.1


def direction_reasons(topics, study0: list[dict], release: list[dict]) -> list[Reason]:
    """Look for the cause of the direction: the design draw (other seeds), λ, and the ties
    (dropped from every fit). Each is tested here, with its result."""

    lam, tau = TABLE1_SETTINGS["default"]
    direction = table1_direction(study0)
    drawn = [sparsification_study(topics, seed=s, regularization=lam, threshold=tau) for s in SEEDS]
    seeds = [table1_direction(study) for study in drawn]
    k32 = {
        x: [r["rho"] for study in [study0, *drawn] for r in study if (r["x"], r["k"]) == (x, 32)]
        for x in (5, 4, 3, 2, 1)
    }
    lambdas = {0.1: table1_direction(release)} | {
        other: table1_direction(
            sparsification_study(topics, seed=0, regularization=other, threshold=tau)
        )
        for other in LAMBDAS
    }
    no_ties = [
        dataclasses.replace(t, outcomes=np.where(t.outcomes == TIE, -1, t.outcomes)) for t in topics
    ]
    ties = table1_direction(
        sparsification_study(no_ties, seed=0, regularization=lam, threshold=tau)
    )

    def brief(d):
        return f"{d['above']} of {d['cells']} above, mean {d['mean']:+.3f}"

    return [
        Reason("At λ=0.3 argbench's ρ̄ runs above Table 1's", direction_text(direction)),
        Reason(
            "Not the design draw alone: other seeds keep argbench above the paper, by less",
            "; ".join(f"seed {s}: {brief(d)}" for s, d in zip(SEEDS, seeds, strict=True))
            + f" (seed 0: {brief(direction)})",
        ),
        Reason(
            "λ moves the offset monotonically: a smaller λ than argbench's 0.3 removes it, so the "
            "paper most likely fitted with a λ near the release's 0.1",
            "; ".join(f"λ={value:g}: {brief(d)}" for value, d in sorted(lambdas.items()))
            + f"; λ=0.3: {brief(direction)}. The paper does not print its λ",
        ),
        Reason(
            "At k=32 (a single cycle and its neighbours) ρ̄ moves most between design draws, "
            "more than the paper's CIs allow",
            "; ".join(
                f"x={x}: {min(v):.2f}-{max(v):.2f} (paper {paper_table1()[(x, 32)][2]:.2f})"
                for x, v in k32.items()
            )
            + f" over seeds 0-{SEEDS[-1]}",
        ),
        Reason(
            "Not the ties: fitting without the 'equal' judgments keeps argbench above",
            f"ties dropped from every fit (λ=0.3): {brief(ties)}"
            + (
                f"; {direction['cells'] - ties['cells']} cell(s) undefined (a design left with "
                "ties only)"
                if ties["cells"] < direction["cells"]
                else ""
            ),
        ),
    ]
