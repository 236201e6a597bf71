"""Publish to the Hub, tagged with the version: a dataset (built folder) or a metric (Space).

A dataset goes to a dataset repository, tagged ``v<dataset version>``; a metric's folder goes to
a Gradio Space, tagged ``v<argbench version>`` (the release its ``requirements.txt`` pins). A
version is published once: when its tag exists, nothing is uploaded.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import argbench
from argbench.metrics import metric_path

# files of a metric folder that are not the Space's
_NOT_UPLOADED = ("__pycache__/*", "*.pyc")


def _files(folder: Path) -> list[dict]:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return [{"path": p.relative_to(folder).as_posix(), "bytes": p.stat().st_size} for p in files]


def _card_summary(card_path: Path) -> dict:
    """The card's metadata without the long computed parts (configs, dataset_info)."""
    from huggingface_hub import RepoCard

    data = RepoCard.load(card_path).data.to_dict()
    return {k: v for k, v in data.items() if k not in ("configs", "dataset_info", "description")}


def _plan(kind: str, name: str, folder: Path, repo_id: str, private: bool, tag: str) -> dict:
    return {
        "kind": kind,
        "name": name,
        "repo_id": repo_id,
        "private": private,
        "folder": str(folder),
        "card": str(folder / "README.md"),
        "card_metadata": _card_summary(folder / "README.md"),
        "tag": tag,
        "files": _files(folder),
    }


def check_credentials(api=None):
    """The Hub is reachable and accepts our token, checked before any build or upload (a
    publish that builds for minutes and then fails on the network loses that work). Returns
    the api to use."""
    from argbench.sources import hub_reachable, is_offline

    if api is not None:  # a given client (tests, a custom endpoint) says itself
        if hasattr(api, "whoami"):
            api.whoami()
        return api
    if is_offline("models") or not hub_reachable():
        why = "HF_HUB_OFFLINE is set" if is_offline("models") else "no route to the Hub"
        raise OSError(
            f"cannot publish: the Hugging Face Hub cannot be reached ({why}); nothing was built "
            "or uploaded. Publish from a machine with network access, or use --dry-run to check "
            "the plan offline"
        )
    from huggingface_hub import HfApi, get_token

    if not get_token():
        raise PermissionError(
            "cannot publish: no Hugging Face token; run `hf auth login` (or "
            "`huggingface-cli login`) or set HF_TOKEN. Nothing was built or uploaded"
        )
    api = HfApi()
    try:
        api.whoami()
    except Exception as error:  # noqa: BLE001 - said with what to do
        raise PermissionError(
            f"cannot publish: the Hub refused the token ({type(error).__name__}: {error}); "
            "check HF_TOKEN or log in again. Nothing was built or uploaded"
        ) from None
    return api


def _upload(plan: dict, repo_type: str, api, log, bump: str, **create) -> dict:
    """Create the repo, refuse an existing tag, upload the folder, tag the commit."""
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    repo_id, tag = plan["repo_id"], plan["tag"]
    api.create_repo(repo_id, repo_type=repo_type, private=plan["private"], exist_ok=True, **create)
    existing = {ref.name for ref in api.list_repo_refs(repo_id, repo_type=repo_type).tags}
    if tag in existing:
        raise RuntimeError(f"{repo_id} already has tag {tag}: that version is published. {bump}")
    log(f"uploading {len(plan['files'])} files to {repo_id}")
    commit = api.upload_folder(
        repo_id=repo_id,
        repo_type=repo_type,
        folder_path=plan["folder"],
        commit_message=f"argbench: {plan['name']} {tag}",
        **(
            {"delete_patterns": ["data/**"]}  # drop shards of an older build this one lacks
            if repo_type == "dataset"
            else {"ignore_patterns": list(_NOT_UPLOADED)}
        ),
    )
    api.create_tag(
        repo_id,
        repo_type=repo_type,
        tag=tag,
        revision=commit.oid,
        tag_message=f"{plan['name']} {tag}",
    )
    log(f"tagged {tag} at {commit.oid}")
    plan["commit"] = commit.oid
    return plan


def publish(
    name: str,
    repo_id: str,
    *,
    out_dir=None,
    private: bool = False,
    dry_run: bool = False,
    sources=None,
    cache_dir=None,
    api=None,
    log=None,
) -> dict:
    """Build dataset ``name``, upload it to dataset repo ``repo_id``, tag ``v<version>``.

    The build goes to ``out_dir/<name>`` when ``out_dir`` is given, else to a temporary folder
    that is removed afterwards (the plan's ``folder`` and ``card`` are then None).
    ``dry_run`` returns the plan (files, card metadata, tag) without touching the network.
    """
    from argbench.layout import build
    from argbench.loaders import builder_class

    log = log or (lambda message: None)
    cls = builder_class(name)
    if not dry_run:
        api = check_credentials(api)  # before the build: fail in seconds, not after it
    with tempfile.TemporaryDirectory(prefix="argbench-publish-") as scratch:
        folder = build(
            name, out_dir or scratch, sources=sources, cache_dir=cache_dir, log=log, repo_id=repo_id
        )
        plan = _plan("dataset", name, folder, repo_id, private, f"v{cls.VERSION}")
        if not dry_run:
            bump = f"Bump {cls.__name__}.VERSION to publish changed data."
            _upload(plan, "dataset", api, log, bump)
    if out_dir is None:
        plan["folder"] = plan["card"] = None
    return plan


def check_space_name(name: str, repo_id: str) -> None:
    """``evaluate.load("ORG/NAME")`` fetches ``NAME.py``: the Space is named after the metric."""
    space = repo_id.partition("/")[2]
    if space != name:
        raise ValueError(
            f"{repo_id}: the Space must be named after the metric (evaluate.load('{repo_id}') "
            f"fetches {space}.py; the module is {name}.py): use ORG/{name}"
        )


def publish_metric(
    name: str,
    repo_id: str,
    *,
    private: bool = False,
    dry_run: bool = False,
    api=None,
    log=None,
) -> dict:
    """Upload metric ``name``'s folder to the Gradio Space ``repo_id``, tag ``v<argbench version>``.

    ``evaluate.load("ORG/NAME")`` fetches ``NAME.py`` from the Space, so the Space must be named
    after the metric. ``dry_run`` returns the plan without touching the network.
    """
    log = log or (lambda message: None)
    check_space_name(name, repo_id)
    folder = metric_path(name)
    plan = _plan("metric", name, folder, repo_id, private, f"v{argbench.__version__}")
    if dry_run:
        return plan
    api = check_credentials(api)
    bump = "Bump argbench's version (pyproject.toml, argbench.__version__) to publish changes."
    return _upload(plan, "space", api, log, bump, space_sdk="gradio")
