"""argument_overlap's S-BERT column through the embedding engine (offline MiniLM)."""

from __future__ import annotations

import numpy as np
import pytest

import argbench
from argbench import embedding
from argbench.scoring.argument_overlap import argument_overlap

ANSWERS = [
    "Speed: Cats are smarter than dogs [1]. Loyalty: Dogs are loyal [2].",
    "Summary: Cats win [1].",
]
ARGS = [["Cats are smarter than dogs.", "Dogs are more loyal than cats."]] * 2


def test_sbert_is_the_best_cosine_to_a_numbered_argument(minilm):
    result = argument_overlap(ANSWERS, ARGS, model=minilm)
    model = embedding.Embedder(minilm, cache_dir=False).model
    numbered = model.encode(["1. Cats are smarter than dogs.", "2. Dogs are more loyal than cats."])
    excerpts = [
        "Speed: Cats are smarter than dogs ",
        "Loyalty: Dogs are loyal ",
        "Summary: Cats win ",
    ]
    found = model.encode(excerpts)
    cos = (found / np.linalg.norm(found, axis=1, keepdims=True)) @ (
        numbered / np.linalg.norm(numbered, axis=1, keepdims=True)
    ).T
    assert result["n_excerpts"] == 3
    assert result["sbert"] == pytest.approx(float(cos.max(axis=1).mean()), abs=1e-6)
    assert "sbert" not in argument_overlap(ANSWERS, ARGS)


def test_sbert_through_evaluate_encodes_each_text_once(minilm, tmp_path):
    metric = argbench.load_metric("argument_overlap")
    options = {"cache_dir": str(tmp_path / "c")}
    first = metric.compute(
        predictions=ANSWERS, references=ARGS, model=minilm, embedding_options=options
    )
    similarity = embedding.CosineSimilarity(minilm, **options)
    second = argument_overlap(ANSWERS, ARGS, sentence_similarity=similarity)
    assert similarity.embedder.n_encoded == 0  # all five texts came from the disk cache
    assert second["sbert"] == pytest.approx(first["sbert"], abs=1e-7)
    with pytest.raises(ValueError, match="not both"):
        argument_overlap(ANSWERS, ARGS, model=minilm, sentence_similarity=similarity)


def test_sbert_encodes_the_whole_input_in_one_call(minilm, monkeypatch):
    calls = []
    encode = embedding.Embedder.encode

    def counted(self, texts):
        calls.append(list(texts))
        return encode(self, texts)

    monkeypatch.setattr(embedding.Embedder, "encode", counted)
    batched = argument_overlap(ANSWERS, ARGS, model=minilm, embedding_options={"cache_dir": False})
    # 3 excerpts + 2 numbered arguments (shared by both answers): one call, each text once
    assert len(calls) == 1 and len(calls[0]) == len(set(calls[0])) == 5
    calls.clear()
    hook = embedding.CosineSimilarity(minilm, cache_dir=False)  # no texts up front
    per_answer = argument_overlap(ANSWERS, ARGS, sentence_similarity=hook)
    assert [len(c) for c in calls] == [4, 1]  # answer 1 brings 4 new texts, answer 2 one
    assert batched["sbert"] == pytest.approx(per_answer["sbert"], abs=1e-6)
