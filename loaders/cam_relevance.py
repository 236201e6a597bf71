"""CAM argument relevance (Nikishina et al., ACL 2025): comparative sentences labelled 0-3."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime

import datasets

from argbench.sources import declare

from ._base import ArgbenchBuilder
from ._readers import csv_rows, split_numbered

_BASE = (
    "https://raw.githubusercontent.com/uhh-lt/cam-arg-relevance/"
    "7597cbd08047bf37d2569fba872727a30bf2eca4/data"
)

# The 0-3 scale of the annotation guidelines; a label's int is its value on the scale.
RELEVANCE_NAMES = [
    "irrelevant",  # 0
    "one_object",  # 1: useful information on one object only
    "both_objects",  # 2: both objects, no argumentation
    "both_objects_argued",  # 3: both objects with argumentation
]
TOLOKA_STATUSES = ["ACTIVE", "SUBMITTED", "APPROVED", "REJECTED", "SKIPPED", "EXPIRED"]

SOURCES = declare(
    _BASE,
    {
        "relevance": (
            "dataset_cqa_all_gpt.json",
            "205564aaae81f3d5f8be6c4787b14e3b6a9123fe30f19ed899db8d4146acc0e0",
        ),
        "toloka": (
            "assignments_from_pool_42774131__05-02-2024.tsv",
            "a6fe72c9f0f52ce097d964c2eca8f6d5c3d7477040ec2a11216de75e2aa05472",
        ),
        "expert": (
            "expert_annotation.xlsx",
            "be9faa4171f9e0d0957e74826a1c5daf39453ca70bd42cc6d915b3801060b48e",
        ),
    },
)

CITATION = """\
@inproceedings{nikishina-etal-2025-compare,
  title     = {How to Compare Things Properly? A Study of Argument Relevance in Comparative Question Answering},
  author    = {Nikishina, Irina and Anwar, Saba and Dolgov, Nikolay and Manina, Maria and
               Ignatenko, Daria and Shelmanov, Artem and Biemann, Chris},
  booktitle = {Proceedings of the 63rd Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)},
  year      = {2025},
  publisher = {Association for Computational Linguistics},
  doi       = {10.18653/v1/2025.acl-long.765},
  url       = {https://doi.org/10.18653/v1/2025.acl-long.765}
}
"""
HOMEPAGE = "https://github.com/uhh-lt/cam-arg-relevance"

_TOLOKA_COLUMNS = [
    "INPUT:input", "OUTPUT:R-4", "GOLDEN:R-4", "HINT:text", "HINT:default_language",
    "ASSIGNMENT:link", "ASSIGNMENT:task_id", "ASSIGNMENT:assignment_id",
    "ASSIGNMENT:worker_id", "ASSIGNMENT:status", "ASSIGNMENT:started",
]  # fmt: skip
_TOLOKA_INPUT = re.compile(
    r"\*\*(?P<a>.+?)\*\* vs \*\*(?P<b>.+?)\*\*\r?\n\r?\n"
    r"\*Rate the sentence from 0 to 3(?::\*|\*:)\r?\n\r?\n(?P<sentence>.*)\Z",
    re.S,
)
CONTROL_SHEET = "контрольные"  # the shared control items, rated by four experts


def relevance_label(value, builder, source, index, field, *, nullable=False):
    """A 0-3 label from an int, an integral float or a digit string; None only if ``nullable``."""
    if value is None or value == "":
        if nullable:
            return None
        raise builder.error(source, index, field, "missing label")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise builder.error(source, index, field, f"expected a label 0-3, got {value!r}")
    return value


def read_relevance_table(builder) -> list[dict]:
    """The pairs of ``dataset_cqa_all_gpt.json``, validated, labels as ints (GPT-4's None if absent)."""
    source = SOURCES["relevance"].filename
    with open(builder.source_path("relevance"), encoding="utf-8") as handle:
        payload = json.load(handle)
    if not isinstance(payload, list):
        raise builder.error(source, 0, "(top level)", "expected a list of object pairs")
    pairs = []
    for index, pair in enumerate(payload):
        for field in ("obj1", "obj2"):
            if not isinstance(pair.get(field), str) or not pair[field]:
                raise builder.error(source, index, field, "missing or not a string")
        if not isinstance(pair.get("arguments"), list):
            raise builder.error(source, index, "arguments", "missing or not a list")
        arguments = []
        for position, argument in enumerate(pair["arguments"]):
            field = f"arguments[{position}]"
            if not isinstance(argument.get("index"), int):
                raise builder.error(source, index, f"{field}.index", "missing or not an integer")
            text = argument.get("argument")
            if text is not None and not isinstance(text, str):
                raise builder.error(source, index, f"{field}.argument", "not a string or null")
            arguments.append(
                {
                    "index": argument["index"],
                    "argument": text,
                    "relevance": relevance_label(
                        argument.get("relevance"), builder, source, index, f"{field}.relevance"
                    ),
                    "relevance_gpt4": relevance_label(
                        argument.get("relevance_gpt"),
                        builder,
                        source,
                        index,
                        f"{field}.relevance_gpt",
                        nullable=True,
                    ),
                }
            )
        pairs.append({"object_a": pair["obj1"], "object_b": pair["obj2"], "arguments": arguments})
    return pairs


def _repeat_statistics(ds) -> list[str]:
    """How often a sentence repeats under one (sorted) object pair, and with which labels."""
    groups: dict = {}
    for a, b, text, human, gpt in zip(
        ds["object_a"],
        ds["object_b"],
        ds["argument"],
        ds["relevance"],
        ds["relevance_gpt4"],
        strict=True,
    ):
        if text is not None:
            groups.setdefault((*sorted((a, b)), text), []).append((human, gpt))
    repeated = [labels for labels in groups.values() if len(labels) > 1]
    humans = [{h for h, _ in labels} for labels in repeated]
    return [
        f"- sentences repeated under one object pair: {len(repeated)} "
        f"({sum(map(len, repeated)) - len(repeated)} extra rows); distinct (pair, sentence): {len(groups):,}",
        f"- repeated with different human labels: {sum(len(h) > 1 for h in humans)}, of which "
        f"{sum(len(h) > 1 and min(h) < 2 <= max(h) for h in humans)} straddle the relevant "
        f"threshold (≥ 2); with different GPT-4 labels: "
        f"{sum(len({g for _, g in labels}) > 1 for labels in repeated)}",
    ]


class CamRelevance(ArgbenchBuilder):
    """Relevance labels of comparative sentences: final, raw crowd (Toloka) and expert."""

    VERSION = datasets.Version("1.0.0")
    SOURCES = SOURCES
    HOMEPAGE = HOMEPAGE
    LICENSE = "unknown"
    CITATION = CITATION
    DESCRIPTION = (
        "CAM argument relevance: comparative sentences retrieved for an object pair, labelled 0-3 "
        "for relevance by crowd workers and experts, and by GPT-4."
    )
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="default",
            version=VERSION,
            description="the final labels of dataset_cqa_all_gpt.json: one row per sentence (1,770)",
        ),
        datasets.BuilderConfig(
            name="toloka",
            version=VERSION,
            description="the raw crowd assignments: one row per (task, assignment) of the TSV",
        ),
        datasets.BuilderConfig(
            name="expert",
            version=VERSION,
            description="expert labels from expert_annotation.xlsx, annotators anonymised",
        ),
    ]
    DEFAULT_CONFIG_NAME = "default"

    def _features(self) -> datasets.Features:
        label = datasets.ClassLabel(names=RELEVANCE_NAMES)
        text = datasets.Value("string")
        if self.config.name == "default":
            return datasets.Features(
                {
                    "pair_id": datasets.Value("int32"),
                    "object_a": text,
                    "object_b": text,
                    "index": datasets.Value("int32"),
                    "argument": text,
                    "relevance": label,
                    "relevance_gpt4": label,
                }
            )
        if self.config.name == "toloka":
            return datasets.Features(
                {
                    "input": text,
                    "object_a": text,
                    "object_b": text,
                    "sentence": text,
                    "label": label,
                    "golden_label": label,
                    "task_id": text,
                    "assignment_id": text,
                    "worker_id": text,
                    "link": text,
                    "status": datasets.ClassLabel(names=TOLOKA_STATUSES),
                    "started": datasets.Value("timestamp[ms]"),
                }
            )
        return datasets.Features(
            {
                "annotator": text,
                "row": datasets.Value("int32"),
                "object_a": text,
                "object_b": text,
                "argument_number": datasets.Value("int32"),
                "argument": text,
                "label": label,
                "comment": text,
                "supposed_label": label,
            }
        )

    def _split_generators(self, dl_manager):
        if self.config.name == "expert":
            return [
                datasets.SplitGenerator(datasets.Split.TRAIN, gen_kwargs={"control": False}),
                datasets.SplitGenerator("control", gen_kwargs={"control": True}),
            ]
        return [datasets.SplitGenerator(datasets.Split.TRAIN)]

    def _generate_examples(self, control=False):
        if self.config.name == "default":
            yield from self._default()
        elif self.config.name == "toloka":
            yield from self._toloka()
        else:
            yield from self._expert(control)

    def _default(self):
        for pair_id, pair in enumerate(read_relevance_table(self)):
            for argument in pair["arguments"]:
                yield (
                    argument["index"],
                    {
                        "pair_id": pair_id,
                        "object_a": pair["object_a"],
                        "object_b": pair["object_b"],
                        **argument,
                    },
                )

    def _toloka(self):
        source = SOURCES["toloka"].filename
        for index, row in csv_rows(self, "toloka", _TOLOKA_COLUMNS, delimiter="\t"):
            yield index, self._toloka_row(source, index, row)

    def _toloka_row(self, source, index, row) -> dict:
        for column in ("HINT:text", "HINT:default_language"):
            if row[column]:  # always empty in the release, so not a column of ours
                raise self.error(source, index, column, f"expected empty, got {row[column]!r}")
        if row["ASSIGNMENT:status"] not in TOLOKA_STATUSES:
            raise self.error(
                source,
                index,
                "ASSIGNMENT:status",
                f"expected one of {TOLOKA_STATUSES}, got {row['ASSIGNMENT:status']!r}",
            )
        try:
            started = datetime.fromisoformat(row["ASSIGNMENT:started"])
        except ValueError:
            raise self.error(
                source,
                index,
                "ASSIGNMENT:started",
                f"not an ISO timestamp: {row['ASSIGNMENT:started']!r}",
            ) from None
        match = _TOLOKA_INPUT.match(row["INPUT:input"])
        return {
            "input": row["INPUT:input"],
            "object_a": match["a"] if match else None,
            "object_b": match["b"] if match else None,
            # the task shows the objects in bold; the sentence without the markup
            "sentence": match["sentence"].replace("**", "") if match else None,
            "label": relevance_label(
                row["OUTPUT:R-4"], self, source, index, "OUTPUT:R-4", nullable=True
            ),
            "golden_label": relevance_label(
                row["GOLDEN:R-4"], self, source, index, "GOLDEN:R-4", nullable=True
            ),
            "task_id": row["ASSIGNMENT:task_id"],
            "assignment_id": row["ASSIGNMENT:assignment_id"],
            "worker_id": row["ASSIGNMENT:worker_id"],
            "link": row["ASSIGNMENT:link"],
            "status": row["ASSIGNMENT:status"],
            "started": started,
        }

    def _expert(self, control: bool):
        from openpyxl import load_workbook

        source = SOURCES["expert"].filename
        workbook = load_workbook(self.source_path("expert"), read_only=True, data_only=True)
        try:
            if control:
                if CONTROL_SHEET not in workbook.sheetnames:
                    raise self.error(source, 0, "sheet", "the control sheet is missing")
                yield from self._control_rows(source, workbook[CONTROL_SHEET])
                return
            annotator = 0
            for sheet in workbook.worksheets:
                if sheet.title == CONTROL_SHEET:
                    continue
                rows = list(self._annotator_rows(source, sheet))
                if rows:  # sheets nobody labelled (Sheet4, Sheet6, Sheet7) are no annotator
                    annotator += 1
                    for row in rows:
                        row["annotator"] = f"annotator_{annotator}"
                        yield f"{annotator}-{row['row']}", row
        finally:
            workbook.close()

    def _cells(self, sheet, width, source=None):
        """(sheet row number, first ``width`` cells) of the data rows; strings stripped, '' -> None.

        With ``source``, a value right of those cells is an error (nothing is dropped unseen).
        """
        for number, values in enumerate(sheet.iter_rows(min_row=2, values_only=True), start=2):
            cells = [c.strip() or None if isinstance(c, str) else c for c in values]
            if source and any(c is not None for c in cells[width:]):
                raise self.error(source, number, f"column {width + 1}+", "unexpected value")
            yield number, [*cells[:width], *[None] * (width - len(cells[:width]))]

    def _comparison(self, source, where, value) -> tuple[str, str]:
        parts = value.split(" vs ") if isinstance(value, str) else []
        if len(parts) != 2 or not all(parts):
            raise self.error(source, where, "comparison", f"expected 'X vs Y', got {value!r}")
        return parts[0], parts[1]

    def _annotator_rows(self, source, sheet):
        """Rows that carry a label or a comment; item rows with neither were never annotated.

        The example index in errors is the sheet row number (the sheet is not named: its
        name is a person's name).
        """
        for number, (comparison, argument, label, comment) in self._cells(sheet, 4, source):
            if comparison is None and argument is None and label is None and comment is None:
                continue  # padding
            if comparison is None or argument is None:
                field = "comparison" if comparison is None else "arguments"
                raise self.error(source, number, field, "half-filled row: missing")
            if label is None and comment is None:
                continue  # an item left unannotated
            object_a, object_b = self._comparison(source, number, comparison)
            argument_number, text = split_numbered(argument, self, source, number, "arguments")
            yield {
                "row": number,
                "object_a": object_a,
                "object_b": object_b,
                "argument_number": argument_number,
                "argument": text,
                "label": relevance_label(label, self, source, number, "relevance", nullable=True),
                "comment": comment if comment is None else str(comment),
                "supposed_label": None,
            }

    def _control_rows(self, source, sheet):
        """One row per (control item, rater column C-F); column I is the supposed label."""
        for number, cells in self._cells(sheet, 9):
            comparison, argument, *ratings = cells[:6]
            supposed = cells[8]
            if all(c is None for c in cells):
                continue
            if comparison is None or argument is None:
                field = "comparison" if comparison is None else "arguments"
                raise self.error(source, number, field, "half-filled row: missing")
            object_a, object_b = self._comparison(source, number, comparison)
            for rater, value in enumerate(ratings, start=1):
                yield (
                    f"{number}-{rater}",
                    {
                        "annotator": f"rater_{rater}",
                        "row": number,
                        "object_a": object_a,
                        "object_b": object_b,
                        "argument_number": None,
                        "argument": argument,
                        "label": relevance_label(value, self, source, number, f"relevance{rater}"),
                        "comment": None,
                        "supposed_label": relevance_label(
                            supposed, self, source, number, "(supposed) relevance", nullable=True
                        ),
                    },
                )

    @classmethod
    def card_statistics(cls, config, splits):
        lines = []
        for split, ds in splits.items():
            if config == "default":
                human = Counter(ds["relevance"])
                gpt = Counter(ds["relevance_gpt4"])
                real = [a is not None for a in ds["argument"]]
                lines += [
                    f"- rows: {len(ds):,}; object pairs: {len(set(ds['pair_id']))}; "
                    f"placeholder rows (argument null): {real.count(False)}",
                    "",
                    "| label | human | GPT-4 | human, real sentences only |",
                    "|---|---|---|---|",
                ]
                real_human = Counter(r for r, ok in zip(ds["relevance"], real, strict=True) if ok)
                for value, name in enumerate(RELEVANCE_NAMES):
                    lines.append(
                        f"| {value} {name} | {human[value]:,} | {gpt[value]:,} | {real_human[value]:,} |"
                    )
                if gpt[None]:
                    lines.append(f"| null | 0 | {gpt[None]:,} | |")
                lines += ["", *_repeat_statistics(ds)]
            elif config == "toloka":
                labels = Counter(ds["label"])
                status = Counter(ds["status"])
                lines += [
                    f"- rows: {len(ds):,}; tasks: {len(set(ds['task_id'])):,}; "
                    f"workers: {len(set(ds['worker_id'])):,}; assignments: {len(set(ds['assignment_id'])):,}",
                    "- status: "
                    + ", ".join(f"{TOLOKA_STATUSES[s]} {n:,}" for s, n in sorted(status.items())),
                    "- labels: "
                    + ", ".join(f"{v}: {labels[v]:,}" for v in range(4))
                    + f", none: {labels[None]:,}",
                    f"- rows with a golden (control) label: {len(ds) - ds['golden_label'].count(None):,}",
                ]
            else:
                labels = Counter(ds["label"])
                lines += [
                    f"`{split}`: {len(ds):,} rows, annotators: "
                    + ", ".join(f"{a} {n}" for a, n in sorted(Counter(ds["annotator"]).items())),
                    "",
                    "- labels: "
                    + ", ".join(f"{v}: {labels[v]:,}" for v in range(4))
                    + f", none: {labels[None]:,}",
                    f"- rows with a comment: {len(ds) - ds['comment'].count(None):,}",
                    "",
                ]
        return lines
