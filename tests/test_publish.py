from types import SimpleNamespace

import pytest

import argbench
from argbench.cli import main
from argbench.metrics import metric_path
from argbench.publish import publish, publish_metric


class StubApi:
    """Records the calls argbench makes; tags as the Hub would have them."""

    def __init__(self, tags=()):
        self.calls = []
        self.tags = {t: "old" for t in tags}
        self.files = []

    def create_repo(self, repo_id, **kwargs):
        self.calls.append(("create_repo", repo_id, kwargs))

    def list_repo_refs(self, repo_id, **kwargs):
        self.calls.append(("list_repo_refs", repo_id, kwargs))
        tags = [SimpleNamespace(name=t, target_commit=c) for t, c in self.tags.items()]
        return SimpleNamespace(tags=tags)

    def dataset_info(self, repo_id, **kwargs):
        self.calls.append(("dataset_info", repo_id, kwargs))
        return SimpleNamespace(siblings=[], card_data=None)

    def upload_folder(self, **kwargs):
        from pathlib import Path

        self.calls.append(("upload_folder", kwargs))
        folder = Path(kwargs["folder_path"])
        self.files = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
        return SimpleNamespace(oid="abc123")

    def create_tag(self, repo_id, **kwargs):
        self.calls.append(("create_tag", repo_id, kwargs))
        self.tags[kwargs["tag"]] = kwargs["revision"]

    def list_repo_files(self, repo_id, **kwargs):
        self.calls.append(("list_repo_files", repo_id, kwargs))
        return list(self.files)


def test_publish_uploads_folder_and_tags_version(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("cqs_gen")
    api = StubApi()
    plan = publish(
        "cqs_gen", "org/cqs-gen", out_dir=tmp_path, sources=mirror, cache_dir=cache_dir, api=api
    )
    names = [call[0] for call in api.calls]
    assert names == [
        "create_repo",
        "list_repo_refs",
        "dataset_info",  # the repo holds no other corpus
        "upload_folder",
        "create_tag",
        "list_repo_refs",  # the tag read back
        "list_repo_files",
    ]
    assert api.calls[0][2] == {"repo_type": "dataset", "private": False, "exist_ok": True}
    upload = api.calls[3][1]
    assert upload["folder_path"] == str(tmp_path / "cqs_gen") and upload["repo_type"] == "dataset"
    assert api.calls[4][2]["tag"] == "v2.0.0" and api.calls[4][2]["revision"] == "abc123"
    assert plan["commit"] == "abc123"
    card = (tmp_path / "cqs_gen" / "README.md").read_text()
    assert 'load_dataset("org/cqs-gen", "interventions", revision="v2.0.0")' in card


def test_publish_refuses_an_existing_version(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("cqs_gen")
    api = StubApi(tags=["v2.0.0"])
    with pytest.raises(RuntimeError, match="already has tag v2.0.0"):
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
    assert "dry run: would publish cqs_gen to dataset repo org/cqs-gen (public), tag v2.0.0" in out
    assert "README.md" in out and "data/questions/validation-00000-of-00001.parquet" in out


def test_dry_run_without_out_writes_nothing_outside_a_temporary_folder(
    fixture_mirror, cache_dir, tmp_path, capsys, monkeypatch
):
    mirror = fixture_mirror("cqs_gen")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    argv = ["publish", "cqs_gen", "--repo-id", "org/cqs-gen", "--dry-run"]
    assert main(argv + ["--sources", str(mirror), "--cache-dir", cache_dir]) == 0
    out = capsys.readouterr().out
    assert "card: README.md (built in a temporary folder, now removed" in out
    assert (
        '  license: "cc-by-3.0"' in out and "data/interventions/test-00000-of-00001.parquet" in out
    )
    assert list(work.iterdir()) == []  # no ./build


def test_publish_metric_uploads_the_folder_to_a_space_tagged_with_argbench_version():
    api = StubApi()
    plan = publish_metric("cr_diversity", "org/cr_diversity", api=api)
    names = [call[0] for call in api.calls]
    assert names == [
        "create_repo",
        "list_repo_refs",
        "upload_folder",
        "create_tag",
        "list_repo_refs",
        "list_repo_files",
    ]
    assert api.calls[0][2] == {
        "repo_type": "space",
        "private": False,
        "exist_ok": True,
        "space_sdk": "gradio",
    }
    upload = api.calls[2][1]
    assert upload["repo_type"] == "space"
    assert upload["folder_path"].endswith("/cr_diversity")  # the Space folder (space_folder)
    assert "__pycache__/*" in upload["ignore_patterns"]
    tag = api.calls[3][2]
    assert tag["repo_type"] == "space" and tag["tag"] == f"v{argbench.__version__}"
    assert tag["revision"] == "abc123" and plan["commit"] == "abc123"
    assert [f["path"] for f in plan["files"]] == [
        "README.md",
        "_argbench_bundle.py",
        "app.py",
        "cr_diversity.py",
        "requirements.txt",
    ]


def test_publish_metric_refuses_an_existing_version():
    api = StubApi(tags=[f"v{argbench.__version__}"])
    with pytest.raises(RuntimeError, match="already has tag"):
        publish_metric("rationale_f1", "org/rationale_f1", api=api)
    assert "upload_folder" not in [call[0] for call in api.calls]


def test_metric_dry_run_lists_files_card_and_tag_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(
        "huggingface_hub.HfApi", lambda *a, **k: pytest.fail("dry run must not create an HfApi")
    )
    before = sorted(p.name for p in metric_path("argument_relevance").iterdir())
    argv = ["publish", "--metric", "argument_relevance", "--repo-id", "org/argument_relevance"]
    assert main(argv + ["--dry-run"]) == 0
    out = capsys.readouterr().out
    assert (
        f"dry run: would publish argument_relevance to Space org/argument_relevance (public), "
        f"tag v{argbench.__version__}" in out
    )
    assert '  sdk: "gradio"' in out and '  title: "Argument Relevance"' in out
    assert "requirements.txt" in out and "app.py" in out
    assert list(tmp_path.iterdir()) == []
    assert sorted(p.name for p in metric_path("argument_relevance").iterdir()) == before


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--metric", "nope", "--repo-id", "o/nope"], "unknown metric 'nope'; available: "),
        (
            ["--metric", "cr_diversity", "--repo-id", "o/cr-diversity"],
            "which is not an importable module name",
        ),
        (["nope", "--repo-id", "o/nope"], "unknown dataset 'nope'; available: "),
        (["cqs_gen", "--metric", "cr_diversity", "--repo-id", "o/x"], "one of them"),
        (["--repo-id", "o/x"], "give a dataset NAME or --metric NAME"),
        (["cqs_gen", "--repo-id", "cqs_gen"], "expected ORG/NAME"),
        (["--metric", "cr_diversity", "--repo-id", "o/cr_diversity", "--out", "b"], "go with a"),
    ],
)
def test_publish_usage_mistakes_exit_2_without_repr_quotes(argv, message, capsys):
    assert main(["publish", *argv, "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("argbench publish: error: ")
    assert '"unknown' not in err and "'unknown" not in err  # the message, not its repr


def test_space_folder_bundles_argbench_and_refuses_a_different_imported_version(
    tmp_path, monkeypatch
):
    """The Space's module imports the bundle before argbench; a process that already imported
    another argbench version gets an error naming both (never a silent mix)."""
    import importlib.metadata
    import importlib.util
    import sys
    import zipfile

    from argbench.publish import space_folder

    folder = space_folder("argument_relevance", tmp_path / "argument_relevance")
    module = (folder / "argument_relevance.py").read_text()
    assert module.index("from ._argbench_bundle import ARGBENCH_VERSION") < module.index(
        "    from argbench.scoring.argument_relevance import"
    )
    requirements = (folder / "requirements.txt").read_text().split()
    datasets = next(r for r in importlib.metadata.requires("argbench") if r.startswith("datasets"))
    assert "argbench" not in " ".join(requirements) and datasets in requirements  # its range
    spec = importlib.util.spec_from_file_location("bundle", folder / "_argbench_bundle.py")
    fake = type(sys)("argbench")
    fake.__version__ = "0.0.1"
    monkeypatch.setitem(sys.modules, "argbench", fake)
    with pytest.raises(ImportError, match="argbench 0.0.1 is already imported; this Space is"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    monkeypatch.setitem(sys.modules, "argbench", argbench)  # the same version: nothing to do
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert not list(folder.glob("argbench-*.zip"))
    monkeypatch.delitem(sys.modules, "argbench")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr("importlib.util.find_spec", lambda name, *a: None)  # not installed
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    (bundle,) = folder.glob("argbench-*.zip")
    assert sys.path[0] == str(bundle)
    names = zipfile.ZipFile(bundle).namelist()
    assert "argbench/metrics/argument_relevance/argument_relevance.py" in names
    assert "argbench/loaders/cam_relevance.py" in names and not any(".pyc" in n for n in names)
