"""The ``argbench`` command line: ``main`` and the registry of subcommand modules."""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that add subcommands: each defines ``add_commands(subparsers)`` and imports its
# heavy dependencies inside the command functions, so ``argbench --help`` stays fast.
COMMANDS: list[str] = [
    "argbench.cli.datasets",
    "argbench.cli.reproduce",
    "argbench.cli.pairwise",
    "argbench.cli.evaluate",
]


def add_data_options(command: argparse.ArgumentParser) -> None:
    """``--sources`` and ``--cache-dir``: where release files and built datasets come from."""
    command.add_argument(
        "--sources", help="mirror of the source files laid out by URL (default: $ARGBENCH_SOURCES)"
    )
    command.add_argument("--cache-dir", help="datasets cache folder (default: HF_DATASETS_CACHE)")


def add_num_proc(command: argparse.ArgumentParser) -> None:
    """``--num-proc``: processes for building a dataset (loaders with several source shards)."""
    command.add_argument(
        "--num-proc",
        type=int,
        metavar="N",
        help="build datasets in N processes, one shard of source files each (same rows)",
    )


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="argbench", description="Argument-mining corpora and metrics for Hugging Face."
    )
    sub = top.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
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
