"""The second hostile pass (issue 22): one test per class of fault at least, each asserting
that nothing was lost or half-written and that no wrong number was printed.

Fast on purpose: a full disk is RLIMIT_FSIZE on a child process, concurrency is two real
processes on one --out, kill -9 hits a real child, caches are cut and edited on disk.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import argbench
from argbench.cli import EXIT_CODES, main
from argbench.io import atomic_write, write_json
from argbench.results import read_results

from .helpers import cli
from .openai_stub import StubServer, user_prompt

ROOT = Path(__file__).parents[1]
REFS = [
    {"id": "r0", "cq": "Is the source reliable?", "label": "Useful"},
    {"id": "r1", "cq": "Who pays?", "label": "Invalid"},
]


def judgments(path: Path, n: int = 40) -> Path:
    rng = np.random.default_rng(0)
    rows = ["item_a,item_b,winner"]
    for step in (1, 2, 3):
        rows += [f"x{i},x{(i + step) % n},{rng.choice(['a', 'b', 'tie'])}" for i in range(n)]
    path.write_text("\n".join(rows) + "\n")
    return path


def run(*argv, env=None, preexec=None, **options) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from argbench.cli import main; sys.exit(main())",
            *map(str, argv),
        ],
        capture_output=True,
        text=True,
        errors="replace",
        env={**os.environ, **(env or {})},
        preexec_fn=preexec,
        timeout=120,
        cwd=ROOT,
        **options,
    )


# ---- 1. files written in place ----


def test_full_disk_leaves_the_old_output_whole(tmp_path):
    """RLIMIT_FSIZE makes the write fail as a full disk does (EFBIG): the old --out stays."""
    import resource

    source = judgments(tmp_path / "j.csv", 400)
    out = tmp_path / "scores.jsonl"
    out.write_text('{"item": "old", "merit": 1.0, "score": 1.0}\n')
    before = out.read_bytes()

    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a signal, as ENOSPC
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    done = run("pairwise", "fit", source, "--out", out, preexec=small_disk)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "left unchanged" in done.stderr
    assert out.read_bytes() == before  # not truncated, not half-written
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".scores.jsonl.")]


def test_out_equal_to_an_input_is_refused_before_anything(tmp_path, capsys):
    source = judgments(tmp_path / "j.csv")
    before = source.read_bytes()
    code, _, err = cli(capsys, "pairwise", "fit", source, "--out", source)
    assert code == 2 and "is also an input" in err
    assert source.read_bytes() == before
    linked = tmp_path / "link.csv"
    linked.symlink_to(source)
    code, _, err = cli(capsys, "pairwise", "fit", source, "--out", linked)
    assert code == 2 and "is also an input" in err and source.read_bytes() == before


def test_two_runs_on_one_out_the_second_is_refused_and_kill_frees_it(tmp_path):
    source = judgments(tmp_path / "j.csv")
    out = tmp_path / "scores.csv"
    holder = subprocess.Popen(  # a run that claimed --out and is still working
        [
            sys.executable,
            "-c",
            "import sys, time; from argbench.io import claim_output; "
            f"claim_output({str(out)!r}); print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        second = run("pairwise", "fit", source, "--out", out)
        assert second.returncode == 2 and "being written by another" in second.stderr
        assert "Traceback" not in second.stderr and not out.exists()
    finally:
        holder.send_signal(signal.SIGKILL)  # kill -9: the kernel drops the lock
        holder.wait()
    third = run("pairwise", "fit", source, "--out", out)
    assert third.returncode == 0, third.stderr
    assert out.read_text().startswith("item,merit,score")


def test_kill_9_mid_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "results.json"
    target.write_text('{"old": true}\n')
    child = subprocess.Popen(  # stops between writing the temp file and the rename
        [
            sys.executable,
            "-c",
            "import os, time; import argbench.io as io\n"
            "real = os.replace\n"
            "def slow(a, b):\n    print('written', flush=True); time.sleep(60); real(a, b)\n"
            "io.os.replace = slow\n"
            f"io.write_json({str(target)!r}, {{'new': list(range(100000))}})",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout.readline().strip() == "written"
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert json.loads(target.read_text()) == {"old": True}


def test_an_id_that_cannot_be_encoded_changes_no_file(tmp_path):
    target = tmp_path / "results.json"
    write_json(target, {"score": 0.5})
    before = target.read_bytes()
    with pytest.raises(ValueError, match="not valid Unicode"):
        write_json(target, {"ids": ["ok", "bad\ud800"]})
    assert target.read_bytes() == before
    atomic_write(target, "x")  # the writer itself still works
    assert target.read_text() == "x"


# ---- 2. outputs checked before the work ----


def test_unwritable_out_fails_before_any_llm_request(tmp_path, monkeypatch, capsys, fixture_mirror):
    submission = {"i1": {"cqs": [{"id": 0, "cq": "Q1?"}, {"id": 1, "cq": "Q2?"}]}}
    (tmp_path / "sub.json").write_text(json.dumps(submission))
    (tmp_path / "a_file").write_text("")
    mirror = fixture_mirror("cqs_gen")
    with StubServer(lambda request, number: (200, "0", 0, None)) as server:
        monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")
        argv = ["evaluate", "cq_reference_match", tmp_path / "sub.json", "--matcher", "llm"]
        argv += ["--dataset", "cqs_gen", "--split", "validation", "--sources", mirror]
        for out, why in (
            (tmp_path / "a_file" / "r.json", "a part of that path is a file"),
            (tmp_path / "sub.json", "is also an input"),
            (tmp_path / "r.txt", "expected a file ending in .json"),
        ):
            code, _, err = cli(capsys, *argv, "--allow-missing", "--out", out)
            assert code == 2 and why in err
        bad_plot = tmp_path / "a_file" / "p.png"
        code, _, err = cli(
            capsys, "compare", tmp_path / "x.json", tmp_path / "y.json", "--plot", bad_plot
        )
        assert code == 2 and "a part of that path is a file" in err
        assert server.requests == []  # nothing was asked, nothing lost


def test_an_llm_judged_evaluate_refuses_its_out_before_any_request(
    tmp_path, monkeypatch, capsys, fixture_mirror
):
    """Issue 35, class 8: a results file that cannot be written is refused before the judge
    is reached. Every request is counted (GET /models and /props, the identity probe, the
    judgments). An --out under a file or on a folder was already refused with none (kept
    here); a predictions file whose name (the default system name) the results file refuses,
    U+202E in it, was refused only after 4 requests, when the results were written."""
    records = [{"question_id": "silver-0", "answer_index": 0, "answer": "A is fast [1]."}]
    (tmp_path / "a_file").write_text("")
    (tmp_path / "folder.json").mkdir()
    mirror = str(fixture_mirror("cam_answers"))

    def argv(predictions, out, *more):
        predictions.write_text(json.dumps(records))
        return ["evaluate", "argument_answer_coherence", predictions, "--dataset", "cam_answers",
                "--config", "silver", "--sources", mirror, "--cache-dir", tmp_path / "c",
                "--allow-missing", "--out", out, *more]  # fmt: skip

    plain, bidi = tmp_path / "p.json", tmp_path / "p\u202ex.json"
    with StubServer(lambda request, number: (200, "1", 0, None)) as server:
        monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")
        for predictions, out, named in (
            (plain, tmp_path / "a_file" / "r.json", f"--out {tmp_path / 'a_file' / 'r.json'}"),
            (plain, tmp_path / "folder.json", f"--out {tmp_path / 'folder.json'} is a folder"),
            (bidi, tmp_path / "r.json", "'p\\u202ex': an invisible format character"),
        ):
            code, _, err = cli(capsys, *argv(predictions, out))
            assert code == 2 and named in err, err
            assert server.request_lines == []  # the judge's server was not reached
            assert "--out" in err or "pass --system NAME" in err
        # control: a writable --out (and the same file with --system) is scored and written
        code, _, err = cli(capsys, *argv(plain, tmp_path / "r.json"))
        assert code == 0, err
        assert len(server.request_lines) == 4  # models, props, the probe, one judgment
        code, _, err = cli(capsys, *argv(bidi, tmp_path / "s.json", "--system", "mine"))
        assert code == 0, err
    assert read_results(tmp_path / "r.json")["system"] == "p"
    assert read_results(tmp_path / "s.json")["system"] == "mine"


def test_reproduce_report_files_are_claimed_first(tmp_path, capsys):
    out = tmp_path / "rep"
    (out / "report.md").mkdir(parents=True)  # a folder where the report goes
    code, _, err = cli(capsys, "reproduce", "--out", out)
    assert code == 2 and "report.md is a folder" in err


# ---- 3. caches verified, never trusted ----


def _arrow_files(cache_dir: str) -> list[Path]:
    return sorted(Path(cache_dir).rglob("*.arrow"))


def test_arrow_cache_cut_at_a_record_batch_is_rebuilt_not_served_short(fixture_mirror, cache_dir):
    import pyarrow as pa

    mirror = str(fixture_mirror("cqs_gen"))
    full = argbench.load_dataset(
        "cqs_gen", "questions", "validation", sources=mirror, cache_dir=cache_dir
    )
    n = len(full)
    (path,) = [p for p in _arrow_files(cache_dir) if "validation" in p.name]
    with pa.memory_map(str(path)) as source:
        table = pa.ipc.open_stream(source).read_all()
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table.slice(0, n // 2))  # a valid stream, half the rows
    with pytest.warns(UserWarning, match=r"has \d+ rows but \d+ were recorded.*rebuilt"):
        again = argbench.load_dataset(
            "cqs_gen", "questions", "validation", sources=mirror, cache_dir=cache_dir
        )
    assert len(again) == n


def test_edited_built_folder_is_not_served_from_the_old_cache(fixture_mirror, tmp_path, cache_dir):
    import pyarrow.parquet as pq

    from argbench.results import load_split

    mirror = str(fixture_mirror("cqs_gen"))
    folder = argbench.build("cqs_gen", tmp_path / "built", sources=mirror, cache_dir=cache_dir)
    hf_cache = str(tmp_path / "reader-cache")
    first = load_split(folder, "questions", "validation", cache_dir=hf_cache)
    hash_before = first.identity()["content_hash"]
    (parquet,) = sorted(Path(folder, "data", "questions").glob("validation-*.parquet"))
    stat = parquet.stat()
    table = pq.read_table(parquet)
    column = table.column("cq").to_pylist()
    column[0] = "EDITED " + column[0]
    pq.write_table(table.set_column(table.column_names.index("cq"), "cq", [column]), parquet)
    os.utime(parquet, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the edit keeps the mtime
    with pytest.warns(UserWarning, match="changed since the datasets cache was made"):
        second = load_split(folder, "questions", "validation", cache_dir=hf_cache)
    assert second.data[0]["cq"].startswith("EDITED ")
    assert second.identity()["content_hash"] != hash_before
    # rows removed: the card's recorded split size no longer holds -> an error naming the folder
    pq.write_table(table.slice(0, 2), parquet)
    with pytest.raises(ValueError, match=r"built folder .*built.* do not match the split sizes"):
        load_split(folder, "questions", "validation", cache_dir=str(tmp_path / "fresh"))


def _poison_all(embedder, make) -> None:
    import sqlite3

    with sqlite3.connect(embedder._store.path) as con:
        keys = [k for (k,) in con.execute("SELECT key FROM emb")]
        for key in keys:
            con.execute("UPDATE emb SET vec = ? WHERE key = ?", (make(), key))


@pytest.mark.parametrize("damage", ["all one wrong size", "length not a multiple of 4"])
def test_embedding_cache_of_wrong_size_is_recomputed_and_named(minilm, tmp_path, damage):
    from argbench.embedding import Embedder
    from argbench.scoring.cq_reference_match import cq_reference_match

    questions = [["Is the source reliable?", "Who pays?", "Why now?"]]
    good = cq_reference_match(questions, [REFS], model=minilm, cache_dir=tmp_path)
    embedder = Embedder(minilm, cache_dir=tmp_path)
    unit = np.ones(8, np.float32) / np.sqrt(8)
    make = (lambda: unit.tobytes()) if damage.startswith("all") else (lambda: b"\x00" * 1535)
    _poison_all(embedder, make)
    with pytest.warns(UserWarning, match=r"embedding cache .*embeddings.sqlite.*recomputed"):
        again = cq_reference_match(questions, [REFS], model=minilm, cache_dir=tmp_path)
    assert again["score"] == good["score"] and again["labels"] == good["labels"]


# ---- 4. unbounded or undefined inputs ----


def test_inputs_bounded_and_defined(capsys, tmp_path):
    from argbench.citations import MAX_RANGE
    from argbench.scoring.argument_relevance import argument_relevance
    from argbench.scoring.cr_diversity import cr_diversity

    start = time.perf_counter()
    for bracket in ("[1-200000]", "[1-100000000]"):
        with pytest.raises(
            ValueError, match=rf"predictions\[0\]: citation range .*limited to {MAX_RANGE:,}"
        ):
            argument_relevance([f"A {bracket}."], [[3, 2]])
    assert time.perf_counter() - start < 1
    path = tmp_path / "r.json"
    path.write_text(json.dumps([{"predictions": 0.9, "references": 1}]))
    with pytest.raises(SystemExit) as caught:
        main(["evaluate", "claim_relation", str(path), "--threshold", "nan"])
    assert caught.value.code == 2 and "expected a finite number" in capsys.readouterr().err
    mixed = cr_diversity(["Is it true?", "", "  ", "Who says so?"])
    assert mixed["n_empty"] == 2 and mixed["n_texts"] == 2
    assert mixed["cr_diversity"] == cr_diversity(["Is it true?", "Who says so?"])["cr_diversity"]
    with pytest.raises(ValueError, match="all 2 predictions are empty"):
        cr_diversity(["", " "])


def test_ids_with_whitespace_and_configs_do_not_join_silently(fixture_mirror, cache_dir):
    mirror = str(fixture_mirror("cam_answers"))
    where = {"sources": mirror, "cache_dir": cache_dir}
    silver = argbench.load_dataset("cam_answers", "silver", "train", **where)
    mine = [
        {"question_id": r["question_id"], "answer_index": r["answer_index"], "answer": r["answer"]}
        for r in silver
    ]
    with pytest.raises(ValueError, match="prediction ids are not in the split: 'silver-0-0'"):
        argbench.evaluate_predictions(
            "argument_relevance", mine, "cam_answers", "gold", allow_missing=True, **where
        )
    old = argbench.load_dataset("cam_answers", "gold", "train", version="1.0.0", **where)
    assert old[0]["question_id"] == 0  # the earlier release still builds, as it was
    spaced = [{**mine[0], "question_id": " " + mine[0]["question_id"]}]
    with pytest.raises(ValueError, match="whitespace around an id"):
        argbench.evaluate_predictions(
            "argument_relevance", spaced, "cam_answers", "silver", allow_missing=True, **where
        )


# ---- 5. one slow prompt does not end a run ----


def test_a_prompt_failing_every_retry_is_recorded_and_answers_are_kept(monkeypatch, tmp_path):
    from argbench.llm import ChatEndpoint, LLMError
    from argbench.scoring.cq_reference_match import cq_reference_match

    def responder(request, number):  # "Q2?" never answers in time
        return 200, "0", (5 if "\nQ2?\n" in user_prompt(request) else 0), None

    questions = [["Q1?", "Q2?", "Q3?"]]
    with StubServer(responder) as server:

        def llm(**options):
            return ChatEndpoint(
                "stub-model",
                base_url=server.base_url,
                api_key="x",
                timeout=0.3,
                max_retries=1,
                **options,
            )

        result = cq_reference_match(
            questions, [REFS], matcher="llm", llm=llm(), on_failure="incomplete"
        )
        assert result["complete"] is False and result["n_failed"] == 1
        assert "no reply within timeout" in result["failed"][0]["error"]
        assert result["labels"][0][0] == "Useful" and result["labels"][0][2] == "Useful"
        assert result["n_scored"] == 0  # its intervention lost a judgment: no score printed
        asked = len(server.requests)
        with pytest.raises(LLMError, match="kept in the LLM cache"):
            cq_reference_match(questions, [REFS], matcher="llm", llm=llm())
        # Q1 and Q3 came from the cache: only Q2 was asked again (1 + 1 retry)
        assert len(server.requests) - asked == 2


def test_a_dead_endpoint_still_stops_a_keep_going_run():
    from argbench.llm import ChatEndpoint, LLMError
    from argbench.scoring.cq_reference_match import cq_reference_match

    questions = [[f"Q{i}-{j}?" for i in range(3)] for j in range(10)]
    with StubServer(lambda request, number: (200, "0", 3, None)) as server:
        llm = ChatEndpoint("m", base_url=server.base_url, api_key="x", timeout=0.2, max_retries=0)
        with pytest.raises(LLMError, match=r"8 prompts in a row failed every retry.*looks down"):
            cq_reference_match(
                questions, [REFS] * 10, matcher="llm", llm=llm, on_failure="incomplete"
            )


# ---- 6. results that cannot be a share ----


def test_more_than_three_questions_cannot_score_above_one():
    from argbench.scoring.cq_reference_match import cq_reference_match

    every_reference = [[r["cq"] for r in REFS] * 3]  # six questions, three of them Useful
    exact = lambda q, refs: refs.index(q) if q in refs else None  # noqa: E731
    result = cq_reference_match(every_reference, [REFS], matcher=exact)
    assert 0 <= result["score"] <= 1 and result["n_long"] == 1
    assert result["score"] == pytest.approx(2 / 3)  # the first three: Useful, Invalid, Useful
    assert "|max_q:3|" in result["signature"]
    with pytest.raises(ValueError, match="could exceed 1"):
        cq_reference_match(every_reference, [REFS], matcher=exact, max_questions=None)
    every = cq_reference_match(every_reference, [REFS], matcher=exact, max_questions="all")
    assert every["score"] == pytest.approx(3 / 6) and len(every["labels"][0]) == 6
    assert "|max_q:all|" in every["signature"]
    with pytest.raises(ValueError, match="max_questions must be 1..3"):
        cq_reference_match(every_reference, [REFS], matcher=exact, max_questions=6)


# ---- 7. errors speak the interface, usage of the subcommand ----


def test_cli_errors_name_flags_and_the_subcommand_usage(capsys, tmp_path, fixture_mirror):
    with pytest.raises(SystemExit) as caught:
        main(["pairwise", "fit", "x.csv", "--out", "o.csv", "--treshold", "1"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "usage: argbench pairwise fit" in err and "did you mean --threshold" in err
    mirror = str(fixture_mirror("cam_answers"))
    path = tmp_path / "p.json"
    path.write_text(json.dumps([{"question_id": "silver-0", "answer_index": 0, "answer": "A."}]))
    code, _, err = cli(
        capsys,
        "evaluate",
        "argument_relevance",
        path,
        "--dataset",
        "cam_answers",
        "--config",
        "silver",
        "--sources",
        mirror,
        "--cache-dir",
        tmp_path / "c",
    )
    assert code == 2 and "--allow-missing" in err and "allow_missing=True" not in err
    cqs = fixture_mirror("cqs_gen")  # a metric on the wrong config names the config to use
    code, _, err = cli(
        capsys, "evaluate", "cq_reference_match", "--dataset", "cqs_gen", "--config", "questions",
        "--split", "validation", "--sources", cqs, "--cache-dir", tmp_path / "c",
    )  # fmt: skip
    assert code == 2 and "--dataset cqs_gen --config interventions" in err
    start = time.perf_counter()  # offline: publish fails before building, naming why
    code, _, err = cli(capsys, "publish", "cqs_gen", "--repo", "org/x", "--sources", mirror)
    assert code == 1 and "nothing was built" in err and "--dry-run" in err
    assert time.perf_counter() - start < 5


# ---- 8. contracts: convergence, exit codes, encodings ----


def test_non_converged_fit_writes_nothing_unless_asked(tmp_path, capsys, monkeypatch):
    import argbench.scoring.bradley_terry as bt

    real = bt.fit_bradley_terry
    monkeypatch.setattr(bt, "fit_bradley_terry", lambda *a, **k: real(*a, **k, max_iter=1))
    source, out = judgments(tmp_path / "j.csv"), tmp_path / "s.jsonl"
    code, _, err = cli(capsys, "pairwise", "fit", source, "--out", out)
    assert code == 1 and "did not converge" in err and "--allow-nonconverged" in err
    assert not out.exists()
    code, _, err = cli(capsys, "pairwise", "fit", source, "--out", out, "--allow-nonconverged")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and rows and all(r["converged"] is False for r in rows)


def test_one_exit_code_table_and_docs_render_it(tmp_path, capsys):
    docs = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    for code, meaning in EXIT_CODES.items():
        assert f"| `{code}` | {meaning} |" in docs, f"exit {code} not as in EXIT_CODES"
    code, _, _ = cli(capsys, "compare", tmp_path / "missing.json", tmp_path / "other.json")
    assert code == 2  # bad input, as the table says
    assert set(EXIT_CODES) == {0, 1, 2, 130}


def test_full_datasets_cache_during_a_build_is_said_as_such(tmp_path, real_mirror):
    import resource

    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))

    out = tmp_path / "out"
    done = run(
        "build", "cqs_gen", "--out", out, "--sources", real_mirror,
        env={"HF_HOME": str(tmp_path / "hf"), "HF_DATASETS_CACHE": str(tmp_path / "hf" / "ds")},
        preexec=small_disk,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "cannot build cqs_gen in the datasets cache" in done.stderr
    assert "--cache-dir" in done.stderr and "cache_dir=" not in done.stderr
    assert not out.exists() or not any(out.iterdir())  # no half-built folder


def test_results_file_with_a_short_per_item_list_is_named(tmp_path, capsys):
    doc = {
        "format": "argbench-results/1",
        "metric": "argument_relevance",
        "signature": "argument_relevance|v:0",
        "item_ids": ["a", "b", "c"],
        "result": {"per_item": {"f1": [1.0, 0.5]}},
    }
    (tmp_path / "a.json").write_text(json.dumps(doc))
    (tmp_path / "b.json").write_text(json.dumps(doc))
    code, out, err = cli(capsys, "compare", tmp_path / "a.json", tmp_path / "b.json")
    assert code == 2 and "per_item 'f1' holds 2 values for 3 item_ids" in err and not out


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_help_and_errors_on_a_narrow_terminal_encoding(encoding, tmp_path):
    env = {"PYTHONIOENCODING": encoding}
    for argv in (["--help"], ["pairwise", "--help"], ["evaluate", "--help"]):
        done = run(*argv, env=env)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    bad = tmp_path / "é→.json"
    done = run("evaluate", "cr_diversity", bad, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr


# ---- 9. what the ecosystem passes ----


def test_tensors_arrays_and_series_are_accepted_like_lists():
    import pandas as pd
    import torch

    from argbench.scoring._checks import as_plain
    from argbench.scoring.claim_relation import claim_relation

    scores, labels = [0.9, 0.2, 0.7, 0.1], [1, 0, 1, 0]
    expected = claim_relation(scores, labels, threshold=0.5)
    for kind in (torch.tensor, np.asarray, pd.Series):
        got = claim_relation(kind(scores), kind(labels), threshold=0.5)  # the plain function
        assert got["f1"] == expected["f1"] and got["auroc"] == expected["auroc"]
    assert as_plain([torch.tensor(1), torch.tensor(0)]) == [1, 0]
    # evaluate's evaluator passes label ids and no threshold: decisions, said in the signature
    decided = claim_relation([1, 0, 1, 1], labels)
    assert "hard-labels" in decided["signature"] and decided["precision"] == pytest.approx(2 / 3)


def test_module_add_batch_takes_torch_tensors():
    import torch

    metric = argbench.load_metric("claim_relation")
    metric.add_batch(
        predictions=torch.sigmoid(torch.tensor([2.0, -2.0])), references=torch.tensor([1, 0])
    )
    result = metric.compute(threshold=0.5)
    assert result["f1"] == 1.0
    assert argbench.load_metric("cr_diversity").module_type == "measurement"


@pytest.mark.xfail(
    int(importlib.metadata.version("transformers").split(".")[0]) >= 5,
    raises=AttributeError,
    strict=True,
    reason="evaluate 0.4.6 (its last release) tests isinstance(model, "
    "transformers.TFPreTrainedModel) in evaluator/base.py, which transformers 5 removed: "
    "evaluate's evaluator does not run beside transformers 5, with any metric",
)
def test_evaluate_evaluator_defaults_work():
    import datasets
    import evaluate

    def text(t):
        return t if isinstance(t, str) else t["text"]

    def classify(texts, **kw):
        return [{"label": f"LABEL_{int(text(t) in 'ac')}", "score": 0.9} for t in texts]

    classify.task = "text-classification"
    data = datasets.Dataset.from_dict({"text": ["a", "b", "c", "d"], "label": [1, 0, 0, 0]})
    result = evaluate.evaluator("text-classification").compute(
        model_or_pipeline=classify,
        data=data,
        metric=argbench.load_metric("claim_relation"),
        label_mapping={"LABEL_0": 0, "LABEL_1": 1},
    )
    assert result["precision"] == 0.5 and result["recall"] == 1.0
    assert "hard-labels" in result["signature"]

    def generate(texts, **kw):
        return [[{"generated_text": text(t) + " Is it so?"}] for t in texts]

    generate.task = "text-generation"
    prompts = datasets.Dataset.from_dict({"text": ["Who says?", "Why now?"]})
    measured = evaluate.evaluator("text-generation").compute(
        model_or_pipeline=generate,
        data=prompts,
        input_column="text",
        metric=argbench.load_metric("cr_diversity"),
    )
    from argbench.scoring.cr_diversity import cr_diversity

    expected = cr_diversity(["Who says? Is it so?", "Why now? Is it so?"])
    assert measured["cr_diversity"] == expected["cr_diversity"]
