"""CQs-Gen (Calvo Figueras et al.): interventions with labelled reference critical questions."""

from __future__ import annotations

import json
from collections import Counter

import datasets

from argbench.constants import CQ_LABELS
from argbench.sources import declare

from ._base import ArgbenchBuilder

_BENCH = "https://raw.githubusercontent.com/hitz-zentroa/Benchmarking_CQs-Gen/84bc5992d0366cf787aec7b3111ceeeb12126be0"
# A later commit of the same repository releases the test references (test.json) and the test
# questions extended with the shared task's manually labelled submissions (extended_test.json).
_BENCH_TEST = "https://raw.githubusercontent.com/hitz-zentroa/Benchmarking_CQs-Gen/a52bff338a541d15e3c55356c5874deb4398e371"
_TASK = "https://raw.githubusercontent.com/hitz-zentroa/shared-task-critical-questions-generation/cd5d202ab02f89d9e5ac41d2402079bebad18b52"

LABELS = list(CQ_LABELS)
# extended_test.json labels two submitted questions "Wrong reasoning", a label outside the
# paper's three. The guidelines put wrong reasoning under Invalid ("not a critical question of
# this intervention: wrong reasoning, new concepts, ..."), so it maps there; `label_raw` keeps it.
LABEL_MAP = {"Wrong reasoning": "Invalid"}
# 1.0.0: test without references (the shared task's test.json at cd5d202).
# 2.0.0: test with its references (test.json at a52bff3) and the `extended` config.
V1 = datasets.Version("1.0.0")
V2 = datasets.Version("2.0.0")

CITATION = """\
@inproceedings{calvo-figueras-etal-2025-benchmarking,
  title     = {Benchmarking Critical Questions Generation: A Challenging Reasoning Task for Large Language Models},
  author    = {Calvo Figueras, Blanca and Agerri, Rodrigo},
  booktitle = {Proceedings of the 2025 Conference on Empirical Methods in Natural Language Processing},
  year      = {2025}
}
"""

_INTERVENTION_FIELDS = ["intervention_id", "intervention", "dataset", "schemes", "cqs"]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class CqsGen(ArgbenchBuilder):
    """Critical-questions generation: validation and test with labelled references (2.0.0;
    ``version="1.0.0"`` builds the earlier release, test without references)."""

    VERSION = V2
    EARLIER_VERSIONS = (str(V1),)
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
            _BENCH_TEST,
            {
                "test_references": (
                    "data/test.json",
                    "c92c3bf32c7287b3fc371d0b36ffe755ccbb98ad2aba62883865bff24ca073ed",
                ),
                "extended": (
                    "data/extended_test.json",
                    "c13b03c9c3f55117c5dab799bb56c864fe323ce7605689391deb7cbc4729a667",
                ),
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
    LICENSE = "cc-by-3.0"  # the authors' Hub copy HiTZ/CQs-Gen declares it
    CITATION = CITATION
    DESCRIPTION = "CQs-Gen: argumentative interventions and critical questions labelled Useful / Unhelpful / Invalid."
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="interventions",
            version=VERSION,
            description="one row per intervention with its labelled reference questions "
            "(1.0.0: test without references)",
        ),
        datasets.BuilderConfig(
            name="questions",
            version=VERSION,
            description="one row per labelled reference question (validation and test; "
            "1.0.0: validation only)",
        ),
        datasets.BuilderConfig(
            name="extended",
            version=VERSION,
            description="test interventions whose references are the test references followed by "
            "the shared task's manually labelled submitted questions (2.0.0 only)",
        ),
    ]
    DEFAULT_CONFIG_NAME = "interventions"

    @property
    def _v1(self) -> bool:
        return self.config.version == V1

    def _features(self) -> datasets.Features:
        if self.config.name == "extended" and self._v1:
            raise ValueError(f"cqs_gen config 'extended' exists from version {V2} on")
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
        reference = {"id": datasets.Value("string"), "cq": datasets.Value("string"), "label": label}
        if self.config.name == "extended":
            reference = {
                **reference,
                # -1: a test reference; k >= 0: the k-th block of submitted questions
                "submission": datasets.Value("int32"),
                "release_id": datasets.Value("string"),
                "label_raw": datasets.Value("string"),
                "reason": datasets.Value("string"),
            }
        return datasets.Features(
            {
                "intervention_id": datasets.Value("string"),
                "intervention": datasets.Value("string"),
                "dataset": datasets.Value("string"),
                "schemes": datasets.List(datasets.Value("string")),
                "references": datasets.List(reference),
            }
        )

    def _split_generators(self, dl_manager):
        if self.config.name == "extended":
            return [datasets.SplitGenerator("test", gen_kwargs={"key": "extended"})]
        test = "test" if self._v1 else "test_references"
        splits = {"validation": "validation", "test": test}
        if self._v1 and self.config.name == "questions":
            del splits["test"]
        return [datasets.SplitGenerator(name, gen_kwargs={"key": k}) for name, k in splits.items()]

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
            allowed = LABELS + (list(LABEL_MAP) if key == "extended" else [])
            for position, cq in enumerate(record["cqs"]):
                if cq.get("label") not in allowed:
                    raise self.error(
                        source,
                        index,
                        f"cqs[{position}].label",
                        f"expected one of {allowed}, got {cq.get('label')!r}",
                    )
                if not isinstance(cq.get("cq"), str) or "id" not in cq:
                    raise self.error(source, index, f"cqs[{position}]", "needs an id and a cq")
                references.append(dict(cq))
            if key != "test" and not references:
                raise self.error(source, index, "cqs", "intervention without reference questions")
            yield index, record, references

    def _extended(self, references, record, test_ids, source, index):
        """Mark each question as a test reference (submission -1) or as a submitted one, with
        the index of its submission. The submitted questions follow the test references in
        blocks of 3, one per submission, in the same order in every intervention (the 10th
        block is always one question of each of three systems, string ids naming them). A
        block is cut short (2 questions, twice in the release) where a fresh run ``0, 1``
        starts. The release's integer ids repeat within an intervention (even within a block:
        ``0, 1, 0``), so a submitted question's id becomes ``<intervention>_s<block>_q<position
        in block>``; ``release_id`` keeps the release's."""
        n = len(test_ids)
        if [r["id"] for r in references[:n]] != test_ids:
            raise self.error(source, index, "cqs", "does not start with the test references")
        raw = [r.pop("raw_id") for r in references]
        block, size, out = -1, 0, []
        for position, ref in enumerate(references):
            if position >= n:
                this, before = raw[position], raw[position - 1]
                after = raw[position + 1] if position + 1 < len(raw) else None
                fresh_run = size == 2 and this == 0 and after == 1 and _is_int(this)
                if block < 0 or size == 3 or _is_int(this) != _is_int(before) or fresh_run:
                    block, size = block + 1, 0
                ref["id"] = f"{record['intervention_id']}_s{block:02d}_q{size}"
                size += 1
            label = ref["label"]
            out.append(
                {
                    "id": ref["id"],
                    "cq": ref["cq"],
                    "label": LABEL_MAP.get(label, label),
                    "submission": block if position >= n else -1,
                    "release_id": str(raw[position]),
                    "label_raw": label,
                    "reason": ref.get("reason"),
                }
            )
        if len({r["id"] for r in out}) != len(out):
            raise self.error(source, index, "cqs", "question ids are not unique after numbering")
        return out

    def _generate_examples(self, key):
        test_ids = {}
        if key == "extended":
            test_ids = {
                record["intervention_id"]: [str(r["id"]) for r in refs]
                for _, record, refs in self._interventions("test_references")
            }
        for index, record, references in self._interventions(key):
            if key == "extended":
                for ref in references:
                    ref["raw_id"], ref["id"] = ref["id"], str(ref["id"])
                if record["intervention_id"] not in test_ids:
                    raise self.error(
                        self.SOURCES[key].filename, index, "intervention_id", "not in test.json"
                    )
                references = self._extended(
                    references,
                    record,
                    test_ids[record["intervention_id"]],
                    self.SOURCES[key].filename,
                    index,
                )
            else:
                references = [
                    {"id": str(r["id"]), "cq": r["cq"], "label": r["label"]} for r in references
                ]
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
            lines = []
            for split, ds in splits.items():
                names = ds.features["label"].names
                counts = Counter(ds["label"])
                total = sum(counts.values())
                shares = ", ".join(
                    f"{n} {counts[i]:,} ({counts[i] / total:.1%})" for i, n in enumerate(names)
                )
                lines.append(f"- {split}: {total:,} questions; {shares}")
            return lines
        lines = [
            "| split | interventions | reference questions | per intervention | source corpora |",
            "|---|---|---|---|---|",
        ]
        for name, ds in splits.items():
            refs = sum(len(r) for r in ds["references"])
            corpora = ", ".join(f"{k} {v}" for k, v in sorted(Counter(ds["dataset"]).items()))
            lines.append(f"| {name} | {len(ds):,} | {refs:,} | {refs / len(ds):.1f} | {corpora} |")
        if config == "extended":
            submitted = [
                r for refs in splits["test"]["references"] for r in refs if r["submission"] >= 0
            ]
            raw = Counter(r["label_raw"] for r in submitted)
            lines += [
                "",
                f"- submitted questions: {len(submitted):,}, in "
                f"{len({r['submission'] for r in submitted})} blocks; labels as released: "
                + ", ".join(f"{k} {v:,}" for k, v in sorted(raw.items())),
                f"- with a `reason`: {sum(1 for r in submitted if r['reason'] is not None):,}",
            ]
        return lines
