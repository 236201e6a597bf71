"""Signatures: render/parse, stable for the same settings (across processes and folder
locations), and every field changes when its setting does; per-item values average to the
metric's figure."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys

import pytest

import argbench
from argbench.embedding import Embedder, folder_signature, model_signature
from argbench.llm import ChatEndpoint
from argbench.scoring.annotator_agreement import agreement
from argbench.scoring.argument_answer_coherence import (
    DEFAULT_PROMPT as AAC_PROMPT,
)
from argbench.scoring.argument_answer_coherence import (
    SYSTEM_PROMPT,
    argument_answer_coherence,
)
from argbench.scoring.argument_overlap import argument_overlap
from argbench.scoring.argument_relevance import argument_relevance
from argbench.scoring.cq_reference_match import DEFAULT_PROMPT as CQ_PROMPT
from argbench.scoring.cq_reference_match import cq_reference_match
from argbench.scoring.cr_diversity import cr_diversity
from argbench.scoring.rationale_f1 import rationale_f1
from argbench.signature import Signature, short_hash

from .openai_stub import StubServer

ANSWERS = ["A is faster [1, 2]. B is cheaper [generated].", "Nothing cited here.", "B [3]."]
LABELS = [[3, 0, 2], [3, 1], [0, 0, 1]]
ARGUMENTS = [["A is faster.", "A is older.", "B is cheaper."], ["x", "y"], ["p", "q", "r"]]
REFS = [[{"id": "a", "cq": "Is it true?", "label": 0}, {"id": "b", "cq": "Who?", "label": 1}]]
QUESTIONS = [["Is it true?", "Why?", "Who?"]]


def first_word(argument, excerpt):
    return int(argument.split()[0] == excerpt.split()[0])


def exact(question, references):
    return references.index(question) if question in references else None


def fields(signature: str) -> dict:
    parsed = Signature.parse(signature)
    return {"name": parsed.name, **parsed.fields, "v": parsed.version}


def changed(a: str, b: str) -> set[str]:
    return {field for field, _, _ in Signature.parse(a).differences(Signature.parse(b))}


# ---- the Signature class ----


def test_render_parse_round_trip_with_escapes():
    s = Signature("m", [("model", "org/a|b%c"), ("thr", 0.65), ("on", True), ("n", None)], "1.0")
    text = s.render()
    assert text == "m|model:org/a%7Cb%25c|thr:0.65|on:yes|n:none|v:1.0"
    assert Signature.parse(text) == s and Signature.parse(text).fields["model"] == "org/a|b%c"
    assert str(Signature("m", [("x", [1, 2])])).endswith(f"|x:1,2|v:{argbench.__version__}")
    assert changed(text, s.replace(thr=">0.6").render()) == {"thr"}
    for bad in ("no-bars", "m|x:1", "m|x"):
        with pytest.raises(ValueError):
            Signature.parse(bad)
    with pytest.raises(ValueError, match="given twice"):
        Signature("m", [("a", 1), ("a", 2)])
    with pytest.raises(ValueError, match="the version"):
        Signature("m", [("v", 1)])


def test_version_field_follows_argbench(monkeypatch):
    monkeypatch.setattr(argbench._version, "__version__", "9.9.9")
    result = argument_relevance(ANSWERS, LABELS)
    assert fields(result["signature"])["v"] == "9.9.9"


# ---- every metric's fields ----


def test_argument_relevance_fields():
    base = argument_relevance(ANSWERS, LABELS)["signature"]
    assert base == f"argument_relevance|parser:strict|relevant:>=2|v:{argbench.__version__}"
    assert base == argument_relevance(ANSWERS, LABELS)["signature"]
    assert changed(
        base, argument_relevance(ANSWERS, LABELS, semantics="notebook")["signature"]
    ) == {"parser"}
    assert changed(base, argument_relevance(ANSWERS, LABELS, 3)["signature"]) == {"relevant"}


def test_argument_overlap_fields():
    base = argument_overlap(ANSWERS, ARGUMENTS)["signature"]
    assert fields(base) == {
        "name": "argument_overlap",
        "excerpts": "notebook",
        "tok": "whitespace",
        "sbert": "none",
        "v": argbench.__version__,
    }
    other = argument_overlap(ANSWERS, ARGUMENTS, excerpts="argbench")["signature"]
    assert changed(base, other) == {"excerpts"}

    def similarity(a, b):
        return [[1.0] * len(b) for _ in a]

    judged = argument_overlap(ANSWERS, ARGUMENTS, sentence_similarity=similarity)["signature"]
    assert changed(base, judged) == {"sbert"}
    assert fields(judged)["sbert"].startswith("callable:") and "similarity" in judged


def test_argument_overlap_model_field_names_the_model(minilm, tmp_path):
    result = argument_overlap(
        ANSWERS, ARGUMENTS, model=minilm, embedding_options={"cache_dir": tmp_path}
    )
    assert fields(result["signature"])["sbert"] == folder_signature(minilm)


def test_rationale_f1_fields():
    preds, golds, contexts = [["a b"]], [["a b c"]], ["x a b c y"]
    base = rationale_f1(preds, golds, contexts)["signature"]
    assert fields(base)["tok"].startswith("argbench-spacy3.8.18-rules-")
    assert fields(base)["spans"] == "positions" and fields(base)["iou"] == ">=0.5"
    assert changed(base, rationale_f1(preds, golds)["signature"]) == {"spans"}
    assert changed(base, rationale_f1(preds, golds, contexts, iou_threshold=0.6)["signature"]) == {
        "iou"
    }
    assert rationale_f1(preds, golds, contexts, iou_threshold=1)["signature"].count("iou:>=1.0")


def test_rationale_f1_tokenizer_field():
    pytest.importorskip("spacy")
    preds, golds = [["a b"]], [["a b c"]]
    base = rationale_f1(preds, golds)["signature"]
    other = rationale_f1(preds, golds, tokenizer="spacy")["signature"]
    assert changed(base, other) == {"tok"} and fields(other)["tok"].startswith("spacy-")


def test_cr_diversity_fields():
    texts = ["Is the claim true?", "Who says so?", "Is it so?"]
    base = cr_diversity(texts)["signature"]
    assert base == f"cr_diversity|compressor:gzip|ngram_n:4|empty:exclude|v:{argbench.__version__}"
    assert changed(base, cr_diversity(texts, empty="keep")["signature"]) == {"empty"}
    assert changed(base, cr_diversity(texts, "xz")["signature"]) == {"compressor"}
    assert changed(base, cr_diversity(texts, num_n=3)["signature"]) == {"ngram_n"}


def test_annotator_agreement_fields():
    ratings = [[0, 0, 2, 1], [0, 1, 2, 1]]
    base = agreement(ratings)["signature"]
    assert fields(base)["categories"] == "observed"
    other = agreement(ratings, [0, 1, 2, 3])["signature"]
    assert changed(base, other) == {"categories"} and fields(other)["categories"] == "0,1,2,3"


def test_cq_reference_match_sts_fields(minilm, tmp_path):
    common = {"model": minilm, "cache_dir": tmp_path}
    base = cq_reference_match(QUESTIONS, REFS, **common)["signature"]
    assert fields(base) == {
        "name": "cq_reference_match",
        "matcher": "sts",
        "model": folder_signature(minilm),
        "thr": ">0.65",
        "max_q": "3",
        "v": argbench.__version__,
    }
    assert base == cq_reference_match(QUESTIONS, REFS, **common)["signature"]
    for option, field in (
        ({"threshold": 0.6}, "thr"),
        ({"max_questions": 2}, "max_q"),
        ({"label_names": ["Useful", "Invalid", "Unhelpful"]}, "labels"),
    ):
        other = cq_reference_match(QUESTIONS, REFS, **common, **option)["signature"]
        assert changed(base, other) == {field}, option
    by_callable = cq_reference_match(QUESTIONS, REFS, matcher=exact)["signature"]
    assert changed(base, by_callable) == {"matcher", "model", "thr"}
    assert fields(by_callable)["matcher"] == f"callable:{__name__}.exact"


def test_model_field_is_the_folder_content_not_its_place(minilm, tmp_path):
    """A local model is named by its name (the card's one-word title, else the folder's name)
    beside the hash of its files. Same files elsewhere: same signature; another name for the
    same files: another string but the same measurement for ``differences`` (what compare
    checks); one file changed: another hash. Hub snapshots are named by repo and commit."""
    name, _, digest = folder_signature(minilm).partition("@")
    assert name == "all-MiniLM-L6-v2"  # the card's title: the package's folder is called "model"
    assert re.fullmatch(r"folder-sha256:[0-9a-f]{12}", digest)
    same = tmp_path / "elsewhere" / "my-minilm"
    copy = tmp_path / "other" / "my-minilm"
    for folder in (same, copy):
        folder.mkdir(parents=True)
        for entry in os.scandir(minilm):
            (folder / entry.name).symlink_to(entry.path)
    assert folder_signature(same) == folder_signature(minilm)
    assert Embedder(str(same), cache_dir=False).signature == folder_signature(minilm)
    ours = Signature("m", [("model", folder_signature(minilm))])
    renamed = Signature("m", [("model", f"my-minilm@{digest}")])
    assert Signature.parse(ours.render()) == ours and ours != renamed
    assert ours.differences(renamed) == []
    (copy / "README.md").unlink()
    (copy / "README.md").write_text("# SentenceTransformer based on a model\nanother card")
    copy_name, _, copy_digest = folder_signature(copy).partition("@")
    assert copy_name == "my-minilm" and copy_digest != digest  # no one-word title: folder name
    changed = Signature("m", [("model", folder_signature(copy))])
    assert [field for field, *_ in ours.differences(changed)] == ["model"]
    snapshot = tmp_path / "models--org--name" / "snapshots" / ("ab12" * 10)
    snapshot.mkdir(parents=True)
    assert folder_signature(snapshot) == "org/name@ab12ab12ab12"
    assert model_signature("org/never-cached") == "org/never-cached@unresolved"
    assert model_signature("org/never-cached", revision="v2") == "org/never-cached@v2"


def test_embedder_signature_is_kept_in_the_cache_folder(minilm, tmp_path):
    embedder = Embedder(minilm, cache_dir=tmp_path)
    assert embedder.signature == folder_signature(minilm)
    (memo,) = tmp_path.glob("*/signature.txt")
    assert memo.read_text() == embedder.signature.rpartition("@")[2]  # the hash; the name is read


@pytest.mark.slow  # a fresh interpreter loads torch and MiniLM
def test_signatures_are_the_same_in_a_fresh_process(minilm, tmp_path):
    """What another run (or machine) with the same settings gets: a new process, another
    working directory and embedding cache."""
    code = (
        "import json, sys\n"
        "from argbench.scoring.argument_relevance import argument_relevance\n"
        "from argbench.scoring.rationale_f1 import rationale_f1\n"
        "from argbench.scoring.cq_reference_match import cq_reference_match\n"
        "refs = [[{'id': 'a', 'cq': 'Is it true?', 'label': 0}]]\n"
        "print(json.dumps([argument_relevance(['A [1].'], [[3]])['signature'],\n"
        "    rationale_f1([['a']], [['a b']], ['a b'])['signature'],\n"
        "    cq_reference_match([['Is it true?']], refs, model=sys.argv[1])['signature']]))\n"
    )
    env = {**os.environ, "ARGBENCH_EMBEDDINGS_CACHE": str(tmp_path / "other-cache")}
    out = subprocess.run(
        [sys.executable, "-c", code, minilm],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    ).stdout
    here = [
        argument_relevance(["A [1]."], [[3]])["signature"],
        rationale_f1([["a"]], [["a b"]], ["a b"])["signature"],
        cq_reference_match(
            [["Is it true?"]], [[{"id": "a", "cq": "Is it true?", "label": 0}]], model=minilm
        )["signature"],
    ]
    assert json.loads(out) == here


def test_llm_judge_fields():
    endpoint = ChatEndpoint("judge-a", api_key="k", model_id="v1")
    assert endpoint.signature_fields("P {x}") == [
        ("llm", "judge-a@id:v1"),
        ("prompt", short_hash("P {x}")),
        ("temp", 0.0),
    ]
    base = Signature("m", endpoint.signature_fields("P {x}")).render()
    for other, field in (
        (ChatEndpoint("judge-b", api_key="k", model_id="v1").signature_fields("P {x}"), "llm"),
        (endpoint.signature_fields("Q {x}"), "prompt"),
        (endpoint.signature_fields("P {x}", system="be strict"), "prompt"),
        (
            ChatEndpoint("judge-a", api_key="k", model_id="v1", temperature=0.7).signature_fields(
                "P {x}"
            ),
            "temp",
        ),
        (
            ChatEndpoint("judge-a", api_key="k", model_id="v1", max_tokens=5).signature_fields(
                "P {x}"
            ),
            "max_tokens",
        ),
    ):
        assert changed(base, Signature("m", other).render()) == {field}
    assert ChatEndpoint("j", api_key="k", model_id="v1", temperature=0).signature_fields("P")[
        2
    ] == ("temp", 0.0)


def test_llm_judges_put_their_fields_in_the_metric_signature():
    with StubServer(lambda request, number: (200, "0", 0, None)) as server:
        llm = {"model": "stub-model", "base_url": server.base_url, "api_key": "stub"}
        cq = cq_reference_match(QUESTIONS, REFS, matcher="llm", llm=llm)["signature"]
        aac = argument_answer_coherence(
            ["A is fast [1]."], [["A is faster."]], judge="llm", llm=llm
        )["signature"]
        custom = argument_answer_coherence(
            ["A is fast [1]."],
            [["A is faster."]],
            judge="llm",
            llm=llm,
            prompt_template="{argument} => {excerpt}?",
        )["signature"]
    named = fields(cq)
    # the model is named by what identifies it: here the stub's probe reply
    assert named.pop("llm").startswith("stub-model@fp:")
    assert named == {
        "name": "cq_reference_match",
        "matcher": "llm",
        "prompt": short_hash(CQ_PROMPT),
        "temp": "0.0",
        "max_q": "3",
        "v": argbench.__version__,
    }
    assert fields(aac)["prompt"] == short_hash(f"{SYSTEM_PROMPT}\0{AAC_PROMPT}")
    assert changed(aac, custom) == {"prompt"}


def test_argument_answer_coherence_fields():
    common = (["A is fast [1]. B [2]."], [["A is faster.", "B is cheaper."]])
    base = argument_answer_coherence(*common, judge=first_word)["signature"]
    assert fields(base)["judge"] == f"callable:{__name__}.first_word"
    other = argument_answer_coherence(*common, judge=first_word, excerpts="notebook")["signature"]
    assert changed(base, other) == {"excerpts"}


# ---- per-item values ----


def _mean(values):
    scored = [v for v in values if v is not None]
    return math.fsum(scored) / len(scored) if scored else float("nan")


@pytest.mark.parametrize(
    "result",
    [
        pytest.param(lambda: argument_relevance(ANSWERS, LABELS), id="argument_relevance"),
        pytest.param(
            lambda: argument_relevance(ANSWERS, LABELS, semantics="notebook"), id="ar-notebook"
        ),
        pytest.param(lambda: argument_overlap(ANSWERS, [*ARGUMENTS[:2], []]), id="overlap"),
        pytest.param(
            lambda: rationale_f1(
                [["a b"], [], ["c"]], [["a b c"], [], ["d"]], ["a b c", "e", "c d"]
            ),
            id="rationale_f1",
        ),
        pytest.param(lambda: cq_reference_match(QUESTIONS * 2, REFS * 2, matcher=exact), id="cq"),
        pytest.param(
            lambda: argument_answer_coherence(
                ["A is fast [1]. B [2].", "None.", "A [1]."],
                [["A is faster.", "B is cheaper."], ["x"], ["B."]],
                judge=first_word,
            ),
            id="aac",
        ),
    ],
)
def test_per_item_values_average_to_the_figure(result):
    result = result()
    assert result["per_item"]
    for key, values in result["per_item"].items():
        assert len(values) == len(next(iter(result["per_item"].values())))
        figure, mean = result[key], _mean(values)
        assert (math.isnan(figure) and math.isnan(mean)) or mean == pytest.approx(figure, abs=1e-12)


def test_skipped_items_are_none_in_per_item():
    result = argument_relevance(ANSWERS, LABELS, semantics="notebook")
    assert result["per_item"]["f1"][1] is None  # cites nothing: the notebook skips it
    assert argument_relevance(ANSWERS, LABELS)["per_item"]["f1"][1] == 0.0
    assert argument_overlap(["a"], [[]])["per_item"]["jaccard_text"] == [None]
