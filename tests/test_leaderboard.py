"""``argbench leaderboard``: columns of one measurement, ranks, intervals, paired tests, the
site's files, and the hostile cases (other signatures or splits, edited or partial files,
HTML in a name or a question, a huge file)."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from argbench.cli import main
from argbench.leaderboard.table import apart, apart_text, columns, rank_ranges, read, ties_text
from argbench.results import build_document, write_results

SIGNATURE = "cq_reference_match|matcher:sts|model:m@abc|thr:>0.65|max_q:3|v:0.1.0"
DATASET = {
    "name": "cqs_gen",
    "config": "extended",
    "split": "test",
    "version": "2.0.0",
    "content_hash": "sha256:" + "ab" * 32,
    "source": "argbench",
}
IDS = [f"i{k}" for k in range(20)]


def results(system, values, *, signature=SIGNATURE, dataset=DATASET, ids=IDS, **extra):
    result = {
        "score": float(np.mean([v for v in values if v is not None])),
        "signature": signature,
        "per_item": {"score": list(values)},
        **extra,
    }
    return build_document("cq_reference_match", result, dict(dataset), ids, system=system)


def write(tmp_path, doc, name=None):
    return str(write_results(doc, tmp_path / f"{name or doc['system']}.json"))


def board(tmp_path):
    rng = np.random.default_rng(0)
    good = (rng.random(20) < 0.8).astype(float)
    bad = (rng.random(20) < 0.2).astype(float)
    return [
        write(tmp_path, results("strong", list(good))),
        write(tmp_path, results("weak", list(bad))),
        write(tmp_path, results("strong-twin", list(good))),
    ]


def test_ranks_intervals_and_who_cannot_be_told_apart(tmp_path):
    table, refused = columns(read(board(tmp_path)), resamples=2000)
    assert not refused and len(table) == 1
    rows = table[0].rows
    assert [r["system"] for r in rows][:2] in (["strong", "strong-twin"], ["strong-twin", "strong"])
    assert rows[-1]["system"] == "weak" and rows[-1]["rank"] == 3
    leader, twin, weak = rows
    assert leader["vs_leader"] is None and leader["low"] <= leader["score"] <= leader["high"]
    assert twin["vs_leader"]["difference"] == 0 and twin["tied_with_leader"]
    assert weak["vs_leader"]["p_value"] < 0.05 and not weak["tied_with_leader"]
    assert weak["vs_leader"]["high"] < 0  # weak - leader, interval below zero
    assert twin["system"] in leader["not_distinguishable_from"]
    assert "weak" not in leader["not_distinguishable_from"]
    assert leader["items_scored"] == 20 and leader["complete"]


def test_other_signatures_and_splits_are_other_columns(tmp_path):
    paths = board(tmp_path)
    other_model = SIGNATURE.replace("m@abc", "other@def")
    other_data = {**DATASET, "content_hash": "sha256:" + "cd" * 32}
    paths += [
        write(tmp_path, results("strong", [1.0] * 20, signature=other_model), "strong-other-model"),
        write(tmp_path, results("strong", [1.0] * 20, dataset=other_data), "strong-other-data"),
        write(tmp_path, results("partial", [1.0] * 10, ids=IDS[:10])),
    ]
    table, refused = columns(read(paths), resamples=500)
    assert len(table) == 4 and not refused
    sizes = sorted(len(c.rows) for c in table)
    assert sizes == [1, 1, 1, 3]
    for column in table:  # a column never mixes signatures, splits or item sets
        assert len({d["signature"] for d in column.docs}) == 1
        assert len({d["dataset"]["content_hash"] for d in column.docs}) == 1
        assert len({tuple(d["item_ids"]) for d in column.docs}) == 1


def test_a_result_without_per_item_headline_is_refused_with_the_reason(tmp_path):
    from argbench.scoring.claim_relation import claim_relation

    result = claim_relation(
        predictions=[0.1 * (k % 10) for k in range(20)],
        references=[k % 2 for k in range(20)],
        threshold=0.5,
    )
    doc = build_document("claim_relation", result, dict(DATASET), IDS, system="x")
    paths = [*board(tmp_path), write(tmp_path, doc, "diversity")]
    table, refused = columns(read(paths), resamples=200)
    assert len(table) == 1
    assert refused[0]["system"] == "x" and "no per-item headline" in refused[0]["reason"]


def test_site_files_and_escaping(tmp_path):
    evil = "<script>alert(1)</script>"
    paths = board(tmp_path)
    paths.append(
        write(
            tmp_path,
            results(
                evil,
                [0.5] * 20,
                questions=[[f"<img src=x onerror=alert({k})>?"] for k in range(20)],
            ),
            "evil",
        )
    )
    out = tmp_path / "site"
    assert main(["leaderboard", *paths, "--out", str(out), "--resamples", "500"]) == 0
    pages = sorted(p.name for p in out.glob("*.html"))
    assert "index.html" in pages and len(pages) == 1 + 1 + 4  # index, the task, 4 systems
    for page in out.glob("*.html"):
        text = page.read_text()
        assert "<script>alert" not in text and "<img src=x" not in text, page.name
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text  # nothing loaded from the network
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "index.html").read_text() or any(
        "&lt;script&gt;" in p.read_text() for p in out.glob("*.html")
    )
    with open(out / "leaderboard.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and rows[0]["rank"] == "1"
    assert {r["system"] for r in rows} == {"strong", "weak", "strong-twin", evil}  # data, as is
    data = json.loads((out / "leaderboard.json").read_text())
    assert data[0]["signature"] == SIGNATURE and data[0]["dataset"]["content_hash"]
    system_page = next(p for p in out.glob("system-*.html") if "script" in p.name)
    assert "&lt;img src=x onerror=alert(" in system_page.read_text()  # worst items, escaped
    assert "<svg" in system_page.read_text()


def test_edited_or_partial_files_are_refused(tmp_path, capsys):
    paths = board(tmp_path)
    doc = json.loads(open(paths[0]).read())
    doc["result"]["per_item"]["score"] = doc["result"]["per_item"]["score"][:5]
    (tmp_path / "edited.json").write_text(json.dumps(doc))
    (tmp_path / "cut.json").write_text(open(paths[1]).read()[:200])
    out = tmp_path / "site"
    for bad in ("edited.json", "cut.json"):
        status = main(["leaderboard", paths[2], str(tmp_path / bad), "--out", str(out)])
        assert status == 2
        assert bad in capsys.readouterr().err
    assert not (out / "leaderboard.csv").exists()  # nothing written from a refused file


def test_a_huge_file_is_refused_before_it_is_read(tmp_path, capsys):
    paths = board(tmp_path)
    status = main(["leaderboard", *paths, "--out", str(tmp_path / "s"), "--max-bytes", "100"])
    assert status == 2
    err = capsys.readouterr().err
    assert "above the leaderboard's limit of 100" in err and "strong.json" in err


def test_the_out_folder_may_not_be_an_input(tmp_path, capsys):
    paths = board(tmp_path)
    status = main(["leaderboard", *paths, "--out", paths[0]])
    assert status == 2


def test_a_submission_with_four_questions_is_flagged_on_its_row(tmp_path):
    """cq_reference_match scores the first three of four questions and counts the item in
    n_long; the board says so beside the score instead of hiding it."""
    paths = [*board(tmp_path), write(tmp_path, results("four", [1.0] * 20, n_long=1))]
    table, _ = columns(read(paths), resamples=200)
    row = next(r for r in table[0].rows if r["system"] == "four")
    assert row["flags"] == ["1 items with more questions than scored (the first ones scored)"]
    assert all(not r["flags"] for r in table[0].rows if r["system"] != "four")


def test_a_rebuild_removes_its_stale_pages_and_never_touches_other_files(tmp_path, capsys):
    paths = board(tmp_path)
    out = tmp_path / "site"
    assert main(["leaderboard", *paths, "--out", str(out), "--resamples", "200"]) == 0
    weak_page = next(out.glob("system-weak-*.html"))
    assert main(["leaderboard", paths[0], paths[2], "--out", str(out), "--resamples", "200"]) == 0
    assert not weak_page.exists() and (out / "index.html").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own file")
    assert main(["leaderboard", *paths, "--out", str(mine)]) == 2
    assert "did not write" in capsys.readouterr().err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]


def test_harness_runs_name_their_task_and_run(tmp_path):
    """import-harness documents carry the task as {name, prompt} and the run's settings."""
    paths = []
    for name in ("a", "b"):
        doc = results(name, [1.0, 0.0] * 10)
        doc["task"] = {"name": "argbench/cqs_gen", "prompt": "7e684435"}
        doc["harness"] = {"name": "lm-eval", "version": "0.4.13", "model": "local-chat-completions",
                          "model_name": name, "limit": 20.0}  # fmt: skip
        paths.append(write(tmp_path, doc))
    table, _ = columns(read(paths), resamples=200)
    assert len(table) == 1 and table[0].rows[0]["harness"].startswith("lm-eval 0.4.13, local-chat")
    out = tmp_path / "site"
    assert main(["leaderboard", *paths, "--out", str(out), "--resamples", "200"]) == 0
    assert "argbench/cqs_gen (prompt 7e684435)" in (out / f"{table[0].slug}.html").read_text()


@pytest.mark.mirror
@pytest.mark.real_server
@pytest.mark.slow  # lm_eval against llama.cpp's server
@pytest.mark.harness
def test_a_real_small_model_through_lm_eval_onto_the_board(real_mirror, weights, tmp_path, minilm):
    """SmolLM2-135M-Instruct (the packaged GGUF) behind llama.cpp's server on 127.0.0.1,
    through lm-eval's local-chat-completions on the CQs-Gen TEST interventions (the paper's
    benchmark split), imported with argbench import-harness and ranked in the test column
    (interventions/test, the test split's content hash) among the 15 shared-task submissions
    and the 3 baselines scored as a new system is (argbench submissions), named as the 135M
    model it is, marked incomplete on the front page (--limit 2 of the 34), its questions on
    its page; eval-results refuses it as partial."""
    import os
    import subprocess
    import sys
    from html import escape
    from pathlib import Path

    from argbench import hub_eval
    from argbench.harness import lm_eval_path
    from argbench.llm import serve_gguf
    from argbench.results import load_split, read_results

    bin_dir = Path(sys.executable).parent
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ARGBENCH_"))},
        "ARGBENCH_SOURCES": str(real_mirror),
        "ARGBENCH_STS_MODEL": minilm,
        "ARGBENCH_EMBEDDINGS_CACHE": str(tmp_path / "emb"),
        "HF_DATASETS_CACHE": str(tmp_path / "datasets"),
        "OPENAI_API_KEY": "local",
    }
    logs = tmp_path / "lm-eval"
    with serve_gguf(weights, progress=False) as endpoint:
        done = subprocess.run(
            [
                str(bin_dir / "lm_eval"),
                "--model", "local-chat-completions",
                "--model_args",
                f"base_url={endpoint.base_url}/chat/completions,model={endpoint.model},"
                "tokenizer_backend=none,max_retries=1",
                "--apply_chat_template",
                "--tasks", "argbench_cqs_gen_test",
                "--include_path", str(lm_eval_path()),
                "--limit", "2",
                "--gen_kwargs", "max_gen_toks=48",
                "--log_samples", "--output_path", str(logs),
            ],
            env=env, capture_output=True, text=True, timeout=1200,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    imported = tmp_path / "results"
    done = subprocess.run(
        [str(bin_dir / "argbench"), "import-harness", str(logs), "--out", str(imported)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = imported.glob("*.json")
    assert path.name.startswith("cqs_gen_test.cq_reference_match.SmolLM2-135M")
    doc = read_results(path)
    test_split = load_split("cqs_gen", "interventions", "test", sources=real_mirror)
    assert doc["dataset"]["split"] == "test" and doc["dataset"]["config"] == "interventions"
    assert doc["dataset"]["content_hash"] == test_split.identity()["content_hash"]
    assert doc["item_ids"] == test_split.data["intervention_id"][:2] and doc["n_missing"] == 32
    # the benchmark task of eval.yaml (not the validation one), its protocol kept; refused
    # for the Hub as partial (and as not scored on a Hub dataset)
    assert hub_eval._task_of(doc).id == "cq_reference_match"
    assert hub_eval.protocol_differences(hub_eval._task_of(doc), doc["signature"]) == []
    with pytest.raises(hub_eval.NotALeaderboardValue, match="not computed on a Hub dataset"):
        hub_eval.eval_results_entry(doc)
    on_hub = {**doc, "dataset": {**doc["dataset"], "source": "hub:o/cqs_gen", "commit": "0" * 40}}
    with pytest.raises(
        hub_eval.NotALeaderboardValue, match="partial results: 32 of the split's 34"
    ):
        hub_eval.eval_results_entry(on_hub)
    # the shipped systems, scored as a new system is (cqs_gen/test) and by §6.1 (results/)
    systems = tmp_path / "systems"
    done = subprocess.run(
        [str(bin_dir / "argbench"), "submissions", "--out", str(systems), "--only", "cqs_gen",
         "--model", minilm, "--resamples", "200"],
        env=env, capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    shipped = sorted(
        str(p) for part in ("results", "test") for p in (systems / "cqs_gen" / part).glob("*.json")
    )
    assert len(shipped) == 2 * 18
    site = tmp_path / "site"
    argv = ["leaderboard", str(path), *shipped, "--out", str(site), "--resamples", "200"]
    assert main(argv) == 0
    board_json = json.loads((site / "leaderboard.json").read_text())
    [task] = [t for t in board_json if any(r["system"] == doc["system"] for r in t["rows"])]
    # ranked among the 15 submissions and the 3 baselines, in the test split's column
    assert task["dataset"]["config"] == "interventions" and task["dataset"]["split"] == "test"
    assert task["dataset"]["content_hash"] == test_split.identity()["content_hash"]
    names = [r["system"] for r in task["rows"]]
    assert sum(n.startswith("submission_") for n in names) == 15
    assert sum(n.startswith("baseline_") for n in names) == 3 and len(names) == 19
    row = next(r for r in task["rows"] if r["system"] == doc["system"])
    assert row["system"].startswith("SmolLM2-135M") and row["items"] == 34
    assert row["items_scored"] == 2 and row["complete"] is False
    assert "not scored" in row["flags"] and "--limit 2" in row["run"]
    assert "argbench/cqs_gen_test (prompt " in row["harness_task"]
    assert "local-chat-completions" in row["harness"] and 0.0 <= row["score"] <= 1.0
    assert 1 <= row["rank"] <= 19
    # the §6.1 column stays apart, and says why (its reference set)
    other = next(t for t in board_json if t["dataset"]["config"] == "extended")
    assert len(other["rows"]) == 18 and "refs:test+submissions-own" in other["signature"]
    # the partial run is marked incomplete on the front page
    index = (site / "index.html").read_text()
    assert f"{doc['system']}: 2 / 34 items, incomplete" in index
    assert "(18 systems): differs in signature refs, dataset config" in index
    column_page = (site / f"{task['slug']}.html").read_text()
    assert "signature refs (absent here, test+submissions-own there)" in column_page
    # its page shows what it wrote, question by question, with the prompt's hash
    page = next(site.glob("system-SmolLM2*.html")).read_text()
    for generation in doc["generations"]:
        assert len(generation["prompt_sha256"]) == 64
        for question in generation["prediction"]:
            assert escape(question) in page
        assert f"prompt {generation['prompt_sha256'][:12]}" in page


def test_a_hub_dataset_names_its_commit(tmp_path):
    hub = {**DATASET, "source": "hub:me/cqs", "revision": "main", "commit": "0123456789abcdef" * 2}
    paths = [write(tmp_path, results(n, [1.0, 0.0] * 10, dataset=hub), n) for n in ("a", "b")]
    table, _ = columns(read(paths), resamples=200)
    assert table[0].rows[0]["dataset_version"] == "2.0.0 @ 0123456789ab"


# ---------------------------------------------------------------- one column per measurement

HARNESS_FIELDS = "|input:messages|decode:greedy|max_tok:48"


def harness_doc(system, values, ids=IDS, missing=(), prompt="7e684435", signature=SIGNATURE):
    """An import-harness document: the run's fields in its signature, its task and run, each
    item's generation; ``missing``: the split's items the run did not reach (--limit)."""
    base, version = signature.rsplit("|v:", 1)
    result = {
        "score": float(np.mean([v for v in values if v is not None])),
        "signature": f"{base}{HARNESS_FIELDS}|v:{version}",
        "per_item": {"score": list(values)},
    }
    doc = build_document(
        "cq_reference_match", result, dict(DATASET), ids, missing=missing, system=system
    )
    doc["task"] = {"name": "argbench/cqs_gen_test", "prompt": prompt}
    doc["harness"] = {"name": "lm-eval", "version": "0.4.13", "model": "local-chat-completions",
                      "model_name": system, "limit": float(len(ids)) if missing else None,
                      "run": "2026-11-27T10-00-00"}  # fmt: skip
    doc["generations"] = [
        {"text": f"Why <{i}>?\nWho?", "prompt_sha256": "ab" * 32, "prediction": [f"Why <{i}>?"]}
        for i in ids
    ]
    return doc


def test_a_harness_run_and_a_limit_run_join_the_column_of_evaluate_results(tmp_path):
    """The harness's own signature fields (input, decode, max_tok) and its task are how the
    system was produced, not how it was scored: a harness run and a --limit run (2 of the 20
    items, the rest in missing_ids) sit in the column of the evaluate results, the partial one
    marked incomplete and ranked on its items. Before: three columns of one row each."""
    paths = board(tmp_path)
    paths.append(write(tmp_path, harness_doc("model-full", [0.5] * 20), "model-full"))
    partial = harness_doc("model-2", [1.0, 0.0], ids=IDS[:2], missing=IDS[2:])
    paths.append(write(tmp_path, partial, "model-2"))
    table, refused = columns(read(paths), resamples=500)
    assert not refused and len(table) == 1
    rows = {r["system"]: r for r in table[0].rows}
    assert set(rows) == {"strong", "weak", "strong-twin", "model-full", "model-2"}
    assert rows["model-2"]["items_scored"] == 2 and rows["model-2"]["items"] == 20
    assert not rows["model-2"]["complete"] and rows["model-full"]["complete"]
    assert rows["model-2"]["score"] == 0.5 and rows["model-2"]["high"] <= 1.0
    assert "--limit 2" in rows["model-2"]["run"] and "decode greedy" in rows["model-2"]["run"]
    assert "argbench/cqs_gen_test (prompt 7e684435)" in rows["model-full"]["run"]
    assert table[0].signature == SIGNATURE  # the column's: without the harness's fields


def test_a_result_that_cannot_join_is_told_why(tmp_path):
    """Another threshold (a measurement field), another split, other items without
    missing_ids: other columns, each saying what differs from the column beside it."""
    paths = board(tmp_path)
    other = SIGNATURE.replace(">0.65", ">0.8")
    paths.append(write(tmp_path, harness_doc("model", [0.5] * 20, signature=other), "m"))
    table, _ = columns(read(paths), resamples=200)
    assert len(table) == 2
    reasons = apart(table)
    [main_column] = [c for c in table if len(c.rows) == 3]
    [why] = [apart_text(r) for r in reasons[main_column.slug]]
    assert "signature thr (>0.65 here, >0.8 there)" in why, why
    assert "input" not in why and "decode" not in why  # the harness's fields are not a reason
    out = tmp_path / "site"
    assert main(["leaderboard", *paths, "--out", str(out), "--resamples", "200"]) == 0
    page = (out / f"{main_column.slug}.html").read_text()
    assert "signature thr (&gt;0.65 here, &gt;0.8 there)" in page
    assert "(3 systems): differs in signature thr" in (out / "index.html").read_text()


def test_ties_are_short_ranges():
    assert rank_ranges([2, 3, 4, 5, 6]) == "2–6"
    assert rank_ranges([9, 2, 3, 5]) == "2–3, 5, 9"
    assert ties_text({"tied_ranks": [2, 3, 4]}) == "ties with ranks 2–4"
    assert ties_text({"tied_ranks": [1]}) == "ties with rank 1"
    assert ties_text({"tied_ranks": []}) == "—"


def test_pages_say_items_scored_and_show_what_the_model_wrote(tmp_path):
    """The front page, the task page and the system page say 2 / 20 incomplete; the system
    page shows the model's output (escaped) and its prompt hash item by item; the front page
    has the date, the version and a link to the docs; every page has a viewport tag."""
    from argbench import __version__

    paths = board(tmp_path)
    paths.append(write(tmp_path, harness_doc("model-2", [1.0, 0.0], IDS[:2], IDS[2:]), "m2"))
    out = tmp_path / "site"
    assert main(["leaderboard", *paths, "--out", str(out), "--resamples", "200"]) == 0
    index = (out / "index.html").read_text()
    assert "model-2: 2 / 20 items, incomplete" in index
    assert f"argbench {__version__}" in index and "href='../leaderboard/'" in index
    [page] = [p for p in out.glob("system-model-2*.html")]
    text = page.read_text()
    assert "2 / 20 <span class='warn'>incomplete</span>" in text
    assert "Why &lt;i0&gt;?<br>Who?" in text and "prompt abababababab" in text
    for html in out.glob("*.html"):
        assert "name='viewport' content='width=device-width, initial-scale=1'" in html.read_text()
    shared = next(p for p in out.glob("cqs_gen*.html")).read_text()
    assert shared.count("sha256:" + "ab" * 32) == 1  # the content hash once, above the rows


def test_the_same_data_from_the_hub_is_the_same_column(tmp_path):
    """A Space scores uploads against the references in a Hub repo: another dataset name, the
    same content hash. Its rows join the column of the shipped results (argbench compare's
    rule: the content hash decides); another content hash stays apart."""
    hub = {**DATASET, "name": "org/cqs-refs", "source": "hub:org/cqs-refs", "commit": "0" * 40}
    paths = [*board(tmp_path), write(tmp_path, results("upload", [0.5] * 20, dataset=hub), "up")]
    other = {**hub, "content_hash": "sha256:" + "cd" * 32}
    paths.append(write(tmp_path, results("elsewhere", [0.5] * 20, dataset=other), "elsewhere"))
    table, _ = columns(read(paths), resamples=200)
    assert sorted(len(c.rows) for c in table) == [1, 4]
    [main_column] = [c for c in table if len(c.rows) == 4]
    assert "upload" in {r["system"] for r in main_column.rows}
