"""``argbench evaluate METRIC``: run an argbench metric on a JSON/JSONL file, a dataset split,
or a system's predictions joined to a split (:func:`argbench.evaluate_predictions`).

Records become compute() inputs through :mod:`argbench.records` (one column table,
overridable with ``--column``); every value is checked there with the modules' own
``check_value``, so bad input is an error naming the record and field, never coerced. What
is read before scoring (records, a submission, ``--column``, ``--option``) is
:mod:`argbench.cli.evaluate_inputs`.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys

from argbench.cli import (
    UsageError,
    add_data_options,
    add_num_proc,
    finite_float,
    positive_int,
    seed_int,
)
from argbench.cli.evaluate_help import DESCRIPTION as _DESCRIPTION
from argbench.cli.evaluate_help import EPILOG as _EPILOG
from argbench.cli.evaluate_inputs import (
    check_known_dataset,
    column_overrides,
    columns_of,
    file_records,
    options_of,
    records_of,
    submission_inputs,
)
from argbench.cli.output import format_table, plot_curve, scalars  # noqa: F401 - scalars: API
from argbench.constants import LLM_SECRET_OPTIONS
from argbench.io import check_name, check_text, claim_output, printable
from argbench.metrics import list_metrics
from argbench.records import inputs_from_records, top_fields
from argbench.results import (
    add_intervals,
    build_document,
    config_hint,
    evaluate_predictions,
    plain,
    split_item_ids,
    write_results,
)
from argbench.results.evaluate import shard_split_records, system_name
from argbench.results.shards import Shard, write_fragment
from argbench.scoring import declaration, declared_metrics, metric_function
from argbench.signature import Signature


def _columns_table() -> str:
    """Each metric's default input columns, from its declaration."""
    return "\n".join(
        f"  {metric:<26} " + ", ".join(f"{name}<-{field}" for name, field in spec.columns.items())
        for metric, spec in declared_metrics().items()
    )


def add_commands(subparsers) -> None:
    ev = subparsers.add_parser(
        "evaluate",
        help="run a metric on a file, a dataset split, or your predictions joined to a split",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # the columns table imports every metric module (numpy and more): only when the help of
    # this command is printed, so that `argbench --help` and other commands stay fast
    format_help = ev.format_help

    def with_columns() -> str:
        ev.description = _DESCRIPTION.format(columns=_columns_table())
        return format_help()

    ev.format_help = with_columns
    ev.add_argument(
        "metric", metavar="METRIC", choices=list_metrics(), help=", ".join(list_metrics())
    )
    ev.add_argument(
        "input", nargs="?", metavar="FILE", help="records or predictions: .json or .jsonl"
    )
    ev.add_argument(
        "--dataset", help="argbench dataset name, built folder or Hub id: the split to score on"
    )
    ev.add_argument("--config", help="--dataset config")
    ev.add_argument("--split", help="--dataset split (needed when there are several)")
    ev.add_argument(
        "--allow-missing",
        action="store_true",
        help="FILE --dataset: score the predicted items when some of the split's are missing",
    )
    ev.add_argument(
        "--id",
        metavar="FIELD[,FIELD]",
        help="FILE --dataset: the id column(s) to join on (default: the corpus's own)",
    )
    ev.add_argument("--system", help="system name in the results file (default: FILE's stem)")
    ev.add_argument(
        "--out", metavar="RESULTS.json", help="write a results file (for argbench compare)"
    )
    ev.add_argument(
        "--shard",
        metavar="I/N",
        help="--dataset --out (with or without FILE): score shard I of N (0 <= I < N; items "
        "by a hash of their id) and write its fragment; argbench merge joins the N fragments",
    )
    ev.add_argument(
        "--engine",
        choices=("plain", "ray"),
        default="plain",
        help="FILE --dataset --out: ray runs the shards as a Ray Data pipeline and merges them "
        "(pip install 'argbench[ray]'; docs/scale.md)",
    )
    ev.add_argument(
        "--ray-shards", type=positive_int, default=4, metavar="N", help="--engine ray: shards (4)"
    )
    ev.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="--engine ray: the cluster to join ('auto': this node's); default a local Ray",
    )
    ev.add_argument(
        "--ci", action="store_true", help="add bootstrap confidence intervals of per-item means"
    )
    ev.add_argument(
        "--resamples", type=positive_int, default=10_000, help="--ci resamples (10,000)"
    )
    ev.add_argument("--seed", type=seed_int, default=0, help="--ci random seed (0)")
    ev.add_argument("--confidence", type=finite_float, default=0.95, help="--ci level (0.95)")
    ev.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="INPUT=FIELD",
        help="record field for a compute() input (repeatable)",
    )
    ev.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="compute() option; VALUE is read as JSON when it parses, else as a string",
    )
    ev.add_argument("--model", help="model option: sentence-transformers/NLI name or folder")
    ev.add_argument(
        "--threshold",
        type=finite_float,
        help="threshold option (cq_reference_match, claim_relation)",
    )
    ev.add_argument("--matcher", help="matcher option of cq_reference_match: sts or llm")
    ev.add_argument("--references", help="cq_reference_match: references file (validation.json)")
    ev.add_argument(
        "--references-dataset",
        nargs="?",
        const="validation",
        metavar="SPLIT",
        help="cq_reference_match: the cqs_gen interventions split as references (default "
        "validation)",
    )
    ev.add_argument(
        "--unknown",
        choices=["error", "skip"],
        default="error",
        help="submission intervention without references: error (shared-task script) or skip",
    )
    ev.add_argument(
        "--missing",
        choices=["ignore", "error", "missing_cqs"],
        default="ignore",
        help="reference intervention absent from the submission: ignore (both scripts), "
        "error, or score it as 'Missing CQs'",
    )
    ev.add_argument(
        "--allow-incomplete",
        action="store_true",
        help="LLM judges: score what was judged when some judgments fail (the result says "
        "complete=False) and exit 0, instead of failing",
    )
    ev.add_argument(
        "--dev",
        metavar="FILE",
        help="claim_relation: development records (same fields); the threshold maximises F1 there",
    )
    ev.add_argument(
        "--plot",
        metavar="PNG",
        help="claim_relation: draw the precision-recall curve to this file (needs matplotlib)",
    )
    ev.add_argument("--json", action="store_true", help="print the full result as JSON")
    add_num_proc(ev)
    add_data_options(ev)
    ev.set_defaults(run=_cmd_evaluate)


def _cmd_evaluate(args) -> int:
    if args.shard:
        return _cmd_shard(args)
    if args.engine == "ray":
        return _cmd_ray(args)
    result, header, doc = run(args, note=lambda m: print(f"note: {m}", file=sys.stderr))
    if declaration(args.metric).max_questions and result.get("n_long"):
        print(f"note: {_long_note(result)}", file=sys.stderr)
    if args.out:
        write_results(doc, args.out)
    if args.json:
        print(json.dumps(plain(result), ensure_ascii=False, allow_nan=False, indent=1))
    else:
        print(header)
        if result.get("signature"):
            print(f"signature: {result['signature']}")
        print(format_table(result, args.metric))
    if args.out:
        print(f"results written to {args.out}", file=sys.stderr)
    if result.get("complete") is False:
        what = f"incomplete result: {result['n_failed']} judgment(s) failed; the scores cover only"
        if args.allow_incomplete:
            print(f"warning: {what} what was judged (--allow-incomplete)", file=sys.stderr)
            return 0
        print(
            f"argbench evaluate: error: {what} what was judged; pass --allow-incomplete to accept it",
            file=sys.stderr,
        )
        return 1
    return 0


def _cmd_shard(args) -> int:
    """--shard I/N: one shard's fragment written to --out (the figures come at the merge)."""
    shard = Shard.parse(args.shard)
    if not (args.dataset and args.out):
        raise UsageError(
            "--shard goes with --dataset and --out (and FILE for predictions): a shard scores "
            "a split's items and writes its fragment"
        )
    if args.dev or args.plot:
        raise UsageError("--shard takes no --dev or --plot (they need the whole run)")
    if args.references or args.references_dataset:
        raise UsageError("--shard takes no --references: a shard scores a split's items")
    note = lambda m: print(f"note: {m}", file=sys.stderr)  # noqa: E731
    compute, features = metric_function(args.metric)
    options = options_of(args, compute, features)
    _claim_outputs(args)
    check_known_dataset(args)
    if args.input:
        fragment = _evaluate_predictions(args, options, note, shard=shard)
    else:
        fragment = shard_split_records(
            args.metric,
            args.dataset,
            args.config,
            args.split,
            shard=shard,
            options=options,
            columns=column_overrides(args),
            system=args.system,
            ci=args.ci,
            resamples=args.resamples,
            seed=args.seed,
            confidence=args.confidence,
            sources=args.sources,
            cache_dir=args.cache_dir,
            num_proc=args.num_proc,
            command=_command(args),
            note=note,
        )
    write_fragment(fragment, args.out)
    items = len(fragment["item_ids"])
    source = f"{printable(args.input)} on " if args.input else ""
    print(
        f"{args.metric} shard {shard} of {source}{_label(fragment['dataset'])}: "
        f"{items:,} of {fragment['n_split_items']:,} items"
    )
    if fragment["signature"]:
        print(f"signature: {fragment['signature']}")
    print(f"fragment written to {args.out}", file=sys.stderr)
    result = fragment["result"] or {}
    if result.get("complete") is False and not args.allow_incomplete:
        print(
            f"argbench evaluate: error: incomplete shard: {result['n_failed']} judgment(s) "
            "failed; pass --allow-incomplete to accept it",
            file=sys.stderr,
        )
        return 1
    return 0


def _cmd_ray(args) -> int:
    """--engine ray: the run as --ray-shards shards on Ray Data, merged into --out
    (:mod:`argbench.ray_route`); the file is the plain run's but for created/command/digest."""
    from argbench.ray_route import evaluate_on_ray, start_ray

    other = args.shard or args.references or args.references_dataset
    if not (args.input and args.dataset and args.out) or other:
        raise UsageError(
            "--engine ray goes with FILE --dataset --out (and no --shard or --references)"
        )
    if args.dev or args.plot:
        raise UsageError("--engine ray takes no --dev or --plot")
    note = lambda m: print(f"note: {m}", file=sys.stderr)  # noqa: E731
    compute, features = metric_function(args.metric)
    options = options_of(args, compute, features)
    _claim_outputs(args)
    check_known_dataset(args)
    start_ray(args.ray_address)
    doc = evaluate_on_ray(
        args.metric,
        args.input,
        args.dataset,
        args.config,
        args.split,
        shards=args.ray_shards,
        command=_command(args),
        note=note,
        **_prediction_options(args, options),
    )
    write_results(doc, args.out)
    print(
        f"{args.metric} of {doc['system']} on {_label(doc['dataset'])} (Ray, {args.ray_shards} shards)"
    )
    if doc.get("signature"):
        print(f"signature: {doc['signature']}")
    print(format_table(doc["result"], args.metric))
    print(f"results written to {args.out}", file=sys.stderr)
    if doc["result"].get("complete") is False and not args.allow_incomplete:
        print(
            f"argbench evaluate: error: incomplete result: {doc['result']['n_failed']} "
            "judgment(s) failed; pass --allow-incomplete to accept it",
            file=sys.stderr,
        )
        return 1
    return 0


def _long_note(result: dict) -> str:
    """What was done with interventions of more than 3 questions, as the signature says
    (max_q:N the first N scored; max_q:all every one labelled, Useful / max(3, n))."""
    max_q = Signature.parse(result["signature"]).fields.get("max_q")
    many = f"{result['n_long']:,} intervention(s) had more than 3 questions"
    if max_q == "all":
        return (
            f"{many}: every question was labelled and scored, Useful / max(3, n) (max_q:all, "
            "not the paper's protocol)"
        )
    return (
        f"{many}: only the first {max_q} of each were scored (the paper's protocol; max_q:{max_q})"
    )


def _command(args) -> str:
    """The command line a results file or fragment records, with the judge's secrets (an
    ``api_key`` in an ``--option KEY=JSON`` object) hidden: the file is meant to be shared."""
    return shlex.join(["argbench", *map(_hide_secrets, getattr(args, "argv", sys.argv[1:]))])


def _hide_secrets(word: str) -> str:
    key, sep, text = str(word).partition("=")
    try:
        value = json.loads(text) if sep else None
    except ValueError:
        return word
    if not isinstance(value, dict) or not any(k in value for k in LLM_SECRET_OPTIONS):
        return word
    hidden = {k: "<hidden>" if k in LLM_SECRET_OPTIONS else v for k, v in value.items()}
    return f"{key}={json.dumps(hidden, ensure_ascii=False)}"


def run(args, note=lambda message: None) -> tuple[dict, str, dict | None]:
    """Run ``args.metric`` on what ``args`` names: (result, one-line header, results document
    when a dataset split is involved).

    The metric's plain function is called, not its evaluate module (the same code, tested equal):
    importing evaluate costs seconds, so bad input is reported at once and a text metric answers
    in well under a second; model metrics pay only for their model.
    """
    if (args.dev or args.plot) and not declaration(args.metric).curve:
        curves = [name for name, spec in declared_metrics().items() if spec.curve]
        raise UsageError(f"--dev and --plot go with {', '.join(curves)}")
    compute, features = metric_function(args.metric)
    options = options_of(args, compute, features)
    if args.out and not args.dataset:
        raise UsageError("--out needs --dataset: a results file names the split it scored")
    if (args.allow_missing or args.id) and not (args.input and args.dataset):
        raise UsageError("--allow-missing and --id go with FILE --dataset (predictions)")
    _claim_outputs(args)
    if args.dev:
        if "threshold" in options:
            raise UsageError("give --threshold or --dev, not both")
        options.update(_dev_options(args, features, note))
    if args.references or args.references_dataset:
        inputs, source = submission_inputs(args)
        result, doc = compute(**inputs, **options), None
    elif args.input and args.dataset:
        return _run_predictions(args, options, features, note)
    else:
        records, keys, source, split = records_of(args)
        inputs = _record_inputs(args, records, keys, split, features, note)
        ids = _item_ids(args, split, inputs)
        result, doc = compute(**inputs, **options), None
        if ids is not None:
            system = args.system or split.label()
            doc = build_document(
                args.metric, result, split, ids, system=system, command=_command(args)
            )
    n = len(next(iter(inputs.values())))
    _plot(args, result, source, note)
    return _with_intervals(args, result, doc), f"{args.metric} on {source}: {n:,} examples", doc


def _run_predictions(args, options, features, note) -> tuple[dict, str, dict]:
    """FILE --dataset: the predictions joined to the split (evaluate_predictions)."""
    check_known_dataset(args)
    try:
        doc = _evaluate_predictions(args, options, note)
    except ValueError as error:
        columns = {k: v for k, v in columns_of(args, features).items() if k != "predictions"}
        hint = config_hint(args.dataset, args.config, columns)
        if hint is None:
            raise
        fields = ", ".join(sorted(_fields(columns)))
        raise ValueError(f"{error}; {args.metric} reads {fields} from the split: {hint}") from None
    result = doc["result"]
    missing = (
        f" ({doc['n_missing']:,} without a prediction, not scored)" if doc["n_missing"] else ""
    )
    source = f"{printable(args.input)} on {_label(doc['dataset'])}"
    _plot(args, result, source, note)
    header = f"{args.metric} of {source}: {doc['n_items']:,} items{missing}"
    return result, header, doc  # intervals: evaluate_predictions(ci=...)


def _record_inputs(args, records, keys, split, features, note) -> dict:
    """compute() inputs of FILE's records or of a split's own (--dataset); a field the split
    lacks names the config that has it."""
    columns = columns_of(args, features)
    try:
        return inputs_from_records(
            args.metric, records, keys, features, columns, note, strip_numbers=not args.dataset
        )
    except ValueError as error:
        if declaration(args.metric).references_apart and not args.dataset:
            hint = "a shared-task submission needs --references FILE or --references-dataset"
            raise ValueError(f"{error}; {hint}") from None
        hint = config_hint(args.dataset, split.config, columns) if split is not None else None
        if hint is None:
            raise
        raise ValueError(
            f"{args.metric} needs the fields {', '.join(sorted(_fields(columns)))}, which "
            f"{split.label()} does not have ({error}): {hint}"
        ) from None


def _item_ids(args, split, inputs) -> list[str] | None:
    """The split's item ids when the records are one example each (None otherwise); with
    --out, records that expand to several examples each are refused here, before the work:
    a results file needs one id per scored item."""
    if split is None:
        return None
    ids = split_item_ids(split)
    n = len(next(iter(inputs.values())))
    if len(ids) == n:
        return ids
    if args.out:
        raise UsageError(
            f"--out: the {len(ids):,} records of {split.label()} become {n:,} examples (a "
            "list per record), and a results file needs one id per scored item: score "
            "a predictions FILE with --dataset, or drop --out"
        )
    return None


def _claim_outputs(args) -> None:
    """--out and --plot checked (writable, not an input) and locked before any work."""
    inputs = [args.input, args.dev, args.references, args.dataset]
    # the system's name (with no --system, the predictions file's stem) is shown and
    # recorded: one it would refuse fails before any work (any request to an LLM judge)
    if args.input and args.dataset:
        system_name(args.system, args.input, "--system")
    elif args.system:
        check_name(args.system, "--system")
    if args.out:
        claim_output(args.out, inputs=inputs, suffixes=(".json",), what="--out")
        check_text(_command(args), "the command line (a file name that is not UTF-8?)")
    if args.plot:
        claim_output(args.plot, inputs=inputs, suffixes=(".png",), what="--plot")


def _evaluate_predictions(args, options, note, shard=None) -> dict:
    return evaluate_predictions(
        args.metric,
        args.input,
        args.dataset,
        args.config,
        args.split,
        shard=shard,
        note=note,
        command=_command(args),
        **_prediction_options(args, options),
    )


def _prediction_options(args, options) -> dict:
    """evaluate_predictions' keyword arguments from the command line, but the shard, the
    command and the note (the plain route, a shard and the Ray route share these)."""
    return dict(
        options=options,
        columns=column_overrides(args),
        id_fields=args.id.split(",") if args.id else None,
        allow_missing=args.allow_missing,
        system=args.system,
        sources=args.sources,
        cache_dir=args.cache_dir,
        num_proc=args.num_proc,
        ci=args.ci,
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
    )


def _fields(columns: dict) -> set[str]:
    return {f for field in columns.values() for f in top_fields(field)}


def _dev_options(args, features, note) -> dict:
    """claim_relation --dev FILE: the development records as compute() options."""
    if not args.dev:
        return {}
    records, keys = file_records(args.dev)
    dev = inputs_from_records(
        args.metric, records, keys, features, columns_of(args, features), note
    )
    return {"dev_predictions": dev["predictions"], "dev_references": dev["references"]}


def _plot(args, result: dict, source: str, note) -> None:
    if args.plot:
        plot_curve(result, args.plot, f"{args.metric} on {source}")
        note(f"precision-recall curve: {args.plot}")


def _with_intervals(args, result: dict, doc: dict | None) -> dict:
    if args.ci:
        add_intervals(result, args.resamples, args.seed, args.confidence)
        if doc is not None:
            doc["result"] = plain(result)
    return result


def _label(dataset: dict) -> str:
    return "/".join(str(dataset[k]) for k in ("name", "config", "split") if dataset.get(k))
