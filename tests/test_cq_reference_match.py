"""cq_reference_match: STS (offline MiniLM), callable and LLM (loopback) matchers, submissions."""

from __future__ import annotations

import json

import numpy as np
import pytest

import argbench
from argbench.embedding import Embedder
from argbench.llm import ChatEndpoint, JudgmentError, LLMError
from argbench.loaders.registry import path_of
from argbench.scoring.cq_reference_match import (
    LABELS,
    MISSING,
    NAE,
    cq_reference_match,
    read_submission,
)

from .openai_stub import StubServer, user_prompt

REFS = [
    {"id": "r0", "cq": "Is the source of this claim reliable?", "label": "Useful"},
    {"id": "r1", "cq": "What evidence supports the claim about taxes?", "label": "Unhelpful"},
    {"id": "r2", "cq": "Is the speaker a good person?", "label": "Invalid"},
]


def exact_text(question, reference_questions):
    return reference_questions.index(question) if question in reference_questions else None


def straightforward(model, questions, reference_questions):
    """The public script's loop: encode the question, re-encode the references, first argmax.

    Returns (winner index, similarity) per question."""
    out = []
    for q in questions:
        sims = model.similarity(model.encode(q), model.encode(reference_questions)).tolist()[0]
        winner = int(np.argmax(sims))
        out.append((winner, sims[winner]))
    return out


# ---- embedding engine ----


def test_sts_labels_equal_the_straightforward_procedure(minilm, tmp_path):
    questions = [
        "Is the source of this claim trustworthy?",
        "What evidence is there about taxes?",
        "Do you like pizza?",
        "Is the speaker a decent person?",
    ]
    result = cq_reference_match(  # two interventions: at most three questions each
        [questions[:3], questions[3:]],
        [REFS, REFS],
        model=minilm,
        threshold=0.6,
        cache_dir=tmp_path,
    )
    model = Embedder(minilm, cache_dir=False).model
    expected = straightforward(model, questions, [r["cq"] for r in REFS])
    for name in ("labels", "similarities", "matched_ids"):
        result[name] = [result[name][0] + result[name][1]]
    assert result["labels"][0] == [REFS[w]["label"] if s > 0.6 else NAE for w, s in expected]
    assert result["similarities"][0] == pytest.approx([s for _, s in expected], abs=1e-6)
    assert result["matched_ids"][0] == [REFS[w]["id"] for w, _ in expected]
    assert result["labels"][0][0] == "Useful" and result["labels"][0][2] == NAE
    sims = result["similarities"][0]
    assert all(-1 <= s <= 1 for s in sims)
    first, second = result["labels"][0][:3], result["labels"][0][3:]
    assert result["score"] == pytest.approx((first.count("Useful") + second.count("Useful")) / 6)


def test_sts_empty_string_and_per_question_missing_are_encoded_as_text(minilm, tmp_path):
    result = cq_reference_match(
        [["", MISSING, REFS[0]["cq"]]], [REFS], model=minilm, cache_dir=tmp_path
    )
    assert result["labels"][0] == [NAE, NAE, "Useful"]
    assert result["n_empty"] == 1 and result["n_missing_cqs"] == 0
    assert result["similarities"][0][0] is not None


def test_classlabel_ints_equal_label_names(minilm, tmp_path):
    as_ints = [[{**r, "label": LABELS.index(r["label"])} for r in REFS]]
    questions = [[r["cq"] for r in REFS]]
    a = cq_reference_match(questions, as_ints, model=minilm, cache_dir=tmp_path)
    b = cq_reference_match(questions, [REFS], model=minilm, cache_dir=tmp_path)
    assert a["labels"] == b["labels"] == [["Useful", "Unhelpful", "Invalid"]]
    assert a["label_counts"] == b["label_counts"]


def test_dataset_references_column_as_it_comes(fixture_mirror, cache_dir, minilm, tmp_path):
    from tests.conftest import FIXTURES

    mirror = fixture_mirror("cqs_gen")
    ds = argbench.load_dataset(
        "cqs_gen", "interventions", split="validation", sources=mirror, cache_dir=cache_dir
    )
    refs = ds["references"]
    assert isinstance(refs[0][0]["label"], int)
    questions = [[r["cq"] for r in rs] for rs in refs]
    metric = argbench.load_metric("cq_reference_match")
    result = metric.compute(
        predictions=questions, references=refs, model=minilm, cache_dir=tmp_path
    )
    raw = json.loads((FIXTURES / "cqs_gen/validation.json").read_text())
    assert result["labels"] == [[c["label"] for c in v["cqs"]] for v in raw.values()]
    via_file = read_submission(
        {
            k: {"cqs": [{"id": i, "cq": c["cq"]} for i, c in enumerate(v["cqs"])]}
            for k, v in raw.items()
        },
        ds,
    )
    assert (
        cq_reference_match(**via_file, model=minilm, cache_dir=tmp_path)["labels"]
        == result["labels"]
    )


# ---- edge cases, with a callable matcher (no model) ----


def test_fewer_more_duplicate_and_missing_questions():
    useful = REFS[0]["cq"]
    predictions = [
        [useful],  # fewer than 3: 1/3
        [useful, useful, useful, useful],  # more than 3 and duplicates: 4/3, as the script
        MISSING,  # whole field: 0 points, 3 NAE, counted
        ["x", "y", "z"],
    ]
    with pytest.raises(ValueError, match=r"predictions\[1\]: 4 questions.*max_questions=3"):
        cq_reference_match(predictions, [REFS] * 4, matcher=exact_text, max_questions=None)
    # the paper's protocol (the default): the first three of each, a share in [0, 1]
    result = cq_reference_match(predictions, [REFS] * 4, matcher=exact_text)
    assert result["intervention_scores"] == pytest.approx([1 / 3, 1, 0, 0])
    assert result["score"] == pytest.approx((1 / 3 + 1) / 4)
    assert "|max_q:3|" in result["signature"]
    assert result["n_short"] == 1 and result["n_long"] == 1 and result["n_missing_cqs"] == 1
    assert result["n_duplicates"] == 2
    assert result["labels"][2] == [NAE] * 3 and result["matched_ids"][2] == [None] * 3
    assert result["n_questions"] == 1 + 3 + 3 + 3
    assert result["label_counts"] == {
        "Useful": 4,
        "Unhelpful": 0,
        "Invalid": 0,
        NAE: 6,
        "evaluation_issue": 0,
    }
    assert result["nae_rate"] == pytest.approx(6 / 10)
    capped = cq_reference_match(predictions, [REFS] * 4, matcher=exact_text, max_questions=3)
    assert capped["intervention_scores"][1] == pytest.approx(1.0)
    listed = cq_reference_match([[MISSING]], [REFS], matcher=exact_text)
    assert listed["n_missing_cqs"] == 1 and listed["labels"] == [[NAE] * 3]


def test_bad_inputs_name_the_place():
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        cq_reference_match([["a"], ["b"]], [REFS], matcher=exact_text)
    with pytest.raises(ValueError, match=r"references\[0\] has no reference questions"):
        cq_reference_match([["a"]], [[]], matcher=exact_text)
    with pytest.raises(ValueError, match=r"references\[0\]\[1\]\.label: label index 7"):
        cq_reference_match([["a"]], [[REFS[0], {**REFS[1], "label": 7}]], matcher=exact_text)
    with pytest.raises(ValueError, match=r"label 'useful' is not one of"):
        cq_reference_match([["a"]], [[{**REFS[0], "label": "useful"}]], matcher=exact_text)
    with pytest.raises(TypeError, match=r"predictions\[0\] is a string"):
        cq_reference_match(["a question"], [REFS], matcher=exact_text)
    with pytest.raises(TypeError, match=r"predictions\[0\]\[1\] must be a str"):
        cq_reference_match([["a", 3]], [REFS], matcher=exact_text)
    with pytest.raises(ValueError, match=r"matcher returned 9 for predictions\[0\]\[0\]"):
        cq_reference_match([["a"]], [REFS], matcher=lambda q, r: 9)
    with pytest.raises(ValueError, match="matcher must be"):
        cq_reference_match([["a"]], [REFS], matcher="bleurt")


def test_read_submission_policies(tmp_path):
    refs = {"A": {"cqs": REFS}, "B": {"cqs": REFS}}
    sub = {
        "A": {"cqs": [{"id": 0, "cq": REFS[0]["cq"]}]},
        "C": {"cqs": MISSING},
    }
    (tmp_path / "refs.json").write_text(json.dumps(refs))
    (tmp_path / "sub.json").write_text(json.dumps(sub))
    with pytest.raises(KeyError, match=r"intervention 'C' has no references"):
        read_submission(tmp_path / "sub.json", tmp_path / "refs.json")
    kept = read_submission(tmp_path / "sub.json", tmp_path / "refs.json", unknown="skip")
    assert kept["intervention_ids"] == ["A"] and kept["predictions"] == [[REFS[0]["cq"]]]
    with pytest.raises(KeyError, match="1 reference interventions have no prediction"):
        read_submission(sub, refs, unknown="skip", missing="error")
    zero = read_submission(sub, refs, unknown="skip", missing="missing_cqs")
    assert zero["intervention_ids"] == ["A", "B"] and zero["predictions"][1] == [MISSING]
    result = cq_reference_match(**zero, matcher=exact_text)
    assert result["intervention_scores"] == pytest.approx([1 / 3, 0.0])
    assert result["intervention_ids"] == ["A", "B"]
    with pytest.raises(ValueError, match=r"submission\[0\] \('A'\)\.cqs"):
        read_submission({"A": {"cqs": "three questions"}}, refs)


def test_evaluate_module_batches_and_callable(minilm):
    metric = argbench.load_metric("cq_reference_match")
    metric.add_batch(predictions=[[REFS[0]["cq"], "z"]], references=[REFS])
    metric.add_batch(predictions=[[MISSING]], references=[REFS])
    result = metric.compute(matcher=exact_text)
    assert result["labels"] == [["Useful", NAE], [NAE] * 3]
    assert result["score"] == pytest.approx(1 / 6)


# ---- the LLM matcher against a loopback OpenAI-compatible server ----


def _llm(server, **options):
    return ChatEndpoint("stub-model", base_url=server.base_url, api_key="x", **options)


def test_llm_matcher_parses_strictly_and_counts_unparseable():
    replies = {
        "Is the source trustworthy?": "0",
        "Who pays the taxes?": " 1\n",
        "Do you like pizza?": "Similar reference not found.",
        "Is it raining?": "The answer is 0.",  # not strict: an issue
        "What time is it?": "7",  # no such reference
        "Why now?": None,  # a message without content
    }

    def responder(request, number):
        prompt = user_prompt(request)
        assert "0: Is the source of this claim reliable?" in prompt
        question = next(q for q in replies if f"\n{q}\n" in prompt)
        return 200, replies[question], 0, None

    with StubServer(responder) as server:
        questions = list(replies)
        with pytest.raises(JudgmentError, match="3 of 6 judgments failed"):
            cq_reference_match(
                [questions[:3], questions[3:]], [REFS, REFS], matcher="llm", llm=_llm(server)
            )
        result = cq_reference_match(
            [questions[:3], questions[3:]],
            [REFS, REFS],
            matcher="llm",
            llm=_llm(server),
            on_failure="incomplete",
        )
    assert result["labels"] == [
        ["Useful", "Unhelpful", NAE],
        ["evaluation_issue"] * 3,
    ]
    assert result["matched_ids"][0] == ["r0", "r1", None]
    assert result["n_failed"] == 3 and result["complete"] is False
    assert [u["reply"] for u in result["failed"][:2]] == ["The answer is 0.", "7"]
    assert result["failed"][2]["error"] == "the reply message has no text content"
    assert result["label_counts"]["evaluation_issue"] == 3
    assert result["score"] == pytest.approx(1 / 3)  # the judged intervention only


def test_llm_retries_429_then_succeeds_and_custom_template():
    def responder(request, number):
        if number == 1:
            return 429, {"error": {"message": "slow down"}}, 0, {"retry-after-ms": "10"}
        return 200, "Similar reference not found.", 0, None

    with StubServer(responder) as server:
        result = cq_reference_match(
            [["Q?"]],
            [REFS],
            matcher="llm",
            llm=_llm(server, max_retries=2),
            prompt_template="Refs:\n{references}\nNew: {question}\nJSON {{not a field}}",
        )
        assert len(server.requests) == 2
        assert user_prompt(server.requests[1]).endswith("New: Q?\nJSON {{not a field}}")
    assert result["labels"] == [[NAE]]
    with pytest.raises(ValueError, match=r"must contain \{question\}"):
        cq_reference_match([["Q?"]], [REFS], matcher="llm", prompt_template="{references}")


def test_llm_timeout_and_malformed_body_raise_clear_errors():
    def slow(request, number):
        return 200, "0", 2.0, None

    with StubServer(slow) as server:
        with pytest.raises(LLMError, match=r"model 'stub-model'.*prompt #0.*timeout=0.3s"):
            cq_reference_match(
                [["Q?"]], [REFS], matcher="llm", llm=_llm(server, timeout=0.3, max_retries=0)
            )

    def garbage(request, number):
        return 200, b"this is not json", 0, None

    with StubServer(garbage) as server:
        (reply,) = _llm(server, max_retries=3).complete(["hello"])
        assert len(server.requests) == 1  # a malformed body is not retried
    assert reply.reason == "HTTP 200 but the body is not JSON" and reply.raw == "this is not json"


@pytest.mark.mirror
@pytest.mark.slow  # MiniLM over the real validation questions
def test_real_llama8_labels_equal_the_public_procedure(real_mirror, minilm, tmp_path):
    validation = json.loads(path_of("cqs_gen", "validation", real_mirror).read_text())
    submission = json.loads(path_of("cqs_gen", "trial_output", real_mirror).read_text())
    model = Embedder(minilm, cache_dir=False).model
    expected = {
        key: straightforward(
            model, [c["cq"] for c in value["cqs"]], [r["cq"] for r in validation[key]["cqs"]]
        )
        for key, value in submission.items()
    }
    for threshold in (0.65, 0.6):
        result = cq_reference_match(
            **read_submission(submission, validation),
            model=minilm,
            threshold=threshold,
            cache_dir=tmp_path,
        )
        assert result["labels"] == [
            [validation[key]["cqs"][w]["label"] if s > threshold else NAE for w, s in rows]
            for key, rows in expected.items()
        ]
    assert result["n_questions"] == 15 and result["n_interventions"] == 5
    assert result["label_counts"]["Useful"] >= 1 and result["label_counts"][NAE] >= 1
