"""``argbench pairwise fit``: Bradley–Terry scores from a judgments file or Webis-ArgQuality-20."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import argbench
from argbench.cli import add_data_options, finite_float, positive_int, seed_int
from argbench.io import claim_output, read_records, write_records


def add_commands(subparsers) -> None:
    pairwise = subparsers.add_parser("pairwise", help="pairwise judgments → Bradley–Terry scores")
    sub = pairwise.add_subparsers(dest="pairwise_command", required=True)
    fit = sub.add_parser(
        "fit",
        help="fit merits to a judgments file (CSV/JSONL) or to webis_argquality20",
        description="One Bradley–Terry fit (Rao–Kupper ties, dummy-item regulariser) per group "
        "of a judgments file, or per topic × dimension of webis_argquality20 (--webis).",
    )
    source = fit.add_mutually_exclusive_group(required=True)
    source.add_argument("judgments", nargs="?", help="CSV or JSONL file, one judgment per row")
    source.add_argument(
        "--webis", action="store_true", help="fit webis_argquality20's pairwise config"
    )
    fit.add_argument("--out", required=True, help="scores file: .csv or .jsonl")
    fit.add_argument("--item-a", default="item_a", help="column of the first item")
    fit.add_argument("--item-b", default="item_b", help="column of the second item")
    fit.add_argument("--winner", default="winner", help="column of the outcome")
    fit.add_argument(
        "--labels",
        default="a,b,tie",
        help="outcome values meaning 'A wins', 'B wins', 'tie' (default: a,b,tie)",
    )
    fit.add_argument("--group", help="column to fit separately by (e.g. a topic)")
    fit.add_argument(
        "--allow-nonconverged",
        action="store_true",
        help="write the scores even when a fit did not converge, with a 'converged' column "
        "(default: no scores, exit 1)",
    )
    fit.add_argument("--regularization", type=finite_float, default=0.3, help="λ (default 0.3)")
    fit.add_argument("--threshold", type=finite_float, default=0.01, help="τ (default 0.01)")
    fit.add_argument(
        "--normalize",
        choices=["zscore", "minmax", "none"],
        default="zscore",
        help="score column: z-score per group (default), min-max, or the raw merit",
    )
    fit.add_argument(
        "--parameters",
        default="release",
        choices=["release", "example"],
        help="--webis: per-dimension parameters that reproduce the release (default) or the "
        "release example's λ=0.3, τ=0.01",
    )
    add_data_options(fit)
    fit.set_defaults(run=_cmd_fit)

    simulate = sub.add_parser(
        "simulate",
        help="the Webis sparsification study (Table 1) on UKPConvArg1",
        description="Fit Bradley-Terry on cyclic-group designs of UKPConvArg1 debate sides with "
        "x judgments per pair and k groups, and correlate with the fit on every judgment "
        "(Gienapp et al. 2020, Section 3.6); each row beside the paper's Table 1.",
    )
    simulate.add_argument("--judgments", default="5,4,3,2,1", help="x values (default 5,4,3,2,1)")
    simulate.add_argument("--groups", default="2,4,8,16,32", help="k values (default 2,4,8,16,32)")
    simulate.add_argument(
        "--topics", type=positive_int, default=20, help="debate sides drawn (default 20)"
    )
    simulate.add_argument(
        "--items", type=positive_int, default=32, help="arguments per side (default 32)"
    )
    simulate.add_argument(
        "--repeats", type=positive_int, default=1, help="design draws per side and cell"
    )
    simulate.add_argument(
        "--bootstrap", type=positive_int, default=10_000, help="bootstrap resamples"
    )
    simulate.add_argument("--seed", type=seed_int, default=0)
    simulate.add_argument(
        "--workers", type=positive_int, default=1, help="processes over the sides"
    )
    simulate.add_argument(
        "--regularization", type=finite_float, default=0.3, help="λ (default 0.3)"
    )
    simulate.add_argument("--threshold", type=finite_float, default=0.01, help="τ (default 0.01)")
    simulate.add_argument("--out", help="also write the rows to this .csv or .jsonl file")
    add_data_options(simulate)
    simulate.set_defaults(run=_cmd_simulate)


def _fit_file(args) -> tuple[list[dict], list]:
    from argbench.scoring.bradley_terry import fit_bradley_terry

    path = Path(args.judgments)
    rows = read_records(path, formats=("csv", "jsonl"))
    if not rows:
        raise ValueError(f"{path}: no judgments")
    columns = [args.item_a, args.item_b, args.winner] + ([args.group] if args.group else [])
    for index, row in enumerate(rows):
        for column in columns:
            if column not in row:
                raise ValueError(f"{path}, row {index}: no column {column!r} (have {list(row)})")
            if row[column] is None or row[column] == "":
                raise ValueError(f"{path}, row {index}: empty {column!r}")
    labels = args.labels.split(",")
    if len(labels) != 3:
        raise ValueError(f"--labels needs three values (A wins, B wins, tie), got {args.labels!r}")
    groups: dict = {}
    for index, row in enumerate(rows):
        groups.setdefault(row[args.group] if args.group else None, []).append(index)
    normalize = None if args.normalize == "none" else args.normalize
    out, fits = [], []
    for group, indices in groups.items():
        try:
            fit = fit_bradley_terry(
                [rows[i][args.item_a] for i in indices],
                [rows[i][args.item_b] for i in indices],
                [rows[i][args.winner] for i in indices],
                regularization=args.regularization,
                threshold=args.threshold,
                outcome_names=labels,
            )
        except ValueError as error:
            where = f"group {args.group}={group!r}: " if args.group else ""
            raise ValueError(f"{path}: {where}{error}") from None
        fits.append(((group,), fit))
        for item, merit, score in zip(
            fit.items, fit.merits, fit.normalized(normalize), strict=True
        ):
            record = {args.group: group} if args.group else {}
            out.append({**record, "item": item, "merit": float(merit), "score": float(score)})
    return out, fits


def _fit_webis(args) -> tuple[list[dict], list]:
    from argbench.scoring.bradley_terry import fit_webis, webis_scores

    def load(config):
        return argbench.load_dataset(
            "webis_argquality20", config, "train", sources=args.sources, cache_dir=args.cache_dir
        )

    fits = fit_webis(load("pairwise"), args.parameters)
    scores = load("scores").select_columns(
        ["topic_id", "discussion_id", "argument_id", "is_argument", "logical"]
    )
    unjudged = [
        (r["topic_id"], r["discussion_id"], r["argument_id"])
        for r in scores
        if r["is_argument"] and r["logical"] is None
    ]
    return webis_scores(fits, unjudged), sorted(fits.items())


def _cmd_fit(args) -> int:
    claim_output(args.out, inputs=[args.judgments])
    rows, fits = _fit_webis(args) if args.webis else _fit_file(args)
    iterations = max(f.iterations for _, f in fits)
    gradient = max(f.gradient_norm for _, f in fits)
    not_converged = [key for key, f in fits if not f.converged]
    judged = f"{len(fits)} fit(s), {sum(f.n_comparisons for _, f in fits):,} judgments"
    fitted = (
        f"max iterations {iterations}, max |gradient| {gradient:.1e}, "
        f"log-likelihood {sum(f.log_likelihood for _, f in fits):.4f}"
    )
    summary = f"{judged}, {fitted}"
    if not_converged and not args.allow_nonconverged:
        raise RuntimeError(
            f"{len(not_converged)} of {len(fits)} fit(s) did not converge ({summary}): "
            f"{_keys(not_converged)}; no scores written to {args.out}. Raise --threshold or "
            "--regularization, or pass allow_nonconverged=True to write them flagged"
        )
    if args.allow_nonconverged:
        bad = set(not_converged)
        for row in rows:
            if args.webis:
                row["converged"] = not any((row["topic_id"], d) in bad for _, d in fits_keys(fits))
            else:
                row["converged"] = (row.get(args.group) if args.group else None,) not in bad
    write_records(args.out, rows)
    print(f"{judged}, {len(rows):,} score rows -> {args.out}; {fitted}")
    if not_converged:
        print(
            f"warning: {len(not_converged)} fit(s) did not converge: {_keys(not_converged)}; "
            "their rows say converged=false (--allow-nonconverged)",
            file=sys.stderr,
        )
    return 0


def fits_keys(fits) -> list:
    return [key for key, _ in fits]


def _keys(keys) -> str:
    shown = ", ".join(str(k[0] if len(k) == 1 else k) for k in keys[:5])
    return shown + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")


def _ints(text: str, option: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        raise ValueError(f"{option} takes comma-separated integers, not {text!r}") from None


def _cmd_simulate(args) -> int:
    from argbench.reproduce.webis import paper_agreement, paper_table1
    from argbench.scoring.sparsification import sparsification_study, ukpconvarg1_topics

    if args.out:
        claim_output(args.out)
    start = time.perf_counter()
    full = argbench.load_dataset(
        "ukpconvarg1", "full", "train", sources=args.sources, cache_dir=args.cache_dir
    )
    rows = sparsification_study(
        ukpconvarg1_topics(full),
        judgments=_ints(args.judgments, "--judgments"),
        groups=_ints(args.groups, "--groups"),
        n_topics=args.topics,
        n_items=args.items,
        repeats=args.repeats,
        bootstrap=args.bootstrap,
        seed=args.seed,
        workers=args.workers,
        regularization=args.regularization,
        threshold=args.threshold,
    )
    seconds = time.perf_counter() - start
    paper = paper_table1() if args.items == 32 else {}
    diffs, agreed, looser = [], 0, 0
    print(f"{'x':>2} {'k':>3} {'judgments':>9} {'paper':>6} | {'rho':>6} {'95% CI':>16} | paper")
    for r in rows:
        published = paper.get((r["x"], r["k"]))
        theirs = "—"
        if published:
            diff, agree, loose = paper_agreement(r)
            diffs.append(abs(diff))
            agreed += agree
            looser += loose
            r.update(paper_rho=published[2], paper_agrees=agree)
            theirs = f"{published[2]:.2f} [{published[3]:.2f}, {published[4]:.2f}] ({diff:+.3f})"
        print(
            f"{r['x']:>2} {r['k']:>3} {r['judgments']:>9} {r['judgments_paper']:>6} | "
            f"{r['rho']:>6.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] | {theirs}"
        )
    if diffs:
        print(
            f"rows beside the paper: {len(diffs)}; each rho inside the other's 95% CI: {agreed}; "
            f"|diff| within the combined half-width: {looser}; mean |rho - paper| "
            f"{sum(diffs) / len(diffs):.3f}, max {max(diffs):.3f}"
        )
    print(
        f"{len(rows)} cells x {rows[0]['topics']} sides in {seconds:.1f} s (corpus load included)"
    )
    if args.out:
        write_records(args.out, rows)
        print(f"rows -> {args.out}")
    return 0
