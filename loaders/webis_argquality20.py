"""Webis-ArgQuality-20 (Gienapp et al., ACL 2020): pairwise argument-quality judgments."""

from __future__ import annotations

from collections import Counter, defaultdict

import datasets

from argbench.constants import (
    PAIRWISE_OUTCOMES,
    WEBIS_DIMENSIONS,
    WEBIS_NEVER_COMPARED,
    WEBIS_NON_ARGUMENT,
)
from argbench.sources import declare

from ._base import ArgbenchBuilder
from ._readers import bool_cell, csv_rows, float_cell, int_cell

_BASE = (
    "https://raw.githubusercontent.com/webis-de/acl20-efficient-argument-quality-annotation/"
    "2e93b5850eb22e76f7ed1a02d8148fc225f600fa"
)

DIMENSIONS = list(WEBIS_DIMENSIONS)
WINNERS = dict(zip(("A", "B", "Tie"), PAIRWISE_OUTCOMES, strict=True))  # release value -> ours
RELEVANCE_NAMES = ["not_at_all", "low", "moderate", "high"]  # the HIT's 0-3 scale
SCORE_COLUMNS = {
    "relevance": "Relevance",
    "rhetorical": "Rhetorical Quality",
    "logical": "Logical Quality",
    "dialectical": "Dialectical Quality",
    "combined": "Combined Quality",
}
NON_ARGUMENT = WEBIS_NON_ARGUMENT
NEVER_COMPARED = WEBIS_NEVER_COMPARED

_FILES = {  # key: (path, sha256)
    "arguments": (
        "Webis-ArgQuality-20-Full/webis-argquality20-arguments.csv",
        "b31796edd58dcb10960401d409ac9be0fd3d0d9465d2d2f673cb8dac1d4944e3",
    ),
    "topics": (
        "Webis-ArgQuality-20-Full/webis-argquality20-topics.csv",
        "5afd781a9c190387e8e54bd1a1161d1409da48db5a8b5d8146502fc9d439a8bd",
    ),
    "ranking": (
        "Webis-ArgQuality-20-Full/webis-argquality20-ranking.csv",
        "ab889213b86e73e4c55dfb4827a96f48d6ef1286478f48a26e19e72271969062",
    ),
    "rhetorical": (
        "Webis-ArgQuality-20-Raw/webis-argquality20-raw-rhetorical.csv",
        "1d03d191dd1b1c1631c260b678d2a5bfd2566d5498cfe73f85c8350a829e965e",
    ),
    "logical": (
        "Webis-ArgQuality-20-Raw/webis-argquality20-raw-logical.csv",
        "94fd407e8ea8153b126e57d7c60c26a80dc6c05ef22bdb9ae5305439cb9768b2",
    ),
    "dialectical": (
        "Webis-ArgQuality-20-Raw/webis-argquality20-raw-dialectical.csv",
        "c261b8aea1804b7ef0df7af6db6a7a2fe914a7e0c6df7424c4e99ddd017c67bb",
    ),
    "relevance": (
        "Webis-ArgQuality-20-Raw/webis-argquality20-raw-relevance.csv",
        "494f517c3fd32964bd59bd20987b1c429a0e0cef09467d9ce652cc690ee1bd47",
    ),
}

_COLUMNS = {
    "arguments": ["Topic ID", "Argument ID", "Discussion ID", "Premise", "Relevance",
                  "Is Argument?", "Rhetorical Quality", "Logical Quality", "Dialectical Quality",
                  "Text Length", "Stance", "Combined Quality"],
    "topics": ["Topic ID", "Category", "Long Query", "Short Query"],
    "ranking": ["Topic ID", "Model", "Rank", "Discussion ID", "Argument ID"],
    "judgments": ["Discussion ID A", "Argument ID A", "Discussion ID B", "Argument ID B",
                  "Comparison"],
    "relevance": ["Task ID", "Argument ID", "Discussion ID", "Relevance", "Is Argument?"],
}  # fmt: skip

CITATION = """\
@inproceedings{gienapp-etal-2020-efficient,
  title     = {Efficient Pairwise Annotation of Argument Quality},
  author    = {Gienapp, Lukas and Stein, Benno and Hagen, Matthias and Potthast, Martin},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year      = {2020},
  pages     = {5772--5781},
  publisher = {Association for Computational Linguistics},
  doi       = {10.18653/v1/2020.acl-main.511},
  url       = {https://aclanthology.org/2020.acl-main.511}
}
"""

_int32 = datasets.Value("int32")
_ITEM = {"discussion_id": _int32, "argument_id": _int32}


class WebisArgQuality20(ArgbenchBuilder):
    """Pairwise quality judgments, the scores derived from them, topics, rankings, relevance votes."""

    VERSION = datasets.Version("1.0.0")
    SOURCES = declare(_BASE, _FILES)
    HOMEPAGE = "https://github.com/webis-de/acl20-efficient-argument-quality-annotation"
    LICENSE = "unknown"
    CITATION = CITATION
    DESCRIPTION = (
        "Webis-ArgQuality-20: args.me arguments in 20 topics with pairwise judgments of "
        "rhetorical, logical and dialectical quality and the Bradley-Terry scores derived from them."
    )
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="pairwise",
            version=VERSION,
            description="one row per judgment (41,856): topic, dimension, items A and B, winner",
        ),
        datasets.BuilderConfig(
            name="scores",
            version=VERSION,
            description="one row per (topic, item) (1,610): text and z-normalised scores",
        ),
        datasets.BuilderConfig(name="topics", version=VERSION, description="the 20 topics"),
        datasets.BuilderConfig(
            name="rankings",
            version=VERSION,
            description="the retrieval runs the items were pooled from (3,000 rows)",
        ),
        datasets.BuilderConfig(
            name="relevance_judgments",
            version=VERSION,
            description="the raw crowd relevance votes (8,050 rows)",
        ),
    ]
    DEFAULT_CONFIG_NAME = "pairwise"

    def _features(self) -> datasets.Features:
        name = self.config.name
        if name == "pairwise":
            return datasets.Features(
                {
                    "topic_id": _int32,
                    "dimension": datasets.ClassLabel(names=DIMENSIONS),
                    "discussion_id_a": _int32,
                    "argument_id_a": _int32,
                    "discussion_id_b": _int32,
                    "argument_id_b": _int32,
                    "winner": datasets.ClassLabel(names=list(WINNERS.values())),
                }
            )
        if name == "scores":
            return datasets.Features(
                {
                    "topic_id": _int32,
                    **_ITEM,
                    "premise": datasets.Value("string"),
                    "is_argument": datasets.Value("bool"),
                    "stance": datasets.Value("bool"),
                    "text_length": _int32,
                    **{column: datasets.Value("float64") for column in SCORE_COLUMNS},
                }
            )
        if name == "topics":
            text = datasets.Value("string")
            return datasets.Features(
                {"topic_id": _int32, "category": text, "long_query": text, "short_query": text}
            )
        if name == "rankings":
            return datasets.Features(
                {
                    "topic_id": _int32,
                    "model": datasets.Value("string"),
                    "rank": _int32,
                    **_ITEM,
                }
            )
        return datasets.Features(
            {
                "task_id": datasets.Value("int64"),
                **_ITEM,
                "relevance": datasets.ClassLabel(names=RELEVANCE_NAMES),
                "is_argument": datasets.Value("bool"),
            }
        )

    def _split_generators(self, dl_manager):
        # pairwise: one shard per quality dimension's file, so download_and_prepare(num_proc=N)
        # builds them in N processes (same rows, same order)
        shards = {"dimensions": list(DIMENSIONS)} if self.config.name == "pairwise" else {}
        return [datasets.SplitGenerator(datasets.Split.TRAIN, gen_kwargs=shards)]

    def _generate_examples(self, **shards):
        yield from getattr(self, f"_{self.config.name}")(**shards)

    # -- reading ------------------------------------------------------------------------

    def _rows(self, key: str, columns: str | None = None):
        return csv_rows(self, key, _COLUMNS[columns or key])

    def _int(self, key, index, row, field) -> int:
        return int_cell(self, key, index, row, field)

    def _float(self, key, index, row, field) -> float:
        return float_cell(self, key, index, row, field)

    def _bool(self, key, index, row, field) -> bool:
        return bool_cell(self, key, index, row, field)

    def _item(self, key, index, row, suffix="") -> tuple[int, int]:
        return (
            self._int(key, index, row, f"Discussion ID{suffix}"),
            self._int(key, index, row, f"Argument ID{suffix}"),
        )

    # -- configs ------------------------------------------------------------------------

    def _topics_of_items(self) -> dict[tuple[int, int], set[int]]:
        """(discussion id, argument id) -> topics listing it; 4 items sit in two topics."""
        topics = defaultdict(set)
        for index, row in self._rows("arguments"):
            topics[self._item("arguments", index, row)].add(
                self._int("arguments", index, row, "Topic ID")
            )
        return topics

    def _judgments(self, dimension: str):
        """(index, item A, item B, winner) of one raw quality file."""
        source = self.SOURCES[dimension].filename
        for index, row in self._rows(dimension, "judgments"):
            if row["Comparison"] not in WINNERS:
                raise self.error(
                    source,
                    index,
                    "Comparison",
                    f"expected one of {list(WINNERS)}, got {row['Comparison']!r}",
                )
            a = self._item(dimension, index, row, " A")
            b = self._item(dimension, index, row, " B")
            yield index, a, b, WINNERS[row["Comparison"]]

    def _pairwise(self, dimensions):
        topics = self._topics_of_items()
        for dimension in dimensions:
            source = self.SOURCES[dimension].filename
            for index, a, b, winner in self._judgments(dimension):
                shared = topics.get(a, set()) & topics.get(b, set())
                if len(shared) != 1:
                    found = "no topic" if not shared else f"several topics {sorted(shared)}"
                    raise self.error(
                        source,
                        index,
                        "topic_id",
                        f"items A {a} and B {b} (discussion id, argument id) share {found} in "
                        f"{self.SOURCES['arguments'].filename}; the topic cannot be inferred",
                    )
                yield (
                    f"{dimension}-{index}",
                    {
                        "topic_id": next(iter(shared)),
                        "dimension": dimension,
                        "discussion_id_a": a[0],
                        "argument_id_a": a[1],
                        "discussion_id_b": b[0],
                        "argument_id_b": b[1],
                        "winner": winner,
                    },
                )

    def _scores(self):
        compared = set()
        for dimension in DIMENSIONS:
            for _, a, b, _ in self._judgments(dimension):
                compared.update((a, b))
        source = self.SOURCES["arguments"].filename
        for index, row in self._rows("arguments"):
            item = self._item("arguments", index, row)
            is_argument = self._bool("arguments", index, row, "Is Argument?")
            values = {
                name: self._float("arguments", index, row, column)
                for name, column in SCORE_COLUMNS.items()
            }
            scores = self._checked_scores(source, index, values, is_argument, item in compared)
            yield (
                index,
                {
                    "topic_id": self._int("arguments", index, row, "Topic ID"),
                    "discussion_id": item[0],
                    "argument_id": item[1],
                    "premise": row["Premise"],
                    "is_argument": is_argument,
                    "stance": self._bool("arguments", index, row, "Stance"),
                    "text_length": self._int("arguments", index, row, "Text Length"),
                    **scores,
                },
            )

    def _checked_scores(self, source, index, values, is_argument, compared):
        """The scores with the release's sentinels replaced by None, checked against their meaning.

        -4.0 marks every score of a non-argument; -3.0 the quality scores of an argument that
        occurs in no judgment (its combined score is derived from the -3.0s, so it is None too).
        """
        if not is_argument:
            for name, value in values.items():
                if value != NON_ARGUMENT:
                    raise self.error(
                        source, index, SCORE_COLUMNS[name],
                        f"a non-argument should carry {NON_ARGUMENT}, got {value}",
                    )  # fmt: skip
            return dict.fromkeys(values)
        for name, value in values.items():
            if value == NON_ARGUMENT:
                raise self.error(
                    source,
                    index,
                    SCORE_COLUMNS[name],
                    f"an argument carries the non-argument value {value}",
                )
        quality = [values[d] == NEVER_COMPARED for d in DIMENSIONS]
        if any(quality) and not all(quality):
            raise self.error(
                source, index, "Logical Quality", f"{NEVER_COMPARED} in some quality columns only"
            )
        if all(quality) == compared:
            problem = (
                f"quality scores are {NEVER_COMPARED} (never compared) but the item occurs in judgments"
                if compared
                else "has quality scores but occurs in no judgment"
            )
            raise self.error(source, index, "Logical Quality", problem)
        if not compared:
            return {**values, **dict.fromkeys([*DIMENSIONS, "combined"])}
        return values

    def _topics(self):
        for index, row in self._rows("topics"):
            yield (
                index,
                {
                    "topic_id": self._int("topics", index, row, "Topic ID"),
                    "category": row["Category"],
                    "long_query": row["Long Query"],
                    "short_query": row["Short Query"],
                },
            )

    def _rankings(self):
        for index, row in self._rows("ranking"):
            discussion_id, argument_id = self._item("ranking", index, row)
            yield (
                index,
                {
                    "topic_id": self._int("ranking", index, row, "Topic ID"),
                    "model": row["Model"],
                    "rank": self._int("ranking", index, row, "Rank"),
                    "discussion_id": discussion_id,
                    "argument_id": argument_id,
                },
            )

    def _relevance_judgments(self):
        source = self.SOURCES["relevance"].filename
        for index, row in self._rows("relevance"):
            relevance = self._int("relevance", index, row, "Relevance")
            if not 0 <= relevance < len(RELEVANCE_NAMES):
                raise self.error(source, index, "Relevance", f"expected 0-3, got {relevance}")
            discussion_id, argument_id = self._item("relevance", index, row)
            yield (
                index,
                {
                    "task_id": self._int("relevance", index, row, "Task ID"),
                    "discussion_id": discussion_id,
                    "argument_id": argument_id,
                    "relevance": relevance,
                    "is_argument": self._bool("relevance", index, row, "Is Argument?"),
                },
            )

    # -- card ---------------------------------------------------------------------------

    @classmethod
    def card_statistics(cls, config, splits):
        ds = splits["train"]
        if config == "pairwise":
            lines = ["| dimension | judgments | A wins | B wins | ties |", "|---|---|---|---|---|"]
            pairs = Counter(zip(ds["dimension"], ds["winner"], strict=True))
            for d, name in enumerate(DIMENSIONS):
                counts = [pairs[(d, w)] for w in range(len(WINNERS))]
                lines.append(
                    f"| {name} | {sum(counts):,} | " + " | ".join(f"{c:,}" for c in counts) + " |"
                )
            per_topic = Counter(ds["topic_id"])
            lines += [
                "",
                "Judgments per topic (all three dimensions): "
                + ", ".join(f"{t}: {n:,}" for t, n in sorted(per_topic.items())),
            ]
            return lines
        if config == "scores":
            arguments = sum(ds["is_argument"])
            never = sum(
                1 for a, q in zip(ds["is_argument"], ds["logical"], strict=True) if a and q is None
            )
            return [
                f"- items: {len(ds):,}; arguments: {arguments:,}; non-arguments (all scores null): {len(ds) - arguments:,}",
                f"- argument rows never compared (quality and combined null): {never}",
                f"- stance True: {sum(ds['stance']):,}; False: {len(ds) - sum(ds['stance']):,}",
                f"- distinct topics: {len(set(ds['topic_id']))}",
            ]
        if config == "topics":
            return [f"- {c}: {n}" for c, n in sorted(Counter(ds["category"]).items())]
        if config == "rankings":
            return [f"- {m}: {n:,} rows" for m, n in sorted(Counter(ds["model"]).items())]
        counts = Counter(ds["relevance"])
        return [
            f"- {RELEVANCE_NAMES[i]} ({i}): {counts[i]:,}" for i in range(len(RELEVANCE_NAMES))
        ] + [
            f"- is_argument True: {sum(ds['is_argument']):,} of {len(ds):,}",
            f"- distinct tasks: {len(set(ds['task_id'])):,}",
        ]
