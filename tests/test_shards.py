"""Sharded runs (``argbench evaluate ... --shard I/N``) merged by ``argbench merge``: N shards
give the document one process gives (CQs-Gen STS, ClaimDiff AUROC, CAM AR F1, with
bootstrap intervals), for N in 1, 2, 3, 7, on the real corpora; a missing shard makes a
partial merge marked as such; overlapping shards, fragments of another signature, split or
run, and fragments read as results files are refused, naming the files."""

from __future__ import annotations

import hashlib
import json

import pytest

import argbench
from argbench import hub_eval
from argbench.cli.exits import exit_for
from argbench.results import (
    FragmentError,
    ResultsFileError,
    Shard,
    headline_figure,
    merge_fragments,
    read_fragment,
    read_results,
    same_result,
    shard_of,
    write_fragment,
    write_results,
)
from argbench.results.evaluate import shard_split_records

from .helpers import cli, write

COUNTS = (1, 2, 3, 7)


def _unit(text: str) -> float:
    """A fixed pseudo-random number in [0, 1) for a text (no RNG state between tests)."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") / 2**32


def sharded(metric, predictions, dataset, config, split, count, tmp_path, **options) -> list:
    """The fragments of a run split ``count`` ways, written and read back as files."""
    return shards_of(
        lambda shard: argbench.evaluate_predictions(
            metric, predictions, dataset, config, split, shard=shard, **options
        ),
        count,
        tmp_path,
        metric,
    )


def shards_of(fragment_of, count, tmp_path, name) -> list:
    """``fragment_of("I/N")`` for each shard of ``count``, written as files; their paths."""
    paths = []
    for index in range(count):
        path = tmp_path / f"{name}-{index}-of-{count}.json"
        write_fragment(fragment_of(f"{index}/{count}"), path)
        paths.append(path)
    return paths


def assert_merges_to_one_run(metric, predictions, dataset, config, split, tmp_path, **options):
    whole = argbench.evaluate_predictions(metric, predictions, dataset, config, split, **options)
    write_results(whole, tmp_path / "whole.json")
    return assert_shards_merge_to(
        read_results(tmp_path / "whole.json"),
        lambda count: sharded(
            metric, predictions, dataset, config, split, count, tmp_path, **options
        ),
        tmp_path,
    )


def assert_shards_merge_to(whole, shards, tmp_path, counts=COUNTS) -> dict:
    """For each N in ``counts``, the ``shards(N)`` fragments merge to the document ``whole``
    (read back from its file) and, N > 1, the shards' own figures are not the run's."""
    for count in counts:
        paths = shards(count)
        fragments = [read_fragment(p) for p in paths]
        assert sorted(i for f in fragments for i in f["item_ids"]) == sorted(whole["item_ids"])
        merged = merge_fragments(paths[::-1])  # any order of the fragments
        out = tmp_path / f"merged-{count}.json"
        write_results(merged, out)
        assert same_result(whole, read_results(out)), f"{count} shards differ from one run"
        if count > 1:  # the shards' own figures are not the run's: the merge recomputes
            own = [f["result"] for f in fragments if f["result"]]
            assert any(r != whole["result"] for r in own)
    return whole


# ---- the real corpora: N shards = one process ----


def test_claimdiff_auroc_of_shards_is_the_one_run(real_corpora, tmp_path):
    where = {"sources": str(real_corpora.mirror), "cache_dir": real_corpora.cache}
    test = real_corpora.load("claimdiff", "S", "test")
    predictions = [
        {"pair_id": r["pair_id"], "score": 0.35 * r["label"] + 0.65 * _unit(r["pair_id"])}
        for r in test
    ]
    whole = assert_merges_to_one_run(
        "claim_relation",
        predictions,
        "claimdiff",
        "S",
        "test",
        tmp_path,
        options={"threshold": 0.5},
        **where,
    )
    assert whole["n_items"] == 1084 and 0.6 < whole["result"]["auroc"] < 1


def test_cam_ar_f1_with_intervals_of_shards_is_the_one_run(real_corpora, tmp_path):
    where = {"sources": str(real_corpora.mirror), "cache_dir": real_corpora.cache}
    silver = real_corpora.load("cam_answers", "silver", "train")
    predictions = [
        {"question_id": r["question_id"], "answer_index": r["answer_index"], "answer": r["answer"]}
        for r in silver
    ]
    whole = assert_merges_to_one_run(
        "argument_relevance",
        predictions,
        "cam_answers",
        "silver",
        "train",
        tmp_path,
        ci=True,
        resamples=500,
        **where,
    )
    assert whole["n_items"] == 336 and whole["result"]["ci"]["f1"]["low"] < whole["result"]["f1"]


@pytest.mark.slow
def test_cqs_gen_sts_of_shards_is_the_one_run(real_corpora, tmp_path, minilm):
    where = {"sources": str(real_corpora.mirror), "cache_dir": real_corpora.cache}
    validation = real_corpora.load("cqs_gen", "interventions", "validation")
    predictions = [  # three of its references, reworded: some match, some do not
        {
            "intervention_id": r["intervention_id"],
            "cqs": [f"So {ref['cq'][0].lower()}{ref['cq'][1:]}" for ref in r["references"][:3]],
        }
        for r in validation
    ]
    whole = assert_merges_to_one_run(
        "cq_reference_match",
        predictions,
        "cqs_gen",
        "interventions",
        "validation",
        tmp_path,
        options={"model": minilm, "threshold": 0.6},
        ci=True,
        resamples=500,
        **where,
    )
    assert whole["n_items"] == 186 and 0 < whole["result"]["score"] < 1


# ---- the fixtures: what a merge refuses or marks ----


@pytest.fixture
def cam(fixture_mirror, cache_dir):
    """cam_answers silver from the fixture files (9 answers): predictions and where."""
    where = {"sources": str(fixture_mirror("cam_answers")), "cache_dir": cache_dir}
    rows = argbench.load_dataset("cam_answers", "silver", "train", **where)
    predictions = [
        {"question_id": r["question_id"], "answer_index": r["answer_index"], "answer": r["answer"]}
        for r in rows
    ]
    return predictions, where


def cam_fragments(cam, tmp_path, count=3, name="s", **options) -> list:
    predictions, where = cam
    (tmp_path / name).mkdir()
    return sharded(
        "argument_relevance",
        predictions,
        "cam_answers",
        "silver",
        "train",
        count,
        tmp_path / name,
        **where,
        **options,
    )


def test_shard_of_is_stable_and_partitions():
    # pinned: the same ids land in the same shards on every machine and release
    assert [shard_of(f"q{i}", 7) for i in range(8)] == [4, 4, 4, 5, 1, 0, 0, 3]
    expected = int(hashlib.sha256(b"pair-1_rev").hexdigest()[:16], 16) % 3
    assert shard_of("pair-1_rev", 3) == expected
    ids = [f"item-{i}" for i in range(1000)]
    counts = [sum(Shard(i, 4).owns(x) for x in ids) for i in range(4)]
    assert sum(counts) == 1000 and min(counts) > 200
    for bad in ("3/3", "-1/2", "1", "a/b", "0/0"):
        with pytest.raises(ValueError, match="I/N|0 <= I < N"):
            Shard.parse(bad)


def test_seven_shards_of_nine_items_some_empty_still_merge(cam, tmp_path):
    predictions, where = cam
    whole = argbench.evaluate_predictions(
        "argument_relevance", predictions, "cam_answers", "silver", "train", **where
    )
    paths = cam_fragments(cam, tmp_path, count=7)
    empty = [p for p in paths if not read_fragment(p)["item_ids"]]
    assert empty  # 9 items in 7 shards: some hold none, and say so without a signature
    assert read_fragment(empty[0])["signature"] is None
    assert same_result(whole, merge_fragments(paths))


def test_missing_shard_is_a_partial_merge_marked_incomplete(cam, tmp_path):
    paths = cam_fragments(cam, tmp_path, count=3)
    held = [p for p in paths if read_fragment(p)["item_ids"]]
    notes = []
    doc = merge_fragments(held[1:], note=notes.append)
    absent = read_fragment(held[0])["shard"]["index"]
    assert doc["complete"] is False and doc["shards"]["missing"] == [absent]
    assert any("missing" in n for n in notes)
    write_results(doc, tmp_path / "partial.json")
    figure = headline_figure(read_results(tmp_path / "partial.json"))
    assert figure["partial"] and not figure["complete"]
    with pytest.raises(ValueError, match=f"a merge without shards {absent}/3"):
        hub_eval.eval_results_entry(read_results(tmp_path / "partial.json"))
    # control: all shards, no mark
    full = merge_fragments(paths)
    assert "complete" not in full and "shards" not in full


def test_one_shard_twice_and_overlapping_items_are_refused(cam, tmp_path):
    paths = cam_fragments(cam, tmp_path, count=3)
    with pytest.raises(FragmentError, match="are both shard"):
        merge_fragments([paths[0], paths[1], paths[0]])
    # a fragment that claims another shard's item (written whole, as a wrong hash would)
    donor, taker = (read_fragment(p) for p in paths[:2])
    assert donor["item_ids"] and taker["item_ids"]
    for field in ("item_ids", "positions", "records"):
        taker[field] = taker[field] + donor[field][:1]
    write_fragment(taker, tmp_path / "overlap.json")
    with pytest.raises(FragmentError, match="both hold item"):
        merge_fragments([paths[0], tmp_path / "overlap.json", paths[2]])


def test_fragments_of_another_signature_or_run_are_refused(cam, tmp_path):
    paths = cam_fragments(cam, tmp_path, count=2)
    other = cam_fragments(cam, tmp_path, count=2, name="t", options={"relevance_threshold": 3})
    with pytest.raises(FragmentError, match="another run"):
        merge_fragments([paths[0], other[1]])
    mixed = cam_fragments(cam, tmp_path, count=3, name="u")
    with pytest.raises(FragmentError, match="different numbers of shards"):
        merge_fragments([paths[0], mixed[1]])
    # the signature alone differs (the run digest agreeing): still refused
    doc = read_fragment(other[1])
    doc["run"] = read_fragment(paths[1])["run"]
    write_fragment(doc, tmp_path / "resigned.json")
    with pytest.raises(FragmentError, match="signature"):
        merge_fragments([paths[0], tmp_path / "resigned.json"])


def test_a_fragment_is_not_a_results_file_and_the_reverse(cam, tmp_path):
    predictions, where = cam
    paths = cam_fragments(cam, tmp_path, count=2)
    with pytest.raises(ResultsFileError, match="argbench merge"):
        read_results(paths[0])
    whole = argbench.evaluate_predictions(
        "argument_relevance", predictions, "cam_answers", "silver", "train", **where
    )
    write_results(whole, tmp_path / "whole.json")
    with pytest.raises(FragmentError, match="results file of a whole run"):
        merge_fragments([tmp_path / "whole.json"])
    edited = json.loads(paths[1].read_text())
    edited["records"] = edited["records"][::-1]
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    with pytest.raises(FragmentError, match="digest"):
        merge_fragments([paths[0], tmp_path / "edited.json"])


def test_cli_shards_merge_into_the_file_of_one_run(cam, tmp_path, capsys):
    predictions, where = cam
    path = write(tmp_path / "mine.jsonl", predictions)
    common = ["--dataset", "cam_answers", "--config", "silver", "--sources", where["sources"]]
    common += ["--cache-dir", where["cache_dir"], "--ci", "--resamples", "300"]
    code, _, err = cli(
        capsys, "evaluate", "argument_relevance", path, *common, "--out", str(tmp_path / "w.json")
    )
    assert code == 0, err
    parts = []
    for index in range(3):
        part = str(tmp_path / f"part-{index}.json")
        code, out, err = cli(
            capsys,
            "evaluate",
            "argument_relevance",
            path,
            *common,
            "--shard",
            f"{index}/3",
            "--out",
            part,
        )
        assert code == 0, err
        assert f"shard {index}/3" in out and "fragment written" in err
        parts.append(part)
    code, out, err = cli(capsys, "merge", *parts, "--out", str(tmp_path / "m.json"))
    assert code == 0, err
    assert "9 items merged from 3 fragment(s)" in out
    whole, merged = read_results(tmp_path / "w.json"), read_results(tmp_path / "m.json")
    assert same_result(whole, merged) and merged["command"].startswith("argbench merge ")
    # refusals exit 2 and name the files; a partial merge exits 0 with a warning
    code, _, err = cli(capsys, "merge", parts[0], parts[0], "--out", str(tmp_path / "x.json"))
    assert code == exit_for("merge", "fragments") == 2 and "both shard 0/3" in err
    code, _, err = cli(capsys, "merge", parts[1], parts[2], "--out", str(tmp_path / "p.json"))
    assert code == 0 and "0/3 missing" in err
    assert read_results(tmp_path / "p.json")["complete"] is False
    code, _, err = cli(
        capsys, "evaluate", "argument_relevance", path, *common, "--shard", "3/3", "--out", "y"
    )
    assert code == 2 and "0 <= I < N" in err
    code, _, err = cli(capsys, "evaluate", "argument_relevance", path, "--shard", "0/2")
    assert code == 2 and "--shard goes with --dataset and --out" in err


def test_judged_shards_merge_from_the_reply_cache_without_asking_again(
    fixture_mirror, cache_dir, tmp_path, monkeypatch
):
    """A judge-backed metric scores again at the merge: its replies come from the reply cache
    the shards filled (here one folder, as on a shared disk), so nothing is judged twice and
    the judge need not be up. A fragment records no API key, and the shards may each reach
    their own server (the run digest leaves the address out)."""
    from .openai_stub import StubServer

    where = {"sources": str(fixture_mirror("cqs_gen")), "cache_dir": cache_dir}
    rows = argbench.load_dataset("cqs_gen", "interventions", "validation", **where)
    predictions = [
        {"intervention_id": r["intervention_id"], "cqs": ["Why?", "Who says so?"]} for r in rows
    ]
    monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "from-the-environment")
    answer = lambda request, number: (200, "0", 0, None)  # noqa: E731
    with StubServer(answer) as one, StubServer(answer) as other:
        judge = {"model": "stub", "model_id": "stub-judge", "api_key": "secret-key"}
        paths = []
        for index, server in enumerate((one, other)):
            options = {"matcher": "llm", "llm": {**judge, "base_url": server.base_url}}
            fragment = argbench.evaluate_predictions(
                "cq_reference_match",
                predictions,
                "cqs_gen",
                "interventions",
                "validation",
                options=options,
                shard=f"{index}/2",
                **where,
            )
            paths.append(write_fragment(fragment, tmp_path / f"judged-{index}.json"))
            assert "secret-key" not in paths[-1].read_text()
        asked = len(one.requests) + len(other.requests)
        assert asked == 2 * len(rows)  # every question judged once, by its shard's server
    merged = merge_fragments(paths)  # both servers are down now
    assert merged["n_items"] == len(rows) and merged["result"]["label_counts"]["Useful"] > 0
    with StubServer(answer) as again:
        whole = argbench.evaluate_predictions(
            "cq_reference_match",
            predictions,
            "cqs_gen",
            "interventions",
            "validation",
            options={"matcher": "llm", "llm": {**judge, "base_url": again.base_url}},
            **where,
        )
        assert not again.requests  # the one-process run is served by the same cache
    assert same_result(whole, merged)


# ---- a split's own records (argbench evaluate METRIC --dataset D, no FILE) ----


def records_run(capsys, tmp_path, metric, *argv) -> dict:
    """``argbench evaluate METRIC --dataset ... --out`` in one process: the document."""
    out = tmp_path / f"{metric}-whole.json"
    code, _, err = cli(capsys, "evaluate", metric, *argv, "--out", out)
    assert code == 0, err
    return read_results(out)


def records_shards(tmp_path, metric, dataset, config, where, **options):
    """``shards(N)`` for :func:`assert_shards_merge_to`: the records route's fragments."""

    def shards(count):
        return shards_of(
            lambda shard: shard_split_records(
                metric, dataset, config, shard=shard, **where, **options
            ),
            count,
            tmp_path,
            f"{metric}-records",
        )

    return shards


def test_webis_bradley_terry_of_shards_is_the_one_run(real_corpora, tmp_path, capsys):
    """41,856 Webis-ArgQuality-20 judgments, 60 topic × dimension fits: N shards of the
    judgments (by row id) refitted at the merge give the one-process fits exactly."""
    where = {"sources": str(real_corpora.mirror), "cache_dir": real_corpora.cache}
    whole = records_run(
        capsys,
        tmp_path,
        "bradley_terry",
        "--dataset",
        "webis_argquality20",
        "--config",
        "pairwise",
        *("--sources", where["sources"], "--cache-dir", where["cache_dir"]),
    )
    assert_shards_merge_to(
        whole,
        records_shards(tmp_path, "bradley_terry", "webis_argquality20", "pairwise", where),
        tmp_path,
    )
    result = whole["result"]
    assert whole["n_items"] == result["n_judgments"] == 41856
    assert result["n_groups"] == 60 and result["converged"]


@pytest.fixture
def webis(fixture_mirror, cache_dir):
    """webis_argquality20 pairwise from the fixture files (9 judgments, 6 groups)."""
    where = {"sources": str(fixture_mirror("webis_argquality20")), "cache_dir": cache_dir}
    flags = ["--dataset", "webis_argquality20", "--config", "pairwise"]
    return where, flags + ["--sources", where["sources"], "--cache-dir", where["cache_dir"]]


def test_bradley_terry_of_shards_is_the_one_run_on_the_fixture(webis, tmp_path, capsys):
    where, flags = webis
    whole = records_run(capsys, tmp_path, "bradley_terry", *flags)
    assert whole["n_items"] == 9 and whole["result"]["n_groups"] == 6
    shards = records_shards(tmp_path, "bradley_terry", "webis_argquality20", "pairwise", where)
    assert_shards_merge_to(whole, shards, tmp_path)


def test_cli_records_shards_merge_refuse_and_mark(webis, tmp_path, capsys):
    """The command line's records route: shards merged = the one-process file; a missing
    shard is marked; one shard twice, another option and a predictions-route fragment are
    refused (exit 2, naming the files)."""
    where, flags = webis
    whole = records_run(capsys, tmp_path, "bradley_terry", *flags)
    parts = []
    for index in range(3):
        part = tmp_path / f"bt-{index}.json"
        code, out, err = cli(
            capsys, "evaluate", "bradley_terry", *flags, "--shard", f"{index}/3", "--out", part
        )
        assert code == 0 and f"shard {index}/3 of webis_argquality20/pairwise/train" in out, err
        parts.append(part)
    code, out, err = cli(capsys, "merge", *parts, "--out", tmp_path / "m.json")
    assert code == 0 and "9 items merged from 3 fragment(s)" in out, err
    assert same_result(whole, read_results(tmp_path / "m.json"))
    # a missing shard: marked, not refused
    held = [p for p in parts if read_fragment(p)["item_ids"]]
    code, _, err = cli(capsys, "merge", *held[1:], "--out", tmp_path / "p.json")
    assert code == 0 and "missing" in err
    assert read_results(tmp_path / "p.json")["complete"] is False
    # one shard twice; a shard of another option (λ)
    code, _, err = cli(capsys, "merge", parts[0], parts[0], "--out", tmp_path / "x.json")
    assert code == 2 and "both shard 0/3" in err
    other = tmp_path / "other.json"
    code, _, err = cli(
        capsys,
        "evaluate",
        "bradley_terry",
        *flags,
        "--option",
        "regularization=0.5",
        "--shard",
        "1/3",
        "--out",
        other,
    )
    assert code == 0, err
    code, _, err = cli(capsys, "merge", parts[0], other, parts[2], "--out", tmp_path / "y.json")
    assert code == 2 and "another run" in err and str(other) in err
    # --shard needs --dataset and --out
    code, _, err = cli(capsys, "evaluate", "bradley_terry", "--shard", "0/2")
    assert code == 2 and "--shard goes with --dataset and --out" in err
    code, _, err = cli(
        capsys,
        "evaluate",
        "bradley_terry",
        *flags,
        "--references",
        "r.json",
        "--shard",
        "0/2",
        "--out",
        tmp_path / "z.json",
    )
    assert code == 2 and "--shard takes no --references" in err


def test_judged_records_route_shards_merge_from_the_reply_cache(
    fixture_mirror, cache_dir, tmp_path, capsys, monkeypatch
):
    """AAC on cam_answers' own answers with an LLM judge and bootstrap intervals: two shards,
    each on its own stub server; the merge (both servers down) equals the one-process file.
    The API key given in --option is in no file (not in the recorded command either)."""
    from .openai_stub import StubServer

    monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "from-the-environment")  # the merge's
    where = {"sources": str(fixture_mirror("cam_answers")), "cache_dir": cache_dir}
    flags = ["--dataset", "cam_answers", "--config", "silver", "--ci", "--resamples", "300"]
    flags += ["--sources", where["sources"], "--cache-dir", where["cache_dir"]]

    def answer(request, number):  # a fixed verdict per prompt
        return 200, str(int(_unit(json.dumps(request, sort_keys=True)) < 0.5)), 0, None

    judge = {"model": "stub", "model_id": "stub-judge", "api_key": "secret-key"}
    with StubServer(answer) as one, StubServer(answer) as other:
        parts = []
        for index, server in enumerate((one, other)):
            llm = json.dumps({**judge, "base_url": server.base_url})
            part = tmp_path / f"aac-{index}.json"
            code, _, err = cli(
                capsys,
                "evaluate",
                "argument_answer_coherence",
                *flags,
                "--option",
                f"llm={llm}",
                "--shard",
                f"{index}/2",
                "--out",
                part,
            )
            assert code == 0, err
            assert "secret-key" not in part.read_text()
            parts.append(part)
        asked = len(one.requests) + len(other.requests)
        assert asked > 0 and one.requests and other.requests
    merged = merge_fragments(parts)  # both servers are down now
    with StubServer(answer) as again:
        llm = json.dumps({**judge, "base_url": again.base_url})
        whole = records_run(
            capsys, tmp_path, "argument_answer_coherence", *flags, "--option", f"llm={llm}"
        )
        assert not again.requests  # served by the shards' reply cache
    assert merged["n_items"] == 9 and "ci" in merged["result"]
    assert same_result(whole, merged)
    assert "secret-key" not in json.dumps(whole) and "<hidden>" in whole["command"]
    assert all(read_fragment(p)["result"] != whole["result"] for p in parts)


def test_records_that_become_several_examples_are_refused_as_by_one_run(
    fixture_mirror, cache_dir, tmp_path, capsys
):
    """cqs_gen's references as cr_diversity's predictions: a list per record. One process
    with --out refuses it (a results file has one id per item); so does a shard (before: a
    fragment of 4,136 examples under 186 ids)."""
    where = ["--sources", str(fixture_mirror("cqs_gen")), "--cache-dir", cache_dir]
    flags = ["--dataset", "cqs_gen", "--config", "interventions", "--split", "validation"]
    flags += [*where, "--column", "predictions=references.cq"]
    code, _, err = cli(capsys, "evaluate", "cr_diversity", *flags, "--out", tmp_path / "w.json")
    assert code == 2 and "a results file needs one id per scored item" in err
    part = tmp_path / "part.json"
    code, _, err = cli(capsys, "evaluate", "cr_diversity", *flags, "--shard", "0/2", "--out", part)
    assert code == 2 and "a fragment needs one id per scored item" in err
    assert not part.exists()
    # control: one value per record (the interventions' text) is sharded
    flags[-1] = "predictions=intervention"
    code, _, err = cli(capsys, "evaluate", "cr_diversity", *flags, "--shard", "0/2", "--out", part)
    assert code == 0 and part.exists(), err


@pytest.mark.parametrize("name", ["a\u202eb", "a\u200bb"], ids=repr)
def test_a_records_shard_checks_its_system_name_before_the_work(webis, tmp_path, name):
    """Old: ``shard_split_records(system=...)`` took any name; a bidi or zero-width
    character was refused only when a results file was written from the merge. New: refused
    before the split is loaded (its cache folder stays absent), with check_name's message.
    Control: a plain name makes the fragment under that name."""
    where, _ = webis
    fresh = tmp_path / "fresh-cache"
    sources = where["sources"]
    with pytest.raises(ValueError, match=rf"U\+{ord(name[1]):04X}"):
        shard_split_records(
            "bradley_terry", "webis_argquality20", "pairwise", shard="0/2", system=name,
            sources=sources, cache_dir=str(fresh),
        )  # fmt: skip
    assert not fresh.exists()
    part = shard_split_records(
        "bradley_terry", "webis_argquality20", "pairwise", shard="0/2", system="mine", **where
    )
    assert part["system"] == "mine"
