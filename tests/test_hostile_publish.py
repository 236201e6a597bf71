"""publish, tried as a hostile Hub and a careless user would, against the strict test Hub
(tests/hub_server.py) with the real huggingface_hub client: a tag request answered 200 that
makes no tag, a repo that holds another corpus, a repo id the Hub refuses. Each case has a
control that succeeds."""

from __future__ import annotations

import pytest

from argbench.cli import exit_status, main
from argbench.cli.exits import exit_for
from argbench.publish import PublishError, publish
from tests.hub_helpers import Hub
from tests.test_hub_protocol import CQ, assert_only_known_endpoints
from tests.test_loaders_cam_webis import cam_mirror

# every test here publishes to tests/hub_server.py, a server process on a free port
pytestmark = pytest.mark.real_server


def tags_of(api, repo_id):
    refs = api.list_repo_refs(repo_id, repo_type="dataset")
    return {ref.name: ref.target_commit for ref in refs.tags}


def files_at(api, repo_id, revision):
    return set(api.list_repo_files(repo_id, repo_type="dataset", revision=revision))


def test_a_tag_the_hub_did_not_make_is_not_published(hub: Hub, fixture_mirror, cache_dir):
    """Old: the Hub answered the tag request 200 but made no tag; publish said "tagged v2.0.0
    ... published" (the dataset then 404s at that revision). New: the tag is read back; a
    PublishError says it is not published. Control: the rerun tags and reads it back."""
    mirror = fixture_mirror("cqs_gen")
    api = hub.api()
    hub.fault(r"^POST /api/datasets/org/cqs-gen/tag/", "pretend", body={"name": f"v{CQ}"})
    with pytest.raises(PublishError, match=rf"accepted the tag request for v{CQ} but, read back, "
                       "no such tag"):  # fmt: skip
        publish("cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir, api=api)
    assert tags_of(api, "org/cqs-gen") == {}
    plan = publish("cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir, api=api)
    assert tags_of(api, "org/cqs-gen") == {f"v{CQ}": plan["commit"]}
    assert {f["path"] for f in plan["files"]} <= files_at(api, "org/cqs-gen", f"v{CQ}")
    assert_only_known_endpoints(hub)


def test_the_cli_does_not_say_published_when_the_tag_is_missing(hub: Hub):
    """The same through the command line (a metric's Space): exit 1, no "published" line."""
    hub.fault(r"^POST /api/spaces/org/cr_diversity/tag/", "pretend")
    argv = ["publish", "--metric", "cr_diversity", "--repo-id", "org/cr_diversity"]
    done = hub.cli(*argv)
    assert done.returncode == exit_for("publish", "tag") and "read back, no such tag" in done.stderr
    assert "published cr_diversity" not in done.stdout
    done = hub.cli(*argv)
    assert done.returncode == 0 and "published cr_diversity" in done.stdout, done.stderr
    assert "(read back from the Hub)" in done.stdout


def test_a_repo_holding_another_corpus_is_refused_or_cleaned_on_request(
    hub: Hub,
    fixture_mirror,
    cache_dir,
    tmp_path,
):
    """Old: publishing cam_relevance into the repo of cqs_gen left cqs_gen's eval.yaml (and
    card data) behind: the repo claimed a benchmark it no longer held. New: refused, nothing
    uploaded; ``replace_other_corpus`` deletes every file not in the new build. Control: the
    first corpus into the empty repo."""
    api = hub.api()
    first = publish(
        "cqs_gen", "org/x", sources=fixture_mirror("cqs_gen"), cache_dir=cache_dir, api=api
    )
    assert "eval.yaml" in files_at(api, "org/x", first["tag"])
    mirror = cam_mirror(fixture_mirror, tmp_path)
    head = api.dataset_info("org/x").sha
    with pytest.raises(
        PublishError, match=r"org/x already holds corpus .*--replace-other-corpus"
    ) as refused:
        publish("cam_relevance", "org/x", sources=mirror, cache_dir=cache_dir, api=api)
    assert exit_status(refused.value) == exit_for("publish", "other-corpus")
    assert api.dataset_info("org/x").sha == head  # nothing was committed
    plan = publish(
        "cam_relevance",
        "org/x",
        sources=mirror,
        cache_dir=cache_dir,
        api=api,
        replace_other_corpus=True,
    )
    held = files_at(api, "org/x", plan["tag"])
    assert held == {f["path"] for f in plan["files"]} | {".gitattributes"}
    assert "eval.yaml" not in held
    assert_only_known_endpoints(hub)


@pytest.mark.parametrize("repo_id", ["org/bad--name", "org/a b", "org/x.git", "o/" + "n" * 100])
def test_a_repo_id_the_hub_refuses_is_refused_before_any_build(hub: Hub, repo_id, capsys):
    """Old: ``ORG/NAME`` with a character the Hub refuses passed the CLI's check and failed
    after the build. New: exit 2 before any build or request. Control: a valid id's dry run."""
    assert main(
        ["publish", "cqs_gen", "--repo-id", repo_id, "--sources", "/nonexistent"]
    ) == exit_for("publish", "repo-id")
    err = capsys.readouterr().err
    assert "--repo-id: repo id" in err and "Traceback" not in err
    assert hub.calls()["calls"] == []
    with pytest.raises(ValueError, match="the Hub refuses this name|expected ORG/NAME"):
        publish("cqs_gen", repo_id, api=hub.api())
    assert hub.calls()["calls"] == []
