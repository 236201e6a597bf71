"""argbench's harness tasks, run for real: ``lm_eval`` and ``inspect eval`` processes with a tiny
causal LM built here (random weights, local tokenizer) and with the loopback OpenAI stub,
on fixture corpora built into a folder (``$ARGBENCH_HARNESS_DATA``). The logs become argbench
results files (``argbench import-harness``) that ``argbench compare`` reads.

Cost: six harness processes (lm_eval: hf, chat stub, completions stub; inspect: hf, a
failing stub run and its retry), about 4 minutes on two busy cores; the parser and converter
checks take seconds. With the real mirror, the CI-size benchmark adds about a minute."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from argbench.harness import lm_eval_path, runs
from argbench.harness.convert import IncompleteRunError, import_harness
from argbench.results import compare_results, read_results
from argbench.tasks import kinds, task
from argbench.tasks import tasks as declared_tasks
from tests.helpers import CQ_IDS
from tests.openai_stub import StubServer, user_prompt

BIN = Path(sys.executable).parent
pytestmark = pytest.mark.harness  # lm_eval / inspect processes (the harness extra)


# ---------------------------------------------------------------- parsers (no model)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Is A true?\nIs B true?\nIs C true?", ["Is A true?", "Is B true?", "Is C true?"]),
        ("1. Is A true?\n2) Is B true?\n\n3: Is C?", ["Is A true?", "Is B true?", "Is C?"]),
        ("- Is A?\n* Is B?\n• Is C?\nQ4: Is D?", ["Is A?", "Is B?", "Is C?", "Is D?"]),
        ("\n\n  Is A?  \n\n", ["Is A?"]),  # blank lines, fewer than three
        ("", []),
        (None, []),
        (" \n\t\n  ", []),  # only whitespace: no question -> "Missing CQs"
        ("-\n1.\n*", []),  # only markers
    ],
)
def test_parse_questions(text, expected):
    assert kinds.parse_questions(text) == expected


def test_parse_questions_hostile():
    prompt = runs.prompt("cqs_gen", {"intervention": "We must act now."})
    assert kinds.parse_questions(prompt + "Why now?", prompt) == ["Why now?"]  # echo dropped
    many = "\n".join(f"{i}. Question {i}?" for i in range(10_000))
    assert len(kinds.parse_questions(many)) == 10_000  # kept; the metric scores the first 3
    assert kinds.parse_questions("Is \udcff ok?\nIs \ud800 ok?") == ["Is \ufffd ok?"] * 2
    assert kinds.parse_questions(b"Is \xff ok?") == ["Is \ufffd ok?"]


def test_positive_probability():
    assert kinds.positive_probability([-1.0, -1.0]) == 0.5
    assert kinds.positive_probability([-1000.0, -1.0]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="finite"):
        kinds.positive_probability([float("-inf"), float("-inf")])


def test_harness_path_command(capsys):
    from argbench.cli import main

    assert main(["harness-path"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert folder == lm_eval_path()
    assert {p.name for p in folder.glob("*.yaml")} == {
        f"argbench_{name}.yaml" for name in declared_tasks(harness=True)
    }


# ---------------------------------------------------------------- real harness runs


def run(args, env, timeout=600, ok=True):
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
    if ok and done.returncode != 0:
        raise AssertionError(f"{args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done


def import_into(env, tmp, *paths) -> dict[str, dict]:
    """``argbench import-harness`` in a process; results documents by file name."""
    out = tmp / f"results-{len(list(tmp.glob('results-*')))}"
    run([str(BIN / "argbench"), "import-harness", *map(str, paths), "--out", str(out)], env)
    return {p.name: read_results(p) for p in sorted(out.glob("*.json"))}


@pytest.fixture(scope="module")
def lm_eval_run(harness_env):
    """All argbench tasks in one real lm_eval process with the tiny model, --limit 3."""
    env, tmp = harness_env["env"], harness_env["tmp"]
    out = tmp / "lm-eval-hf"
    run(
        [
            str(BIN / "lm_eval"),
            "--model", "hf",
            "--model_args", f"pretrained={harness_env['model']}",
            "--tasks", "argbench",  # the tag: every argbench task
            "--include_path", str(lm_eval_path()),
            "--limit", "3",
            "--gen_kwargs", "max_gen_toks=12",
            "--log_samples",
            "--output_path", str(out),
        ],
        env,
    )  # fmt: skip
    return out, import_into(env, tmp, out)


@pytest.mark.slow  # real lm_eval / inspect processes
def test_lm_eval_hf_results_files(lm_eval_run, harness_env):
    out, results = lm_eval_run
    run_file = next(out.rglob("results_*.json"))
    scores = json.loads(run_file.read_text())["results"]
    assert set(scores) == {f"argbench_{name}" for name in declared_tasks(harness=True)}
    by_task = {(d["harness"]["task"], d["metric"]): d for d in results.values()}
    # a results file for each metric of each declared task (AAC: no judge in this run)
    assert set(by_task) == {
        (f"argbench_{name}", metric)
        for name, declared in declared_tasks(harness=True).items()
        for metric in declared.metrics
    }
    assert ("argbench_cam_answers", "argument_overlap") in by_task
    cq = by_task[("argbench_cqs_gen", "cq_reference_match")]
    assert cq["item_ids"] == CQ_IDS[:3] and cq["n_missing"] == 1
    assert len(cq["result"]["per_item"]["score"]) == 3
    assert cq["signature"].startswith("cq_reference_match|matcher:sts|model:")
    assert "@folder-sha256:" in cq["signature"]  # a local model: its name and its files' hash
    assert "|thr:>0.65|max_q:3|" in cq["signature"]
    assert cq["dataset"]["name"] == "cqs_gen" and cq["dataset"]["split"] == "validation"
    assert cq["dataset"]["content_hash"].startswith("sha256:")
    assert cq["harness"]["limit"] == 3 and cq["harness"]["model"] == "hf"
    assert cq["task"] == runs.identity("cqs_gen") and len(cq["task"]["prompt"]) == 8
    assert cq["harness"]["model_args"] == {"pretrained": str(harness_env["model"])}
    # the harness's table shows the same number as the results file
    assert scores["argbench_cqs_gen"]["cq_score,none"] == pytest.approx(cq["result"]["score"])
    # the test split (the paper's benchmark): its own items and content hash, the same prompt;
    # --limit 3 covers the fixture's 2 test interventions, so the run is complete
    cq_test = by_task[("argbench_cqs_gen_test", "cq_reference_match")]
    assert cq_test["dataset"]["config"] == "interventions" and cq_test["dataset"]["split"] == "test"
    assert cq_test["dataset"]["content_hash"] != cq["dataset"]["content_hash"]
    assert cq_test["item_ids"] == ["CLINTON_9", "HOLT_3"] and cq_test["n_missing"] == 0
    assert cq_test["task"] == runs.identity("cqs_gen_test")
    assert cq_test["task"]["prompt"] == cq["task"]["prompt"]
    assert cq_test["signature"] == cq["signature"]  # one measurement, on another split
    assert scores["argbench_cqs_gen_test"]["cq_score,none"] == pytest.approx(
        cq_test["result"]["score"]
    )
    relation = by_task[("argbench_claimdiff_s", "claim_relation")]
    assert relation["dataset"]["split"] == "test" and relation["n_items"] >= 1
    assert all(i.startswith("t") for i in relation["item_ids"])
    cam = by_task[("argbench_cam_answers", "argument_relevance")]
    assert cam["item_ids"] and cam["signature"].startswith("argument_relevance|")


@pytest.mark.slow  # real lm_eval / inspect processes
def test_a_real_lm_eval_log_given_another_prompt_is_refused(lm_eval_run, harness_env, tmp_path):
    """The real lm-eval log of the fixture run (imported by the fixture: the control), with
    the prompt logged for one CQs-Gen document edited to an older instruction, as a run of an
    earlier task version would have logged it: import-harness refuses it (exit 2), naming the
    samples file and the record."""
    out, _ = lm_eval_run
    copy = tmp_path / "older"
    shutil.copytree(out, copy)
    samples = next(copy.rglob("samples_argbench_cqs_gen_2*.jsonl"))
    lines = samples.read_text().splitlines()
    record = json.loads(lines[0])
    logged = json.dumps(record["arguments"])
    assert "Write three critical questions" in logged  # the task's prompt, as lm-eval logged it
    record["arguments"] = json.loads(logged.replace("Write three critical", "Write some"))
    samples.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    done = run(
        [str(BIN / "argbench"), "import-harness", str(copy), "--out", str(tmp_path / "o")],
        harness_env["env"],
        ok=False,
    )
    assert done.returncode == 2, done.stderr
    assert f"{samples.name}, record 1" in done.stderr and "current prompt" in done.stderr


@pytest.mark.slow  # real lm_eval / inspect processes
def test_a_complete_cqs_gen_test_run_is_the_benchmark_value(lm_eval_run):
    """eval.yaml's CQs-Gen task is the test split: a complete harness run of
    argbench_cqs_gen_test maps to it (protocol kept) and becomes a Hub entry once its data is
    a Hub dataset; the validation task maps to the validation task, a --limit run is refused."""
    from argbench import hub_eval

    docs = {d["harness"]["task"]: d for d in lm_eval_run[1].values()}
    hub = {"source": "hub:org/cqs_gen", "commit": "0" * 40}  # as when loaded from the Hub
    test = docs["argbench_cqs_gen_test"]
    with pytest.raises(hub_eval.NotALeaderboardValue, match="not computed on a Hub dataset"):
        hub_eval.eval_results_entry(test)  # built from local sources: said so
    name, entry = hub_eval.eval_results_entry({**test, "dataset": {**test["dataset"], **hub}})
    assert name == "cq_reference_match.yaml" and entry["dataset"]["task_id"] == "cq_reference_match"
    assert entry["value"] == pytest.approx(test["result"]["score"])
    assert hub_eval.read_entry(entry)["off_protocol"] == []
    validation = docs["argbench_cqs_gen"]
    on_hub = {**validation, "dataset": {**validation["dataset"], **hub}}
    with pytest.raises(hub_eval.NotALeaderboardValue, match="partial results: 1 of the split's 4"):
        hub_eval.eval_results_entry(on_hub)
    assert hub_eval._task_of(on_hub).id == "cq_reference_match_validation"


@pytest.mark.slow  # real lm_eval / inspect processes; Every Eval Ever's validator in its venv
def test_an_imported_harness_run_exports_as_valid_eee_records(lm_eval_run, harness_env, tmp_path, capsys):  # fmt: skip
    """The folder import-harness wrote, as Every Eval Ever records: valid, the harness and its
    version beside argbench in eval_library, the split's content hash with the dataset."""
    from tests.test_eee import aggregates, eee_validate, export

    docs = lm_eval_run[1]
    folder = next(p.parent for p in harness_env["tmp"].glob("results-*/*.json") if p.name in docs)
    written = export(capsys, tmp_path / "eee", folder)
    reports = eee_validate(tmp_path / "eee")
    assert all(r["valid"] and not r["warnings"] for r in reports.values()), reports
    records = aggregates(written)
    assert len(records) == len(docs)
    by_task = {r["eval_library"]["additional_details"]["harness_task"]: r for r in records}
    cq = by_task["argbench_cqs_gen"]
    doc = next(d for d in docs.values() if d["harness"]["task"] == "argbench_cqs_gen")
    assert cq["eval_library"]["additional_details"]["harness"] == "lm-eval"
    assert cq["eval_library"]["additional_details"]["harness_version"] == doc["harness"]["version"]
    assert cq["model_info"]["inference_engine"] == {"name": "hf"}
    result = cq["evaluation_results"][0]
    assert result["source_data"]["additional_details"]["content_hash"] == doc["dataset"]["content_hash"]  # fmt: skip
    assert result["source_data"]["additional_details"]["n_missing"] == "1"  # a --limit run says so
    assert cq["detailed_evaluation_results"]["total_rows"] >= 3


@pytest.mark.slow  # real lm_eval / inspect processes
def test_inspect_hf_and_compare_with_lm_eval(lm_eval_run, harness_env):
    """The same task in a real inspect process (hf provider, tiny model): a results file on
    the same items as lm-eval's, but not the same measurement: inspect's hf provider formats
    the prompt as a chat message ("user: ..."), lm-eval sends it raw, and the signatures say
    so (``input``); compare refuses them unless forced."""
    env, tmp = harness_env["env"], harness_env["tmp"]
    logs = tmp / "inspect-hf"
    run(
        [
            str(BIN / "inspect"), "eval", "argbench/cqs_gen", "argbench/claimdiff_s",
            "argbench/cqs_gen_test",
            "--model", "hf/local", "-M", f"model_path={harness_env['model']}",
            "-M", "do_sample=False",  # the tasks are greedy (temperature 0)
            "--limit", "3", "--max-tokens", "12", "--log-dir", str(logs), "--display", "plain",
        ],
        env,
    )  # fmt: skip
    (cq_log,) = logs.glob("*_cqs-gen_*.eval")
    (cq,) = import_into(env, tmp, cq_log).values()
    assert cq["harness"]["name"] == "inspect-ai" and cq["item_ids"] == CQ_IDS[:3]
    assert "|input:messages:hf|decode:greedy|max_tok:12|" in cq["signature"]
    (test_log,) = logs.glob("*_cqs-gen-test_*.eval")
    (cq_test,) = import_into(env, tmp, test_log).values()
    assert cq_test["harness"]["task"] == "cqs_gen_test"  # inspect names it so
    assert cq_test["dataset"]["split"] == "test" and cq_test["item_ids"] == ["CLINTON_9", "HOLT_3"]
    assert cq_test["task"] == runs.identity("cqs_gen_test") and cq_test["n_missing"] == 0
    # the random tiny model has neither yes nor no among its top 20 first tokens: every
    # score is the floor's 0.5, a run without information, refused (it was imported)
    (relation_log,) = logs.glob("*claimdiff-s*.eval")
    argv = [str(BIN / "argbench"), "import-harness", str(relation_log), "--out", str(tmp / "r")]
    refused = run(argv, env, ok=False)
    assert refused.returncode == 1 and "(all tied)" in refused.stderr
    mine = next(d for d in lm_eval_run[1].values() if d["harness"]["task"] == "argbench_cqs_gen")
    assert "|input:raw|decode:greedy|max_tok:12|" in mine["signature"]
    with pytest.raises(ValueError, match="not the same measurement: .*input"):
        compare_results([mine, cq])
    comparison = compare_results([mine, cq], force=True)
    assert comparison["n_items"] == 3 and any("input" in f for f in comparison["forced"])
    other_prompt = {**cq, "task": {**cq["task"], "prompt": "00000000"}}
    with pytest.raises(ValueError, match="not the same measurement: .*task"):
        compare_results([cq, other_prompt])
    path_a, path_b = tmp / "a.json", tmp / "b.json"
    path_a.write_text(json.dumps(mine))
    path_b.write_text(json.dumps(cq))
    shown = run([str(BIN / "argbench"), "compare", str(path_a), str(path_b), "--force"], env)
    assert "3 items" in shown.stdout


@pytest.mark.slow  # real lm_eval / inspect processes
def test_openai_compatible_hostile_lm_eval_and_limit_compare(lm_eval_run, harness_env):
    """lm-eval's chat-completions model type against the loopback stub, every item (no
    --limit): nothing, whitespace, 10,000 questions and an echoed prompt are scored ("Missing
    CQs" for no question, never dropped); compare refuses to pair it with the --limit run."""
    env, tmp = harness_env["env"], harness_env["tmp"]

    def responder(request, number):
        prompt = user_prompt(request)
        if "Arguments:" in prompt:
            return 200, "Python is faster [1] and cleaner [2, 3]. Java [generated].", 0, None
        index = next(k for k in range(len(CQ_IDS)) if f"(intervention {k})" in prompt)
        return 200, REPLIES[index](prompt), 0, None

    out = tmp / "lm-eval-stub"
    with StubServer(responder) as server:
        run(
            [
                str(BIN / "lm_eval"),
                "--model", "local-chat-completions",
                "--model_args",
                f"base_url={server.base_url}/chat/completions,model=stub-model,"
                "tokenizer_backend=none,max_retries=1",
                "--apply_chat_template",
                "--tasks", "argbench_cqs_gen,argbench_cam_answers",
                "--include_path", str(lm_eval_path()),
                "--log_samples", "--output_path", str(out),
            ],
            {**env, "OPENAI_API_KEY": "stub"},
        )  # fmt: skip
    results = import_into(env, tmp, out)
    cq = next(d for d in results.values() if d["metric"] == "cq_reference_match")
    assert cq["item_ids"] == CQ_IDS and cq["n_missing"] == 0
    result = cq["result"]
    assert result["n_missing_cqs"] == 2  # nothing, whitespace: scored, not dropped
    assert result["labels"][0] == ["not_able_to_evaluate"] * 3
    assert result["n_long"] == 1  # 10,000 questions: only the first three are scored
    assert len(result["labels"][2]) == 3
    assert result["per_item"]["score"][:2] == [0.0, 0.0]
    assert all(0.0 <= s <= 1.0 for s in result["per_item"]["score"])
    cam = next(d for d in results.values() if d["metric"] == "argument_relevance")
    assert cam["result"]["n_unparsed"] >= 0 and cam["n_items"] == 3
    # the hf --limit run: other items, and another measurement (a raw prompt, 12 tokens; a
    # full run against a limit run of one setting: tests/test_hostile_harness.py)
    limited = next(d for d in lm_eval_run[1].values() if d["metric"] == "cq_reference_match")
    with pytest.raises(ValueError, match=r"not the same measurement: .*input.*max_tok"):
        compare_results([limited, cq])
    with pytest.raises(ValueError, match="different items"):
        compare_results([limited, {**cq, "signature": limited["signature"]}])
    full, part = tmp / "full.json", tmp / "limit.json"
    full.write_text(json.dumps(cq))
    part.write_text(json.dumps(limited))
    refused = run([str(BIN / "argbench"), "compare", str(full), str(part)], env, ok=False)
    assert refused.returncode == 2 and "not the same measurement" in refused.stderr  # EXIT_CODES


REPLIES = [
    lambda prompt: "",
    lambda prompt: " \n\t \n",
    lambda prompt: "\n".join(f"{i}. Is claim {i} true?" for i in range(10_000)),
    lambda prompt: prompt + "\nIs the evidence sufficient?",
]


@pytest.mark.slow  # real lm_eval / inspect processes
def test_inspect_openai_compatible_interrupted_and_retried(harness_env):
    """inspect's OpenAI-compatible provider against the stub: a run whose endpoint fails is
    refused by import-harness; ``inspect eval-retry`` finishes it; then it imports. Replies
    carry a lone surrogate (undecodable bytes passed through), scored as U+FFFD."""
    env, tmp = harness_env["env"], harness_env["tmp"]
    logs = tmp / "inspect-stub"
    failing = lambda request, number: (400, {"error": {"message": "bad request"}}, 0, None)  # noqa: E731
    good = lambda request, number: (200, "Is \udcff the evidence sound?\nWhy?", 0, None)  # noqa: E731
    stub_env = {**env, "STUB_API_KEY": "stub"}
    with StubServer(failing) as server:
        stub_env["STUB_BASE_URL"] = server.base_url
        done = run(
            [
                str(BIN / "inspect"), "eval", "argbench/cqs_gen", "--model",
                "openai-api/stub/stub-model", "--log-dir", str(logs), "--display", "plain",
                "--max-retries", "0",
            ],
            stub_env,
            ok=False,
        )  # fmt: skip
    log = next(logs.glob("*.eval"))
    with pytest.raises(IncompleteRunError, match="not 'success'"):
        import_harness(log)
    refused = run(
        [str(BIN / "argbench"), "import-harness", str(log), "--out", str(tmp / "x")],
        env,
        ok=False,
    )
    assert refused.returncode == 1 and "eval-retry" in refused.stderr, done.stdout[-500:]
    with StubServer(good, port=int(stub_env["STUB_BASE_URL"].split(":")[-1].split("/")[0])):
        run(
            [str(BIN / "inspect"), "eval-retry", str(log), "--log-dir", str(logs), "--display", "plain"],
            stub_env,
        )  # fmt: skip
    finished = [p for p in logs.glob("*.eval") if p != log]
    results = import_into(env, tmp, finished[0])
    cq = next(iter(results.values()))
    assert cq["item_ids"] == CQ_IDS and cq["n_missing"] == 0
    assert cq["result"]["n_short"] == 4  # two questions each


@pytest.mark.slow  # real lm_eval / inspect processes
def test_import_refuses_unfinished_lm_eval_runs(lm_eval_run, tmp_path):
    """An lm-eval run that stopped before the end wrote nothing: refused. A run without
    --log_samples (or with its samples lost): refused, naming the flag."""
    with pytest.raises(IncompleteRunError, match="did not finish"):
        import_harness(tmp_path)
    out = tmp_path / "run"
    shutil.copytree(lm_eval_run[0], out)
    for samples in out.rglob("samples_*.jsonl"):
        samples.unlink()
    with pytest.raises(FileNotFoundError, match="--log_samples"):
        import_harness(out)


def test_cam_aac_only_with_a_judge(harness_env, monkeypatch):
    """CAM's results: relevance and overlap always; AAC when ARGBENCH_LLM_MODEL names a judge
    (here the loopback stub answering 1), with its signature naming the judge."""
    monkeypatch.setenv("ARGBENCH_HARNESS_DATA", harness_env["env"]["ARGBENCH_HARNESS_DATA"])
    runs._cached_split.cache_clear()
    docs = runs.documents("cam_answers")
    records = [runs.prediction("cam_answers", d, "A is better [1].") for d in docs]
    assert set(runs.results("cam_answers", records)) == {
        "argument_relevance",
        "argument_overlap",
    }
    with StubServer(lambda request, number: (200, "1", 0, None)) as server:
        monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-judge")
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")
        docs_by_metric = runs.results("cam_answers", records)
    runs._cached_split.cache_clear()
    aac = docs_by_metric["argument_answer_coherence"]
    assert "stub-judge" in aac["signature"] and aac["item_ids"] == [
        str(d["question_id"]) for d in docs
    ]


def test_scoring_refuses_another_split(harness_env, monkeypatch):
    """Records made from one version of the data are not scored against another."""
    monkeypatch.setenv("ARGBENCH_HARNESS_DATA", harness_env["env"]["ARGBENCH_HARNESS_DATA"])
    monkeypatch.setenv("ARGBENCH_STS_MODEL", harness_env["env"]["ARGBENCH_STS_MODEL"])
    runs._cached_split.cache_clear()
    docs = runs.documents("cqs_gen")
    records = [runs.prediction("cqs_gen", d, "Why?") for d in docs]
    assert records[0]["split_hash"].startswith("sha256:")
    assert runs.results("cqs_gen", records)["cq_reference_match"]["n_items"] == len(docs)
    records[0]["split_hash"] = "sha256:other"
    with pytest.raises(ValueError, match="sha256:other, but it is scored against sha256:"):
        runs.results("cqs_gen", records)
    runs._cached_split.cache_clear()


def test_validation_records_are_not_scored_as_the_test_split(harness_env, monkeypatch):
    """A validation run given to the test task (a renamed task in a log) is refused, never
    scored against the test references."""
    monkeypatch.setenv("ARGBENCH_HARNESS_DATA", harness_env["env"]["ARGBENCH_HARNESS_DATA"])
    monkeypatch.setenv("ARGBENCH_STS_MODEL", harness_env["env"]["ARGBENCH_STS_MODEL"])
    runs._cached_split.cache_clear()
    records = [runs.prediction("cqs_gen", d, "Why?") for d in runs.documents("cqs_gen")]
    test_docs = runs.documents("cqs_gen_test")
    assert [d["intervention_id"] for d in test_docs] == ["CLINTON_9", "HOLT_3"]
    with pytest.raises(ValueError, match="TRUMP_1_0"):
        runs.results("cqs_gen_test", records)
    same_ids = [
        {**r, "intervention_id": d["intervention_id"]}
        for r, d in zip(records[:2], test_docs, strict=True)
    ]
    with pytest.raises(ValueError, match="content hash .*, but it is scored against sha256:"):
        runs.results("cqs_gen_test", same_ids)
    runs._cached_split.cache_clear()


def completions_with_logprobs(request, number):
    """A strict stand-in for a completions server scoring prompts (``echo``, ``logprobs``):
    each token's log-probability is a fixed function of its id and the prompt's length, so the
    scores are known and differ between pairs (a function of the id alone gave every pair the
    same score: a run import-harness now refuses as degenerate)."""
    assert request.get("echo") is True and request.get("max_tokens") == 1, request
    prompts = request["prompt"]
    prompts = [prompts] if prompts and isinstance(prompts[0], int) else prompts
    choices = []
    for index, tokens in enumerate(prompts):
        assert tokens and all(isinstance(t, int) for t in tokens), tokens
        lps = [-0.5 - ((t + len(tokens)) % 7) for t in tokens]
        choices.append(
            {
                "index": index,
                "text": "",
                "finish_reason": "length",
                "logprobs": {
                    "tokens": [str(t) for t in tokens] + ["x"],
                    "token_logprobs": [None, *lps[1:], -1.0],
                    "top_logprobs": [
                        None,
                        *({str(t): lp} for t, lp in zip(tokens[1:], lps[1:], strict=True)),
                        {"x": -1.0},
                    ],
                },
            }
        )
    return 200, {"id": "stub", "object": "text_completion", "choices": choices}, 0, None


@pytest.mark.slow  # real lm_eval / inspect processes
def test_openai_compatible_loglikelihood_claimdiff(harness_env):
    """ClaimDiff through lm-eval's completions model type (log-likelihoods with echo) against
    the loopback stub; P(yes) follows from the stub's token log-probabilities."""
    env, tmp = harness_env["env"], harness_env["tmp"]
    out = tmp / "lm-eval-completions"
    with StubServer(completions_with_logprobs) as server:
        run(
            [
                str(BIN / "lm_eval"),
                "--model", "local-completions",
                "--model_args",
                f"base_url={server.base_url}/completions,model=stub-model,"
                f"tokenizer_backend=huggingface,tokenizer={harness_env['model']},max_retries=1",
                "--tasks", "argbench_claimdiff_s",
                "--include_path", str(lm_eval_path()),
                "--log_samples", "--output_path", str(out),
            ],
            {**env, "OPENAI_API_KEY": "stub"},
        )  # fmt: skip
        assert server.requests
    results = import_into(env, tmp, out)
    relation = next(iter(results.values()))
    assert relation["metric"] == "claim_relation" and relation["n_missing"] == 0
    assert relation["harness"]["model"] == "local-completions"
    samples = next(out.rglob("samples_argbench_claimdiff_s_*.jsonl")).read_text().splitlines()
    first = json.loads(samples[0])
    (no, _), (yes, _) = (r[0] for r in first["resps"])
    assert first["auroc"]["score"] == pytest.approx(
        kinds.positive_probability([float(no), float(yes)])
    )


@pytest.mark.mirror
@pytest.mark.slow  # bench_harness at CI size
def test_bench_harness_small(real_mirror, monkeypatch, capsys):
    """scripts/bench_harness.py at CI size on the real validation split: same score both
    ways (the timing ratio is the benchmark's to report, checked loosely here)."""
    monkeypatch.setenv("ARGBENCH_SOURCES", str(real_mirror))
    monkeypatch.setenv(
        task("cqs_gen").option_env("cq_reference_match", "model"),
        "set by the script; removed after the test",
    )
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "scripts"))
    import bench_harness

    assert bench_harness.main(["--small", "--max-ratio", "3"]) == 0
    out = capsys.readouterr().out
    assert "identical on both sides" in out and "ratio harness / evaluate" in out
    runs._cached_split.cache_clear()


@pytest.mark.parametrize("content", [b"{}", b"garbage", b"\xff\xfe"])
def test_a_file_that_is_no_inspect_log_is_named_as_such(tmp_path, content):
    """Hostile: a stray JSON or a truncated .eval given to import-harness is a clear error (it
    was a raw pydantic ValidationError)."""
    for name in ("stray.json", "cut.eval"):
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(ValueError, match=rf"{name}: not an inspect log .*lm-eval"):
            import_harness(path)


def test_inspect_metrics_before_the_first_scored_item_are_nan_not_an_error(monkeypatch):
    """inspect computes metrics for its display while samples arrive; a ClaimDiff run whose
    first finished samples are dev pairs failed with 'no test item was run' (seen in CI). The
    display gets NaN; scoring the records (import-harness) still refuses such a run."""
    import math

    from argbench.harness import inspect_tasks

    with pytest.raises(runs.NoScoredItem, match="no test item was run"):
        runs.results("claimdiff_s", [])
    compute = inspect_tasks._figure("claimdiff_s", "claim_relation", "auroc")
    assert math.isnan(compute([]))
