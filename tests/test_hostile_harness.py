"""import-harness, tried as a hostile user would: runs whose outputs carry no information, runs
that would erase each other, settings missing from the signature, bad input. Each case has a
control that succeeds.

Fast cases import lm-eval output folders written here the way lm-eval writes them (its
``results_<stamp>.json`` and ``samples_<task>_<stamp>.jsonl``, the records made by argbench's
own task code); the slow ones run the real processes: lm_eval against llama-cpp-python's
server with the packaged SmolLM2 (every log-likelihood 0: refused), inspect against the
loopback stub (the request is greedy), lm_eval with a missing STS model (stopped before the
first generation)."""

from __future__ import annotations

import hashlib
import json

import pytest

from argbench.cli import main
from argbench.cli.exits import exit_for
from argbench.harness import checks, lm_eval_path, runs
from argbench.results import compare_results, read_results
from argbench.tasks import task as task_of
from tests.openai_stub import StubServer
from tests.test_harness import BIN, run


@pytest.fixture
def data(harness_env, monkeypatch):
    """This process reads the fixture corpora and the offline MiniLM, as the harnesses do."""
    env = harness_env["env"]
    for key in ("ARGBENCH_HARNESS_DATA", "ARGBENCH_STS_MODEL", "ARGBENCH_EMBEDDINGS_CACHE"):
        monkeypatch.setenv(key, env[key])
    runs._cached_split.cache_clear()
    yield harness_env
    runs._cached_split.cache_clear()


FIRST = {"claimdiff_s": "auroc", "cqs_gen": "cq_score"}


def lm_eval_folder(root, task, outputs, *, stamp="2026-01-01T00-00-00.000001", model="org/m",
                   chat_template=None, gen=None, limit=None, prompt_of=None):  # fmt: skip
    """An lm-eval ``--output_path`` folder as lm-eval writes it for ``task``: one document per
    output (ClaimDiff: ``[loglik no, loglik yes]``, else the generated text), each with the
    document and the prompt it was given (``prompt_of(task, doc)``, default the task's)."""
    name = f"argbench_{task}"
    folder = root / model.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    docs = runs.documents(task)[: len(outputs)]
    with open(folder / f"samples_{name}_{stamp}.jsonl", "w") as out:
        for number, (doc, output) in enumerate(zip(docs, outputs, strict=True)):
            record = runs.prediction(task, doc, output)
            sample = {"doc_id": number, "doc": doc, FIRST[task]: record}
            prompt = (prompt_of or runs.prompt)(task, doc)  # what lm-eval logs it was given
            sample["prompt_hash"] = hashlib.sha256(prompt.encode()).hexdigest()
            if task_of(task).behaviour.choice:
                sample["resps"] = [[[str(x), "False"]] for x in output]
                choices = task_of(task).choices
                sample["arguments"] = {
                    f"gen_args_{k}": {"arg_0": prompt, "arg_1": f" {c}"}
                    for k, c in enumerate(choices)
                }
            else:
                sample["resps"] = [[output]]
                sample["arguments"] = {"gen_args_0": {"arg_0": prompt, "arg_1": gen or {}}}
            out.write(json.dumps(sample) + "\n")
    config = {"metric_list": [{"metric": FIRST[task]}]}
    if not task_of(task).behaviour.choice:
        config["generation_kwargs"] = gen or {"until": ["\n\n\n"], "max_gen_toks": 256,
                                              "do_sample": False}  # fmt: skip
    results = {
        "results": {name: {}},
        "configs": {name: config},
        "config": {"model": "local-completions", "model_args": f"model={model}", "limit": limit},
        "model_name": model,
        "chat_template": chat_template,
        "lm_eval_version": "0.4.13",
    }
    (folder / f"results_{stamp}.json").write_text(json.dumps(results))
    return root


def import_cli(capsys, *paths, out):
    code = main(["import-harness", *map(str, paths), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def varied(n):
    return [[-1.0, -1.0 - 0.37 * i] for i in range(n)]


# ---------------------------------------------------------------- degenerate runs


@pytest.mark.parametrize(
    "task, outputs, message",
    [
        ("claimdiff_s", [[0.0, 0.0]] * 8, "every log-likelihood the harness logged is 0"),
        ("claimdiff_s", [[-2.5, -2.5]] * 8, "ClaimDiff score is 0.5 (all tied)"),
        ("cqs_gen", ["", " \n", "", "1.\n-"], "every one of the 4 generations is empty"),
    ],
)
def test_a_run_without_information_is_refused(data, tmp_path, capsys, task, outputs, message):
    """Old: AUROC 0.5000 / F1 0.6316 (or a CQ score of 0) imported as valid, exit 0.
    New: exit 1, saying what was constant and why; nothing written."""
    folder = lm_eval_folder(tmp_path / "run", task, outputs)
    code, out, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == exit_for("import-harness", "degenerate") and message in err
    assert "No result is made" in err
    assert not list((tmp_path / "out").glob("*.json"))
    # control: the same run with outputs that differ imports
    good = varied(8) if task == "claimdiff_s" else ["Why?", "", "Is it so?", "How?"]
    folder = lm_eval_folder(tmp_path / "good", task, good)
    code, out, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == 0, err
    assert len(list((tmp_path / "out").glob("*.results.json"))) == 1


def test_refuse_degenerate_leaves_a_single_item_alone():
    checks.refuse_degenerate("claimdiff_s", [{"score": 0.5}], "x")  # nothing to be tied with
    with pytest.raises(checks.DegenerateRunError, match="all tied"):
        checks.refuse_degenerate("claimdiff_s", [{"score": 0.5}] * 2, "x")


def test_an_import_keeps_what_the_model_wrote_item_by_item(data, tmp_path, capsys):
    """Old: the results file kept the scores but not the model's text (the board's "the
    system's text" was "—" for every item of a harness run). New: ``generations`` holds, in
    the order of ``item_ids``, the model's output, lm-eval's sha256 of the prompt, and the
    questions parsed from the output (what was scored); markup stays data."""
    texts = ["Why <b>this</b>?\nIs it so?", "How?", "Who says so?\n\nWhen?"]
    folder = lm_eval_folder(tmp_path / "run", "cqs_gen", texts)
    code, out, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == 0, err
    (path,) = (tmp_path / "out").glob("*.results.json")
    doc = read_results(path)
    docs = runs.documents("cqs_gen")[:3]
    assert doc["item_ids"] == [d["intervention_id"] for d in docs]
    for generation, text, source in zip(doc["generations"], texts, docs, strict=True):
        assert generation["text"] == text
        prompt = runs.prompt("cqs_gen", source).encode()
        assert generation["prompt_sha256"] == hashlib.sha256(prompt).hexdigest()
        assert generation["prediction"] == runs.prediction("cqs_gen", source, text)["cqs"]
    assert doc["generations"][0]["prediction"] == ["Why <b>this</b>?", "Is it so?"]


# ---------------------------------------------------------------- no run erases another


def test_two_runs_of_one_model_in_one_folder_give_two_files(data, tmp_path, capsys):
    """Old: a --limit 2 run after a full run imported to the same file: one was lost.
    New: each file is named after its run (lm-eval's results timestamp); both are kept, and
    compare refuses to pair them (other items), exit 2."""
    root = tmp_path / "runs"
    texts = ["Why?", "Is it so?", "How?", "Who?"]
    lm_eval_folder(root, "cqs_gen", texts, stamp="2026-01-01T10-00-00.000001")
    lm_eval_folder(root, "cqs_gen", texts[:2], stamp="2026-01-01T11-00-00.000001", limit=2)
    code, out, err = import_cli(capsys, root, out=tmp_path / "out")
    assert code == 0, err
    files = sorted((tmp_path / "out").glob("*.results.json"))
    assert len(files) == 2
    assert sorted(read_results(f)["n_items"] for f in files) == [2, 4]
    assert main(["compare", *map(str, files)]) == 2
    assert "different items" in capsys.readouterr().err


def test_org_slash_a_and_org_underscore_a_do_not_collide(data, tmp_path, capsys):
    """Old: ``org/a`` and ``org_a`` both became ``..org_a.results.json``: one overwrote the other."""
    lm_eval_folder(tmp_path / "x", "claimdiff_s", varied(8), model="org/a")
    lm_eval_folder(tmp_path / "y", "claimdiff_s", varied(8), model="org_a")
    code, out, err = import_cli(capsys, tmp_path / "x", tmp_path / "y", out=tmp_path / "out")
    assert code == 0, err
    systems = {read_results(f)["system"] for f in (tmp_path / "out").glob("*.results.json")}
    assert systems == {"org/a", "org_a"}


def test_an_existing_file_is_never_overwritten(data, tmp_path, capsys):
    """The same run imported again: left as it is (exit 0). A file under that name with other
    content: refused (exit 2), the file unchanged. Control: the first import writes it."""
    folder = lm_eval_folder(tmp_path / "run", "claimdiff_s", varied(8))
    assert import_cli(capsys, folder, out=tmp_path / "out")[0] == 0
    (target,) = (tmp_path / "out").glob("*.results.json")
    before = target.read_bytes()
    code, out, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == 0 and "already imported" in out and target.read_bytes() == before
    (tmp_path / "link").symlink_to(folder)  # the same run given by another path
    code, out, err = import_cli(capsys, tmp_path / "link", out=tmp_path / "out")
    assert code == 0 and "already imported" in out and target.read_bytes() == before
    edited = json.loads(before)
    edited["result"]["auroc"] = 0.99
    target.write_text(json.dumps(edited))
    code, out, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert (
        code == exit_for("import-harness", "collision")
        and "exists and holds another result" in err
        and "nothing was written" in err
    )
    assert json.loads(target.read_text())["result"]["auroc"] == 0.99


def test_out_problems_surface_before_the_work(data, tmp_path, capsys, monkeypatch):
    """Old: an --out that is a file failed after every log was read and scored. New: exit 2
    before any scoring (scoring is made to fail the test if reached)."""
    folder = lm_eval_folder(tmp_path / "run", "claimdiff_s", varied(8))
    (tmp_path / "file").write_text("x")
    monkeypatch.setattr(runs, "results", lambda *a, **k: pytest.fail("scored before --out"))
    code, out, err = import_cli(capsys, folder, out=tmp_path / "file")
    assert code == exit_for("import-harness", "out") and "--out" in err and "is a file" in err
    code, out, err = import_cli(capsys, folder, out=tmp_path / "file" / "sub")
    assert code == 2 and "--out" in err


# ---------------------------------------------------------------- what shaped the outputs


def test_chat_template_and_sampling_are_in_the_signature(data, tmp_path, capsys):
    """Old: --apply_chat_template recorded as chat_template: false, sampling not at all: runs
    differing there compared as one measurement. New: ``input`` and ``decode`` fields."""
    texts = ["Why?", "Is it so?", "How?", "Who?"]
    kinds = {
        "raw": {},
        "chat": {"chat_template": ""},  # lm-eval's API models: the server's template
        "local": {"chat_template": "{{ messages }}"},
        "sampled": {
            "gen": {"until": ["\n\n\n"], "max_gen_toks": 256, "temperature": 0.7, "do_sample": True}
        },  # fmt: skip
    }
    docs = {}
    for kind, options in kinds.items():
        folder = lm_eval_folder(tmp_path / kind, "cqs_gen", texts, **options)
        assert import_cli(capsys, folder, out=tmp_path / f"out-{kind}")[0] == 0
        (path,) = (tmp_path / f"out-{kind}").glob("*.results.json")
        docs[kind] = read_results(path)
    assert "|input:raw|decode:greedy|max_tok:256|" in docs["raw"]["signature"]
    assert "|input:messages|" in docs["chat"]["signature"]
    assert docs["chat"]["harness"]["chat_template"] is True
    assert "|input:chat_template:" in docs["local"]["signature"]
    assert "|decode:sample(t=0.7)|" in docs["sampled"]["signature"]
    for kind in ("chat", "local", "sampled"):
        with pytest.raises(ValueError, match="not the same measurement"):
            compare_results([docs["raw"], docs[kind]])
    again = {**docs["raw"], "system": "again"}  # control: another system, same measurement
    assert compare_results([docs["raw"], again])["n_items"] == 4


def test_inspect_decode_fields():
    greedy = {"temperature": 0.0, "max_tokens": 256}
    assert checks.inspect_fields("cqs_gen", "openai-api/x/m", {}, greedy, 20) == [
        ("input", "messages"),
        ("decode", "greedy"),
        ("max_tok", "256"),
    ]
    unset = checks.inspect_fields("cqs_gen", "openai-api/x/m", {}, {"max_tokens": 9}, 20)
    assert ("decode", "sample(t=provider default)") in unset
    hf = checks.inspect_fields("cqs_gen", "hf/local", {}, {"temperature": 0.5}, 20)
    assert ("decode", "sample(t=0.5)") in hf and ("input", "messages:hf") in hf
    hf_greedy = checks.inspect_fields("cqs_gen", "hf/local", {"do_sample": False}, greedy, 20)
    assert ("decode", "greedy") in hf_greedy
    assert checks.inspect_fields("claimdiff_s", "hf/local", {}, {}, 20)[-1] == (
        "method",
        "first-token-top20-approx",
    )
    assert checks.lm_eval_fields("claimdiff_s", {}, {})[-1] == ("method", "loglik-exact")


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "edit, code, message",
    [
        (lambda r: r["configs"]["argbench_claimdiff_s"].update(metric_list=[]), 2, "metric_list"),
        (lambda r: [r], 2, "is list, not a JSON object"),
        (lambda r: r.update(configs=["argbench_claimdiff_s"]), 2, "'configs' is list"),
        (
            lambda r: r["configs"].update(argbench_nope=r["configs"]["argbench_claimdiff_s"]),
            2,
            "unknown argbench harness task 'nope'",
        ),  # fmt: skip
    ],
)
def test_a_broken_results_file_is_a_clear_error(data, tmp_path, capsys, edit, code, message):
    """Old: raw tracebacks (IndexError on ``metric_list: []``, AttributeError on a JSON list)."""
    folder = lm_eval_folder(tmp_path / "run", "claimdiff_s", varied(8))
    (results,) = folder.rglob("results_*.json")
    content = json.loads(results.read_text())
    edited = edit(content)
    results.write_text(json.dumps(content if edited is None else edited))
    got, out, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == exit_for("import-harness", "broken")
    assert got == code and message in err and str(results) in err, err
    assert "Traceback" not in err


def test_bad_folders_and_samples_exit_2_naming_file_and_line(data, tmp_path, capsys):
    """Old: an empty folder exited 1, a missing samples file 2; a truncated samples file or one
    with a byte-order mark in the middle was a traceback or named no line. New: all exit 2,
    naming the file and the line."""
    (tmp_path / "empty").mkdir()
    code, _, err = import_cli(capsys, tmp_path / "empty", out=tmp_path / "out")
    assert code == 2 and "no lm-eval results_*.json" in err
    folder = lm_eval_folder(tmp_path / "run", "claimdiff_s", varied(8))
    (samples,) = folder.rglob("samples_*.jsonl")
    lines = samples.read_text().splitlines()
    samples.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:40])
    code, _, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == 2 and f"{samples}, line 8: not JSON: it ends inside a value" in err
    samples.write_text(lines[0] + "\n\ufeff" + "\n".join(lines[1:]) + "\n")
    code, _, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == 2 and f"{samples}, line 2: not JSON: a byte-order mark" in err
    samples.write_bytes(
        lines[0].encode() + b"\n" + lines[1].encode().replace(b"score", b"sc\xe9re")
    )
    code, _, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == 2 and f"{samples}: not UTF-8: byte 0xe9" in err and "(line 2, column" in err
    samples.unlink()
    code, _, err = import_cli(capsys, folder, out=tmp_path / "out")
    assert code == 2 and "--log_samples" in err
    samples.write_text("\n".join(lines) + "\n")  # control
    assert import_cli(capsys, folder, out=tmp_path / "out")[0] == 0


# ---------------------------------------------------------------- real processes


@pytest.mark.slow  # real lm_eval / inspect processes
def test_a_missing_sts_model_stops_lm_eval_before_the_first_generation(harness_env, tmp_path):
    """Old: lm-eval generated every answer and failed when it aggregated. New: the task's
    dataset hook loads the STS model first; the run stops before any request to the model
    (the endpoint here would fail the test if asked). Control: the same run with the model."""
    env = {**harness_env["env"], "ARGBENCH_STS_MODEL": str(tmp_path / "no-such-model")}
    with StubServer(lambda request, number: (200, "Why?", 0, None)) as server:
        args = [
            str(BIN / "lm_eval"), "--model", "local-chat-completions",
            "--model_args", f"base_url={server.base_url}/chat/completions,model=m,"
            "tokenizer_backend=none,max_retries=1",
            "--apply_chat_template", "--tasks", "argbench_cqs_gen", "--limit", "2",
            "--include_path", str(lm_eval_path()), "--log_samples",
        ]  # fmt: skip
        stopped = run([*args, "--output_path", str(tmp_path / "a")], {**env, "OPENAI_API_KEY": "x"},
                      ok=False)  # fmt: skip
        assert stopped.returncode != 0 and not server.requests
        said = stopped.stderr  # the model, the metric it serves, what to set
        assert "that scores the run (cq_reference_match) cannot be loaded" in said
        assert "set $ARGBENCH_STS_MODEL" in said and "Nothing was generated" in said
        run([*args, "--output_path", str(tmp_path / "b")],
            {**harness_env["env"], "OPENAI_API_KEY": "x"})  # fmt: skip
        assert len(server.requests) == 2


@pytest.mark.slow  # real lm_eval / inspect processes
def test_inspect_generation_is_greedy(data, tmp_path):
    """Old: inspect's tasks set no temperature (the server's default sampling: two identical
    runs shared 0 of 5 outputs) and recorded the same signature regardless. New: every request
    carries temperature 0, seed 0 and the lm-eval tasks' stop sequence; the signature says
    ``decode:greedy``."""
    from argbench.harness.convert import import_harness

    env = data["env"]
    with StubServer(lambda request, number: (200, "Why?\nHow?", 0, None)) as server:
        done = run(
            [str(BIN / "inspect"), "eval", "argbench/cqs_gen", "--model", "openai-api/stub/m",
             "--limit", "2", "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
            {**env, "STUB_API_KEY": "x", "STUB_BASE_URL": server.base_url},
        )  # fmt: skip
        assert server.requests and all(
            r.get("temperature") == 0 and r.get("seed") == 0 and r.get("stop") == ["\n\n\n"]
            for r in server.requests
        ), server.requests[0]
    (log,) = (tmp_path / "logs").glob("*.eval")
    ((_, _, doc),) = import_harness(log)
    assert "|input:messages|decode:greedy|max_tok:256|" in doc["signature"]
    # no warning per sample (before: "Unable to convert value to float" for every question)
    assert "WARNING" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-2000:]
    # what the model wrote, item by item, with the hash of the messages it was sent
    assert [g["text"] for g in doc["generations"]] == ["Why?\nHow?"] * 2
    assert all(len(g["prompt_sha256"]) == 64 for g in doc["generations"])


@pytest.mark.slow  # real lm_eval / inspect processes
def test_lm_eval_claimdiff_through_llama_cpp_server_is_refused(data, weights, tmp_path, capsys):
    """The route docs/harness.md used to recommend, for real: lm-eval's local-completions
    against llama-cpp-python's server with the packaged SmolLM2 GGUF. The server omits the
    answer token's log-probability with echo + logprobs, so every log-likelihood lm-eval logs
    is 0. Old: AUROC 0.5000 / F1 0.6316 imported as valid. New: exit 1, naming the cause.
    Control: inspect's ClaimDiff against the same server imports (first-token method).

    The mechanism, seen on this server: with ``echo`` the reply's tokens end at the prompt's
    last token (no generated token follows), while lm-eval drops the last token as the
    generated one (``token_logprobs[ctxlen:-1]``): the answer's tokens are cut off and their
    sum is 0. lm-eval counts the context's tokens with a local Hugging Face tokenizer and
    SmolLM2's is not installed offline, so the tiny test tokenizer counts them here; the slice
    is empty whichever tokenizer counts, so the case is the same."""
    from argbench.llm import serve_gguf

    env = data["env"]
    with serve_gguf(weights, log_file=tmp_path / "server.log") as endpoint:
        base = endpoint.base_url
        run(
            [
                str(BIN / "lm_eval"), "--model", "local-completions",
                "--model_args", f"base_url={base}/completions,model={endpoint.model},"
                f"tokenizer_backend=huggingface,tokenizer={data['model']},"
                "tokenized_requests=False,max_retries=1",  # the server takes text prompts only
                "--tasks", "argbench_claimdiff_s", "--limit", "6",
                "--include_path", str(lm_eval_path()), "--log_samples",
                "--output_path", str(tmp_path / "lm-eval"),
            ],
            {**env, "OPENAI_API_KEY": "x"},
        )  # fmt: skip
        run(
            [
                str(BIN / "inspect"), "eval", "argbench/claimdiff_s",
                "--model", f"openai-api/llama/{endpoint.model}", "--limit", "6",
                "--log-dir", str(tmp_path / "inspect"), "--display", "plain",
            ],
            {**env, "LLAMA_API_KEY": "x", "LLAMA_BASE_URL": base},
        )  # fmt: skip
    samples = next((tmp_path / "lm-eval").rglob("samples_*.jsonl")).read_text().splitlines()
    logged = [float(r[0][0]) for line in samples for r in json.loads(line)["resps"]]
    assert logged and set(logged) == {0.0}  # what the server gives: the case is real
    code, out, err = import_cli(capsys, tmp_path / "lm-eval", out=tmp_path / "out")
    assert code == 1 and "every log-likelihood the harness logged is 0" in err
    assert not list((tmp_path / "out").glob("*.json"))
    code, out, err = import_cli(capsys, tmp_path / "inspect", out=tmp_path / "out")
    assert code == 0, err
    (path,) = (tmp_path / "out").glob("*.results.json")
    assert "|method:first-token-top20-approx|" in read_results(path)["signature"]


def test_a_judge_that_does_not_answer_stops_cam_before_generating(monkeypatch):
    """CAM with ``ARGBENCH_LLM_MODEL`` set is scored with a judge (AAC): a judge nobody serves
    stops the run in the dataset hook, before the first generation (it failed after every
    answer). Control: a judge server that answers (the loopback stub)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    monkeypatch.setenv("ARGBENCH_LLM_MODEL", "judge")
    monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")
    monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", f"http://127.0.0.1:{port}/v1")
    with pytest.raises(RuntimeError, match="the judge 'judge' at .* does not answer"):
        checks._reach_judge("cam_answers")
    with StubServer(lambda request, number: (200, "1", 0, None)) as server:
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
        checks._reach_judge("cam_answers")  # the stub answers GET /models with 404: it is there


def test_a_run_of_a_task_no_longer_declared_is_named_not_scored(data, tmp_path, capsys):
    """Hostile: an lm-eval run of an argbench task this version does not declare (renamed,
    removed, a run of another version) is refused naming the task and the declared ones; the
    same run under a declared name imports (control)."""
    folder = lm_eval_folder(tmp_path / "run", "claimdiff_s", varied(8))
    code, _, err = import_cli(capsys, folder, out=tmp_path / "good")
    assert code == 0, err
    run_dir = next(folder.iterdir())
    for path in run_dir.iterdir():
        renamed = path.name.replace("argbench_claimdiff_s", "argbench_claimdiff_x")
        text = path.read_text().replace("argbench_claimdiff_s", "argbench_claimdiff_x")
        path.unlink()
        (run_dir / renamed).write_text(text)
    code, _, err = import_cli(capsys, folder, out=tmp_path / "bad")
    assert code == 2 and "unknown argbench harness task 'claimdiff_x'" in err
    assert "claimdiff_s_doc" in err and "another argbench version" in err
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").iterdir())


def test_a_run_given_another_prompt_is_refused_naming_file_and_record(data, tmp_path, capsys):
    """Old: import-harness labelled every run with the installed argbench's prompt hash, so a
    run of an older task version, whose logged prompt is another text, was paired by compare
    with current runs. New: the prompt the harness logged for each document is read and a
    run not given the task's current prompt is refused (exit 2), naming the samples file and
    the record, and showing where the two prompts part. Control: the same run, logged with
    the task's prompt, imports."""
    texts = ["Why?\nIs it so?\nWho says?"] * 2

    def older(task, doc):  # an older version of the task's instruction, the same document
        return runs.prompt(task, doc).replace("Write three critical questions", "Ask questions")

    folder = lm_eval_folder(tmp_path / "old", "cqs_gen", texts, prompt_of=older)
    code, _, err = import_cli(capsys, folder, out=tmp_path / "bad")
    assert code == exit_for("import-harness", "prompt")
    assert "samples_argbench_cqs_gen_" in err and "record 1" in err
    assert "current prompt" in err and "Ask questions" in err and "Traceback" not in err
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").iterdir())
    folder = lm_eval_folder(tmp_path / "new", "cqs_gen", texts)  # control
    assert import_cli(capsys, folder, out=tmp_path / "good")[0] == 0
    for sample_of in (lambda s: {k: v for k, v in s.items() if k != "arguments"},):
        samples = next((tmp_path / "new").rglob("samples_*.jsonl"))
        lines = [
            json.dumps(sample_of(json.loads(line))) for line in samples.read_text().splitlines()
        ]
        samples.write_text("\n".join(lines) + "\n")  # a log without the prompts: not checkable
        code, _, err = import_cli(capsys, tmp_path / "new", out=tmp_path / "unlogged")
        assert code == 2 and "logged no prompt" in err


def test_a_run_that_echoes_the_prompt_is_called_so_not_empty(data, tmp_path, capsys):
    """Old: a run whose every generation repeats its prompt (and nothing else) was refused as
    "every generation is empty", which sends the user looking for a server that returns
    nothing. New: refused as an echo of the prompt. Control: really empty generations are
    still called empty."""
    docs = runs.documents("cqs_gen")[:2]
    echoed = [runs.prompt("cqs_gen", doc) for doc in docs]
    code, _, err = import_cli(
        capsys, lm_eval_folder(tmp_path / "a", "cqs_gen", echoed), out=tmp_path / "o"
    )
    assert code == exit_for("import-harness", "degenerate")
    assert "repeats the prompt" in err and "is empty" not in err
    code, _, err = import_cli(
        capsys, lm_eval_folder(tmp_path / "b", "cqs_gen", ["", ""]), out=tmp_path / "p"
    )
    assert code == exit_for("import-harness", "degenerate") and "is empty" in err  # control
