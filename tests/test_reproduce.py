import json

import pytest

from argbench import reproduce as rep


def test_row_diff_only_when_comparable():
    assert rep.Row("x", 0.8, 0.75).diff == pytest.approx(0.05)
    assert rep.Row("x", 0.8, 0.75, comparable=False).diff is None
    assert rep.Row("x", None, 0.75, note="not run").diff is None
    assert rep.Row("x", 3, None).diff is None


def test_render_marks_missing_and_not_comparable():
    section = rep.Section(
        "P",
        "T",
        [rep.Row("a", 0.5, 0.4, "paper"), rep.Row("b", None, 0.7, note="not run: no judge")],
    )
    text = rep.render_markdown([section], [])
    assert "| a | 0.5 | 0.4 | +0.1 | paper |  |" in text
    assert "| b | — | 0.7 | — |  | not run: no judge |" in text


@pytest.mark.mirror
def test_dataset_sections_on_the_real_files(real_mirror, tmp_path):
    sections = rep.reproduce(
        tmp_path,
        sources=str(real_mirror),
        cache_dir=str(tmp_path / "cache"),
        log=lambda m: None,
        only={"claimdiff_table1", "cqs_gen_statistics"},
    )
    rows = {(s.paper, r.item): r for s in sections for r in s.rows}
    assert rows[("ClaimDiff", "train / % strengthen")].diff == pytest.approx(0.0)
    assert rows[("ClaimDiff", "test_doc / pairs")].argbench == 3168
    assert rows[("CQs-Gen", "reference questions")].argbench == 4136
    report = json.loads((tmp_path / "report.json").read_text())
    assert {s["paper"] for s in report["sections"]} == {"ClaimDiff", "CQs-Gen"}
    assert (tmp_path / "report.md").read_text().startswith("# argbench reproduction report")
