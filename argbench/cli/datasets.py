"""``argbench list``, ``build`` and ``publish``: the corpora as Hub-layout folders."""

from __future__ import annotations

import sys
import time

from argbench.cli import add_data_options, add_num_proc


def _cmd_list(args) -> int:
    import argbench

    print("datasets:")
    for name in argbench.list_datasets():
        print(f"  {name}")
    return 0


def _cmd_build(args) -> int:
    import argbench
    from argbench.layout import build, row_counts

    names = args.names or argbench.list_datasets()
    unknown = sorted(set(names) - set(argbench.list_datasets()))
    if unknown:
        print(
            f"unknown dataset(s): {', '.join(unknown)}; available: {', '.join(argbench.list_datasets())}",
            file=sys.stderr,
        )
        return 2
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
    from argbench.publish import publish

    plan = publish(
        args.name,
        args.repo_id,
        out_dir=args.out,
        private=args.private,
        dry_run=args.dry_run,
        sources=args.sources,
        cache_dir=args.cache_dir,
        log=lambda m: print(f"  {m}", flush=True),
    )
    head = "dry run: would publish" if args.dry_run else "published"
    print(
        f"{head} {plan['dataset']} to {plan['repo_id']} ({'private' if plan['private'] else 'public'}), tag {plan['tag']}"
    )
    print(f"card: {plan['card']}")
    for entry in plan["files"]:
        print(f"  {entry['path']:<50} {entry['bytes']:>12,} bytes")
    return 0


def add_commands(sub) -> None:
    sub.add_parser("list", help="list the datasets").set_defaults(run=_cmd_list)

    build = sub.add_parser("build", help="build datasets into Hub-layout folders (card + Parquet)")
    build.add_argument("names", nargs="*", metavar="NAME", help="datasets to build (default: all)")
    build.add_argument("--out", required=True, help="output folder; each dataset goes to OUT/NAME")
    add_num_proc(build)
    add_data_options(build)
    build.set_defaults(run=_cmd_build)

    publish = sub.add_parser(
        "publish", help="build a dataset and upload it to the Hub, tagged v<version>"
    )
    publish.add_argument("name", metavar="NAME")
    publish.add_argument("--repo-id", required=True, help="dataset repository, ORG/NAME")
    publish.add_argument("--private", action="store_true", help="create the repository private")
    publish.add_argument(
        "--dry-run", action="store_true", help="list files, card and tag; no network"
    )
    publish.add_argument("--out", default="build", help="build folder (default: build)")
    add_data_options(publish)
    publish.set_defaults(run=_cmd_publish)
