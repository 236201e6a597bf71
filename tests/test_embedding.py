"""The embedding engine: dedupe, normalise, the disk cache keyed by model identity, offline errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from argbench import embedding
from argbench.embedding import Embedder, ModelUnavailableError


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
    with pytest.raises(ModelUnavailableError, match=r"'no-such-model-xyz'.*local path"):
        Embedder("no-such-model-xyz", cache_dir=tmp_path / "c")
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

    store = embedding._Store(tmp_path / "s", {"kind": "test"})
    keys = [bytes([i]) * 32 for i in range(50)]
    vectors = np.arange(50 * 4, dtype=np.float32).reshape(50, 4)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: store.put(keys, vectors), range(8)))
    found = store.get(keys)
    assert len(found) == 50
    assert np.array_equal(np.frombuffer(found[keys[7]], dtype=np.float32), vectors[7])


# ---- cq_reference_match with the STS matcher ----
