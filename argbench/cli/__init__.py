"""The ``argbench`` command line: ``main`` and the registry of subcommand modules."""

from __future__ import annotations

import argparse
import importlib
import sys

import argbench
from argbench.errors import BadInput

# Modules that add subcommands: each defines ``add_commands(subparsers)`` and imports its
# heavy dependencies inside the command functions, so ``argbench --help`` stays fast.
COMMANDS: list[str] = [
    "argbench.cli.datasets",
    "argbench.cli.reproduce",
    "argbench.cli.pairwise",
    "argbench.cli.evaluate",
    "argbench.cli.compare",
    "argbench.cli.merge",
    "argbench.cli.eval_results",
    "argbench.cli.export",
    "argbench.cli.harness",
    "argbench.cli.leaderboard",
    "argbench.cli.sample",
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


def finite_float(text: str) -> float:
    """argparse type: a finite number (``nan`` and ``inf`` parse as floats but are no setting)."""
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def _int_at_least(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected an integer >= {least}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1 (counts, resamples, processes)."""
    return _int_at_least(text, 1)


def seed_int(text: str) -> int:
    """argparse type: a random seed, an integer >= 0 (numpy's default_rng takes no other)."""
    return _int_at_least(text, 0)


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
        type=positive_int,
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


# The one exit status table of the whole CLI; argbench.cli.exits.REFUSALS says which refusal of
# which subcommand exits with which status (docs/errors.md is rendered from both;
# tests/test_hostile_results.py keeps them true). Every subcommand maps its errors through
# exit_status(): bad input or usage 2, a run that failed 1.
EXIT_CODES: dict[int, str] = {
    0: "done: the result is complete (or marked complete=False with --allow-incomplete, "
    "non-converged fits flagged with --allow-nonconverged)",
    1: "the run failed: an LLM endpoint stopped answering or judgments failed (without "
    "--allow-incomplete), a pairwise fit did not converge (without --allow-nonconverged), a "
    "source or model cannot be fetched (offline), a file could not be written (full disk); "
    "outputs are left as they were, never half-written",
    2: "bad usage or bad input: unknown command, flag, metric, dataset, config or option; a bad "
    "record, file, id, value or credential; an --out that is an input, not writable, or being "
    "written by another run; results that cannot be compared; a results file that is edited "
    "or is no leaderboard value (partial, incomplete, off the task's protocol)",
    130: "interrupted (Ctrl-C); outputs are left as they were, never half-written",
}

# What the user gave is wrong (2): fix the input and run again. The run itself failed (1): an
# endpoint that stopped answering, judgments that failed, a source that cannot be fetched.
_BAD_INPUT = (
    ValueError,  # includes UnicodeError and the metrics' and loaders' input errors
    TypeError,
    KeyError,
    FileExistsError,  # includes argbench.io.OutputBusyError
    FileNotFoundError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
)


def exit_status(error: BaseException) -> int | None:
    """2 for bad input or usage, 1 for a failed run, None for a bug (let it raise)."""
    if isinstance(error, KeyboardInterrupt):
        return 130
    if isinstance(error, (BadInput, *_BAD_INPUT)):
        return 2
    if isinstance(error, (RuntimeError, OSError, MemoryError)):
        return 1
    if type(error).__module__.startswith("datasets"):  # e.g. NonMatchingSplitsSizesError
        return 1
    return None


# Python keywords named in library errors, and the flag that sets them on the command line:
# an error speaks the interface it was raised from (main rewrites what it prints).
KEYWORD_FLAGS: list[tuple[str, str]] = [
    (r"on_failure='incomplete'", "--allow-incomplete"),
    (r"\ballow_missing=True", "--allow-missing"),
    (r"\ballow_nonconverged=True", "--allow-nonconverged"),
    (r"\bforce=True", "--force"),
    (r"\bid_fields=", "--id"),
    (r"\bsources=", "--sources"),
    (r"\bthe datasets cache_dir=", "--cache-dir"),
    (r"\bmodel='([^']*)'", r"--model \1"),
    (r"\bmodel=(?=[\s,;).]|$)", "--model"),
    (r"\bthreshold=(?=[\s,;).]|$)", "--threshold"),
    (r"\bmax_questions=(\d)", r"--option max_questions=\1"),
    (
        r"\bllm=\{'timeout': 120, 'stall_timeout': 300\}",
        '--option \'llm={"timeout": 120, "stall_timeout": 300}\'',
    ),
    (r"\bllm=\{'timeout': 120\}", "--option 'llm={\"timeout\": 120}'"),
]


def as_flags(message: str) -> str:
    """``message`` with the Python keywords it suggests replaced by their CLI flags."""
    import re

    for pattern, flag in KEYWORD_FLAGS:
        message = re.sub(pattern, flag, message)
    return message


def error_message(error: BaseException) -> str:
    if isinstance(error, KeyboardInterrupt):
        return "interrupted"
    if isinstance(error, KeyError) and error.args:
        return str(error.args[0])
    if isinstance(error, MemoryError):
        return "out of memory" + (f": {error}" if str(error) else "")
    text = str(error)
    if type(error).__module__.split(".")[0] not in ("builtins", "argbench"):
        text = f"{type(error).__name__}: {text}"
    return text


def _safe_streams() -> None:
    """Print on any terminal encoding (ASCII, Latin-1): characters it lacks are escaped
    instead of raising UnicodeEncodeError (argparse's --help included)."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover - a closed or odd stream
                pass


def _subcommand_parser(top: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The innermost subcommand's parser (``argbench pairwise fit`` -> fit's)."""
    current = top
    while True:
        actions = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        if not actions or getattr(args, actions[0].dest, None) not in actions[0].choices:
            return current
        current = actions[0].choices[getattr(args, actions[0].dest)]


def _parse(argv) -> argparse.Namespace:
    """Parse ``argv``; an unknown flag after a subcommand is reported with that
    subcommand's usage, and the closest flag it has."""
    import difflib

    top = parser()
    args, extras = top.parse_known_args(argv)
    if extras:
        command = _subcommand_parser(top, args)
        flags = [f for a in command._actions for f in a.option_strings]
        hints = []
        for extra in extras:
            close = difflib.get_close_matches(extra.split("=")[0], flags, n=1)
            if extra.startswith("-") and close:
                hints.append(f"{extra} (did you mean {close[0]}?)")
            else:
                hints.append(extra)
        command.error(f"unrecognized arguments: {' '.join(hints)}")
    return args


def main(argv=None) -> int:
    """Exit status: see EXIT_CODES (0 done, 1 the run failed, 2 bad usage or input)."""
    _safe_streams()
    try:
        args = _parse(argv)
    except KeyboardInterrupt:
        return 130
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for results files
    try:
        return args.run(args)
    except (Exception, KeyboardInterrupt) as error:
        status = exit_status(error)
        if status is None:
            raise
        message = as_flags(error_message(error))
        print(f"argbench {args.command}: error: {message}", file=sys.stderr)
        return status


if __name__ == "__main__":
    sys.exit(main())
