"""``argbench sample``: a real system output written where the tutorials need it."""

from __future__ import annotations

import json

import pytest

from argbench.cli import main
from argbench.loaders.registry import path_of
from argbench.sources import sha256_of


def test_unknown_sample_is_a_usage_error(capsys, tmp_path):
    assert main(["sample", "claimdiff", "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "argbench sample: error: no sample for 'claimdiff'; samples: cam_answers, cqs_gen" in err
    assert not (tmp_path / "x.json").exists()


def test_bad_out_is_refused_before_any_work(capsys, tmp_path):
    assert main(["sample", "cqs_gen", "--out", str(tmp_path / "x.csv")]) == 2
    assert "expected a file ending in .json or .jsonl" in capsys.readouterr().err
    (tmp_path / "folder.json").mkdir()
    assert main(["sample", "cqs_gen", "--out", str(tmp_path / "folder.json")]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_no_mirror_offline_fails_as_a_run(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    out = tmp_path / "s.json"
    code = main(["sample", "cqs_gen", "--out", str(out), "--sources", str(tmp_path / "none")])
    assert code == 1 and not out.exists()


@pytest.mark.mirror
def test_cqs_gen_sample_is_the_release_file(real_mirror, tmp_path, capsys):
    out = tmp_path / "output_llama8.json"
    assert main(["sample", "cqs_gen", "--out", str(out), "--sources", str(real_mirror)]) == 0
    assert sha256_of(out) == sha256_of(path_of("cqs_gen", "trial_output", real_mirror))
    assert len(json.loads(out.read_text())) == 5
    assert capsys.readouterr().out.startswith(f"wrote {out}: 5 interventions")


@pytest.mark.mirror
def test_cam_answers_sample_scores_as_predictions(real_corpora, tmp_path, capsys):
    out = tmp_path / "experts.jsonl"
    argv = ["--sources", str(real_corpora.mirror), "--cache-dir", real_corpora.cache]
    assert main(["sample", "cam_answers", "--out", str(out), *argv]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 80 and set(rows[0]) == {"question_id", "answer_index", "answer"}
    capsys.readouterr()
    evaluate = ["evaluate", "argument_relevance", str(out), "--dataset", "cam_answers"]
    assert main([*evaluate, "--config", "gold", "--json", *argv]) == 0
    assert json.loads(capsys.readouterr().out)["f1"] == pytest.approx(0.7001, abs=1e-4)
