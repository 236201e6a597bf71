import json

import datasets
import pytest

import argbench
from argbench.loaders._base import DataError
from tests.conftest import FIXTURES


def test_list_datasets_names_every_loader():
    assert {"claimdiff", "cqs_gen"} <= set(argbench.list_datasets())


def test_claimdiff_from_fixtures(fixture_mirror, cache_dir):
    mirror = fixture_mirror("claimdiff")
    ds = argbench.load_dataset("claimdiff", "S", sources=mirror, cache_dir=cache_dir)
    assert set(ds) == {"train", "test", "test_doc"}
    train = ds["train"]
    assert train.features["label"].names == ["not_strengthen", "strengthen"]
    assert train.features["date"] == datasets.Value("date32")
    first = train[0]
    assert first["label"] == 1 and first["reversed"] is False
    span = first["rationale_spans"][0]
    assert first["claim_a"][span["start"] : span["end"]] == first["rationales"][0]
    assert train[1]["reversed"] is True
    assert [len(r) for r in train["rationales"]] == [1, 0, 2]

    weak = argbench.load_dataset(
        "claimdiff", "W", split="train", sources=mirror, cache_dir=cache_dir
    )
    assert weak.features["label"].names == ["not_weaken", "weaken"]
    assert weak["label"] == [0, 1, 0]

    unfiltered = argbench.load_dataset(
        "claimdiff", "unfiltered", split="train", sources=mirror, cache_dir=cache_dir
    )
    assert unfiltered["average_response"] == pytest.approx([4 / 3, -0.5, 0.0])
    assert "label" not in unfiltered.features


def test_claimdiff_rationale_not_in_claim_fails_loudly(fixture_mirror, cache_dir, tmp_path):
    records = json.loads((FIXTURES / "claimdiff/ClaimDiff-strength.json").read_text())
    records["data"][2]["rationale"] = ["not in the claim"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(records))
    mirror = fixture_mirror("claimdiff", overrides={"S/train": bad})
    with pytest.raises(
        DataError, match=r"example 2, field 'rationale'.*not a substring of claim_a"
    ):
        argbench.load_dataset("claimdiff", "S", sources=mirror, cache_dir=cache_dir)


def test_cqs_gen_from_fixtures(fixture_mirror, cache_dir):
    mirror = fixture_mirror("cqs_gen")
    ds = argbench.load_dataset("cqs_gen", sources=mirror, cache_dir=cache_dir)
    assert str(ds["test"].info.version) == "2.0.0"
    assert {s: len(d) for s, d in ds.items()} == {"validation": 2, "test": 2}
    refs = ds["validation"][0]["references"]
    label = ds["validation"].features["references"].feature["label"]
    assert label.names == ["Useful", "Unhelpful", "Invalid"]
    assert [label.int2str(r["label"]) for r in refs] == ["Useful", "Unhelpful", "Invalid"]
    test = ds["test"][0]["references"]
    assert [(r["id"], label.int2str(r["label"])) for r in test] == [
        ("CLINTON_9_a", "Useful"),
        ("CLINTON_9_b", "Unhelpful"),
        ("CLINTON_9_c", "Invalid"),
    ]
    assert ds["test"][1]["references"][1]["cq"] == "Which taxes are meant? "  # kept verbatim
    questions = argbench.load_dataset("cqs_gen", "questions", sources=mirror, cache_dir=cache_dir)
    assert questions["validation"]["id"] == ["TRUMP_1_a", "TRUMP_1_b", "TRUMP_1_c", "rrd_7_0"]
    assert questions["validation"]["intervention_id"][-1] == "rrd_7"
    assert len(questions["test"]) == 5


def test_cqs_gen_version_1_still_loads(fixture_mirror, cache_dir):
    """1.0.0: the shared task's test interventions, without references; no `extended`."""
    mirror = fixture_mirror("cqs_gen")
    ds = argbench.load_dataset("cqs_gen", sources=mirror, cache_dir=cache_dir, version="1.0.0")
    assert str(ds["test"].info.version) == "1.0.0"
    assert {s: len(d) for s, d in ds.items()} == {"validation": 2, "test": 1}
    assert ds["test"][0]["references"] == []
    questions = argbench.load_dataset(
        "cqs_gen", "questions", sources=mirror, cache_dir=cache_dir, version="1.0.0"
    )
    assert list(questions) == ["validation"]
    with pytest.raises(ValueError, match="'extended' exists from version 2.0.0"):
        argbench.load_dataset(
            "cqs_gen", "extended", sources=mirror, cache_dir=cache_dir, version="1.0.0"
        )
    with pytest.raises(ValueError, match="CqsGen has versions 1.0.0, 2.0.0, not 3.0.0"):
        argbench.load_dataset("cqs_gen", sources=mirror, cache_dir=cache_dir, version="3.0.0")


def test_cqs_gen_extended_blocks_ids_and_labels(fixture_mirror, cache_dir):
    mirror = fixture_mirror("cqs_gen")
    ext = argbench.load_dataset("cqs_gen", "extended", "test", sources=mirror, cache_dir=cache_dir)
    label = ext.features["references"].feature["label"]
    refs = ext[0]["references"]
    assert [r["submission"] for r in refs] == [-1, -1, -1, 0, 0, 0, 1, 1, 2, 2]
    assert [r["id"] for r in refs][3:] == [
        "CLINTON_9_s00_q0",
        "CLINTON_9_s00_q1",
        "CLINTON_9_s00_q2",
        "CLINTON_9_s01_q0",
        "CLINTON_9_s01_q1",
        "CLINTON_9_s02_q0",
        "CLINTON_9_s02_q1",
    ]
    assert [r["release_id"] for r in refs][3:] == [
        "1",
        "2",
        "0",
        "2",
        "4",
        *[
            "CLINTON_9_api_sys-a",
            "CLINTON_9_api_sys-b",
        ],
    ]
    wrong = refs[5]
    assert (label.int2str(wrong["label"]), wrong["label_raw"]) == ("Invalid", "Wrong reasoning")
    assert refs[3]["reason"] == "asks for the content" and refs[4]["reason"] is None
    assert refs[4]["cq"] == " Who needs it?"
    # a block of 2 ends where a fresh 0, 1, ... run starts: [0, 1], [0, 1], [string id]
    assert [r["submission"] for r in ext[1]["references"]] == [-1, -1, 0, 0, 1, 1, 2]


def test_cqs_gen_extended_must_start_with_the_test_references(fixture_mirror, cache_dir, tmp_path):
    records = json.loads((FIXTURES / "cqs_gen/extended_test.json").read_text())
    records["HOLT_3"]["cqs"] = records["HOLT_3"]["cqs"][1:]
    bad = tmp_path / "extended_test.json"
    bad.write_text(json.dumps(records))
    mirror = fixture_mirror("cqs_gen", overrides={"extended": bad})
    with pytest.raises(DataError, match=r"example 1, field 'cqs': does not start with the test"):
        argbench.load_dataset("cqs_gen", "extended", sources=mirror, cache_dir=cache_dir)


def test_cqs_gen_unknown_label_names_example_and_field(fixture_mirror, cache_dir, tmp_path):
    records = json.loads((FIXTURES / "cqs_gen/validation.json").read_text())
    records["rrd_7"]["cqs"][0]["label"] = "useful"
    bad = tmp_path / "validation.json"
    bad.write_text(json.dumps(records))
    mirror = fixture_mirror("cqs_gen", overrides={"validation": bad})
    with pytest.raises(DataError, match=r"example 1, field 'cqs\[0\].label'"):
        argbench.load_dataset("cqs_gen", sources=mirror, cache_dir=cache_dir)


def test_unknown_names_are_clear_errors(fixture_mirror, cache_dir):
    with pytest.raises(KeyError, match="unknown dataset 'nope'; available: "):
        argbench.load_dataset("nope")
    with pytest.raises(ValueError, match="no config 'X'; configs: S, W, unfiltered"):
        argbench.load_dataset("claimdiff", "X")
    mirror = fixture_mirror("cqs_gen")
    with pytest.raises(ValueError, match="no split 'train'; splits: validation, test"):
        argbench.load_dataset("cqs_gen", split="train", sources=mirror, cache_dir=cache_dir)


def test_bad_checksum_fails_and_caches_nothing(fixture_mirror, cache_dir, tmp_path):
    from argbench.sources import ChecksumError

    mirror = fixture_mirror("cqs_gen")
    target = next(mirror.rglob("validation.json"))
    target.write_text(target.read_text().replace("Useful", "Invalid", 1))
    with pytest.raises(ChecksumError, match="validation.json"):
        argbench.load_dataset("cqs_gen", sources=mirror, cache_dir=cache_dir)
    assert not list((tmp_path / "hf-cache").rglob("*.arrow"))


def test_missing_file_offline_names_url_and_mirror(cache_dir, tmp_path):
    from argbench.sources import SourceNotFoundError

    with pytest.raises(
        SourceNotFoundError, match=r"url https://raw\.githubusercontent\.com/.*mirror paths tried"
    ):
        argbench.load_dataset("cqs_gen", sources=tmp_path / "empty-mirror", cache_dir=cache_dir)


def test_claimdiff_garbled_title_takes_the_clean_title_it_shares_claims_with():
    from argbench.loaders.claimdiff import title_repairs

    garbled = "Obama warns of GOP Ã¢â‚¬Ëœlump of coalÃ¢â‚¬â„¢ tax hike"
    records = [
        {"article_a": garbled, "claim_a": "c1", "article_b": "Other", "claim_b": "c9"},
        {
            "article_a": "Obama warns of GOP 'lump of coal'",
            "claim_a": "c1",
            "article_b": "Other",
            "claim_b": "c8",
        },
    ]
    assert title_repairs(records) == {garbled: "Obama warns of GOP 'lump of coal'"}
    alone = [records[0]]  # no clean title shares its claims: just un-garbled
    assert title_repairs(alone) == {garbled: "Obama warns of GOP ‘lump of coal’ tax hike"}
    assert (
        title_repairs([{"article_a": "Café", "claim_a": "x", "article_b": "B", "claim_b": "y"}])
        == {}
    )
