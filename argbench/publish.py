"""Publish a built dataset folder to the Hub, tagged with the dataset's version."""

from __future__ import annotations

from pathlib import Path

from argbench.layout import build
from argbench.loaders import builder_class


def _plan(name: str, folder: Path, repo_id: str, private: bool) -> dict:
    version = str(builder_class(name).VERSION)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    return {
        "dataset": name,
        "repo_id": repo_id,
        "private": private,
        "folder": str(folder),
        "card": str(folder / "README.md"),
        "tag": f"v{version}",
        "files": [
            {"path": p.relative_to(folder).as_posix(), "bytes": p.stat().st_size} for p in files
        ],
    }


def publish(
    name: str,
    repo_id: str,
    *,
    out_dir="build",
    private: bool = False,
    dry_run: bool = False,
    sources=None,
    cache_dir=None,
    api=None,
    log=None,
) -> dict:
    """Build ``name`` into ``out_dir``, upload the folder to dataset repo ``repo_id``, tag ``v<version>``.

    A version is published once: if the tag exists, nothing is uploaded (bump ``VERSION``).
    ``dry_run`` returns the plan (files, card, tag) without touching the network.
    """
    log = log or (lambda message: None)
    folder = build(name, out_dir, sources=sources, cache_dir=cache_dir, log=log)
    plan = _plan(name, folder, repo_id, private)
    if dry_run:
        return plan

    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    existing = {ref.name for ref in api.list_repo_refs(repo_id, repo_type="dataset").tags}
    if plan["tag"] in existing:
        raise RuntimeError(
            f"{repo_id} already has tag {plan['tag']}: that version is published. "
            f"Bump {builder_class(name).__name__}.VERSION to publish changed data."
        )
    log(f"uploading {len(plan['files'])} files to {repo_id}")
    commit = api.upload_folder(
        repo_id=repo_id,
        repo_type="dataset",
        folder_path=str(folder),
        commit_message=f"argbench: {name} {plan['tag']}",
        delete_patterns=["data/**"],  # drop shards of an older build that this one no longer has
    )
    api.create_tag(
        repo_id,
        repo_type="dataset",
        tag=plan["tag"],
        revision=commit.oid,
        tag_message=f"{name} {plan['tag']}",
    )
    log(f"tagged {plan['tag']} at {commit.oid}")
    plan["commit"] = commit.oid
    return plan
