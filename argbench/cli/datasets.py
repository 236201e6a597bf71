"""``argbench list``, ``build`` and ``publish``: corpora as Hub-layout folders, metrics as Spaces."""

from __future__ import annotations

import json
import time

import argbench
from argbench.cli import UsageError, add_data_options, add_num_proc, check_dataset
from argbench.cli.leaderboard import add_space_options, publish_space


def _cmd_list(args) -> int:
    found = {"datasets": argbench.list_datasets(), "metrics": argbench.list_metrics()}
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    for kind, names in found.items():
        print(f"{kind}:")
        for name in names:
            print(f"  {name}")
    return 0


def _cmd_build(args) -> int:
    names = args.names or argbench.list_datasets()
    unknown = sorted(set(names) - set(argbench.list_datasets()))
    if unknown:
        raise UsageError(
            f"unknown dataset(s): {', '.join(unknown)}; available: {', '.join(argbench.list_datasets())}"
        )
    from argbench.hub_eval import eval_yaml
    from argbench.layout import build, row_counts

    summary = []
    for position, name in enumerate(names, 1):
        start = time.perf_counter()
        print(f"[{position}/{len(names)}] {name}", flush=True)
        folder = build(
            name,
            args.out,
            sources=args.sources,
            cache_dir=args.cache_dir,
            log=lambda m: print(f"  {m}", flush=True),
            num_proc=args.num_proc,
            eval_yaml=eval_yaml,
        )
        elapsed = time.perf_counter() - start
        for config, splits in row_counts(folder).items():
            for split, rows in splits.items():
                summary.append((name, config, split, rows))
        print(f"  done in {elapsed:.1f}s", flush=True)
    print("\nsummary (rows per config/split):")
    width = max(len(f"{n}/{c}/{s}") for n, c, s, _ in summary)
    for name, config, split, rows in summary:
        print(f"  {f'{name}/{config}/{split}':<{width}}  {rows:>7,}")
    return 0


def _cmd_publish(args) -> int:
    if args.leaderboard:
        return publish_space(args)
    if (args.name is None) == (args.metric is None):
        raise UsageError("give a dataset NAME or --metric NAME (one of them)")
    from argbench.publish import check_repo_id

    try:
        check_repo_id(args.repo_id)  # before any build
    except ValueError as error:
        raise UsageError(f"--repo-id: {error}") from None

    def log(message):
        print(f"  {message}", flush=True)

    if args.metric is not None:
        from argbench.publish import check_space_name, publish_metric

        if args.metric not in argbench.list_metrics():
            raise UsageError(
                f"unknown metric '{args.metric}'; available: {', '.join(argbench.list_metrics())}"
            )
        if args.out or args.sources or args.cache_dir:
            raise UsageError("--out, --sources and --cache-dir go with a dataset, not --metric")
        try:
            check_space_name(args.metric, args.repo_id)
        except ValueError as error:
            raise UsageError(f"--repo-id {error}") from None
        plan = publish_metric(
            args.metric, args.repo_id, private=args.private, dry_run=args.dry_run, log=log
        )
    else:
        from argbench.publish import publish

        check_dataset(args.name)
        plan = publish(
            args.name,
            args.repo_id,
            out_dir=args.out,
            private=args.private,
            dry_run=args.dry_run,
            sources=args.sources,
            cache_dir=args.cache_dir,
            log=log,
            replace_other_corpus=args.replace_other_corpus,
        )
    head = "dry run: would publish" if args.dry_run else "published"
    where = f"{'Space' if plan['kind'] == 'metric' else 'dataset repo'} {plan['repo_id']}"
    visibility = "private" if plan["private"] else "public"
    print(f"{head} {plan['name']} to {where} ({visibility}), tag {plan['tag']}")
    if plan["card"] is None:
        print("card: README.md (built in a temporary folder, now removed; --out DIR keeps it)")
    else:
        print(f"card: {plan['card']}")
    for key, value in plan["card_metadata"].items():
        print(f"  {key}: {json.dumps(value, ensure_ascii=False)}")
    print("files:")
    for entry in plan["files"]:
        print(f"  {entry['path']:<50} {entry['bytes']:>12,} bytes")
    return 0


def add_commands(sub) -> None:
    listing = sub.add_parser("list", help="list the datasets and metrics")
    listing.add_argument(
        "--json", action="store_true", help='print {"datasets": [...], "metrics": [...]}'
    )
    listing.set_defaults(run=_cmd_list)

    build = sub.add_parser("build", help="build datasets into Hub-layout folders (card + Parquet)")
    build.add_argument("names", nargs="*", metavar="NAME", help="datasets to build (default: all)")
    build.add_argument("--out", required=True, help="output folder; each dataset goes to OUT/NAME")
    add_num_proc(build)
    add_data_options(build)
    build.set_defaults(run=_cmd_build)

    publish = sub.add_parser(
        "publish",
        help="upload a dataset (built) or a metric (as a Space) to the Hub, tagged v<version>",
        description="Upload a dataset to a Hub dataset repository (built first; tag "
        "v<dataset version>) or, with --metric, a metric folder to a Gradio Space (tag "
        "v<argbench version>). A version already tagged is not uploaded again.",
    )
    publish.add_argument("name", nargs="?", metavar="NAME", help="dataset to publish")
    publish.add_argument("--metric", metavar="NAME", help="publish this metric as a Space instead")
    publish.add_argument(
        "--repo-id", required=True, help="ORG/NAME (for a metric, NAME is the metric's name)"
    )
    publish.add_argument("--private", action="store_true", help="create the repository private")
    publish.add_argument(
        "--dry-run", action="store_true", help="list files, card and tag; no network"
    )
    publish.add_argument(
        "--out", help="keep the dataset build in OUT/NAME (default: a temporary folder)"
    )
    publish.add_argument(
        "--replace-other-corpus",
        action="store_true",
        help="the repo holds another corpus: delete every file that is not part of this build "
        "(without it such a repo is refused)",
    )

    add_space_options(publish)
    add_data_options(publish)
    publish.set_defaults(run=_cmd_publish)
