"""CQs-Gen (Calvo Figueras et al.): interventions with labelled reference critical questions."""

from __future__ import annotations

import json
from collections import Counter

import datasets

from argbench.constants import CQ_LABELS
from argbench.sources import declare

from ._base import ArgbenchBuilder

_BENCH = "https://raw.githubusercontent.com/hitz-zentroa/Benchmarking_CQs-Gen/84bc5992d0366cf787aec7b3111ceeeb12126be0"
_TASK = "https://raw.githubusercontent.com/hitz-zentroa/shared-task-critical-questions-generation/cd5d202ab02f89d9e5ac41d2402079bebad18b52"

LABELS = list(CQ_LABELS)

CITATION = """\
@inproceedings{calvo-figueras-etal-2025-benchmarking,
  title     = {Benchmarking Critical Questions Generation: A Challenging Reasoning Task for Large Language Models},
  author    = {Calvo Figueras, Blanca and Agerri, Rodrigo},
  booktitle = {Proceedings of the 2025 Conference on Empirical Methods in Natural Language Processing},
  year      = {2025}
}
"""

_INTERVENTION_FIELDS = ["intervention_id", "intervention", "dataset", "schemes", "cqs"]


class CqsGen(ArgbenchBuilder):
    """Critical-questions generation: validation with references, test without."""

    VERSION = datasets.Version("1.0.0")
    SOURCES = {
        **declare(
            _BENCH,
            {
                "validation": (
                    "data/validation.json",
                    "63ce7d210dbe27e0120063a98e4ecc2496cba50fdd0011122a09ca11aa9c6cbc",
                )
            },
        ),
        **declare(
            _TASK,
            {
                "test": (
                    "shared_task/data_splits/test.json",
                    "6eae75d19d76da7996f04f09476acea5502ec6157123d80189f23363e3248e3e",
                )
            },
        ),
    }
    # The shared task's trial submission: a real system output (Llama 3 8B, 3 questions for
    # each of the 5 sample interventions), scored by `argbench reproduce`; not in the dataset.
    COMPANION_SOURCES = declare(
        _TASK,
        {
            "trial_output": (
                "shared_task/trial_submission/output_llama8.json",
                "a5fdd99a8523a24f769b174f4d41c91b7dd9218099f6e0e041fe06d558c153c7",
            )
        },
    )
    HOMEPAGE = "https://github.com/hitz-zentroa/Benchmarking_CQs-Gen"
    LICENSE = "unknown"
    CITATION = CITATION
    DESCRIPTION = "CQs-Gen: argumentative interventions and critical questions labelled Useful / Unhelpful / Invalid."
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="interventions",
            version=VERSION,
            description="one row per intervention; validation carries its labelled reference questions",
        ),
        datasets.BuilderConfig(
            name="questions",
            version=VERSION,
            description="one row per labelled reference question (validation)",
        ),
    ]
    DEFAULT_CONFIG_NAME = "interventions"

    def _features(self) -> datasets.Features:
        label = datasets.ClassLabel(names=LABELS)
        if self.config.name == "questions":
            return datasets.Features(
                {
                    "intervention_id": datasets.Value("string"),
                    "id": datasets.Value("string"),
                    "cq": datasets.Value("string"),
                    "label": label,
                }
            )
        return datasets.Features(
            {
                "intervention_id": datasets.Value("string"),
                "intervention": datasets.Value("string"),
                "dataset": datasets.Value("string"),
                "schemes": datasets.List(datasets.Value("string")),
                "references": datasets.List(
                    {"id": datasets.Value("string"), "cq": datasets.Value("string"), "label": label}
                ),
            }
        )

    def _split_generators(self, dl_manager):
        splits = ["validation"] if self.config.name == "questions" else ["validation", "test"]
        return [datasets.SplitGenerator(split, gen_kwargs={"key": split}) for split in splits]

    def _interventions(self, key):
        """Validated interventions of one source file, in file order."""
        source = self.SOURCES[key].filename
        with open(self.source_path(key), encoding="utf-8") as handle:
            payload = json.load(handle)
        for index, (intervention_id, record) in enumerate(payload.items()):
            missing = [f for f in _INTERVENTION_FIELDS if f not in record]
            if missing:
                raise self.error(source, index, missing[0], "missing")
            if record["intervention_id"] != intervention_id:
                raise self.error(
                    source, index, "intervention_id", f"differs from its key {intervention_id!r}"
                )
            references = []
            for position, cq in enumerate(record["cqs"]):
                if cq.get("label") not in LABELS:
                    raise self.error(
                        source,
                        index,
                        f"cqs[{position}].label",
                        f"expected one of {LABELS}, got {cq.get('label')!r}",
                    )
                references.append({"id": str(cq["id"]), "cq": cq["cq"], "label": cq["label"]})
            if key == "validation" and not references:
                raise self.error(
                    source, index, "cqs", "validation intervention without reference questions"
                )
            yield index, record, references

    def _generate_examples(self, key):
        for index, record, references in self._interventions(key):
            if self.config.name == "questions":
                for ref in references:
                    yield ref["id"], {"intervention_id": record["intervention_id"], **ref}
            else:
                yield (
                    index,
                    {
                        "intervention_id": record["intervention_id"],
                        "intervention": record["intervention"],
                        "dataset": record["dataset"],
                        "schemes": list(record["schemes"]),
                        "references": references,
                    },
                )

    @classmethod
    def card_statistics(cls, config, splits):
        if config == "questions":
            names = splits["validation"].features["label"].names
            counts = Counter(splits["validation"]["label"])
            total = sum(counts.values())
            return [
                f"- {names[i]}: {counts[i]:,} ({counts[i] / total:.1%})" for i in range(len(names))
            ]
        lines = [
            "| split | interventions | reference questions | source corpora |",
            "|---|---|---|---|",
        ]
        for name, ds in splits.items():
            refs = sum(len(r) for r in ds["references"])
            corpora = ", ".join(f"{k} {v}" for k, v in sorted(Counter(ds["dataset"]).items()))
            lines.append(f"| {name} | {len(ds):,} | {refs:,} | {corpora} |")
        return lines
