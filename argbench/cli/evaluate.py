"""``argbench evaluate METRIC``: run an argbench metric on a JSON/JSONL file or a dataset split.

Records become compute() inputs through one column table (``COLUMNS``, overridable with
``--column``); inputs are checked against the metric's features here, so bad input is an error
naming the record and field, never an Arrow traceback.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import sys
from pathlib import Path

from argbench.cli import UsageError, add_data_options, add_num_proc, check_dataset
from argbench.cli._io import read_json, read_records
from argbench.metrics import list_metrics

# metric -> compute() input -> record field ("a.b": field b of every element of list a).
# Inputs that are metric features are required; the others (contexts, intervention_ids) are
# used when the first record has the field.
COLUMNS = {
    "annotator_agreement": {"ratings": "ratings"},
    "argument_answer_coherence": {"predictions": "answer", "references": "arguments"},
    "argument_overlap": {"predictions": "answer", "references": "arguments"},
    "argument_relevance": {"predictions": "answer", "references": "argument_relevance"},
    "claim_relation": {"predictions": "score", "references": "label"},
    "cq_reference_match": {
        "predictions": "cqs",
        "references": "references",
        "intervention_ids": "intervention_id",
    },
    "cr_diversity": {"predictions": "cq"},
    "rationale_f1": {
        "predictions": "predicted_rationales",
        "references": "rationales",
        "contexts": "claim_a",
    },
}
# metrics whose references are CAM argument lists ("N. " prefixes are stripped from files)
ARGUMENT_LISTS = ("argument_overlap", "argument_answer_coherence")
SHORTCUTS = ("model", "threshold", "matcher")  # --model X is --option model=X, etc.
CURVES = ("claim_relation",)  # metrics whose result has a pr_curve (--dev, --plot)

_DESCRIPTION = """\
Command line: run an argbench metric on your records and print its scalar outputs.

Input is a JSON file (a list of records, or an object keyed by id whose values are records),
a JSONL file (one record per line), or an argbench dataset split (--dataset). A record is an
object; for a metric with one input (annotator_agreement, cr_diversity) it may also be the bare
value (a list of ratings, a string). Default record fields per compute() input:

{columns}

Change them with --column INPUT=FIELD; FIELD may be "a.b" for field b of every element of list
a (e.g. predictions=cqs.cq for a CQs-Gen submission). contexts and intervention_ids are used
when the first record has the field. When a metric expects one string per example and the
field holds a list (e.g. the CAM files' gpt_answers), each element is an example and the
record's other fields are repeated. CAM argument lists in a file whose arguments all carry the
authors' "N. " prefixes numbered 1, 2, ... (silver_112x3.json) are stripped of them, as the
metrics expect (argument_overlap re-adds them where the notebook uses them).
argument_relevance needs the human labels: per record one integer per argument (0-3, -1 or
null for unknown), e.g. cam_answers' argument_relevance column.

claim_relation scores one ClaimDiff relation: a score per record (higher = more likely label 1)
and the gold label (the claimdiff column); --threshold sets the decision threshold, --dev FILE
(records of the same shape, e.g. from loaders.claimdiff.issue_split) chooses it by F1, and
--option hard_labels=true takes 0/1 decisions instead of scores. --plot FILE draws its
precision-recall curve (needs matplotlib).

cq_reference_match also reads shared-task files: SUBMISSION.json with --references
validation.json (or --references-dataset: the cqs_gen interventions split).

Output: a name/value table of the scalar outputs (nested counts as a.b); --json prints the whole
result, per-item lists included, as JSON (NaN, i.e. undefined, as null). Exit status 1 for bad
input or a failed computation, 2 for bad usage (unknown metric, bad option).
"""

_EPILOG = """\
examples:
  ARGBENCH_SOURCES=/path/to/mirror argbench evaluate argument_relevance \\
      --dataset cam_answers --config silver_subset
  argbench evaluate argument_overlap silver_112x3.json --column predictions=gpt_answers
  argbench evaluate rationale_f1 predictions.json --column predictions=my_rationales
  argbench evaluate cq_reference_match output.json --references validation.json \\
      --model sentence-transformers/all-MiniLM-L6-v2 --threshold 0.6
  argbench evaluate cr_diversity output.json --column predictions=cqs.cq --json
  argbench evaluate annotator_agreement ratings.json --option categories=[0,1,2,3]
  argbench evaluate claim_relation test.jsonl --dev dev.jsonl --plot pr.png
"""


def add_commands(subparsers) -> None:
    table = "\n".join(
        f"  {metric:<26} "
        + ", ".join(f"{name}<-{field}" for name, field in COLUMNS[metric].items())
        for metric in COLUMNS
    )
    ev = subparsers.add_parser(
        "evaluate",
        help="run a metric on a JSON/JSONL file or a dataset split",
        description=_DESCRIPTION.format(columns=table),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("metric", metavar="METRIC", choices=list_metrics(), help=", ".join(COLUMNS))
    ev.add_argument("input", nargs="?", metavar="FILE", help="records: .json or .jsonl")
    ev.add_argument("--dataset", help="read the records from this argbench dataset instead")
    ev.add_argument("--config", help="--dataset config")
    ev.add_argument("--split", help="--dataset split (needed when there are several)")
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
        "--threshold", type=float, help="threshold option (cq_reference_match, claim_relation)"
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
    try:
        result, header = run(args, note=lambda m: print(f"note: {m}", file=sys.stderr))
    except UsageError as error:
        print(f"argbench evaluate: error: {error}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, TypeError, RuntimeError, OSError) as error:
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"argbench evaluate: error: {message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(_plain(result), ensure_ascii=False, allow_nan=False, indent=1))
    else:
        print(header)
        print(format_table(result))
    return 0


def run(args, note=lambda message: None) -> tuple[dict, str]:
    """Run ``args.metric`` on the records ``args`` names; returns (result, one-line header).

    The metric's plain function is called, not its evaluate module (the same code, tested equal):
    importing evaluate costs seconds, so bad input is reported at once and a text metric answers
    in well under a second; model metrics pay only for their model.
    """
    from argbench.scoring import metric_function

    if (args.dev or args.plot) and args.metric not in CURVES:
        raise UsageError(f"--dev and --plot go with {', '.join(CURVES)}")
    compute, features = metric_function(args.metric)
    options = _options(args, compute, features)
    if args.references or args.references_dataset:
        inputs, source = _submission_inputs(args)
    else:
        records, keys, source = _records(args)
        try:
            inputs = _inputs(args, records, keys, features, note)
        except ValueError as error:
            if args.metric == "cq_reference_match" and not args.dataset:
                hint = "a shared-task submission needs --references FILE or --references-dataset"
                raise ValueError(f"{error}; {hint}") from None
            raise
    if args.dev:
        if "threshold" in options:
            raise UsageError("give --threshold or --dev, not both")
        records, keys = _file_records(Path(args.dev))
        dev = _inputs(args, records, keys, features, note)
        options.update(dev_predictions=dev["predictions"], dev_references=dev["references"])
    result = compute(**inputs, **options)
    n = len(next(iter(inputs.values())))
    if args.plot:
        plot_curve(result, args.plot, f"{args.metric} on {source}")
        note(f"precision-recall curve: {args.plot}")
    return result, f"{args.metric} on {source}: {n:,} examples"


def plot_curve(result: dict, path, title: str) -> None:
    """The precision-recall curve of a claim_relation result, as a PNG."""
    if "pr_curve" not in result:
        raise ValueError("--plot: the result has no precision-recall curve (hard labels?)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from argbench.scoring.claim_relation import draw_pr_curve

    fig, ax = plt.subplots(figsize=(6, 4.5))
    draw_pr_curve(ax, result, "scores")
    ax.set(title=title, xlabel="recall", ylabel="precision")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---- reading records ----


def _records(args) -> tuple[list, list | None, str]:
    """(records, their keys when the JSON was keyed by id, a description of the source)."""
    if args.dataset:
        if args.input:
            raise UsageError("give a FILE or --dataset, not both")
        return (*_dataset_records(args), _dataset_label(args))
    if args.config or args.split:
        raise UsageError("--config and --split go with --dataset")
    if not args.input:
        raise UsageError("give a FILE of records or --dataset NAME")
    return (*_file_records(Path(args.input)), args.input)


def _file_records(path: Path) -> tuple[list, list | None]:
    """(records, their keys when the JSON was keyed by id) of a .json / .jsonl file."""
    data = read_records(path, formats=("json", "jsonl"))
    if isinstance(data, dict):
        keys, records = list(data), list(data.values())
    elif isinstance(data, list):
        keys, records = None, data
    else:
        raise ValueError(f"{path}: expected a list of records or an object keyed by id")
    if not records:
        raise ValueError(f"{path}: no records")
    return records, keys


def _dataset_label(args) -> str:
    return "/".join(str(x) for x in (args.dataset, args.config, args.split) if x)


def _dataset_records(args) -> tuple[list, None]:
    import argbench

    check_dataset(args.dataset, args.config)
    data = argbench.load_dataset(
        args.dataset,
        args.config,
        args.split,
        sources=args.sources,
        cache_dir=args.cache_dir,
        num_proc=args.num_proc,
    )
    if args.split is None:
        if len(data) != 1:
            raise UsageError(f"{_dataset_label(args)} has splits {', '.join(data)}: pick --split")
        args.split = next(iter(data))
        data = data[args.split]
    return data.to_list(), None


def _submission_inputs(args) -> tuple[dict, str]:
    """compute() inputs from a CQs-Gen submission and its references (read_submission)."""
    from argbench.scoring.cq_reference_match import read_submission

    if args.metric != "cq_reference_match":
        raise UsageError("--references / --references-dataset go with cq_reference_match")
    if args.references and args.references_dataset:
        raise UsageError("give --references or --references-dataset, not both")
    if not args.input or args.dataset or args.column:
        raise UsageError("--references needs a SUBMISSION file (no --dataset, no --column)")
    if args.references:
        references = read_json(args.references)
    else:
        import argbench

        references = argbench.load_dataset(
            "cqs_gen",
            "interventions",
            args.references_dataset,
            sources=args.sources,
            cache_dir=args.cache_dir,
        ).to_list()
    inputs = read_submission(
        read_json(args.input), references, unknown=args.unknown, missing=args.missing
    )
    if not inputs["predictions"]:
        raise ValueError(f"{args.input}: no intervention to score")
    return inputs, args.input


# ---- records -> compute() inputs ----


def _columns(args, features) -> dict:
    columns = dict(COLUMNS[args.metric])
    for spec in args.column:
        name, sep, field = spec.partition("=")
        if not sep or name not in columns:
            raise UsageError(
                f"--column {spec!r}: expected INPUT=FIELD with INPUT one of {', '.join(columns)}"
            )
        columns[name] = field
    return {name: field for name, field in columns.items() if field or name in features}


def _where(index: int, keys) -> str:
    return f"record {index}" + (f" ({keys[index]!r})" if keys else "")


def _field(record, field: str, where: str):
    if isinstance(record, dict) and field in record:
        return record[field]
    head, _, rest = field.partition(".")
    if not isinstance(record, dict) or head not in record:
        have = list(record) if isinstance(record, dict) else type(record).__name__
        raise ValueError(f"{where}: no field {head!r} (has {have})")
    value = record[head]
    if not rest:
        return value
    if not isinstance(value, list):
        raise ValueError(
            f"{where}, field {head!r}: expected a list for {field!r}, got {value!r:.60}"
        )
    return [_field(item, rest, f"{where}, {head}[{j}]") for j, item in enumerate(value)]


def _inputs(args, records, keys, features, note) -> dict:
    columns = _columns(args, features)
    single = next(iter(features)) if len(features) == 1 else None
    used = {}
    for name, field in columns.items():
        first = records[0]
        if name not in features and not (isinstance(first, dict) and field.split(".")[0] in first):
            note(f"{name}: the records have no field {field!r}; not used")
            continue
        used[name] = field
    inputs: dict = {name: [] for name in used}
    expanded = []
    for index, record in enumerate(records):
        where = _where(index, keys)
        if single and not isinstance(record, dict):
            values = {single: record}
        else:
            values = {name: _field(record, field, where) for name, field in used.items()}
        listed = [
            name
            for name, value in values.items()
            if name in features and _is_string(features[name]) and isinstance(value, list)
        ]
        if listed:  # a list where a string is wanted: one example per element
            expanded.append(index)
            size = len(values[listed[0]])
            values = {k: v if k == listed[0] else [v] * size for k, v in values.items()}
        else:
            values = {k: [v] for k, v in values.items()}
        for name, value in values.items():
            if name in features:
                for item in value:
                    _check(item, features[name], f"{where}, field {used.get(name, name)!r}")
            inputs[name].extend(value)
    if expanded:
        note(
            f"{len(expanded)} record(s) hold a list where a string is expected: "
            f"{len(records)} records -> {len(next(iter(inputs.values())))} examples"
        )
    if args.metric in ARGUMENT_LISTS and not args.dataset:
        inputs["references"] = _strip_numbers(inputs["references"], note)
    return inputs


def _is_string(feature) -> bool:
    return feature == "string"


def _check(value, feature, where: str) -> None:
    """``value`` fits the metric feature, a plain ``INPUTS`` entry (see argbench.scoring);
    None is allowed inside lists: metrics treat unknowns."""
    from argbench.scoring import Labels

    def fail(expected):
        raise ValueError(f"{where}: expected {expected}, got {value!r:.80}")

    if isinstance(feature, dict):
        if not isinstance(value, dict):
            fail(f"an object with {', '.join(feature)}")
        for key, sub in feature.items():
            if key not in value:
                fail(f"an object with {', '.join(feature)} (no {key!r})")
            _check(value[key], sub, f"{where}.{key}")
    elif isinstance(feature, list):
        if not isinstance(value, list):
            fail("a list")
        for j, item in enumerate(value):
            if item is not None:
                _check(item, feature[0], f"{where}[{j}]")
    elif isinstance(feature, Labels):
        if value not in feature.names and not (
            type(value) is int and 0 <= value < len(feature.names)
        ):
            fail(f"one of {list(feature.names)} or its index")
    elif _is_string(feature):
        if not isinstance(value, str):
            fail("a string")
    elif feature.startswith(("int", "uint")):
        if type(value) is not int:
            fail("an integer")
    elif feature.startswith("float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            fail("a number")


def _strip_numbers(references: list, note) -> list:
    """Drop the authors' ``"N. "`` prefixes when every argument of every record has its own."""
    from argbench.loaders._readers import parse_numbered

    total = 0
    for index, arguments in enumerate(references):
        for position, argument in enumerate(arguments, 1):
            parsed = parse_numbered(argument)
            if not parsed or parsed[0] != position:
                if total or parsed:
                    note(
                        f"arguments kept as they are: example {index} argument {position - 1} "
                        f"is not numbered '{position}. ' ({argument!r:.60})"
                    )
                return references
            total += 1
    if not total:
        return references
    note(
        "stripped the authors' 'N. ' prefixes from the arguments: numbered 1, 2, ... in all "
        f"{len(references)} examples"
    )
    return [[parse_numbered(a)[1] for a in arguments] for arguments in references]


# ---- options and output ----


def _options(args, compute, features) -> dict:
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
    clash = sorted(set(options) & (set(COLUMNS[args.metric]) | set(features)))
    if clash:
        raise UsageError(f"{', '.join(clash)} is an input: set it with --column, not --option")
    parameters = inspect.signature(compute).parameters
    known = [p for p in parameters if p not in features]
    for key in options:
        if key not in known:
            raise UsageError(
                f"{args.metric} has no option {key!r}; options: {', '.join(known) or 'none'}"
            )
    return options


def _plain(value):
    """JSON-ready: numpy scalars and arrays as Python values, NaN / inf as None."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalar or array
        return _plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def scalars(result: dict, prefix: str = "") -> tuple[list[tuple[str, object]], list[str]]:
    """(name, value) of the scalar outputs (nested dicts as ``a.b``), and the other names."""
    rows, other = [], []
    for key, value in _plain(result).items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            sub_rows, sub_other = scalars(value, f"{name}.")
            rows += sub_rows
            other += sub_other
        elif isinstance(value, list):
            other.append(name)
        else:
            rows.append((name, value))
    return rows, other


def format_table(result: dict) -> str:
    rows, other = scalars(result)
    width = max([len("name")] + [len(name) for name, _ in rows])
    lines = [f"{'name':<{width}}  value"]
    for name, value in rows:
        text = (
            "undefined" if value is None else f"{value:.6g}" if isinstance(value, float) else value
        )
        lines.append(f"{name:<{width}}  {text}")
    if other:
        lines.append(f"(per-item outputs, with --json: {', '.join(other)})")
    return "\n".join(lines)
