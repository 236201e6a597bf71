"""Hub eval-results entries round-trip through huggingface_hub's own parser losing nothing.

The Hub's format (``.eval_results/<task>.yaml``) has ``dataset``, ``value``, ``date``,
``source`` and ``notes``; huggingface_hub's ``parse_eval_result_entries`` (1.4 and later)
drops every other key. argbench's entries used to carry ``system`` and ``off_protocol``, lost
on the way; now the system is ``source.name``, ``source.url`` points at the full record, and
the signature and the off-protocol reason are lines of ``notes`` (:func:`read_entry`).

Where the installed huggingface_hub has the parser (the environment of the newest releases
CI also runs), it is used in this process; the test environment holds huggingface_hub at 0.36
(the harness extra), so a venv with the newest huggingface_hub parses the same entries too.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from argbench import hub_eval
from argbench.hub_eval import eval_results_entry, read_entry
from argbench.results import build_document, content_digest
from argbench.scoring.argument_relevance import argument_relevance
from tests.helpers import cached_venv

HUB_SILVER = {
    "name": "org/cam-answers",
    "config": "silver",
    "split": "train",
    "version": "2.0.0",
    "content_hash": "sha256:" + "0" * 64,
    "source": "hub:org/cam-answers",
    "revision": "v2.0.0",
    "commit": "c0ffee" * 6 + "c0ff",
}
RECORD = "https://huggingface.co/datasets/org/eee/blob/main/data/x/y/z/record.json"


def document(threshold=2, system="org/my-system"):
    answers = [f"Answer {i} [{1 + i % 2}]." for i in range(6)]
    result = argument_relevance(answers, [[3, 0]] * 6, relevance_threshold=threshold)
    ids = [f"silver-{i}-0" for i in range(6)]
    doc = build_document("argument_relevance", result, HUB_SILVER, ids, system=system)
    doc["digest"] = content_digest(doc)
    return doc


def entries() -> dict[str, tuple[dict, dict]]:
    """name -> (results document, entry): on the protocol, off it, with a record URL, none."""
    out = {}
    for name, doc, options in (
        ("kept", document(), {"record_url": RECORD}),
        ("off", document(threshold=3), {"off_protocol": True, "record_url": RECORD}),
        ("no url", document(), {}),
        ("no system", document(system=None), {}),
    ):
        out[name] = (doc, eval_results_entry(doc, **options)[1])
    return out


def check_what_comes_back(name, doc, entry, fields) -> None:
    """``fields``: what the Hub's parser read from the entry (EvalResultEntry's fields)."""
    assert fields["dataset_id"] == "org/cam-answers" and fields["task_id"] == "argument_relevance"
    assert fields["value"] == doc["result"]["f1"] and fields["dataset_revision"] == HUB_SILVER["commit"]  # fmt: skip
    assert fields["date"] == doc["created"][:10]
    assert fields.get("source_name") == doc["system"]
    url = {"kept": RECORD, "off": RECORD, "no url": f"urn:argbench:{doc['digest']}"}.get(name)
    assert fields.get("source_url") == url
    back = read_entry(entry)
    assert back["system"] == doc["system"] and back["signature"] == doc["signature"]
    off = ["relevant:>=3 (protocol: relevant:>=2)"] if name == "off" else []
    assert back["off_protocol"] == off
    assert f"argbench {doc['signature']}" in fields["notes"]
    assert ("OFF-PROTOCOL: relevant:>=3" in fields["notes"]) == (name == "off")


def test_every_field_of_an_entry_is_one_the_hubs_format_has():
    """Before: ``system`` and ``off_protocol`` keys, which the Hub's parser drops."""
    for name, (doc, entry) in entries().items():
        assert set(entry) <= {"dataset", "value", "date", "source", "notes", "verifyToken"}, name
        assert set(entry["dataset"]) <= {"id", "task_id", "revision"}
        assert set(entry.get("source", {})) <= {"url", "name", "user", "org"}
        check_what_comes_back(name, doc, entry, hub_eval._hub_fields(entry))


def test_an_off_protocol_value_still_needs_the_opt_in():
    with pytest.raises(hub_eval.NotALeaderboardValue, match=r"relevant:>=3 \(protocol"):
        eval_results_entry(document(threshold=3))


def test_the_hubs_own_types_in_this_environment():
    """huggingface_hub >= 1.4 installed: the entries are made and read by its own types."""
    hub = pytest.importorskip("huggingface_hub")
    if not hasattr(hub, "parse_eval_result_entries"):
        pytest.skip(
            f"huggingface_hub {hub.__version__} has no eval-results types (1.4 and later); "
            "test_round_trip_with_the_newest_huggingface_hub checks them in a venv"
        )
    assert hub_eval.EvalResultEntry is hub.EvalResultEntry
    for name, (doc, entry) in entries().items():
        (parsed,) = hub.parse_eval_result_entries([entry])
        assert hub.eval_result_entries_to_yaml([parsed]) == [entry], name
        check_what_comes_back(name, doc, entry, vars(parsed))


ROUND_TRIP = """
import json, sys
from huggingface_hub import __version__, eval_result_entries_to_yaml, parse_eval_result_entries
entries = json.load(sys.stdin)
parsed = parse_eval_result_entries(entries)
print(json.dumps({"version": __version__, "fields": [vars(p) for p in parsed],
                  "again": eval_result_entries_to_yaml(parsed)}))
"""


@pytest.mark.slow  # a venv with the newest huggingface_hub (pip, once)
def test_round_trip_with_the_newest_huggingface_hub():
    python = cached_venv("huggingface-hub-2", ["huggingface_hub>=2,<3"])
    made = entries()
    done = subprocess.run(
        [str(python), "-c", ROUND_TRIP],
        input=json.dumps([entry for _, entry in made.values()]),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    assert report["version"].startswith("2.")
    assert report["again"] == [entry for _, entry in made.values()]  # nothing lost
    for (name, (doc, entry)), fields in zip(made.items(), report["fields"], strict=True):
        check_what_comes_back(name, doc, entry, fields)
