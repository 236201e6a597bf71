"""Structured output options and the parsers on reply shapes seen from real models (no server:
tests/test_real_llm_judge.py runs the real one)."""

import pytest

from argbench.llm import ChatEndpoint, Failed, _structured_label, _structured_options
from argbench.scoring.argument_answer_coherence import _parse_reply as aac_reply
from argbench.scoring.cq_reference_match import NOT_FOUND


def test_structured_options_per_mode():
    choices = ["0", "1", NOT_FOUND, 'say "hi"\\']
    schema = _structured_options("json_schema", choices)["response_format"]
    assert schema["type"] == "json_schema" and schema["json_schema"]["strict"] is True
    assert schema["json_schema"]["schema"]["properties"]["label"]["enum"] == choices
    assert _structured_options("json_object", choices)["response_format"]["type"] == "json_object"
    grammar = _structured_options("grammar", choices)["extra_body"]["grammar"]
    assert grammar == 'root ::= "0" | "1" | "Similar reference not found." | "say \\"hi\\"\\\\"'


@pytest.mark.parametrize(
    "mode, content, expected",
    [
        ("json_object", '{ "label" : "1"}', "1"),
        ("json_schema", '{"label": "Similar reference not found."}', NOT_FOUND),
        ("grammar", "0", "0"),
        ("json_object", '{"label": "7"}', "not one of the labels"),
        ("json_object", "1", "the reply is not {label}"),  # a server that ignored the schema
        ("grammar", "The answer is 1", "not one of the labels"),
    ],
)
def test_structured_reply_is_a_label_or_a_failed_judgment(mode, content, expected):
    label = _structured_label(mode, content, ["0", "1", NOT_FOUND])
    if isinstance(label, Failed):
        assert expected in label.reason and label.raw == content
    else:
        assert label == expected


def test_structured_mode_is_checked():
    with pytest.raises(ValueError, match="structured must be one of"):
        ChatEndpoint("m", api_key="k", structured="yes")


def test_signature_names_structured_mode_and_served_weights():
    plain = dict(ChatEndpoint("m", api_key="k", model_id="m-v1").signature_fields("p"))
    assert "structured" not in plain and plain["llm"] == "m@id:m-v1"
    served = ChatEndpoint("m", api_key="k", structured="grammar", weights_sha256="ab" * 32)
    fields = dict(served.signature_fields("p"))
    assert fields["structured"] == "grammar" and fields["llm"] == "m@sha256:" + "ab" * 6
    auto = ChatEndpoint("m", api_key="k", structured="auto")  # not settled: nothing claimed
    assert "structured" not in dict(auto.signature_fields("p"))


@pytest.mark.parametrize(
    "reply, decision",
    [
        ("1", 1),
        (" 0\n", 0),
        ("The answer is 1.", 1),
        ("Answer: 0", 0),
        ("answer 1", 1),
        ("1.", 1),
        ("No.", None),  # yes/no is not the asked format
        ("No, the answer is 1.", None),  # contradicts itself
        ("1 or 0", None),
        ('"cats are smarter" -> 1', None),
        ("10", None),
        ("", None),
    ],
)
def test_aac_parser_accepts_only_unambiguous_replies(reply, decision):
    assert aac_reply(reply) == decision
