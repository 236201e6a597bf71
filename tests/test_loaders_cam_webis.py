"""cam_relevance, cam_answers and webis_argquality20 on small fixtures in the sources' formats."""

import datetime

import datasets
import pytest

import argbench
from argbench.loaders._base import DataError
from tests.conftest import FIXTURE_FILES, FIXTURES

PEOPLE = ["Alice Wonderland", "Bob Builder"]  # sheet names that must never reach the data


def write_workbook(path, sheets):
    """An xlsx like expert_annotation.xlsx: {sheet name: rows} (first row is the header)."""
    from openpyxl import Workbook

    workbook = Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for row in rows:
            sheet.append(list(row))
    workbook.save(path)
    return path


ANNOTATOR_HEADER = (
    "comparison",
    "arguments",
    "relevance",
    None,
    "instruction: https://example.org",
)
CONTROL_HEADER = (
    "comparison",
    "arguments",
    *["relevance"] * 4,
    "var",
    "mean",
    "(supposed) relevance",
)
GOOD_SHEETS = {
    PEOPLE[0]: [
        ANNOTATOR_HEADER,
        ("laptop vs desktop", "1. Laptops are faster than desktops.", 3.0),
        ("laptop vs desktop", "2. I own a desktop.", 1.0, "only one object"),
        ("laptop vs desktop", "3. Laptops are faster than desktops.", None, "repeated sentence"),
        ("", "", None, ""),  # padding, as the real sheets have down to row 1000
        (None, None, None, None),
    ],
    "Sheet4": [ANNOTATOR_HEADER, ("tea vs coffee", "1. Tea is calmer than coffee.")],
    PEOPLE[1]: [ANNOTATOR_HEADER, ("tea vs coffee", "1. Tea is calmer than coffee.", 2.0)],
    "контрольные": [
        CONTROL_HEADER,
        ("Canon vs Nikon", "Canon is better than Nikon.", 2.0, 3.0, 3.0, 3.0, 0.25, 2.75, 3.0),
        ("Cats vs Dogs", "Dogs are superior to cats.", 2.0, 2.0, 2.0, 2.0, None, None, 2.0),
    ],
}


def cam_mirror(fixture_mirror, tmp_path, sheets=GOOD_SHEETS, **overrides):
    workbook = write_workbook(tmp_path / "expert_annotation.xlsx", sheets)
    return fixture_mirror(
        "cam_relevance",
        files={**FIXTURE_FILES["cam_relevance"], "expert": "generated"},
        overrides={"expert": workbook, **overrides},
    )


# -- cam_relevance --------------------------------------------------------------------------


def test_cam_relevance_default(fixture_mirror, cache_dir, tmp_path):
    mirror = cam_mirror(fixture_mirror, tmp_path)
    ds = argbench.load_dataset("cam_relevance", split="train", sources=mirror, cache_dir=cache_dir)
    assert ds.features["relevance"].names == [
        "irrelevant",
        "one_object",
        "both_objects",
        "both_objects_argued",
    ]
    assert ds["pair_id"] == [0, 0, 0, 0, 1, 2, 2, 2]
    assert ds["index"] == list(range(8))
    assert ds["argument"][4] is None  # placeholder row of a pair without sentences
    assert ds["relevance"] == [2, 3, 1, 0, 2, 3, 1, 0]
    assert ds["relevance_gpt4"] == [3, 2, 1, 0, 0, 3, 2, 1]  # strings "0"-"3" in the source


def test_cam_relevance_toloka_typed(fixture_mirror, cache_dir, tmp_path):
    mirror = cam_mirror(fixture_mirror, tmp_path)
    ds = argbench.load_dataset(
        "cam_relevance", "toloka", split="train", sources=mirror, cache_dir=cache_dir
    )
    assert len(ds) == 3  # records, not lines: each input spans 5 CRLF lines
    assert ds.features["started"] == datasets.Value("timestamp[ms]")
    assert ds["object_a"] == ["ASP", "Cement", "ASP"]
    assert ds["sentence"][:2] == [
        "ASP is better than PHP .",
        'Made of cement, lighter than "standard" concrete.',
    ]
    assert ds["input"][0].startswith("**ASP** vs **PHP**\r\n\r\n")
    assert ds["label"] == [2, 3, None]
    assert ds["golden_label"] == [None, 3, None]
    status = ds.features["status"]
    assert [status.int2str(s) for s in ds["status"]] == ["APPROVED", "APPROVED", "EXPIRED"]
    assert ds["started"][0] == datetime.datetime(2024, 2, 4, 19, 13, 23, 631000)
    assert ds["started"][1] == datetime.datetime(2024, 2, 4, 19, 53, 29)


def test_cam_relevance_toloka_bad_status_names_row_and_column(fixture_mirror, cache_dir, tmp_path):
    source = FIXTURES / FIXTURE_FILES["cam_relevance"]["toloka"]
    bad = tmp_path / "bad.tsv"
    bad.write_bytes(source.read_bytes().replace(b"EXPIRED", b"LOST"))
    mirror = cam_mirror(fixture_mirror, tmp_path, toloka=bad)
    with pytest.raises(DataError, match=r"example 2, field 'ASSIGNMENT:status'.*'LOST'"):
        argbench.load_dataset("cam_relevance", "toloka", sources=mirror, cache_dir=cache_dir)


def test_cam_relevance_expert_anonymised(fixture_mirror, cache_dir, tmp_path):
    mirror = cam_mirror(fixture_mirror, tmp_path)
    ds = argbench.load_dataset("cam_relevance", "expert", sources=mirror, cache_dir=cache_dir)
    train, control = ds["train"], ds["control"]
    # padding and the never-annotated sheet give no rows; the comment-only row is kept
    assert train["annotator"] == ["annotator_1"] * 3 + ["annotator_2"]
    assert train["row"] == [2, 3, 4, 2]
    assert train["argument_number"] == [1, 2, 3, 1]
    assert train["argument"][0] == "Laptops are faster than desktops."
    assert train["label"] == [3, 1, None, 2]
    assert train["comment"] == [None, "only one object", "repeated sentence", None]
    assert (train["object_a"][0], train["object_b"][0]) == ("laptop", "desktop")
    assert control["annotator"] == [f"rater_{k}" for k in (1, 2, 3, 4)] * 2
    assert control["label"] == [2, 3, 3, 3, 2, 2, 2, 2]
    assert control["supposed_label"] == [3] * 4 + [2] * 4
    assert control["argument_number"] == [None] * 8


def test_cam_relevance_expert_names_never_published(fixture_mirror, cache_dir, tmp_path):
    mirror = cam_mirror(fixture_mirror, tmp_path)
    folder = argbench.build("cam_relevance", tmp_path / "out", sources=mirror, cache_dir=cache_dir)
    card = (folder / "README.md").read_text(encoding="utf-8")
    expert = datasets.load_dataset(str(folder), "expert", cache_dir=str(tmp_path / "plain"))
    values = [
        str(value) for split in expert.values() for row in split.to_list() for value in row.values()
    ]
    for person in PEOPLE:
        assert person not in card
        assert not any(person in value for value in values)
    assert "annotator_2" in values


@pytest.mark.parametrize(
    ("row", "field"),
    [
        (("laptop vs desktop", None, 2.0), "arguments"),
        ((None, "4. A lone sentence.", 2.0), "comparison"),
        ((None, None, None, "a comment without a sentence"), "comparison"),
    ],
)
def test_cam_relevance_expert_half_filled_row_fails(
    fixture_mirror, cache_dir, tmp_path, row, field
):
    sheets = {**GOOD_SHEETS, PEOPLE[0]: [*GOOD_SHEETS[PEOPLE[0]][:3], row]}
    mirror = cam_mirror(fixture_mirror, tmp_path, sheets=sheets)
    with pytest.raises(DataError, match=rf"example 4, field '{field}'.*half-filled"):
        argbench.load_dataset("cam_relevance", "expert", sources=mirror, cache_dir=cache_dir)


def test_cam_relevance_expert_bad_label_fails(fixture_mirror, cache_dir, tmp_path):
    sheets = {**GOOD_SHEETS, PEOPLE[1]: [ANNOTATOR_HEADER, ("tea vs coffee", "1. Tea.", 2.5)]}
    mirror = cam_mirror(fixture_mirror, tmp_path, sheets=sheets)
    with pytest.raises(DataError, match=r"example 2, field 'relevance'.*label 0-3, got 2.5"):
        argbench.load_dataset("cam_relevance", "expert", sources=mirror, cache_dir=cache_dir)


# -- cam_answers ----------------------------------------------------------------------------


def test_cam_answers_silver_aligned(fixture_mirror, cache_dir):
    mirror = fixture_mirror("cam_answers")
    ds = argbench.load_dataset(
        "cam_answers", "silver", split="train", sources=mirror, cache_dir=cache_dir
    )
    assert len(ds) == 9 and ds["answer_index"] == [0, 1, 2] * 3
    first = ds[0]
    # "N. " removed: citation [N] is arguments[N-1]
    assert first["arguments"] == [
        "ASP is better than PHP .",
        "PHP is faster. Really faster than ASP.",
        "A sentence not in the table.",
    ]
    # (PHP, ASP) finds the table's (ASP, PHP); the repeated sentence takes its highest labels
    # (2 and 1 -> 2; GPT "3" and "1" -> 3); a sentence without a label is null
    assert first["argument_relevance"] == [2, 3, None]
    assert first["argument_relevance_gpt4"] == [3, 2, None]
    assert first["aspect"] is None and first["question"] is None
    assert first["prompt"].startswith("You are an analyst")
    aspirin = ds[3]
    # both table entries of the sorted pair (Aspirin, Ibuprofen) are used; placeholders match nothing
    assert aspirin["arguments"] == [
        "Ibuprofen is safer than aspirin.",
        "Aspirin is cheaper.",
        "Aspirin is cheaper.",
    ]
    assert aspirin["argument_relevance"] == [3, 1, 1]
    assert aspirin["argument_relevance_gpt4"] == [3, 2, 2]
    assert aspirin["aspect"] == "pain"
    assert ds[6]["arguments"] == [] and ds[6]["argument_relevance"] == []
    label = ds.features["argument_relevance"].feature
    assert label.names[2:] == ["both_objects", "both_objects_argued"]


def test_cam_answers_gold_takes_silver_subset_arguments(fixture_mirror, cache_dir):
    mirror = fixture_mirror("cam_answers")
    gold = argbench.load_dataset(
        "cam_answers", "gold", split="train", sources=mirror, cache_dir=cache_dir
    )
    subset = argbench.load_dataset(
        "cam_answers", "silver_subset", split="train", sources=mirror, cache_dir=cache_dir
    )
    assert gold["answer_index"] == [0, 1]
    assert gold["arguments"] == [subset[0]["arguments"]] * 2
    assert gold["argument_relevance"] == [[3, 1, 1]] * 2
    assert gold["prompt"] == [None, None] and gold["question"] == [None, None]


def test_cam_answers_gold_without_silver_pair_fails(fixture_mirror, cache_dir, tmp_path):
    bad = tmp_path / "gold.json"
    text = (FIXTURES / FIXTURE_FILES["cam_answers"]["gold"]).read_text()
    bad.write_text(text.replace('"Ibuprofen"', '"ibuprofen"'))
    mirror = fixture_mirror("cam_answers", overrides={"gold": bad})
    with pytest.raises(DataError, match=r"gold_40_plus_10x4.json, example 0, field 'object1'"):
        argbench.load_dataset("cam_answers", "gold", sources=mirror, cache_dir=cache_dir)


def test_cam_answers_misnumbered_argument_fails(fixture_mirror, cache_dir, tmp_path):
    bad = tmp_path / "silver.json"
    text = (FIXTURES / FIXTURE_FILES["cam_answers"]["silver_112"]).read_text()
    bad.write_text(text.replace('"2. PHP is faster', '"4. PHP is faster'))
    mirror = fixture_mirror("cam_answers", overrides={"silver_112": bad})
    with pytest.raises(DataError, match=r"example 0, field 'arguments\[1\]': numbered 4"):
        argbench.load_dataset("cam_answers", "silver", sources=mirror, cache_dir=cache_dir)


# -- webis_argquality20 ---------------------------------------------------------------------


def test_webis_pairwise_topics_inferred(fixture_mirror, cache_dir):
    mirror = fixture_mirror("webis_argquality20")
    ds = argbench.load_dataset(
        "webis_argquality20", split="train", sources=mirror, cache_dir=cache_dir
    )
    assert ds.features["winner"].names == ["a", "b", "tie"]
    assert ds.features["dimension"].names == ["rhetorical", "logical", "dialectical"]
    assert ds["dimension"] == [0] * 3 + [1] * 3 + [2] * 3
    # item (30, 1) is in topics 1 and 2: its partner decides
    assert ds["topic_id"] == [1, 2, 1] * 3
    assert ds["winner"][:3] == [0, 2, 1]
    assert (ds[1]["discussion_id_a"], ds[1]["argument_id_a"]) == (20, 1)


def test_webis_pairwise_two_processes_build_the_same_rows(fixture_mirror, tmp_path):
    """One shard per quality dimension's file."""
    mirror = fixture_mirror("webis_argquality20")
    one, two = (
        argbench.load_dataset(
            "webis_argquality20",
            "pairwise",
            "train",
            sources=mirror,
            cache_dir=str(tmp_path / str(n)),
            num_proc=n,
        )
        for n in (1, 2)
    )
    assert two.to_list() == one.to_list() and len(set(one["dimension"])) == 3


@pytest.mark.parametrize(
    ("pair", "problem"),
    [("10,1,20,1", "no topic"), ("30,1,30,1", r"several topics \[1, 2\]")],
)
def test_webis_judgment_without_single_topic_fails(
    fixture_mirror, cache_dir, tmp_path, pair, problem
):
    source = FIXTURES / FIXTURE_FILES["webis_argquality20"]["logical"]
    bad = tmp_path / "logical.csv"
    bad.write_text(source.read_text() + f"{pair},A\n")
    mirror = fixture_mirror("webis_argquality20", overrides={"logical": bad})
    with pytest.raises(
        DataError,
        match=rf"webis-argquality20-raw-logical.csv, example 3, field 'topic_id'.*{problem}",
    ):
        argbench.load_dataset("webis_argquality20", sources=mirror, cache_dir=cache_dir)


def test_webis_scores_sentinels_are_null(fixture_mirror, cache_dir):
    mirror = fixture_mirror("webis_argquality20")
    ds = argbench.load_dataset(
        "webis_argquality20", "scores", split="train", sources=mirror, cache_dir=cache_dir
    )
    rows = ds.to_list()
    assert rows[0]["premise"] == 'Raising the wage helps workers, "obviously", and the economy.'
    assert rows[0]["stance"] is True and rows[1]["stance"] is False
    assert rows[0]["logical"] == 0.75
    non_argument = rows[2]
    assert non_argument["is_argument"] is False
    for column in ("relevance", "rhetorical", "logical", "dialectical", "combined"):
        assert non_argument[column] is None  # -4.0 in the source
    never_compared = rows[6]
    assert never_compared["relevance"] == -0.5
    for column in ("rhetorical", "logical", "dialectical", "combined"):
        assert never_compared[column] is None  # -3.0 (combined -3.5) in the source


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        # an argument with the non-argument sentinel
        ("The minimum wage kills jobs.,-0.25,", "The minimum wage kills jobs.,-4.0,", "example 1, field 'Relevance'"),
        # a non-argument with a score
        ("I like turtles.,-4.0,False,-4.0", "I like turtles.,-4.0,False,0.5", "example 2, field 'Rhetorical Quality'"),
        # "never compared" on an item that has judgments
        ("A basic income frees people to learn.,1.0,True,0.0,0.1,0.2", "A basic income frees people to learn.,1.0,True,-3.0,-3.0,-3.0", "example 5, field 'Logical Quality'.*occurs in judgments"),
        ("True,-3.0,-3.0,-3.0", "True,-3.0,-3.0,0.5", "example 6, field 'Logical Quality'.*some quality columns only"),
        (",10,True,0.9", ",ten,True,0.9", "example 0, field 'Text Length': expected an integer"),
    ],
)  # fmt: skip
def test_webis_scores_malformed_fail(fixture_mirror, cache_dir, tmp_path, old, new, match):
    source = FIXTURES / FIXTURE_FILES["webis_argquality20"]["arguments"]
    text = source.read_text()
    assert old in text
    bad = tmp_path / "arguments.csv"
    bad.write_text(text.replace(old, new, 1))
    mirror = fixture_mirror("webis_argquality20", overrides={"arguments": bad})
    with pytest.raises(DataError, match=match):
        argbench.load_dataset("webis_argquality20", "scores", sources=mirror, cache_dir=cache_dir)


def test_webis_small_configs(fixture_mirror, cache_dir):
    mirror = fixture_mirror("webis_argquality20")

    def load(config):
        return argbench.load_dataset(
            "webis_argquality20", config, split="train", sources=mirror, cache_dir=cache_dir
        )

    topics = load("topics")
    assert topics["short_query"] == ["Minimum Wage", "Universal Basic Income"]
    assert topics["long_query"][1] == "Is a  Universal Basic Income beneficial?"
    rankings = load("rankings")
    assert rankings["model"] == ["DPH", "BM25", "DirichletLM"] and rankings["rank"] == [0, 1, 0]
    votes = load("relevance_judgments")
    assert votes.features["task_id"] == datasets.Value("int64")
    assert votes["task_id"][2] == -3150422245451331926
    assert votes["relevance"] == [2, 3, 0] and votes["is_argument"] == [True, False, False]
