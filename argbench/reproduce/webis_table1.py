"""Webis-ArgQuality-20 (ACL 2020), Table 1 and §3.6: the sparsification study on UKPConvArg1,
set beside the paper's ρ̄ and 95% CIs."""

from __future__ import annotations

import math

from argbench.reproduce.report import Context, Row, Section, published_figures, round_half_up, row

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
    from argbench.scoring.sparsification import sparsification_study, ukpconvarg1_topics

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
    paper = paper_table1()
    section.rows.append(
        row(
            "§3.6: gain in rho from x=1 to x=5 at k=4 (λ=0.3)",
            gain["default"][(5, 4)] - gain["default"][(1, 4)],
            "webis/s36/gain_x1_x5_k4",
            f"the text's figure; Table 1's own cells give {paper[(5, 4)][2] - paper[(1, 4)][2]:.2f}; "
            f"λ=0.1: {gain['release'][(5, 4)] - gain['release'][(1, 4)]:.3f}",
        )
    )
    (listed, both, looser), (_, both_release, looser_release) = counts["default"], counts["release"]
    judged = [r for r in section.rows if "mean Pearson rho" in r.item and r.diff is not None]
    exact = sum(bool(r.at_precision) for r in judged)
    higher = sum(round_half_up(r.argbench, 2) > r.published for r in judged)
    section.why_not = (
        "one design draw per side and cell; the paper does not say which judgments it kept per "
        "pair, how many designs it drew, or which λ it used"
    )
    section.notes += [
        f"{rows[0]['topics']} sides x 32 arguments drawn with seed 0; one design draw per side and cell; x "
        "judgments kept at random per pair; 10,000 bootstrap resamples of the sides. The paper does not state λ "
        "for Table 1: argbench defaults to λ=0.3, τ=0.01 (the release's model example) and counts those rows; "
        "the release's own scores use λ=0.1, τ=0.05 (shown beside each row).",
        f"Test: '{BOTH_CIS}' (argbench's ρ̄ inside the paper's CI, and the paper's ρ̄ inside argbench's CI, "
        f"each printed figure of the paper standing for ±0.005). λ=0.3: {both} of {listed} published rows pass; λ=0.1: {both_release} of {listed}. The "
        f"looser test |Δ| <= √(h² + h_paper²) + 0.005 (h: half-widths) passes {looser} (λ=0.3) and "
        f"{looser_release} (λ=0.1) of {listed}. At the printed precision (two decimals) {exact} of {listed} "
        f"λ=0.3 rows agree (x=5, k=2 among them, a tautology); argbench's ρ̄ is higher in {higher} of {listed}: "
        "the CI test is looser, so its agreements are counted apart, not in the headline.",
        "The paper's judgment counts follow x*3n^2/(2k) - n/2 (the -n/2 not multiplied by x), a formula fitted to "
        "Table 1's own counts, so those rows are circular and not counted; the design's true count is x times "
        "its pairs, so they differ for x > 1.",
        "At k=32 (one argument per group: the design is a single cycle plus its neighbours) rho varies most "
        "between design draws and moves with λ (CI half-widths about 0.05, the paper's too); over seeds 0-19 "
        "those rows run 0.03-0.05 above the paper's at λ=0.3. See scoring/sparsification.",
    ]
    if ctx.plots:

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
