"""LLM judges against hostile endpoints: no run that lost judgments prints a plausible score.

Every endpoint here is the loopback stub (tests/openai_stub.py); no test waits on a clock:
slow replies are cut by timeouts far below the stub's delay.
"""

from __future__ import annotations

import json

import pytest

from argbench.cli import main
from argbench.llm import ChatEndpoint, JudgmentError, LLMError
from argbench.scoring.argument_answer_coherence import argument_answer_coherence
from argbench.scoring.cq_reference_match import cq_reference_match
from tests.openai_stub import MODES, StubServer, user_prompt

REFS = [
    {"id": "r0", "cq": "Is the source reliable?", "label": "Useful"},
    {"id": "r1", "cq": "Who pays?", "label": "Invalid"},
]
ARGS = ["Cats are smarter than dogs.", "Dogs are more loyal."]


def _llm(server, **options):
    return ChatEndpoint("stub-model", base_url=server.base_url, api_key="x", **options)


@pytest.mark.parametrize("mode", ["html", "html_as_json", "no_choices", "empty_choices"])
def test_malformed_200_body_is_an_error_not_a_zero_score(mode):
    with StubServer(MODES[mode]) as server:
        with pytest.raises(JudgmentError) as caught:
            cq_reference_match([["Q1?", "Q2?"]], [REFS], matcher="llm", llm=_llm(server))
        assert len(server.requests) == 2  # a malformed body is not retried
        message = str(caught.value)
        assert "2 of 2 judgments failed" in message
        assert "on_failure='incomplete'" in message
        if mode.startswith("html"):
            assert "<html>" in message  # the raw reply is shown
        with pytest.raises(JudgmentError, match="1 of 1 judgments failed"):
            argument_answer_coherence(["Cats rule [1]."], [ARGS], judge="llm", llm=_llm(server))


def test_unparseable_replies_no_longer_shrink_the_denominator():
    def responder(request, number):
        return 200, ("1" if "Second: Cats rule" in user_prompt(request) else "Yes!"), 0, None

    with StubServer(responder) as server:
        answers = ["Cats rule [1]. Dogs drool [2]."]
        with pytest.raises(JudgmentError, match=r"1 of 2 judgments failed.*'Yes!'"):
            argument_answer_coherence(answers, [ARGS], judge="llm", llm=_llm(server))
        result = argument_answer_coherence(
            answers, [ARGS], judge="llm", llm=_llm(server), on_failure="incomplete"
        )
    assert result["complete"] is False and result["n_failed"] == 1
    assert result["failed"][0]["reply"] == "Yes!" and result["failed"][0]["answer"] == 0
    assert result["aac"] == 1.0 and result["n_pairs"] == 1  # the score over what was judged
    assert result["n_answers_scored"] == 0  # its answer lost a judgment: no by-answer mean


def test_incomplete_cq_match_scores_only_fully_judged_interventions():
    def responder(request, number):
        return 200, ("0" if "\nGood?\n" in user_prompt(request) else "no idea"), 0, None

    with StubServer(responder) as server:
        result = cq_reference_match(
            [["Good?", "Good?", "Good?"], ["Good?", "Bad?", "Good?"]],
            [REFS, REFS],
            matcher="llm",
            llm=_llm(server),
            on_failure="incomplete",
        )
    assert result["complete"] is False and result["n_failed"] == 1
    assert result["intervention_scores"] == [1.0, None]
    assert result["score"] == 1.0 and result["n_scored"] == 1
    assert result["failed"] == [
        {"intervention": 1, "question": 1, "reply": "no idea", "error": "unparseable reply"}
    ]
    assert result["useful_rate"] == 1.0  # over the 5 judged questions


def test_complete_runs_say_so():
    result = cq_reference_match([["Q?"]], [REFS], matcher=lambda q, refs: 0)
    assert result["complete"] is True and result["n_failed"] == 0
    result = argument_answer_coherence(["Cats [1]."], [ARGS], judge=lambda a, e: 1)
    assert result["complete"] is True and result["n_failed"] == 0
    with pytest.raises(ValueError, match="on_failure must be"):
        argument_answer_coherence(["Cats [1]."], [ARGS], judge=lambda a, e: 1, on_failure="x")


@pytest.mark.parametrize(
    ("mode", "words"),
    [("401", "refused the API key"), ("403", "refused the API key"), ("404", "base_url")],
)
def test_auth_and_not_found_stop_at_once_without_retries(mode, words):
    with StubServer(MODES[mode]) as server:
        with pytest.raises(LLMError) as caught:
            _llm(server, max_retries=5).complete(["a", "b", "c"])
        assert len(server.requests) <= 3  # never retried (parallel requests may be in flight)
    message = str(caught.value)
    assert f"HTTP {mode}" in message and words in message and "not retried" in message
    assert "after 5 retries" not in message


def test_bad_request_is_a_failed_judgment_not_retried():
    with StubServer(MODES["400"]) as server:
        replies = _llm(server, max_retries=5).complete(["a"])
        assert len(server.requests) == 1
    assert not isinstance(replies[0], str)
    assert "HTTP 400" in replies[0].reason and "unsupported parameter" in replies[0].raw


def test_rate_limit_is_retried_then_stops_with_the_true_count():
    with StubServer(MODES["429"]) as server:
        with pytest.raises(LLMError) as caught:
            _llm(server, max_retries=2).complete(["a"])
        assert len(server.requests) == 3
    message = str(caught.value)
    assert "HTTP 429" in message and "3 attempts" in message and "max_retries" in message


def test_slow_server_fails_fast_and_names_the_setting_to_raise():
    with StubServer(MODES["slow"]) as server:
        with pytest.raises(LLMError) as caught:
            _llm(server, timeout=0.2, max_retries=1).complete(["a"])
        assert len(server.requests) == 2
    message = str(caught.value)
    assert "no reply within timeout=0.2s" in message and "2 attempts" in message
    assert "'timeout'" in message


def test_stalled_run_stops_at_the_stall_timeout():
    """A request still hangs (timeout 3600 s) but the run stops when nothing finished for
    stall_timeout seconds; the hanging worker thread does not keep the run alive."""
    with StubServer(MODES["slow"]) as server:
        with pytest.raises(LLMError, match=r"no request finished for 0.3s.*stall_timeout"):
            _llm(server, timeout=3600, stall_timeout=0.3).complete(["a", "b"])


def test_progress_reports_done_failed_retried():
    def responder(request, number):
        if number == 1:
            return 500, {"error": {"message": "try again"}}, 0, {"retry-after-ms": "1"}
        return 200, "Yes!" if user_prompt(request) == "b" else "0", 0, None

    lines: list[str] = []
    with StubServer(responder) as server:
        _llm(server, max_workers=1, progress=lines.append, progress_every=0).complete(["a", "b"])
    assert lines[-1].startswith("llm: 2/2 requests done, 0 failed, 1 retried")


def test_defaults_fail_a_dead_endpoint_within_two_minutes():
    """Worst case of the defaults for one request (every attempt times out, longest backoff),
    and the stall limit for the whole run."""
    endpoint = ChatEndpoint("m", base_url="http://127.0.0.1:9/v1", api_key="x")
    attempts = endpoint.max_retries + 1
    assert attempts * endpoint.timeout + endpoint.max_retries * 8 <= 120
    assert endpoint.stall_timeout <= 120


def test_connection_refused_is_retried_then_says_what_to_check():
    endpoint = ChatEndpoint("m", base_url="http://127.0.0.1:9/v1", api_key="x", max_retries=1)
    with pytest.raises(LLMError, match=r"cannot connect.*2 attempts.*base_url"):
        endpoint.complete(["a"])


# ---- the command line: an incomplete run exits non-zero unless --allow-incomplete ----


@pytest.fixture
def cq_files(tmp_path):
    submission = {"i1": {"cqs": [{"id": 0, "cq": "Q1?"}, {"id": 1, "cq": "Q2?"}]}}
    validation = {"i1": {"intervention_id": "i1", "cqs": REFS}}
    (tmp_path / "sub.json").write_text(json.dumps(submission))
    (tmp_path / "val.json").write_text(json.dumps(validation))
    return [str(tmp_path / "sub.json"), "--references", str(tmp_path / "val.json")]


def _env(monkeypatch, server):
    monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
    monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")


def test_cli_failed_judgments_exit_1_and_allow_incomplete_marks_the_result(
    monkeypatch, capsys, cq_files
):
    def responder(request, number):
        return 200, ("0" if "\nQ1?\n" in user_prompt(request) else "<html>"), 0, None

    with StubServer(responder) as server:
        _env(monkeypatch, server)
        argv = ["evaluate", "cq_reference_match", *cq_files, "--matcher", "llm"]
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "1 of 2 judgments failed" in err and "--allow-incomplete" in err
        assert main([*argv, "--option", "on_failure=incomplete"]) == 1
        captured = capsys.readouterr()
        assert "complete" in captured.out and "incomplete" in captured.err
        assert main([*argv, "--allow-incomplete", "--json"]) == 0
        captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["complete"] is False and result["n_failed"] == 1
    assert result["score"] is None  # the only intervention lost a judgment: undefined, not 0
    assert "incomplete" in captured.err


def test_cli_dead_endpoint_is_exit_1_with_the_setting_to_raise(monkeypatch, capsys, cq_files):
    with StubServer(MODES["slow"]) as server:
        _env(monkeypatch, server)
        code = main(
            [
                "evaluate",
                "cq_reference_match",
                *cq_files,
                "--matcher",
                "llm",
                "--option",
                'llm={"timeout": 0.2, "max_retries": 0}',
            ]
        )
    assert code == 1
    assert "raise the per-request timeout" in capsys.readouterr().err
