"""The embedding engine: dedupe, normalise, the disk cache keyed by model identity, offline errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from argbench import embedding
from argbench.embedding import Embedder, ModelUnavailableError
from argbench.embedding_store import VectorStore


def test_embedder_dedupes_normalises_and_caches(minilm, tmp_path):
    first = Embedder(minilm, cache_dir=tmp_path / "c")
    vectors = first.encode(["a cat", "a dog", "a cat", ""])
    assert first.n_encoded == 3  # "a cat" once
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert np.array_equal(vectors[0], vectors[2])
    second = Embedder(minilm, cache_dir=tmp_path / "c")
    again = second.encode(["a dog", "a cat", ""])
    assert second.n_encoded == 0 and second._model is None  # nothing encoded, model not loaded
    assert np.array_equal(again, vectors[[1, 0, 3]])
    assert first.encode([]).shape[0] == 0


def test_embedder_identity_separates_models_and_cache_can_be_off(minilm, tmp_path):
    by_path = Embedder(minilm, cache_dir=tmp_path / "c")
    loaded = Embedder(by_path.model, cache_dir=tmp_path / "c")
    assert by_path.identity["kind"] == "path" and loaded.identity["kind"] == "loaded"
    assert by_path.key != loaded.key
    folders = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert len(folders) == 2 and all(f.startswith(("model-", "loaded")) for f in folders)
    identity = json.loads((tmp_path / "c" / folders[-1] / "identity.json").read_text())
    assert identity in (by_path.identity, loaded.identity)
    off = Embedder(minilm, cache_dir=False)
    off.encode(["only in memory"])
    off.encode(["only in memory"])
    assert off.n_encoded == 2


def test_embedder_default_cache_follows_env_and_hf_home(tmp_path, monkeypatch):
    assert embedding.default_cache_dir() == tmp_path / "emb"
    monkeypatch.delenv(embedding.CACHE_ENV)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert embedding.default_cache_dir() == tmp_path / "hf" / "argbench" / "embeddings"


def test_embedder_offline_unknown_model_says_how_to_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    # names what was asked, why (the flag), and the installed offline model to use instead
    with pytest.raises(
        ModelUnavailableError,
        match=r"'no-such-model-xyz'.*HF_HUB_OFFLINE is set.*local model.*all-MiniLM-L6-v2",
    ):
        Embedder("no-such-model-xyz", cache_dir=tmp_path / "c")
    with pytest.raises(FileNotFoundError, match="model folder './models/mine' does not exist"):
        Embedder("./models/mine", cache_dir=tmp_path / "c")
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"")
    with pytest.raises(NotADirectoryError, match="pass the model's folder"):
        Embedder(str(weights))
    with pytest.raises(TypeError, match="model must be"):
        Embedder(3)


def test_embedder_rejects_non_strings(minilm, tmp_path):
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        Embedder(minilm, cache_dir=tmp_path).encode(["ok", None])


def test_store_concurrent_inserts_of_the_same_keys(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    store = VectorStore(tmp_path / "s", {"kind": "test"})
    keys = [bytes([i]) * 32 for i in range(50)]
    vectors = np.arange(50 * 4, dtype=np.float32).reshape(50, 4)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: store.put(keys, vectors), range(8)))
    found = store.get(keys)
    assert len(found) == 50
    assert np.array_equal(np.frombuffer(found[keys[7]], dtype=np.float32), vectors[7])


def _put_range(folder: str, start: int, stop: int) -> int:
    """In a separate process: store vectors for keys start..stop-1, 50 per transaction."""
    store = VectorStore(Path(folder), {"kind": "test"})
    for first in range(start, stop, 50):
        ids = range(first, min(first + 50, stop))
        keys = [i.to_bytes(4, "big") * 8 for i in ids]
        store.put(keys, np.array([[i, -i] for i in ids], dtype=np.float32))
    return stop - start


def test_store_two_processes_write_one_cache_file(tmp_path):
    """Two processes (as two evaluation jobs sharing a cache) insert overlapping key ranges."""
    import multiprocessing

    ranges = [(tmp_path / "s", 0, 3000), (tmp_path / "s", 2000, 5000)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        done = pool.starmap_async(_put_range, [(str(f), a, b) for f, a, b in ranges]).get(300)
    assert done == [3000, 3000]
    store = VectorStore(tmp_path / "s", {"kind": "test"})
    keys = [i.to_bytes(4, "big") * 8 for i in range(5000)]
    found = store.get(keys)
    assert len(found) == 5000
    assert np.frombuffer(found[keys[2500]], dtype=np.float32).tolist() == [2500, -2500]


# ---- several encoding processes ----


def test_targets_of_device_and_processes(monkeypatch):
    assert embedding._targets(None, None) is None and embedding._targets("cpu", 1) is None
    assert embedding._targets("cpu", 2) == ["cpu", "cpu"]
    assert embedding._targets(["cuda:0", "cuda:1"], None) == ["cuda:0", "cuda:1"]
    import torch

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert embedding._targets(None, 3) == ["cuda:0", "cuda:1", "cuda:0"]
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    assert embedding._targets(None, 2) == ["cpu", "cpu"]
    with pytest.raises(ValueError, match="positive integer"):
        embedding._targets(None, 0)
    with pytest.raises(ValueError, match="processes=2 but 3 devices"):
        embedding._targets(["cpu"] * 3, 2)
    with pytest.raises(ValueError, match="list of them"):
        embedding._targets(3, None)


@pytest.mark.slow  # 2 processes, each loading torch and MiniLM
def test_two_cpu_processes_give_the_single_process_vectors(minilm, tmp_path, monkeypatch):
    monkeypatch.setattr(embedding, "ENCODE_CHUNK", 7)  # several chunks, each stored when done
    texts = [f"Is claim number {i} supported by evidence?" for i in range(20)]
    texts += texts[:5] + ["", "Why?"]
    single = Embedder(minilm, cache_dir=False).encode(texts)
    with Embedder(minilm, cache_dir=tmp_path / "c", device=["cpu", "cpu"]) as multi:
        vectors = multi.encode(texts)
        assert multi.n_encoded == 22  # unique texts only
        pool = multi._pool
        assert len(pool["processes"]) == 2 and all(p.is_alive() for p in pool["processes"])
        pids = [p.pid for p in pool["processes"]]
        np.testing.assert_allclose(vectors, single, atol=1e-5)
        assert np.array_equal(vectors[0], vectors[20])
        more = multi.encode(["Why?", "A new question?"])  # one missing text; same pool
        assert multi.n_encoded == 23 and multi._pool is pool
        np.testing.assert_allclose(more[0], single[-1], atol=1e-5)
    assert multi._pool is None
    for pid in pids:  # stopped and joined
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    cached = Embedder(minilm, cache_dir=tmp_path / "c", processes=2)
    again = cached.encode(texts)
    assert cached.n_encoded == 0 and cached._pool is None and cached._model is None
    assert np.array_equal(again, vectors)


# ---- cq_reference_match with the STS matcher ----
