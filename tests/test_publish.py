from types import SimpleNamespace

import pytest

from argbench.cli import main
from argbench.publish import publish


class StubApi:
    """Records the calls argbench makes; tags as the Hub would have them."""

    def __init__(self, tags=()):
        self.calls = []
        self.tags = list(tags)

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))

    def list_repo_refs(self, repo_id, **kwargs):
        self.calls.append(("list_repo_refs", repo_id, kwargs))
        return SimpleNamespace(tags=[SimpleNamespace(name=t) for t in self.tags])

    def upload_folder(self, **kwargs):
        self.calls.append(("upload_folder", kwargs))
        return SimpleNamespace(oid="abc123")

    def create_tag(self, repo_id, **kwargs):
        self.calls.append(("create_tag", repo_id, kwargs))


def test_publish_uploads_folder_and_tags_version(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("cqs_gen")
    api = StubApi()
    plan = publish(
        "cqs_gen", "org/cqs-gen", out_dir=tmp_path, sources=mirror, cache_dir=cache_dir, api=api
    )
    names = [call[0] for call in api.calls]
    assert names == ["create_repo", "list_repo_refs", "upload_folder", "create_tag"]
    assert api.calls[0][2] == {"repo_type": "dataset", "private": False, "exist_ok": True}
    upload = api.calls[2][1]
    assert upload["folder_path"] == str(tmp_path / "cqs_gen") and upload["repo_type"] == "dataset"
    assert api.calls[3][2]["tag"] == "v1.0.0" and api.calls[3][2]["revision"] == "abc123"
    assert plan["commit"] == "abc123"


def test_publish_refuses_an_existing_version(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("cqs_gen")
    api = StubApi(tags=["v1.0.0"])
    with pytest.raises(RuntimeError, match="already has tag v1.0.0"):
        publish(
            "cqs_gen", "org/cqs-gen", out_dir=tmp_path, sources=mirror, cache_dir=cache_dir, api=api
        )
    assert "upload_folder" not in [call[0] for call in api.calls]


def test_dry_run_lists_files_card_and_tag_without_network(
    fixture_mirror, cache_dir, tmp_path, capsys, monkeypatch
):
    mirror = fixture_mirror("cqs_gen")
    monkeypatch.setattr(
        "huggingface_hub.HfApi", lambda *a, **k: pytest.fail("dry run must not create an HfApi")
    )
    code = main(
        [
            "publish",
            "cqs_gen",
            "--repo-id",
            "org/cqs-gen",
            "--dry-run",
            "--out",
            str(tmp_path),
            "--sources",
            str(mirror),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "dry run: would publish cqs_gen to org/cqs-gen (public), tag v1.0.0" in out
    assert "README.md" in out and "data/questions/validation-00000-of-00001.parquet" in out
