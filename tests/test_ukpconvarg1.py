"""ukpconvarg1: fixtures in the release's XML / CSV formats, and the real files (mirror)."""

from __future__ import annotations

import datetime
import json
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import datasets
import pytest

import argbench
from argbench.loaders import builder_class
from argbench.loaders._base import DataError
from argbench.loaders.registry import path_of
from tests.conftest import FIXTURES

NAME = "ukpconvarg1"
SIDES = ("evolution-vs-creation_evolution", "tv-is-better-than-books_tv")
FILES = {
    **{f"full/{side}": f"{NAME}/{side}.xml" for side in SIDES},
    **{f"strict/{side}": f"{NAME}/{side}_strict.csv" for side in SIDES},
    **{f"ranking/{side}": f"{NAME}/{side}_ranking.csv" for side in SIDES},
}
# MTurk identifiers in the release: worker (turkID), HIT and assignment ids
_RAW_ID = re.compile(r"<(turkID|hitID|assignmentId)>([^<]+)</\1>")
_ID_RUN = re.compile(rb"[A-Z0-9]{12,}")


def raw_ids(paths) -> set[str]:
    return {m.group(2) for path in paths for m in _RAW_ID.finditer(Path(path).read_text("utf-8"))}


FIXTURE_IDS = raw_ids(FIXTURES / FILES[f"full/{side}"] for side in SIDES)


@pytest.fixture
def mirror(fixture_mirror, monkeypatch):
    """A mirror with the two fixture sides; the builder then declares only these files."""

    def make(**overrides):
        root = fixture_mirror(NAME, files=FILES, overrides=overrides)
        cls = builder_class(NAME)
        monkeypatch.setattr(cls, "SOURCES", {key: cls.SOURCES[key] for key in FILES})
        return root

    return make


def load(mirror_root, config, cache_dir):
    return argbench.load_dataset(
        NAME, config, split="train", sources=mirror_root, cache_dir=cache_dir
    )


def found_ids(ids: set[str], paths) -> set[str]:
    """Which ``ids`` occur in the files: every run of id characters, every substring of it."""
    lengths = {len(i) for i in ids}
    hits = set()
    for path in paths:
        for run in _ID_RUN.findall(Path(path).read_bytes()):
            text = run.decode()
            hits.update(
                text[start : start + n]
                for n in lengths
                for start in range(len(text) - n + 1)
                if text[start : start + n] in ids
            )
    return hits


def parquet_values(folder: Path) -> str:
    """Every value of every Parquet file in ``folder`` as JSON (the files are compressed)."""
    import pyarrow.parquet as pq

    tables = [pq.read_table(path).to_pylist() for path in sorted(folder.rglob("*.parquet"))]
    return json.dumps(tables, default=str, ensure_ascii=False)


def assert_no_raw_ids(ids: set[str], folder: Path, cache_dir: str, tmp_path: Path):
    """No raw id in the card, the Parquet values, or any file of the datasets cache."""
    assert ids
    files = [p for p in Path(cache_dir).rglob("*") if p.is_file()]
    files += [p for p in folder.rglob("*") if p.is_file()]
    assert any(p.suffix == ".arrow" for p in files) and (folder / "README.md").is_file()
    values = tmp_path / "parquet-values.json"
    values.write_text(parquet_values(folder), encoding="utf-8")
    assert found_ids(ids, [*files, values]) == set()


# -- fixtures -------------------------------------------------------------------------------


def test_full_features_and_rows(mirror, cache_dir):
    ds = load(mirror(), "full", cache_dir)
    labels = ["a1", "a2", "equal"]
    assert ds.features["gold_label"].names == labels
    annotation = ds.features["annotations"].feature
    assert annotation["value"].names == labels
    assert annotation["worker_stance"].names == ["same", "opposite", "none"]
    assert annotation["accept_time"] == datasets.Value("timestamp[ms, tz=UTC]")
    assert ds.features["arg1"]["votes_up"] == datasets.Value("int32")

    assert ds["side_id"] == [SIDES[0]] * 3 + [SIDES[1]]
    assert ds["pair_id"] == ["803_794", "80854_803", "794_80854", "arg135683_arg637551"]
    assert ds["gold_label"] == [1, 2, None, 1]  # the third pair has no goldLabel
    assert [len(a) for a in ds["annotations"]] == [5, 4, 5, 5]
    first = ds[0]
    assert first["arg1"] == {
        "id": "803",
        "text": "Peppered moths show evolution.\nThe data may be thin, but it happened.",
        "author": "http://www.convinceme.net/profile/318/example.html",
        "votes_up": 0,
        "votes_down": 0,
    }
    assert first["stance"] == "Evolution" and first["debate"] == "Evolution vs. Creation"
    assert first["debate_description"] is None
    assert ds[3]["debate_description"] == "TV is faster & some people can't read."
    assert ds[3]["arg2"]["text"] == "TV shows faces & action."  # plain text, not originalHTML
    one = first["annotations"][0]
    assert one["value"] == 1 and one["reason"] == "A2 explains how to identify evolution."
    assert one["worker_stance"] == 2 and one["worker_rank"] == 432
    assert one["competence"] == 0.9971903929844271
    utc = datetime.timezone.utc
    assert one["accept_time"] == datetime.datetime(2016, 2, 22, 21, 1, 51, tzinfo=utc)
    assert one["submit_time"] == datetime.datetime(2016, 2, 22, 21, 1, 59, tzinfo=utc)
    assert [a["worker_stance"] for a in first["annotations"]] == [2, None, 0, None, 1]


def test_workers_get_stable_pseudonyms_in_order_of_first_appearance(mirror, cache_dir, tmp_path):
    root = mirror()
    ds = load(root, "full", cache_dir)
    workers = [[a["worker"] for a in pair] for pair in ds["annotations"]]
    assert workers == [
        ["worker_1", "worker_2", "worker_3", "worker_4", "worker_5"],
        ["worker_2", "worker_6", "worker_1", "worker_3"],
        ["worker_5", "worker_4", "worker_1", "worker_2", "worker_3"],
        ["worker_6", "worker_2", "worker_3", "worker_4", "worker_5"],  # same workers, same names
    ]
    again = load(root, "full", str(tmp_path / "another-cache"))
    assert again["annotations"] == ds["annotations"]
    # a worker's competence and rank are the same wherever the pseudonym occurs
    per_worker = {
        (a["worker"], a["competence"], a["worker_rank"]) for p in ds["annotations"] for a in p
    }
    assert len(per_worker) == 6


@pytest.mark.parametrize("config", ["full", "strict", "ranking"])
def test_two_processes_build_the_same_rows(mirror, tmp_path, config):
    """One shard per side file; worker pseudonyms shared across the two fixture sides."""
    root = mirror()
    one = load(root, config, str(tmp_path / "one"))
    two = argbench.load_dataset(
        NAME, config, "train", sources=root, cache_dir=str(tmp_path / "two"), num_proc=2
    )
    assert two.to_list() == one.to_list()


def test_raw_mturk_ids_never_reach_data_cache_or_card(mirror, cache_dir, tmp_path):
    root = mirror()
    folder = argbench.build(NAME, tmp_path / "out", sources=root, cache_dir=cache_dir)
    assert len(FIXTURE_IDS) == 6 + 14 + 14  # workers, distinct HIT and assignment ids
    assert_no_raw_ids(FIXTURE_IDS, folder, cache_dir, tmp_path)
    # the check finds an id when one is there
    leak = tmp_path / "leak.txt"
    leak.write_text("x A3FAKEWORKERCC y", encoding="utf-8")
    assert found_ids(FIXTURE_IDS, [leak]) == {"A3FAKEWORKERCC"}
    full = load(root, "full", cache_dir)
    assert "FEEDBACK-NOT-CARRIED" not in json.dumps(full.to_list(), default=str)


def test_strict_and_ranking_decode_line_breaks(mirror, cache_dir):
    root = mirror()
    strict = load(root, "strict", cache_dir)
    assert strict.features["label"].names == ["a1", "a2"]
    assert strict["pair_id"] == ["803_794", "arg135683_arg637551"]
    assert strict["label"] == [1, 1]
    assert strict[0]["arg1"] == {
        "id": "803",
        "text": "Peppered moths show evolution.\nThe data may be thin, but it happened.",
    }
    full = {row["pair_id"]: row for row in load(root, "full", cache_dir)}
    for row in strict:
        for arg in ("arg1", "arg2"):
            assert row[arg]["text"] == full[row["pair_id"]][arg]["text"]
    ranking = load(root, "ranking", cache_dir)
    assert ranking["arg_id"] == ["803", "794", "80854", "arg135683", "arg637551"]
    assert ranking["rank"] == [0.011, 0.08535, 0.005, 0.02, 0.04]
    assert ranking["text"][2] == "Science can prove it.\nThe big bang too."


def test_built_folder_round_trips(mirror, cache_dir, tmp_path):
    root = mirror()
    folder = argbench.build(NAME, tmp_path / "out", sources=root, cache_dir=cache_dir)
    card = (folder / "README.md").read_text(encoding="utf-8")
    assert "license: cc-by-4.0" in card and "{{" not in card
    for config in ("full", "strict", "ranking"):
        ours = load(root, config, cache_dir)
        plain = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "plain"))
        assert plain["train"].features == ours.features
        assert plain["train"].to_list() == ours.to_list()


XML = f"full/{SIDES[0]}"
BAD_XML = [
    ("<value>a1</value>", "<value>a3</value>", r"example 0, field 'mTurkAssignments/mTurkAssignment\[3\]/value': expected one of"),
    ("<turkID>A2FAKEWORKERBB</turkID>", "", r"example 0, field 'mTurkAssignments/mTurkAssignment\[2\]/turkID': missing"),
    ("<id>803_794</id>", "<id>803-794</id>", r"example 0, field 'id': '803-794' is not <arg1 id>_<arg2 id>"),
    ("<goldLabel>equal</goldLabel>", "<goldLabel>tie</goldLabel>", r"example 1, field 'goldLabel'"),
    ("<turkCompetence>0.9971903929844271</turkCompetence>", "<turkCompetence>high</turkCompetence>", r"example 0, field 'mTurkAssignments/mTurkAssignment\[1\]/turkCompetence': expected a number"),
    ("<turkRank>432</turkRank>", "<turkRank>4_32</turkRank>", r"example 0, field 'mTurkAssignments/mTurkAssignment\[1\]/turkRank': expected an integer"),
    ("21:01:59.0 UTC", "21:01:59.0 CET", r"example 0, field 'mTurkAssignments/mTurkAssignment\[1\]/assignmentSubmitTime'"),
    ("<workerStance>opposite</workerStance>", "<workerStance>against</workerStance>", r"example 0, field 'mTurkAssignments/mTurkAssignment\[5\]/workerStance'"),
    ("<voteUpCount>2</voteUpCount>", "<voteUpCount>two</voteUpCount>", r"example 0, field 'arg2/voteUpCount'"),
    ("<id>80854</id>", "<id>  </id>", r"example 1, field 'arg1/id': empty"),
    ("<stance>Evolution</stance>\n      <text>You can", "<stance>Creation</stance>\n      <text>You can", r"example 0, field 'arg2/stance': differs"),
    ("</mTurkAssignments>\n    <goldLabel>equal", "</mTurkAssignments>\n  </annotatedArgumentPair>\n  <annotatedArgumentPair>\n    <goldLabel>equal", r"example 2, field 'arg1/id': missing"),
    ("</list>", "", r"evolution-vs-creation_evolution.xml: not well-formed XML"),
    ("<turkID>A2FAKEWORKERBB</turkID>", "<turkID >A9NEWWORKERZZ</turkID>", r"example 0, field 'mTurkAssignments/mTurkAssignment\[2\]/turkID': not found by the id scan"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "match"), BAD_XML)
def test_malformed_xml_names_file_example_and_field(mirror, cache_dir, tmp_path, old, new, match):
    text = (FIXTURES / FILES[XML]).read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.xml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    root = mirror(**{XML: bad})
    with pytest.raises(
        DataError, match=rf"ukpconvarg1: (evolution-vs-creation_evolution.xml, )?{match}"
    ):
        load(root, "full", cache_dir)


def test_duplicate_pair_fails(mirror, cache_dir, tmp_path):
    text = (FIXTURES / FILES[XML]).read_text(encoding="utf-8")
    first = text[text.index("  <annotatedArgumentPair>") : text.index("  </annotatedArgumentPair>")]
    bad = tmp_path / "bad.xml"
    bad.write_text(text.replace("</list>", first + "  </annotatedArgumentPair>\n</list>"))
    with pytest.raises(DataError, match=r"example 3, field 'id': pair '803_794' occurs twice"):
        load(mirror(**{XML: bad}), "full", cache_dir)


@pytest.mark.parametrize(
    ("config", "old", "new", "match"),
    [
        ("strict", "803_794\ta2", "803_794\tequal", r"example 0, field 'label'"),
        ("strict", "803_794\ta2\t", "803_794\ta2 ", r"example 0, field 'a2': expected 4 tab-separated cells, got 3"),
        ("strict", "803_794\t", "803\t", r"example 0, field '#id': expected <arg1 id>_<arg2 id>"),
        ("strict", "#id\tlabel", "id\tlabel", r"example 0, field 'header'"),
        ("ranking", "0.08535", "n/a", r"example 1, field 'rank': expected a number, got 'n/a'"),
        ("ranking", "0.00500", "inf", r"example 2, field 'rank'"),
    ],
)  # fmt: skip
def test_malformed_csv_names_file_example_and_field(
    mirror, cache_dir, tmp_path, config, old, new, match
):
    key = f"{config}/{SIDES[0]}"
    text = (FIXTURES / FILES[key]).read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.csv"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(DataError, match=rf"evolution-vs-creation_evolution.csv, {match}"):
        load(mirror(**{key: bad}), config, cache_dir)


# -- the real files -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real(real_mirror, tmp_path_factory):
    """Build once from the mirror: (folder, cache_dir, {config: train split})."""
    cache = str(tmp_path_factory.mktemp("cache"))
    folder = argbench.build(
        NAME, tmp_path_factory.mktemp("built"), sources=real_mirror, cache_dir=cache
    )
    splits = {
        config: argbench.load_dataset(
            NAME, config, split="train", sources=real_mirror, cache_dir=cache
        )
        for config in ("full", "strict", "ranking")
    }
    return folder, cache, splits


@pytest.mark.mirror
def test_mirror_full_counts(real):
    full = real[2]["full"]
    assert len(full) == 16927
    gold = Counter(full["gold_label"])
    assert len(full) - gold[None] == 16081 and gold[None] == 846
    annotations = full["annotations"]
    assert Counter(len(a) for a in annotations) == {5: 16737, 4: 190}
    values = Counter(a["value"] for pair in annotations for a in pair)
    assert set(values) == {0, 1, 2} and sum(values.values()) == 16737 * 5 + 190 * 4
    workers = {a["worker"] for pair in annotations for a in pair}
    assert len(workers) == 3815
    assert workers == {f"worker_{n}" for n in range(1, 3816)}


@pytest.mark.mirror
def test_mirror_every_pair_of_every_side(real):
    full = real[2]["full"]
    pairs: dict[str, set] = {}
    arguments: dict[str, set] = {}
    for side, arg1, arg2 in zip(full["side_id"], full["arg1"], full["arg2"], strict=True):
        pairs.setdefault(side, set()).add(frozenset((arg1["id"], arg2["id"])))
        arguments.setdefault(side, set()).update((arg1["id"], arg2["id"]))
    assert len(arguments) == 32
    sizes = [len(ids) for ids in arguments.values()]
    assert min(sizes) == 25 and max(sizes) == 35 and sum(sizes) == 1052
    assert sum(size >= 32 for size in sizes) == 24
    for side, ids in arguments.items():
        assert pairs[side] == {frozenset(p) for p in combinations(ids, 2)}, side
    assert sum(len(p) for p in pairs.values()) == len(full)  # no pair twice


@pytest.mark.mirror
def test_mirror_strict_and_ranking_agree_with_full(real):
    full, strict, ranking = (real[2][c] for c in ("full", "strict", "ranking"))
    assert len(strict) == 11650 and len(ranking) == 1052
    assert set(strict["side_id"]) == set(ranking["side_id"]) == set(full["side_id"])
    by_pair = {row["pair_id"]: row for row in full}
    texts = {}
    for row in full:
        for arg in (row["arg1"], row["arg2"]):
            assert texts.setdefault(arg["id"], arg["text"]) == arg["text"]
    disagreements = Counter()
    names = full.features["gold_label"].names
    for row in strict:
        original = by_pair[row["pair_id"]]
        assert original["side_id"] == row["side_id"]
        assert row["arg1"]["text"] == original["arg1"]["text"]
        assert row["arg2"]["text"] == original["arg2"]["text"]
        gold = original["gold_label"]
        label = names[row["label"]]
        if gold is None or names[gold] != label:
            disagreements[(None if gold is None else names[gold], label)] += 1
    assert disagreements == {("a1", "a2"): 3, ("a2", "a1"): 3, ("equal", "a1"): 2, (None, "a2"): 1}
    assert sorted(ranking["arg_id"]) == sorted(texts)
    assert all(texts[i] == t for i, t in zip(ranking["arg_id"], ranking["text"], strict=True))


@pytest.mark.mirror
def test_mirror_lower_rank_score_is_more_convincing(real):
    """The card's reading of the score's direction: low scores win their strict pairs."""
    from scipy.stats import spearmanr

    strict, ranking = real[2]["strict"], real[2]["ranking"]
    wins, pairs = Counter(), Counter()
    for arg1, arg2, label in zip(strict["arg1"], strict["arg2"], strict["label"], strict=True):
        wins[(arg1, arg2)[label]["id"]] += 1
        pairs.update((arg1["id"], arg2["id"]))
    share = [wins[i] / pairs[i] for i in ranking["arg_id"]]
    assert spearmanr(ranking["rank"], share).statistic == pytest.approx(-0.8445, abs=5e-4)


@pytest.mark.mirror
def test_mirror_raw_mturk_ids_never_published(real, real_mirror, tmp_path):
    folder, cache, _ = real
    cls = builder_class(NAME)
    xml = [path_of(NAME, k, real_mirror) for k in cls.SOURCES if k.startswith("full/")]
    ids = raw_ids(xml)
    workers = {m.group(1) for p in xml for m in re.finditer(r"<turkID>([^<]+)<", p.read_text())}
    assert len(workers) == 3815
    assert_no_raw_ids(ids, folder, cache, tmp_path)


@pytest.mark.mirror
@pytest.mark.parametrize("config", ["full", "strict", "ranking"])
@pytest.mark.slow  # the largest corpus built again, in 2 processes
def test_mirror_two_processes_build_the_same_rows(real, real_mirror, tmp_path, config):
    """The largest corpus (32 side files per config) built in 2 processes: the same rows."""
    two = argbench.load_dataset(
        NAME, config, "train", sources=real_mirror, cache_dir=str(tmp_path), num_proc=2
    )
    assert two.to_list() == real[2][config].to_list()


@pytest.mark.mirror
def test_mirror_built_folder_round_trips(real, tmp_path):
    folder, _, splits = real
    for config, ours in splits.items():
        plain = datasets.load_dataset(str(folder), config, split="train", cache_dir=str(tmp_path))
        assert plain.features == ours.features and len(plain) == len(ours)
        assert plain[:20] == ours[:20] and plain[-20:] == ours[-20:]
