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
    "argbench.cli.harness",
]


class UsageError(ValueError):
    """A mistake in the command line (unknown name, bad option): exit status 2, as argparse's
    own errors and bad input (records, files, values). A run that failed (an endpoint that
    stopped, failed judgments, a source that cannot be fetched) exits with 1."""


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


# What the user gave is wrong (2): fix the input and run again. The run itself failed (1): an
# endpoint that stopped answering, judgments that failed, a source that cannot be fetched.
_BAD_INPUT = (
    ValueError,  # includes UnicodeError and the metrics' and loaders' input errors
    TypeError,
    KeyError,
    FileExistsError,
    FileNotFoundError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
)


def exit_status(error: BaseException) -> int | None:
    """2 for bad input or usage, 1 for a failed run, None for a bug (let it raise)."""
    if isinstance(error, _BAD_INPUT):
        return 2
    if isinstance(error, (RuntimeError, OSError)):
        return 1
    return None


def error_message(error: BaseException) -> str:
    if isinstance(error, KeyError) and error.args:
        return str(error.args[0])
    return str(error)


def main(argv=None) -> int:
    """Exit status: 0 done, 1 the run failed (a failed computation), 2 bad usage or input."""
    args = parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for results files
    try:
        return args.run(args)
    except Exception as error:
        status = exit_status(error)
        if status is None:
            raise
        print(f"argbench {args.command}: error: {error_message(error)}", file=sys.stderr)
        return status


if __name__ == "__main__":
    sys.exit(main())
