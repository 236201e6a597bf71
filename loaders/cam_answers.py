"""CAM comparative answers: ChatGPT answers (silver) and expert-edited answers (gold).

Each row carries its numbered argument list and the relevance labels of those arguments, so an
answer can be scored without another join.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections import Counter

import datasets

from argbench.sources import declare, resolve

from . import cam_relevance
from ._base import ArgbenchBuilder
from ._readers import split_numbered
from .cam_relevance import (
    _BASE,
    CITATION,
    HOMEPAGE,
    RELEVANCE_NAMES,
    read_relevance_table,
)

# config -> source key of its answers
ANSWER_FILES = {"silver": "silver_112", "silver_subset": "silver_50", "gold": "gold"}


def relevance_lookup(pairs) -> dict[tuple[str, str], dict[str, tuple[int, int | None]]]:
    """sorted (object, object) -> argument text -> (human, GPT-4) label.

    Matching is case-sensitive on the sorted pair, as in the authors' code. A text that occurs
    several times under one pair takes the highest label of its copies (separately for human
    and GPT-4), so ``label >= 2`` holds exactly when some copy is >= 2 — the authors' rule.
    Entries whose sorted pairs coincide are merged. Placeholder rows (text null) match nothing.
    """
    lookup: dict = {}
    for pair in pairs:
        texts = lookup.setdefault(tuple(sorted((pair["object_a"], pair["object_b"]))), {})
        for argument in pair["arguments"]:
            text = argument["argument"]
            if text is None:
                continue
            human, gpt = argument["relevance"], argument["relevance_gpt4"]
            if text in texts:
                old_human, old_gpt = texts[text]
                human = max(human, old_human)
                gpt = old_gpt if gpt is None else gpt if old_gpt is None else max(gpt, old_gpt)
            texts[text] = (human, gpt)
    return lookup


class CamAnswers(ArgbenchBuilder):
    """Comparative answers with their argument lists and aligned relevance labels."""

    VERSION = datasets.Version("2.0.0")
    # 1.0.0: question_id was the bare int position, the same number in every config
    EARLIER_VERSIONS = ("1.0.0",)
    SOURCES = {
        **declare(
            _BASE,
            {
                "silver_112": (
                    "silver_112x3.json",
                    "8172ae6dedef19223814fb0607b58a90bba5965c568cb6a05e55347c1503a8f7",
                ),
                "silver_50": (
                    "silver_50x3.json",
                    "8f924fe27fb9aa0c5e14fa5c287be3336c890fbdfc100f02d755cb37a9316c5e",
                ),
                "gold": (
                    "gold_40_plus_10x4.json",
                    "8c50cbb538b8211f1c9deb6a877bcc4c22678127c569edf3e47f1b8d689d9f86",
                ),
            },
        ),
        "relevance": cam_relevance.SOURCES["relevance"],
    }
    HOMEPAGE = HOMEPAGE
    LICENSE = "unknown"
    CITATION = CITATION
    DESCRIPTION = (
        "CAM comparative answers: answers to 'X or Y?' written from a numbered list of retrieved "
        "arguments, citing them as [N]; silver by ChatGPT, gold edited by experts."
    )
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="silver",
            version=VERSION,
            description="silver_112x3.json: 3 ChatGPT answers for each of 112 object pairs",
        ),
        datasets.BuilderConfig(
            name="silver_subset",
            version=VERSION,
            description="silver_50x3.json: the 50 pairs of the gold set, 3 answers each",
        ),
        datasets.BuilderConfig(
            name="gold",
            version=VERSION,
            description="gold_40_plus_10x4.json: 80 expert-edited answers for 50 pairs",
        ),
    ]
    DEFAULT_CONFIG_NAME = "silver"

    @classmethod
    def cache_key(cls) -> str:
        """Also keyed on cam_relevance, whose parser and label names this builder uses."""
        digest = hashlib.sha256(super().cache_key().encode())
        digest.update(inspect.getsource(cam_relevance).encode())
        return digest.hexdigest()[:16]

    @property
    def _v1(self) -> bool:
        return str(self.config.version) == "1.0.0"

    def _features(self) -> datasets.Features:
        text = datasets.Value("string")
        label = datasets.ClassLabel(names=RELEVANCE_NAMES)
        return datasets.Features(
            {
                "question_id": datasets.Value("int32" if self._v1 else "string"),
                "object_a": text,
                "object_b": text,
                "aspect": text,
                "question": text,
                "answer_index": datasets.Value("int32"),
                "answer": text,
                "prompt": text,
                "arguments": datasets.List(text),
                "argument_relevance": datasets.List(label),
                "argument_relevance_gpt4": datasets.List(label),
            }
        )

    def _split_generators(self, dl_manager):
        return [datasets.SplitGenerator(datasets.Split.TRAIN)]

    def _load(self, key) -> list:
        source = self.SOURCES[key].filename
        with open(self.source_path(key), encoding="utf-8") as handle:
            payload = json.load(handle)
        if not isinstance(payload, list):
            raise self.error(source, 0, "(top level)", "expected a list of questions")
        for index, item in enumerate(payload):
            for field in ("object1", "object2"):
                if not isinstance(item.get(field), str) or not item[field]:
                    raise self.error(source, index, field, "missing or not a string")
        return payload

    def _arguments(self, key, index, item) -> list[str]:
        """The numbered list without its ``N. `` prefixes; N must be the position (from 1)."""
        source = self.SOURCES[key].filename
        if not isinstance(item.get("arguments"), list):
            raise self.error(source, index, "arguments", "missing or not a list")
        texts = []
        for position, entry in enumerate(item["arguments"], start=1):
            field = f"arguments[{position - 1}]"
            number, text = split_numbered(entry, self, source, index, field)
            if number != position:
                raise self.error(
                    source,
                    index,
                    field,
                    f"numbered {number}, expected {position}: [N] would not be arguments[N-1]",
                )
            texts.append(text)
        return texts

    def _answers(self, key, index, item, field) -> list[str]:
        answers = item.get(field)
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            raise self.error(
                self.SOURCES[key].filename, index, field, "missing or not a list of strings"
            )
        return answers

    def _generate_examples(self):
        lookup = relevance_lookup(read_relevance_table(self))
        key = ANSWER_FILES[self.config.name]
        items = self._load(key)
        if key == "gold":
            # the gold file has no argument lists: the authors take silver_50x3's, by ordered pair
            silver = {
                (item["object1"], item["object2"]): (index, item)
                for index, item in enumerate(self._load("silver_50"))
            }
        for index, item in enumerate(items):
            if key == "gold":
                pair = (item["object1"], item["object2"])
                if pair not in silver:
                    raise self.error(
                        self.SOURCES[key].filename,
                        index,
                        "object1",
                        f"no item of {self.SOURCES['silver_50'].filename} has (object1, object2) = {pair}",
                    )
                arguments = self._arguments("silver_50", *silver[pair])
                answers = self._answers(key, index, item, "comparison")
            else:
                arguments = self._arguments(key, index, item)
                answers = self._answers(key, index, item, "gpt_answers")
            labels = lookup.get(tuple(sorted((item["object1"], item["object2"]))), {})
            aligned = [labels.get(text, (None, None)) for text in arguments]
            for answer_index, answer in enumerate(answers):
                yield (
                    f"{index}-{answer_index}",
                    {
                        # the config in the id: one id names one question in every config, so
                        # predictions made for one config cannot score against another's
                        "question_id": index if self._v1 else f"{self.config.name}-{index}",
                        "object_a": item["object1"],
                        "object_b": item["object2"],
                        "aspect": item.get("aspect") or None,
                        "question": item.get("question") or None,
                        "answer_index": answer_index,
                        "answer": answer,
                        "prompt": item.get("prompt"),
                        "arguments": arguments,
                        "argument_relevance": [human for human, _ in aligned],
                        "argument_relevance_gpt4": [gpt for _, gpt in aligned],
                    },
                )

    @classmethod
    def card_statistics(cls, config, splits):
        ds = splits["train"]
        questions = len(set(ds["question_id"]))
        per_question = {q: len(a) for q, a in zip(ds["question_id"], ds["arguments"], strict=True)}
        arguments = sum(per_question.values())
        human = Counter()
        gpt = Counter()
        for q, labels, labels_gpt in zip(
            ds["question_id"], ds["argument_relevance"], ds["argument_relevance_gpt4"], strict=True
        ):
            if q in per_question:  # count each question's list once
                human.update(labels)
                gpt.update(labels_gpt)
                del per_question[q]
        answers_per_question = Counter(Counter(ds["question_id"]).values())
        cited = sum(1 for a in ds["answer"] if "[" in a)
        empty = {q for q, a in zip(ds["question_id"], ds["arguments"], strict=True) if not a}
        return [
            f"- answers: {len(ds):,}; questions: {questions}; answers per question: "
            + ", ".join(f"{n} answers × {c}" for n, c in sorted(answers_per_question.items())),
            f"- arguments over all questions: {arguments:,}; questions with an empty list: {len(empty)}",
            f"- aligned labels missing (null): human {human[None]}, GPT-4 {gpt[None]}",
            "- aligned human labels: "
            + ", ".join(f"{v} {RELEVANCE_NAMES[v]}: {human[v]:,}" for v in range(4))
            + f"; relevant (≥ 2): {human[2] + human[3]:,} of {arguments:,}",
            "- aligned GPT-4 labels: " + ", ".join(f"{v}: {gpt[v]:,}" for v in range(4)),
            f"- answers containing a bracket citation: {cited:,} of {len(ds):,}",
        ]


def release_answer_texts(sources=None) -> list[str]:
    """Every answer text of the release files (silver 112x3, which contains silver 50x3, then
    gold), as the citation-shape counts of the corpus notes count them; files checksummed."""
    files = CamAnswers.SOURCES
    silver = json.loads(resolve(files["silver_112"], sources).read_text(encoding="utf-8"))
    gold = json.loads(resolve(files["gold"], sources).read_text(encoding="utf-8"))
    return [a for x in silver for a in x["gpt_answers"]] + [
        a for x in gold for a in x["comparison"]
    ]
