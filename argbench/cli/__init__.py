"""The ``argbench`` command line: ``main`` and the registry of subcommand modules."""

from __future__ import annotations

import argparse
import importlib
import sys

import argbench

# Modules that add subcommands: each defines ``add_commands(subparsers)`` and imports its
# heavy dependencies inside the command functions, so ``argbench --help`` stays fast.
COMMANDS: list[str] = [
    "argbench.cli.datasets",
    "argbench.cli.reproduce",
    "argbench.cli.pairwise",
    "argbench.cli.evaluate",
    "argbench.cli.compare",
]


class UsageError(ValueError):
    """A mistake in the command line (unknown name, bad option): exit status 2, as argparse's
    own errors. Failures of the run itself (bad data, a failed computation) exit with 1."""


def check_dataset(name: str, config: str | None = None) -> None:
    """``name`` (and ``config``) exist, checked from the loader registry before any import."""
    if name not in argbench.list_datasets():
        raise UsageError(
            f"unknown dataset '{name}'; available: {', '.join(argbench.list_datasets())}"
        )
    if config is None:
        return
    from argbench.load import config_names  # imports datasets

    if config not in config_names(name):
        raise UsageError(
            f"dataset '{name}' has no config '{config}'; configs: {', '.join(config_names(name))}"
        )


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
    top.add_argument("--version", action="version", version=f"argbench {argbench.__version__}")
    sub = top.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        importlib.import_module(module).add_commands(sub)
    return top


def main(argv=None) -> int:
    """Exit status: 0 done, 1 the run failed (bad data, a failed computation), 2 bad usage."""
    args = parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for results files
    try:
        return args.run(args)
    except UsageError as error:
        print(f"argbench {args.command}: error: {error}", file=sys.stderr)
        return 2
    except (KeyError, ValueError, RuntimeError, OSError) as error:
        # a KeyError's str() is the repr of its message: print the message itself
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"argbench {args.command}: error: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
