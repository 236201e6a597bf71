"""ClaimDiff (Ko et al.): does claim A strengthen (S) or weaken (W) claim B?"""

from __future__ import annotations

import json

import datasets

from argbench.sources import declare, resolve

from ._base import ArgbenchBuilder

_BASE = (
    "https://raw.githubusercontent.com/kaistAI/ClaimDiff/19d033c17dec6457fc807f01dfa31f535172f28a"
)

# source split name -> argbench split name
SPLITS = {"train": "train", "test": "test", "test-full": "test_doc"}
_FILE_STEM = {"S": "ClaimDiff-S/ClaimDiff-strength", "W": "ClaimDiff-W/ClaimDiff-weak"}
LABEL_NAMES = {
    "S": ["not_strengthen", "strengthen"],
    "W": ["not_weaken", "weaken"],
}

_SHA256 = {
    "S/train": "9a73b04bf00cba50f9676753dc9afcae09777f62f3fc26208daf3c8c3e328cde",
    "S/test": "2c0322c77aff970cb194f908ebebd01dace4d62f47e71fa5393fc84b22972ed6",
    "S/test-full": "d010e944b446a66cb12ddca2ec37223aca124e1d3769695111c781b6aac7572f",
    "W/train": "60c248e09930df6bdb4341296c7f26212c141abde9d2442a1e6f852d2dd14046",
    "W/test": "c454cdea672536ddd2fe1f65fcbbda25daf53d0196bf810c6bf9dc5b5e7c04c2",
    "W/test-full": "ce0de88d089ae14bddf09aaecaf847c1fd8e3fd74cc4d83a4b86e7fa7a593339",
    "unfiltered": "72ce4e40c774792b144ebd0726b1f2ec94872fb7f6e6b436da929c16e5aba43b",
}

CITATION = """\
@inproceedings{ko2023claimdiff,
  title     = {ClaimDiff: Comparing and Contrasting Claims on Contentious Issues},
  author    = {Ko, Miyoung and Seong, Ingyu and Lee, Hwaran and Park, Joonsuk and
               Chang, Minsuk and Seo, Minjoon},
  booktitle = {Findings of the Association for Computational Linguistics: ACL 2023},
  year      = {2023},
  note      = {arXiv:2205.12221},
  doi       = {10.48550/ARXIV.2205.12221},
  url       = {https://arxiv.org/abs/2205.12221}
}
"""


_FILES = {  # key: (path, sha256)
    **{
        f"{config}/{split}": (f"{_FILE_STEM[config]}-{split}.json", _SHA256[f"{config}/{split}"])
        for config in _FILE_STEM
        for split in SPLITS
    },
    "unfiltered": ("annotation_result_unfiltered.json", _SHA256["unfiltered"]),
}


_PAIR_FIELDS = ["pair_id", "topic", "date", "article_a", "article_b", "claim_a", "claim_b"]
# bytes of UTF-8 text read as cp1252: 'â€™' for '’' ('Ã¢â‚¬â„¢' when it happened twice)
_MOJIBAKE = ("Ã", "â€", "Â")


def _unmangle(title: str) -> str:
    """Undo cp1252 mojibake (UTF-8 bytes decoded as cp1252, once or more)."""
    while any(mark in title for mark in _MOJIBAKE):
        try:
            repaired = title.encode("cp1252").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            break
        if repaired == title:
            break
        title = repaired
    return title


def title_repairs(records) -> dict[str, str]:
    """Garbled article title -> the title to use, for one file's records.

    In the release one test article appears under two titles: "Obama warns of GOP 'lump of
    coal'" and a doubly cp1252-garbled longer copy ("Ã¢â‚¬Ëœlump of coalÃ¢â‚¬â„¢ tax hike")
    whose claims it shares. A garbled title becomes the one clean title it shares claims with
    (so the test split counts 88 articles, as the paper), else its unmangled text."""
    claims: dict[str, set] = {}
    for record in records:
        for side in ("a", "b"):
            claims.setdefault(record[f"article_{side}"], set()).add(record[f"claim_{side}"])
    repairs = {}
    for title, own in claims.items():
        fixed = _unmangle(title)
        if fixed == title:
            continue
        sharing = [t for t, c in claims.items() if t != title and _unmangle(t) == t and own & c]
        repairs[title] = sharing[0] if len(sharing) == 1 else fixed
    return repairs


class ClaimDiff(ArgbenchBuilder):
    """ClaimDiff-S / -W claim pairs with rationales, and the unfiltered annotation pool."""

    # 1.1.0: article titles with cp1252 mojibake repaired (1.0.0: as released)
    VERSION = datasets.Version("1.1.0")
    EARLIER_VERSIONS = ("1.0.0",)
    SOURCES = declare(_BASE, _FILES)
    HOMEPAGE = "https://github.com/kaistAI/ClaimDiff"
    LICENSE = "unknown"
    CITATION = CITATION
    DESCRIPTION = "ClaimDiff: pairs of claims from news articles on one contentious issue."
    BUILDER_CONFIGS = [
        datasets.BuilderConfig(
            name="S", version=VERSION, description="label 1: claim A strengthens claim B"
        ),
        datasets.BuilderConfig(
            name="W", version=VERSION, description="label 1: claim A weakens claim B"
        ),
        datasets.BuilderConfig(
            name="unfiltered",
            version=VERSION,
            description="all 5,076 annotated pairs with their average response, before filtering",
        ),
    ]
    DEFAULT_CONFIG_NAME = "S"

    def _features(self) -> datasets.Features:
        pair = {name: datasets.Value("string") for name in _PAIR_FIELDS}
        pair["date"] = datasets.Value("date32")
        pair["reversed"] = datasets.Value("bool")
        if self.config.name == "unfiltered":
            return datasets.Features({**pair, "average_response": datasets.Value("float64")})
        return datasets.Features(
            {
                **pair,
                "label": datasets.ClassLabel(names=LABEL_NAMES[self.config.name]),
                "rationales": datasets.List(datasets.Value("string")),
                "rationale_spans": datasets.List(
                    {"start": datasets.Value("int32"), "end": datasets.Value("int32")}
                ),
            }
        )

    def _split_generators(self, dl_manager):
        if self.config.name == "unfiltered":
            return [datasets.SplitGenerator(datasets.Split.TRAIN, gen_kwargs={"key": "unfiltered"})]
        return [
            datasets.SplitGenerator(name, gen_kwargs={"key": f"{self.config.name}/{source_split}"})
            for source_split, name in SPLITS.items()
        ]

    def _generate_examples(self, key):
        path = self.source_path(key)
        with open(path, encoding="utf-8") as handle:
            payload = json.load(handle)
        records = payload if key == "unfiltered" else payload["data"]
        source = self.SOURCES[key].filename
        repairs = {}
        if str(self.config.version) != "1.0.0":
            repairs = title_repairs(r for r in records if all(f in r for f in _PAIR_FIELDS))
        for index, record in enumerate(records):
            missing = [f for f in _PAIR_FIELDS if f not in record]
            if missing:
                raise self.error(source, index, missing[0], "missing")
            example = {name: record[name] for name in _PAIR_FIELDS}
            for field in ("article_a", "article_b"):
                example[field] = repairs.get(example[field], example[field])
            example["reversed"] = record["pair_id"].endswith("_rev")
            if key == "unfiltered":
                example["average_response"] = float(record["average_response"])
            else:
                if record.get("relation") not in (0, 1):
                    raise self.error(
                        source,
                        index,
                        "relation",
                        f"expected 0 or 1, got {record.get('relation')!r}",
                    )
                example["label"] = record["relation"]
                example["rationales"] = list(record.get("rationale") or [])
                example["rationale_spans"] = [
                    self._span(source, index, record["claim_a"], phrase)
                    for phrase in example["rationales"]
                ]
            yield index, example

    def _span(self, source: str, index: int, claim: str, phrase: str) -> dict[str, int]:
        """Character span of a rationale in claim A (first occurrence; in the release each occurs once)."""
        start = claim.find(phrase)
        if not phrase or start < 0:
            raise self.error(
                source, index, "rationale", f"{phrase!r} is not a substring of claim_a"
            )
        return {"start": start, "end": start + len(phrase)}

    @classmethod
    def card_statistics(cls, config, splits):
        if config == "unfiltered":
            scores = splits["train"]["average_response"]
            kept = sum(1 for s in scores if abs(s) >= 0.5)
            return [
                f"- pairs with |average_response| ≥ 0.5 (the filter the paper applies): {kept:,} of {len(scores):,}"
            ]
        lines = [
            "| split | pairs | topics | articles | rationales | label 1 share |",
            "|---|---|---|---|---|---|",
        ]
        for name, ds in splits.items():
            articles = set(ds["article_a"]) | set(ds["article_b"])
            share = sum(ds["label"]) / len(ds)
            rationales = sum(len(r) for r in ds["rationales"])
            lines.append(
                f"| {name} | {len(ds):,} | {len(set(ds['topic'])):,} | {len(articles):,} | {rationales:,} | {share:.2%} |"
            )
        return lines


def release_claim_texts(sources=None) -> list[str]:
    """Every distinct claim (claim_a and claim_b) of the S and W files, sorted; checksummed."""
    texts: set[str] = set()
    for key, source in ClaimDiff.SOURCES.items():
        if key == "unfiltered":
            continue
        for row in json.loads(resolve(source, sources).read_text(encoding="utf-8"))["data"]:
            texts.update((row["claim_a"], row["claim_b"]))
    return sorted(texts)


def issue_split(dataset, fraction: float = 0.3, seed: int = 0):
    """``(train, dev)``: ``dataset`` (a ClaimDiff S or W split) divided by issue, as the paper
    built its development data from 30 % of the training issues.

    ``round(fraction * issues)`` issues (``topic``), drawn with ``random.Random(seed)``, go to
    dev with all their pairs; the others stay in train. A pair and its ``_rev`` twin always
    fall on the same side (they share an issue in the release; were they ever not, their issues
    are drawn as one group). The same seed gives S and W the same pairs.
    """
    import random

    if not 0 < fraction < 1:
        raise ValueError(f"fraction must be in (0, 1), got {fraction!r}")
    topics, pair_ids = dataset["topic"], dataset["pair_id"]
    parent: dict = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for topic, pair_id in zip(topics, pair_ids, strict=True):
        parent[find(("pair", pair_id.removesuffix("_rev")))] = find(("topic", topic))
    groups = sorted({find(("topic", t)) for t in topics})
    n_dev = round(fraction * len(groups))
    if not 0 < n_dev < len(groups):
        raise ValueError(
            f"fraction {fraction} of {len(groups)} issues leaves one side empty; "
            "use a split with more issues or another fraction"
        )
    dev_groups = set(random.Random(seed).sample(groups, n_dev))
    in_dev = [find(("topic", t)) in dev_groups for t in topics]
    return (
        dataset.select([i for i, d in enumerate(in_dev) if not d]),
        dataset.select([i for i, d in enumerate(in_dev) if d]),
    )
