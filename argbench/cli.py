"""The ``argbench`` command line."""

from __future__ import annotations

import argparse
import importlib
import sys
import time


def _cmd_list(args) -> int:
    import argbench

    print("datasets:")
    for name in argbench.list_datasets():
        print(f"  {name}")
    return 0


def _cmd_build(args) -> int:
    import argbench
    from argbench.hub import build, row_counts

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


# Modules that add subcommands: each defines ``add_commands(subparsers)`` and imports its
# heavy dependencies inside the command functions, so ``argbench --help`` stays fast.
EXTENSIONS: list[str] = []


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="argbench", description="Argument-mining corpora and metrics for Hugging Face."
    )
    sub = top.add_subparsers(dest="command", required=True)

    sub.add_parser("list", help="list the datasets").set_defaults(run=_cmd_list)

    build = sub.add_parser("build", help="build datasets into Hub-layout folders (card + Parquet)")
    build.add_argument("names", nargs="*", metavar="NAME", help="datasets to build (default: all)")
    build.add_argument("--out", required=True, help="output folder; each dataset goes to OUT/NAME")
    build.add_argument(
        "--sources", help="mirror of the source files laid out by URL (default: $ARGBENCH_SOURCES)"
    )
    build.add_argument("--cache-dir", help="datasets cache folder (default: HF_DATASETS_CACHE)")
    build.set_defaults(run=_cmd_build)

    for module in EXTENSIONS:
        importlib.import_module(module).add_commands(sub)
    return top


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (KeyError, ValueError, RuntimeError) as error:
        print(f"argbench {args.command}: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
