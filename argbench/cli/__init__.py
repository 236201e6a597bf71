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


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="argbench", description="Argument-mining corpora and metrics for Hugging Face."
    )
    sub = top.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        importlib.import_module(module).add_commands(sub)
    return top


class UsageError(ValueError):
    """Bad command-line usage (exit status 2, like bad input)."""


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
    args = parser().parse_args(argv)
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
