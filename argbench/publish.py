"""Publish to the Hub, tagged with the version: a dataset (built folder) or a metric (Space).

A dataset goes to a dataset repository, tagged ``v<dataset version>``; a metric goes to a
Gradio Space, tagged ``v<argbench version>``. A version is published once: when its tag
exists, nothing is uploaded.

A Space must work where argbench is not installed: :mod:`argbench.space_bundle` makes its
folder. Nothing is said to be published before it is read back: the tag exists, points at the
commit just made and holds the uploaded files; a dataset repo holding another corpus is
refused (or cleaned on request), and the repo id is checked before any build.
"""

from __future__ import annotations

import glob
import hashlib
import tempfile
from pathlib import Path

from argbench._version import __version__
from argbench.errors import BadInput
from argbench.hub_eval import eval_yaml
from argbench.io import staged_folder
from argbench.leaderboard.space import BOARD_CARDS, BOARD_RESULTS, write_space
from argbench.loaders import builder_class
from argbench.sources import hub_reachable, is_offline
from argbench.space_bundle import check_space_name, space_folder

__all__ = [
    "PublishError",
    "check_repo_id",
    "check_space_name",
    "publish",
    "publish_leaderboard",
    "publish_metric",
]

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
    if api is None:
        if is_offline("models") or not hub_reachable():
            why = "HF_HUB_OFFLINE is set" if is_offline("models") else "no route to the Hub"
            raise OSError(
                f"cannot publish: the Hugging Face Hub cannot be reached ({why}); nothing was "
                "built or uploaded. Publish from a machine with network access, or use --dry-run "
                "to check the plan offline"
            )
        from huggingface_hub import HfApi, get_token

        if not get_token():
            raise PermissionError(
                "cannot publish: no Hugging Face token; run `hf auth login` (or "
                "`huggingface-cli login`) or set HF_TOKEN. Nothing was built or uploaded"
            )
        api = HfApi()
    if hasattr(api, "whoami"):  # a given client (tests, a custom endpoint) is asked too
        try:
            api.whoami()
        except Exception as error:  # noqa: BLE001 - said with what to do
            status = getattr(getattr(error, "response", None), "status_code", None)
            refused = TokenRefusedError if status in (401, 403) else PublishError
            raise refused(
                f"cannot publish: the Hub refused the token (HTTP {status}) "
                f"[{type(error).__name__}]: log in with `hf auth login` or set HF_TOKEN to a "
                "token with write access. Nothing was built or uploaded"
            ) from None
    return api


def check_repo_id(repo_id: str) -> str:
    """``ORG/NAME`` as the Hub accepts it (letters, digits, ``-``, ``_``, ``.``; no ``--`` or
    ``..``; at most 96 characters), checked before any build or request: a name the Hub
    refuses would otherwise fail after minutes of building."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    if not isinstance(repo_id, str) or repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise ValueError(f"repo id {repo_id!r}: expected ORG/NAME")
    try:
        validate_repo_id(repo_id)
    except HFValidationError as error:
        raise ValueError(f"repo id {repo_id!r}: the Hub refuses this name ({error})") from None
    return repo_id


class PublishError(RuntimeError):
    """The Hub refused or failed a step; nothing was tagged, so the version is not published."""


class TokenRefusedError(PublishError, BadInput):
    """The Hub refused the token (HTTP 401/403): the credential is wrong (exit 2, as no
    token at all)."""


class OtherCorpusError(PublishError, BadInput):
    """The repo holds another corpus: the repo id given is wrong for this corpus (exit 2)."""


HUB_TIMEOUT_ENV = "ARGBENCH_HUB_TIMEOUT"


def _hub_timeout(timeout) -> float:
    import os

    value = timeout if timeout is not None else os.environ.get(HUB_TIMEOUT_ENV, 1800)
    try:
        value = float(value)
    except (TypeError, ValueError):
        value = -1.0
    if not value > 0:
        raise ValueError(f"Hub timeout must be a number of seconds > 0, got {timeout!r}")
    return value


def _step(what: str, call, plan: dict, timeout: float):
    """Run one Hub request (or upload) with a deadline; a failure names the step, the Hub's
    answer and what to do. The upload runs in a thread so a server that stops answering cannot
    hang the run (huggingface_hub sets no timeout on API calls)."""
    import threading

    box: dict = {}

    def run():
        try:
            box["value"] = call()
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = error

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    where = f"{plan['repo_id']} ({what})"
    untagged = f"{plan['tag']} was not tagged, so it is not published"
    again = "run the same command again: files already uploaded are not sent twice"
    if worker.is_alive():
        raise PublishError(
            f"{where}: no answer from the Hub within {timeout:g}s; {untagged}. If the Hub is "
            f"only slow, raise ${HUB_TIMEOUT_ENV} (seconds) and {again}"
        )
    error = box.get("error")
    if error is None:
        return box.get("value")
    if isinstance(error, PublishError):
        raise error
    status = getattr(getattr(error, "response", None), "status_code", None)
    detail = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if status in (401, 403):
        raise TokenRefusedError(
            f"{where}: the Hub refused the token (HTTP {status}): log in with `hf auth login` or "
            f"set HF_TOKEN to a token with write access to {plan['repo_id']}; {untagged}"
        ) from error
    if status is not None:
        raise PublishError(
            f"{where}: HTTP {status} from the Hub: {detail}; {untagged}; {again}"
        ) from error
    if _transport_failed(error):
        raise PublishError(
            f"{where}: the connection to the Hub failed ({type(error).__name__}: {detail}); "
            f"{untagged}; {again}"
        ) from error
    raise error


def _transport_failed(error: BaseException) -> bool:
    """The connection failed (no HTTP answer): an ``OSError`` (requests' errors, before
    huggingface_hub 1.0), or httpx's / httpx2's ``TransportError`` (1.0 and later: a server
    that hangs up mid-request raises ``RemoteProtocolError``, which names no connection)."""
    if isinstance(error, (OSError, ConnectionError)) or "connect" in type(error).__name__.lower():
        return True
    return any(kind.__name__ == "TransportError" for kind in type(error).__mro__)


def _upload(
    plan: dict,
    repo_type: str,
    api,
    log,
    bump: str,
    timeout=None,
    replace=False,
    board=False,
    **create,
) -> dict:
    """Create the repo, refuse an existing tag (and a dataset repo holding another corpus),
    upload the folder, tag the commit, read the tag back.

    The tag is the last step and marks the version published: a run that fails before it
    leaves no tag (at most an untagged commit), and running again completes it. The tag is
    published only once the Hub lists it at the commit just made, with the uploaded files."""
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    timeout = _hub_timeout(timeout)
    repo_id, tag = plan["repo_id"], plan["tag"]
    _step(
        "create repo",
        lambda: api.create_repo(
            repo_id, repo_type=repo_type, private=plan["private"], exist_ok=True, **create
        ),
        plan,
        timeout,
    )
    refs = _step(
        "list tags", lambda: api.list_repo_refs(repo_id, repo_type=repo_type), plan, timeout
    )
    if tag in {ref.name for ref in refs.tags}:
        raise RuntimeError(f"{repo_id} already has tag {tag}: that version is published. {bump}")
    if repo_type == "dataset":
        deleted = _check_same_corpus(plan, api, timeout, replace)
        options = {"delete_patterns": deleted}
    elif board:  # only the files written (not a user's own files in --out); uploads kept
        written = [glob.escape(f["path"]) for f in plan["files"]]
        options = {"allow_patterns": written, "delete_patterns": [BOARD_RESULTS, BOARD_CARDS]}
    else:
        options = {"ignore_patterns": list(_NOT_UPLOADED)}
    log(f"uploading {len(plan['files'])} files to {repo_id}")
    commit = _step(
        "upload",
        lambda: api.upload_folder(
            repo_id=repo_id,
            repo_type=repo_type,
            folder_path=plan["folder"],
            commit_message=f"argbench: {plan['name']} {tag}",
            **options,
        ),
        plan,
        timeout,
    )
    _step(
        "tag",
        lambda: api.create_tag(
            repo_id,
            repo_type=repo_type,
            tag=tag,
            revision=commit.oid,
            tag_message=f"{plan['name']} {tag}",
        ),
        plan,
        timeout,
    )
    _read_back(plan, repo_type, api, commit.oid, timeout)
    log(f"tagged {tag} at {commit.oid} (read back from the Hub)")
    plan["commit"] = commit.oid
    return plan


def _read_back(plan: dict, repo_type: str, api, oid: str, timeout: float) -> None:
    """The tag exists and points at ``oid``, and the files at the tag are the build's: only
    then is the version published (a Hub that answered 200 to the tag request but made no
    tag left a version that 404s)."""
    repo_id, tag = plan["repo_id"], plan["tag"]
    refs = _step(
        "read the tag back", lambda: api.list_repo_refs(repo_id, repo_type=repo_type), plan, timeout
    )
    found = {ref.name: getattr(ref, "target_commit", None) for ref in refs.tags}
    if tag not in found or found[tag] != oid:
        got = "no such tag" if tag not in found else f"it points at {found[tag]}"
        raise PublishError(
            f"{repo_id}: the Hub accepted the tag request for {tag} but, read back, {got} (the "
            f"commit uploaded is {oid}); {tag} is not published. Check the repo on the Hub, "
            "then run the same command again"
        )
    files = set(
        _step(
            "read the files back",
            lambda: api.list_repo_files(repo_id, repo_type=repo_type, revision=tag),
            plan,
            timeout,
        )
    )
    lost = sorted({f["path"] for f in plan["files"]} - files)
    if repo_type == "space":  # bytecode and caches are not uploaded
        lost = [p for p in lost if not p.endswith(".pyc") and "__pycache__" not in p]
    if lost:
        raise PublishError(
            f"{repo_id}: at tag {tag} the Hub lacks {len(lost)} of the uploaded files "
            f"({', '.join(lost[:5])}); {tag} is not published as built"
        )


# files argbench writes into a corpus repo: a build that lacks one deletes it (an older build's
# shards, an eval.yaml of a version that had one)
_CORPUS_FILES = ["data/**", "eval.yaml", "README.md"]


def _check_same_corpus(plan: dict, api, timeout: float, replace: bool) -> list[str]:
    """The delete patterns of the upload: the repo holds nothing, or this corpus (its card's
    ``pretty_name``); another corpus is refused unless ``replace`` (then every file not in
    this build is deleted, so nothing of the other corpus stays)."""
    repo_id = plan["repo_id"]
    info = _step(
        "read the repo", lambda: api.dataset_info(repo_id, files_metadata=False), plan, timeout
    )
    present = [s.rfilename for s in (getattr(info, "siblings", None) or [])]
    present = [p for p in present if p != ".gitattributes"]
    card = getattr(info, "card_data", None) or getattr(info, "cardData", None) or {}
    card = card.to_dict() if hasattr(card, "to_dict") else dict(card)
    theirs, ours = card.get("pretty_name"), plan["card_metadata"].get("pretty_name")
    if not present or (theirs is not None and theirs == ours):
        return list(_CORPUS_FILES)
    if replace:
        return ["*", "**"]  # everything but this build (.gitattributes is kept by the client)
    held = f"corpus {theirs!r}" if theirs else f"{len(present)} files that are not {ours!r}"
    raise OtherCorpusError(
        f"{repo_id} already holds {held} ({', '.join(present[:4])}{', ...' if len(present) > 4 else ''}); "
        f"publishing {ours!r} there would mix two corpora (its eval.yaml and data would stay). "
        "Publish to another repo, or pass --replace-other-corpus to delete every file that is "
        "not part of this build. Nothing was uploaded"
    )


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
    timeout: float | None = None,
    replace_other_corpus: bool = False,
) -> dict:
    """Build dataset ``name``, upload it to dataset repo ``repo_id``, tag ``v<version>``.

    The build goes to ``out_dir/<name>`` when ``out_dir`` is given, else to a temporary folder
    that is removed afterwards (the plan's ``folder`` and ``card`` are then None).
    ``dry_run`` returns the plan (files, card metadata, tag) without touching the network.
    ``timeout``: seconds each Hub step may take (default ``$ARGBENCH_HUB_TIMEOUT`` or 1800);
    a failed step raises :class:`PublishError` and leaves the version untagged.
    A repo holding another corpus is refused unless ``replace_other_corpus`` (every file that
    is not part of this build is then deleted).
    """
    from argbench.layout import build  # datasets: only when a corpus is published

    log = log or (lambda message: None)
    check_repo_id(repo_id)  # before the build
    cls = builder_class(name)
    if not dry_run:
        api = check_credentials(api)  # before the build: fail in seconds, not after it
    with tempfile.TemporaryDirectory(prefix="argbench-publish-") as scratch:
        folder = build(
            name,
            out_dir or scratch,
            sources=sources,
            cache_dir=cache_dir,
            log=log,
            repo_id=repo_id,
            eval_yaml=eval_yaml,
        )
        plan = _plan("dataset", name, folder, repo_id, private, f"v{cls.VERSION}")
        if not dry_run:
            bump = f"Bump {cls.__name__}.VERSION to publish changed data."
            _upload(plan, "dataset", api, log, bump, timeout, replace_other_corpus)
    if out_dir is None:
        plan["folder"] = plan["card"] = None
    return plan


def publish_metric(
    name: str,
    repo_id: str,
    *,
    private: bool = False,
    dry_run: bool = False,
    api=None,
    log=None,
    timeout: float | None = None,
) -> dict:
    """Upload metric ``name``'s folder to the Gradio Space ``repo_id``, tag ``v<argbench version>``.

    ``evaluate.load("ORG/NAME")`` fetches ``NAME.py`` from the Space, so the Space must be named
    after the metric. ``dry_run`` returns the plan without touching the network.
    """
    log = log or (lambda message: None)
    check_repo_id(repo_id)
    module = check_space_name(name, repo_id)
    if not dry_run:
        api = check_credentials(api)  # before anything else: fail in seconds
    with tempfile.TemporaryDirectory(prefix="argbench-space-") as scratch:
        folder = space_folder(name, Path(scratch) / module, module)
        plan = _plan("metric", name, folder, repo_id, private, f"v{__version__}")
        if not dry_run:
            bump = (
                "Bump argbench's version (pyproject.toml, argbench.__version__) to publish changes."
            )
            _upload(plan, "space", api, log, bump, timeout, space_sdk="gradio")
    plan["folder"] = plan["card"] = None  # a temporary folder, removed
    return plan


def publish_leaderboard(
    results,
    repo_id: str,
    space_config: dict,
    *,
    cards=(),
    out_dir=None,
    private: bool = False,
    dry_run: bool = False,
    api=None,
    log=None,
    timeout: float | None = None,
) -> dict:
    """Write the leaderboard Space (:func:`argbench.leaderboard.space.write_space`: the board
    of ``results`` and an upload form scored as ``space_config`` says) and upload it to the
    Gradio Space ``repo_id``, tagged ``v<argbench version>-board-<digest of its files>``: a
    board with other results is published again as a new revision, its earlier board files
    replaced and the uploads the Space kept left as they are. ``out_dir``: keep the Space's
    folder in ``out_dir/<space name>`` (written whole, never over files argbench did not
    write). ``dry_run`` lists what would be written and uploaded, writing nothing but its own
    staging folder (removed) and without the network."""
    log = log or (lambda message: None)
    check_repo_id(repo_id)
    if not dry_run:
        api = check_credentials(api)
    with tempfile.TemporaryDirectory(prefix="argbench-space-") as scratch:
        target = Path(out_dir or scratch) / repo_id.partition("/")[2]
        # written beside the target and swapped in whole; a dry run writes only its staging
        with staged_folder(target, what="--out", dry_run=dry_run, log=log) as staging:
            write_space(results, staging.path, space_config, cards=cards)
            plan = _plan("leaderboard", "leaderboard", staging.path, repo_id, private, "")
            plan["tag"] = f"v{__version__}-board-{_folder_digest(staging.path)[:12]}"
        plan["folder"], plan["card"] = str(target), str(target / "README.md")
        if not dry_run:
            bump = "The same board (the same files) is published already; nothing was uploaded."
            _upload(plan, "space", api, log, bump, timeout, space_sdk="gradio", board=True)
    if out_dir is None or dry_run:
        plan["folder"] = plan["card"] = None
    return plan


def _folder_digest(folder: Path) -> str:
    """sha256 over the folder's files (names and contents): a board's revision tag, so a board
    with other results is a new revision of the Space and the same board is not sent twice."""
    sha = hashlib.sha256()
    for entry in _files(folder):
        sha.update(entry["path"].encode() + b"\0")
        sha.update(hashlib.sha256((folder / entry["path"]).read_bytes()).digest())
    return sha.hexdigest()
