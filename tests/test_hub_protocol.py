"""publish -> load from the Hub, end to end, against tests/hub_server.py with the real clients.

Every dataset and config is published (fixtures) and loaded back with
``datasets.load_dataset("org/x", config, revision="v1.0.0")`` in a fresh interpreter; rows,
features, version and citation must equal the local build. The server fails loudly on any
endpoint it does not implement, so each test also asserts that no unknown endpoint was called.
"""

from __future__ import annotations

import json
import os
import time
import urllib.request

import pytest
from datasets import Version

import argbench
from argbench.load import config_names
from argbench.publish import PublishError, publish
from tests.conftest import FIXTURE_FILES, FIXTURES
from tests.hub_helpers import Hub, evaluate_only_venv, load_from_hub, snapshot
from tests.hub_server import endpoint_names
from tests.test_loaders_cam_webis import cam_mirror
from tests.test_ukpconvarg1 import FILES as UKP_FILES

# every test here publishes to tests/hub_server.py, a server process on a free port
pytestmark = pytest.mark.real_server


def version(name: str) -> str:
    """The loader's version (tags are v<version>): tests follow version bumps."""
    from argbench.loaders import builder_class

    return str(builder_class(name).VERSION)


CQ = version("cqs_gen")
NEXT = f"{int(CQ.split('.')[0]) + 1}.0.0"  # a newer cqs_gen version


def assert_only_known_endpoints(hub: Hub):
    calls = hub.calls()
    assert calls["unknown"] == [], "a client called an endpoint hub_server does not know"
    if os.environ.get("ARGBENCH_HUB_CALLS_LOG"):  # which endpoints the clients used (docs/hub.md)
        with open(os.environ["ARGBENCH_HUB_CALLS_LOG"], "a") as log:
            log.writelines(f"{name}\n" for name in endpoint_names(calls["calls"]))


def mirror_for(name, fixture_mirror, tmp_path, monkeypatch):
    from argbench.loaders import builder_class

    if name == "cam_relevance":
        return cam_mirror(fixture_mirror, tmp_path)
    if name == "ukpconvarg1":
        root = fixture_mirror(name, files=UKP_FILES)
        cls = builder_class(name)
        monkeypatch.setattr(cls, "SOURCES", {key: cls.SOURCES[key] for key in UKP_FILES})
        return root
    assert name in FIXTURE_FILES
    return fixture_mirror(name)


def local(name, mirror, cache_dir) -> dict:
    return {
        config: {
            split: snapshot(data)
            for split, data in argbench.load_dataset(
                name, config, sources=mirror, cache_dir=cache_dir
            ).items()
        }
        for config in config_names(name)
    }


@pytest.mark.parametrize("name", argbench.list_datasets())
def test_published_dataset_loads_back_the_same(
    name, hub, fixture_mirror, cache_dir, tmp_path, monkeypatch
):
    mirror = mirror_for(name, fixture_mirror, tmp_path, monkeypatch)
    repo = f"org/{name.replace('_', '-')}"
    plan = publish(name, repo, sources=mirror, cache_dir=cache_dir, api=hub.api())
    assert plan["tag"] == f"v{version(name)}"
    loaded = load_from_hub(hub, repo, config_names(name), plan["tag"])
    expected = local(name, mirror, cache_dir)
    assert set(loaded) == set(expected)
    for config, splits in expected.items():
        assert set(loaded[config]) == set(splits), config
        for split, want in splits.items():
            got = loaded[config][split]
            assert got["features"] == want["features"], (config, split)
            assert got["rows"] == want["rows"], (config, split)
            assert got["version"] == want["version"] == version(name)
            assert got["citation"] == want["citation"] and want["citation"]
    assert_only_known_endpoints(hub)


def test_republishing_a_version_is_refused_and_a_new_version_gets_its_own_tag(
    hub, fixture_mirror, cache_dir, tmp_path, monkeypatch
):
    from argbench.loaders import builder_class

    mirror = fixture_mirror("cqs_gen")
    api = hub.api()
    first = publish("cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir, api=api)
    with pytest.raises(RuntimeError, match=f"already has tag v{CQ}"):
        publish("cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir, api=api)
    # a changed corpus under a new version: the fixture with one intervention less
    validation = json.loads((FIXTURES / "cqs_gen" / "validation.json").read_text())
    dropped = sorted(validation)[0]
    smaller = tmp_path / "validation.json"
    smaller.write_text(json.dumps({k: v for k, v in validation.items() if k != dropped}))
    mirror = fixture_mirror("cqs_gen", overrides={"validation": smaller})
    cls = builder_class("cqs_gen")
    for holder in (cls, *cls.BUILDER_CONFIGS):  # a loader bumps VERSION, its configs carry it
        monkeypatch.setattr(holder, "VERSION" if holder is cls else "version", Version(NEXT))
    second = publish("cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir + "-2", api=api)
    assert (first["tag"], second["tag"]) == (f"v{CQ}", f"v{NEXT}")
    assert first["commit"] != second["commit"]
    refs = api.list_repo_refs("org/cqs-gen", repo_type="dataset")
    tags = {ref.name: ref.target_commit for ref in refs.tags}
    assert tags == {f"v{CQ}": first["commit"], f"v{NEXT}": second["commit"]}
    old = load_from_hub(hub, "org/cqs-gen", ["interventions"], f"v{CQ}")["interventions"]
    new = load_from_hub(hub, "org/cqs-gen", ["interventions"], f"v{NEXT}")["interventions"]
    ids = {r["intervention_id"] for r in old["validation"]["rows"]}
    assert ids - {r["intervention_id"] for r in new["validation"]["rows"]} == {dropped}
    assert (old["validation"]["version"], new["validation"]["version"]) == (CQ, NEXT)
    assert_only_known_endpoints(hub)


SPACE_CHECK = """
import json, sys
import evaluate
assert "argbench" not in sys.modules
module = evaluate.load("org/ar", revision="v{version}")
result = module.compute(predictions={predictions!r}, references={references!r})
print(json.dumps({{"result": result, "bundled": sys.modules["argbench"].__file__}}))
"""


def test_published_metric_space_loads_with_evaluate_where_argbench_is_not_installed(hub):
    """argbench publish --metric argument_relevance --repo-id org/ar -> evaluate.load("org/ar")
    in a venv that has evaluate and no argbench gives the local module's result (the Space's
    module takes the Space's name: evaluate fetches ar.py)."""
    python = evaluate_only_venv()
    missing = hub.run("import argbench", python=python, check=False)
    assert "No module named 'argbench'" in missing.stderr  # really a venv without argbench
    done = hub.cli("publish", "--metric", "argument_relevance", "--repo-id", "org/ar")
    assert done.returncode == 0, done.stderr
    predictions = ["A is faster [1, 2]. B is cheaper [generated].", "Both are fine [3]."]
    references = [[3, 0, 2], [1, 2, 3]]
    code = SPACE_CHECK.format(
        version=argbench.__version__, predictions=predictions, references=references
    )
    out = json.loads(hub.run(code, python=python).stdout.strip().splitlines()[-1])
    assert f"argbench-{argbench.__version__}.zip" in out["bundled"]
    local_result = argbench.load_metric("argument_relevance").compute(
        predictions=predictions, references=references
    )
    assert out["result"] == json.loads(json.dumps(local_result))
    files = hub.api().list_repo_files("org/ar", repo_type="space")
    assert sorted(files) == [
        ".gitattributes",
        "README.md",
        "_argbench_bundle.py",
        "app.py",
        "ar.py",
        "requirements.txt",
    ]
    assert_only_known_endpoints(hub)


def test_evaluate_on_a_hub_dataset_records_the_revision_and_commit(
    hub, fixture_mirror, cache_dir, tmp_path
):
    mirror = fixture_mirror("cam_answers")
    plan = publish(
        "cam_answers", "org/cam-answers", sources=mirror, cache_dir=cache_dir, api=hub.api()
    )
    rows = argbench.load_dataset(
        "cam_answers", "silver", split="train", sources=mirror, cache_dir=cache_dir
    )
    predictions = tmp_path / "mine.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({k: r[k] for k in ("question_id", "answer_index", "answer")}) + "\n"
            for r in rows
        )
    )
    out = tmp_path / "mine.results.json"
    done = hub.cli(
        "evaluate",
        "argument_relevance",
        predictions,
        "--dataset",
        f"org/cam-answers@v{version('cam_answers')}",
        "--config",
        "silver",
        "--out",
        out,
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    dataset = doc["dataset"]
    assert dataset["source"] == "hub:org/cam-answers" and dataset["name"] == "org/cam-answers"
    assert (dataset["revision"], dataset["commit"]) == (plan["tag"], plan["commit"])
    assert dataset["version"] == version("cam_answers")
    local = argbench.evaluate_predictions(
        "argument_relevance",
        str(predictions),
        "cam_answers",
        "silver",
        sources=mirror,
        cache_dir=cache_dir,
    )
    assert dataset["content_hash"] == local["dataset"]["content_hash"]
    assert doc["result"]["f1"] == local["result"]["f1"]
    assert_only_known_endpoints(hub)


@pytest.mark.mirror
def test_cli_publishes_the_real_cqs_gen_and_it_loads_back_the_same(hub, real_corpora):
    real_mirror, cache_dir = real_corpora.mirror, real_corpora.cache
    done = hub.cli(
        "publish",
        "cqs_gen",
        "--repo-id",
        "org/cqs-gen",
        "--sources",
        real_mirror,
        "--cache-dir",
        cache_dir,
    )
    assert done.returncode == 0, done.stderr
    assert f"tagged v{CQ}" in done.stdout + done.stderr
    loaded = load_from_hub(hub, "org/cqs-gen", config_names("cqs_gen"), f"v{CQ}")
    expected = local("cqs_gen", real_mirror, cache_dir)
    assert loaded == expected
    assert len(loaded["questions"]["validation"]["rows"]) == 4136
    assert_only_known_endpoints(hub)


# ---- faults: each gives a clear error, nothing half-published is tagged, a re-run completes


def tags_of(hub, repo_id):
    refs = hub.api().list_repo_refs(repo_id, repo_type="dataset")
    return {ref.name: ref.target_commit for ref in refs.tags}


@pytest.fixture
def real_or_fixture(fixture_mirror, cache_dir):
    """CLI runs in a subprocess, so the fixture mirror's patched checksums do not reach it: the
    fault tests publish through the function (same code path below the CLI)."""
    return fixture_mirror("cqs_gen")


def publish_fn(hub, mirror, cache_dir, **options):
    return publish(
        "cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir, api=hub.api(), **options
    )


@pytest.mark.parametrize("step", ["commit", "tag"])
def test_server_dying_mid_publish_leaves_no_tag_and_a_rerun_completes(
    hub, real_or_fixture, cache_dir, step
):
    hub.fault(rf"^POST /api/datasets/org/cqs-gen/{step}/", "die")
    with pytest.raises(
        PublishError, match=rf"v{CQ} was not tagged, so it is not published"
    ) as error:
        publish_fn(hub, real_or_fixture, cache_dir)
    assert ("upload" if step == "commit" else "(tag)") in str(error.value)
    assert hub.dead()
    hub.start()  # same state folder, a free port: the server comes back
    assert tags_of(hub, "org/cqs-gen") == {}
    plan = publish_fn(hub, real_or_fixture, cache_dir)
    assert tags_of(hub, "org/cqs-gen") == {f"v{CQ}": plan["commit"]}
    loaded = load_from_hub(hub, "org/cqs-gen", ["interventions"], f"v{CQ}")
    assert loaded == {
        "interventions": local("cqs_gen", real_or_fixture, cache_dir)["interventions"]
    }


def test_5xx_gives_a_clear_error_and_a_rerun_completes(hub, real_or_fixture, cache_dir):
    hub.outage(r"^POST /api/datasets/org/cqs-gen/preupload/", 503)
    with pytest.raises(
        PublishError, match=r"\(upload\): HTTP 503 from the Hub.*run the same command again"
    ):
        publish_fn(hub, real_or_fixture, cache_dir)
    assert tags_of(hub, "org/cqs-gen") == {}
    hub.clear()  # the Hub is back
    plan = publish_fn(hub, real_or_fixture, cache_dir)
    assert tags_of(hub, "org/cqs-gen") == {f"v{CQ}": plan["commit"]}


def test_401_names_the_token(hub, real_or_fixture, cache_dir):
    api = hub.api(token="hf_wrong")
    with pytest.raises(PublishError, match=r"refused the token \(HTTP 401\).*HF_TOKEN"):
        publish("cqs_gen", "org/cqs-gen", sources=real_or_fixture, cache_dir=cache_dir, api=api)
    assert hub.calls()["calls"] == ["GET /api/whoami-v2"]  # stopped before any build


def test_slow_hub_times_out_with_a_clear_error_and_a_rerun_completes(
    hub, real_or_fixture, cache_dir
):
    hub.fault(r"^POST /api/datasets/org/cqs-gen/commit/", "delay", seconds=6)
    with pytest.raises(
        PublishError, match=r"no answer from the Hub within 2s.*ARGBENCH_HUB_TIMEOUT"
    ):
        publish_fn(hub, real_or_fixture, cache_dir, timeout=2)
    time.sleep(5)  # the delayed commit lands; it is not tagged
    assert tags_of(hub, "org/cqs-gen") == {}
    plan = publish_fn(hub, real_or_fixture, cache_dir, timeout=60)
    assert tags_of(hub, "org/cqs-gen") == {f"v{CQ}": plan["commit"]}


def test_cli_reports_a_hub_failure_in_one_line_and_exits_1(hub, tmp_path):
    hub.outage(r"^POST /api/spaces/org/cr_diversity/commit/", 500)
    done = hub.cli("publish", "--metric", "cr_diversity", "--repo-id", "org/cr_diversity")
    hub.clear()  # the Hub is back
    assert done.returncode == 1
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("argbench publish: error: org/cr_diversity (upload): HTTP 500 from the Hub")
    )
    done = hub.cli("publish", "--metric", "cr_diversity", "--repo-id", "org/cr_diversity")
    assert done.returncode == 0, done.stderr


def test_eval_yaml_is_published_and_a_results_file_becomes_an_eval_results_entry(
    hub, fixture_mirror, cache_dir, tmp_path, minilm
):
    import yaml

    mirror = fixture_mirror("cqs_gen")
    plan = publish("cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir, api=hub.api())
    url = f"{hub.url}/datasets/org/cqs-gen/resolve/v{CQ}/eval.yaml"
    with urllib.request.urlopen(url, timeout=10) as reply:
        benchmark = yaml.safe_load(reply.read())
    assert benchmark["name"] == "CQs-Gen" and benchmark["evaluation_framework"] == "argbench"
    assert benchmark["tasks"] == [
        {"id": "cq_reference_match", "config": "interventions", "split": "test"},
        {"id": "cq_reference_match_validation", "config": "interventions", "split": "validation"},
    ]
    submission = tmp_path / "mine.json"
    rows = argbench.load_dataset(
        "cqs_gen", "interventions", split="validation", sources=mirror, cache_dir=cache_dir
    )
    submission.write_text(
        json.dumps(
            [
                {
                    "intervention_id": r["intervention_id"],
                    "cqs": [q["cq"] for q in r["references"][:3]],
                }
                for r in rows
            ]
        )
    )
    out = tmp_path / "mine.results.json"
    done = hub.cli(
        "evaluate",
        "cq_reference_match",
        submission,
        "--dataset",
        f"org/cqs-gen@v{CQ}",
        "--config",
        "interventions",
        "--split",
        "validation",
        "--model",
        minilm,
        "--out",
        out,
    )
    assert done.returncode == 0, done.stderr
    done = hub.cli("eval-results", out, "--out", tmp_path / ".eval_results")
    assert done.returncode == 0, done.stderr
    entry_file = tmp_path / ".eval_results" / "cq_reference_match_validation.yaml"
    (entry,) = yaml.safe_load(entry_file.read_text())
    doc = json.loads(out.read_text())
    assert entry["dataset"] == {
        "id": "org/cqs-gen",
        "task_id": "cq_reference_match_validation",
        "revision": plan["commit"],
    }
    assert entry["value"] == doc["result"]["score"]
    assert entry["notes"] == f"argbench {doc['signature']}" and entry["date"] == doc["created"][:10]
