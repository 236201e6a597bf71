"""What ``argbench evaluate`` reads before it scores: the records (a file or a dataset split),
a CQs-Gen submission with its references, the ``--column`` mapping and the ``--option`` values.

Every problem here is the user's to fix (:class:`argbench.cli.UsageError` or a ``ValueError``
naming the file): it surfaces before a metric, a model or a dataset is loaded.
"""

from __future__ import annotations

import inspect
import json

import argbench
from argbench.cli import UsageError, check_dataset
from argbench.io import read_json
from argbench.records import resolve_columns
from argbench.results import load_split, read_predictions, read_submission_file
from argbench.scoring import declaration, declared_metrics

SHORTCUTS = ("model", "threshold", "matcher")  # --model X is --option model=X, etc.


def records_of(args) -> tuple[list, list | None, str, object]:
    """(records, their keys when the JSON was keyed by id, a description of the source, the
    split when the records are a dataset's)."""
    if args.dataset:
        check_known_dataset(args)
        split = load_split(
            args.dataset,
            args.config,
            args.split,
            sources=args.sources,
            cache_dir=args.cache_dir,
            num_proc=args.num_proc,
        )
        return split.data.to_list(), None, split.label(), split
    if args.config or args.split:
        raise UsageError("--config and --split go with --dataset")
    if not args.input:
        raise UsageError("give a FILE of records or --dataset NAME")
    return (*file_records(args.input), args.input, None)


def check_known_dataset(args) -> None:
    """An argbench dataset name and config are checked before anything is imported."""
    if args.dataset in argbench.list_datasets():
        check_dataset(args.dataset, args.config)


def file_records(path) -> tuple[list, list | None]:
    """(records, their keys when the JSON was keyed by id) of a .json / .jsonl file."""
    records, keys = read_predictions(path, submissions=False)
    if not records:
        raise ValueError(f"{path}: no records")
    return records, keys


def submission_inputs(args) -> tuple[dict, str]:
    """compute() inputs from a CQs-Gen submission and its references (read_submission)."""
    from argbench.scoring.cq_reference_match import read_submission

    if not declaration(args.metric).references_apart:
        apart = [name for name, spec in declared_metrics().items() if spec.references_apart]
        raise UsageError(f"--references / --references-dataset go with {', '.join(apart)}")
    if args.references and args.references_dataset:
        raise UsageError("give --references or --references-dataset, not both")
    if not args.input or args.dataset or args.column:
        raise UsageError("--references needs a SUBMISSION file (no --dataset, no --column)")
    if args.references:
        references = read_json(args.references)
    else:
        references = load_split(
            "cqs_gen",
            "interventions",
            args.references_dataset,
            sources=args.sources,
            cache_dir=args.cache_dir,
        ).data.to_list()
    inputs = read_submission(
        read_submission_file(args.input), references, unknown=args.unknown, missing=args.missing
    )
    if not inputs["predictions"]:
        raise ValueError(f"{args.input}: no intervention to score")
    return inputs, args.input


def column_overrides(args) -> dict[str, str]:
    overrides = {}
    for spec in args.column:
        name, sep, field = spec.partition("=")
        columns = declaration(args.metric).columns
        if not sep or name not in columns:
            raise UsageError(
                f"--column {spec!r}: expected INPUT=FIELD with INPUT one of {', '.join(columns)}"
            )
        overrides[name] = field
    return overrides


def columns_of(args, features) -> dict:
    return resolve_columns(args.metric, column_overrides(args), features)


def options_of(args, compute, features) -> dict:
    options = {}
    for spec in args.option:
        key, sep, text = spec.partition("=")
        if not sep or not key:
            raise UsageError(f"--option {spec!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text
    for key in SHORTCUTS:
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    parameters = inspect.signature(compute).parameters
    if args.allow_incomplete and "on_failure" in parameters:
        options.setdefault("on_failure", "incomplete")
    clash = sorted(set(options) & (set(declaration(args.metric).columns) | set(features)))
    if clash:
        raise UsageError(f"{', '.join(clash)} is an input: set it with --column, not --option")
    known = [p for p in parameters if p not in features]
    for key in options:
        if key not in known:
            raise UsageError(
                f"{args.metric} has no option {key!r}; options: {', '.join(known) or 'none'}"
            )
    return options
