"""Corrupt caches and odd files: a bad cached vector is recomputed, a corrupt cache database
is moved aside and rebuilt, and a file that is not UTF-8 is named with the byte's offset."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import numpy as np
import pytest

from argbench.cli import main
from argbench.embedding import Embedder


def _rows(embedder) -> dict[bytes, np.ndarray]:
    with sqlite3.connect(embedder._store.path) as con:
        return {k: np.frombuffer(v, np.float32) for k, v in con.execute("SELECT key, vec FROM emb")}


def _poison(embedder, text: str, vector: np.ndarray) -> None:
    key = hashlib.sha256(text.encode()).digest()
    with sqlite3.connect(embedder._store.path) as con:
        con.execute(
            "UPDATE emb SET vec = ? WHERE key = ?", (vector.astype(np.float32).tobytes(), key)
        )


@pytest.mark.parametrize("bad", ["nan", "zero", "not unit", "short"])
def test_bad_cached_vectors_are_recomputed_not_used(minilm, tmp_path, bad):
    first = Embedder(minilm, cache_dir=tmp_path)
    good = first.encode(["a cat", "a dog"])
    vector = {
        "nan": np.full(384, np.nan),
        "zero": np.zeros(384),
        "not unit": np.full(384, 3.0),
        "short": np.ones(10),
    }[bad]
    _poison(first, "a cat", vector)
    second = Embedder(minilm, cache_dir=tmp_path)
    with pytest.warns(UserWarning, match="1 cached embedding.* invalid .*recomputed"):
        again = second.encode(["a cat", "a dog"])
    assert second.n_encoded == 1  # only the poisoned one
    np.testing.assert_allclose(again, good, atol=1e-6)
    stored = _rows(second)[hashlib.sha256(b"a cat").digest()]
    np.testing.assert_allclose(stored, good[0], atol=1e-6)  # and the cache is repaired


class _BrokenModel:
    """A loaded model whose encoder returns NaN for one text (a broken checkpoint)."""

    def state_dict(self):
        return {}

    def encode(self, texts, **options):
        out = np.ones((len(texts), 4), dtype=np.float32) / 2
        out[[i for i, t in enumerate(texts) if t == "boom"]] = np.nan
        return out


def test_a_model_that_gives_nan_is_an_error_and_nothing_is_cached(tmp_path):
    embedder = Embedder(_BrokenModel(), cache_dir=tmp_path)
    with pytest.raises(ValueError, match=r"texts\[1\] \('boom'\): the model gave a NaN"):
        embedder.encode(["fine", "boom"])
    assert _rows(embedder) == {}


def test_corrupt_cache_database_is_moved_aside_and_rebuilt(minilm, tmp_path):
    first = Embedder(minilm, cache_dir=tmp_path)
    good = first.encode(["a cat"])
    first._store.path.write_bytes(b"this is not a database" * 100)
    second = Embedder(minilm, cache_dir=tmp_path)
    with pytest.warns(UserWarning, match=r"embedding cache .*embeddings.sqlite is corrupt.*moved"):
        again = second.encode(["a cat"])
    np.testing.assert_allclose(again, good, atol=1e-6)
    aside = list(first._store.path.parent.glob("embeddings.sqlite.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not")
    third = Embedder(minilm, cache_dir=tmp_path)
    third.encode(["a cat"])  # no warning now: the cache was rebuilt
    assert third.n_encoded == 0


def test_lone_surrogate_text_is_named_by_the_embedder(minilm, tmp_path):
    with pytest.raises(ValueError, match=r"texts\[1\]: not valid Unicode.*position 1"):
        Embedder(minilm, cache_dir=tmp_path).encode(["ok", "a\ud800"])


# ---- files the command line reads ----


def test_non_utf8_files_are_named_with_the_byte(tmp_path, capsys):
    record = json.dumps(
        [{"answer": "caf\u00e9 [1].", "argument_relevance": [3]}], ensure_ascii=False
    )
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(record.encode("utf-8").replace("\u00e9".encode(), b"\xe9"))
    assert main(["evaluate", "argument_relevance", str(latin1)]) == 2
    err = capsys.readouterr().err
    assert "latin1.json: not UTF-8" in err and "byte 0xe9 at offset 16" in err
    jsonl = tmp_path / "latin1.jsonl"
    jsonl.write_bytes(b'{"answer": "ok [1].", "argument_relevance": [3]}\n{"answer": "caf\xe9"}\n')
    assert main(["evaluate", "argument_relevance", str(jsonl)]) == 2
    assert "latin1.jsonl: not UTF-8" in capsys.readouterr().err
    csv = tmp_path / "j.csv"
    csv.write_bytes(b"item_a,item_b,winner\ncaf\xe9,tea,a\n")
    assert main(["pairwise", "fit", str(csv), "--out", str(tmp_path / "o.csv")]) == 2
    assert "j.csv: not UTF-8" in capsys.readouterr().err


def test_lone_surrogate_in_a_json_file_names_record_and_field(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text('[{"answer": "ok [1]. \\ud800", "argument_relevance": [3]}]')
    assert main(["evaluate", "argument_relevance", str(path)]) == 2
    err = capsys.readouterr().err
    # read by argbench.io's JSON reader, which names the file and the field (record 0's answer)
    assert "s.json, field [0].answer: a lone surrogate" in err


def test_unusable_cache_location_says_how_to_fix(minilm, tmp_path):
    embedder = Embedder(minilm, cache_dir=tmp_path)
    embedder._store.path.mkdir()  # something that is not a database file sits there
    with pytest.raises(
        OSError, match=r"embedding cache .*embeddings.sqlite cannot be used.*cache_dir=False"
    ):
        embedder.encode(["a cat"])


def test_corrupt_datasets_cache_is_rebuilt_with_a_warning(fixture_mirror, cache_dir):
    import argbench

    mirror = fixture_mirror("cqs_gen")
    good = argbench.load_dataset("cqs_gen", "interventions", sources=mirror, cache_dir=cache_dir)
    expected = {split: good[split].to_list() for split in good}  # before the files change
    from pathlib import Path

    arrows = list(Path(cache_dir).rglob("*.arrow"))
    assert arrows
    for path in arrows:
        path.write_bytes(b"garbage" * 10)
    with pytest.warns(UserWarning, match=r"datasets cache .* cqs_gen/interventions .*rebuilt"):
        again = argbench.load_dataset(
            "cqs_gen", "interventions", sources=mirror, cache_dir=cache_dir
        )
    assert {split: again[split].to_list() for split in again} == expected


def test_a_folder_given_as_input_file_is_named(tmp_path, capsys):
    assert main(["evaluate", "argument_relevance", str(tmp_path)]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err
