"""The smallest strict Hugging Face Hub the real clients can publish to and load from.

No installable Hub emulator accepts uploads, so this implements exactly the endpoints that
``huggingface_hub`` (create_repo, upload_folder, create_tag, list_repo_refs) and ``datasets`` /
``evaluate`` (revision info, tree listing, paths-info, file resolve) call when ``HF_ENDPOINT``
points here, with the Hub's JSON shapes: a 409 on create carries ``url``, pre-upload answers
"regular" (files travel base64 inside the NDJSON commit, so no LFS or Xet is needed).

It records every call (``GET /_test/calls``) and answers any endpoint it does not know with
a 404 that names it, listed under ``unknown`` so tests fail loudly when a client upgrade calls
something new. State lives in a folder (``--state``), so a server killed mid-upload restarts
where it stopped. Faults are armed by ``POST /_test/fault``: ``{"match": regex on "METHOD
path", "action": "status"|"die"|"delay"|"pretend", "status": 503, "seconds": 5, "times": 1}``;
``pretend`` answers 200 with ``body`` (default ``{}``) and changes nothing, as a Hub that
accepts a request and drops it. ``POST /_test/clear`` disarms every fault (huggingface_hub 2.x
retries a 5xx five times, so a lasting outage is a fault armed more times than that).

Run: ``python tests/hub_server.py --port 0 --state DIR [--token hf_x]``; it prints
``listening on PORT`` once ready.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

KINDS = {"models": "model", "datasets": "dataset", "spaces": "space"}
PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"


def git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class NotFound(Exception):
    """A 404 with the Hub's ``X-Error-Code`` header, which huggingface_hub turns into its
    errors (``RepoNotFound``: RepositoryNotFoundError, ``RevisionNotFound``,
    ``EntryNotFound``)."""

    def __init__(self, message: str, code: str = "RepoNotFound"):
        super().__init__(message)
        self.code = code


class Store:
    """Repos (commits, branches, tags) in ``state.json``, file contents in ``blobs/``."""

    def __init__(self, folder: Path):
        self.folder = folder
        (folder / "blobs").mkdir(parents=True, exist_ok=True)
        path = folder / "state.json"
        self.repos = json.loads(path.read_text()) if path.exists() else {}
        self.lock = threading.RLock()

    def save(self):
        tmp = self.folder / "state.json.tmp"
        tmp.write_text(json.dumps(self.repos))
        os.replace(tmp, self.folder / "state.json")

    def put_blob(self, data: bytes) -> str:
        oid = git_blob_oid(data)
        path = self.folder / "blobs" / oid
        if not path.exists():
            path.write_bytes(data)
        return oid

    def blob(self, oid: str) -> bytes:
        return (self.folder / "blobs" / oid).read_bytes()

    def repo(self, kind: str, repo_id: str) -> dict:
        try:
            return self.repos[f"{kind}/{repo_id}"]
        except KeyError:
            raise NotFound(f"Repository {kind}/{repo_id} not found") from None

    def resolve(self, repo: dict, revision: str) -> str:
        revision = unquote(revision)
        for space in ("branches", "tags"):
            if revision in repo[space]:
                return repo[space][revision]
        for space, prefix in (("branches", "refs/heads/"), ("tags", "refs/tags/")):
            if revision.startswith(prefix) and revision[len(prefix) :] in repo[space]:
                return repo[space][revision[len(prefix) :]]
        if revision in repo["commits"]:
            return revision
        raise NotFound(f"Invalid rev id: {revision}", "RevisionNotFound")

    def commit(self, repo: dict, branch: str, files: dict, message: str, parent) -> str:
        body = json.dumps([parent, sorted(files.items()), message, time.time_ns()]).encode()
        oid = hashlib.sha1(body).hexdigest()
        repo["commits"][oid] = {"parent": parent, "files": files, "message": message}
        repo["branches"][branch] = oid
        return oid


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: HubServer

    def log_message(self, *args):  # quiet: calls are recorded instead
        pass

    # ------------------------------------------------------------------ plumbing
    def _send(self, status: int, body=b"", headers=None, content_type="application/json"):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        self.send_response(status)
        for key, value in {
            "Content-Type": content_type,
            "Content-Length": str(len(body)),
            **(headers or {}),
        }.items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, message: str, **extra):
        self._send(status, {"error": message, **extra}, {"X-Error-Message": message})

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self):
        url = urlsplit(self.path)
        path, query = unquote(url.path), parse_qs(url.query)
        what = f"{self.command} {path}"
        server = self.server
        if path.startswith("/_test/"):
            return self._control(path)
        with server.lock:
            server.calls.append(what)
            fault = server.take_fault(what)
        if fault:
            action = fault["action"]
            if action == "die":
                os._exit(17)  # the process vanishes mid-request, as a crashed server does
            if action == "delay":
                time.sleep(fault.get("seconds", 5))
            if action == "status":
                self._body()
                return self._error(fault.get("status", 503), f"injected fault on {what}")
            if action == "pretend":  # a Hub that says yes and does nothing (e.g. no tag made)
                self._body()
                return self._send(200, fault.get("body", {}))
        if server.token and self.command in ("POST", "PUT", "DELETE"):
            if self.headers.get("Authorization") != f"Bearer {server.token}":
                self._body()
                return self._error(401, "Invalid credentials in Authorization header")
        for method, pattern, handler in ROUTES:
            if method == self.command and (match := re.fullmatch(pattern, path)):
                try:
                    with server.store.lock:
                        return handler(self, query, **match.groupdict())
                except NotFound as error:  # the code as a header, where the Hub sends it
                    return self._send(
                        404,
                        {"error": str(error)},
                        {"X-Error-Code": error.code, "X-Error-Message": str(error)},
                    )
        with server.lock:
            server.unknown.append(what)
        self._body()
        self._error(
            404, f"hub_server: unknown endpoint {what} (implement it in tests/hub_server.py)"
        )

    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = _handle

    def _control(self, path):
        server = self.server
        if path == "/_test/calls":
            with server.lock:
                return self._send(200, {"calls": server.calls, "unknown": server.unknown})
        if path == "/_test/fault" and self.command == "POST":
            with server.lock:
                server.faults.append(json.loads(self._body()))
            return self._send(200, {"ok": True})
        if path == "/_test/clear" and self.command == "POST":
            with server.lock:
                server.faults.clear()
            return self._send(200, {"ok": True})
        self._error(404, f"unknown control path {path}")

    # ------------------------------------------------------------------ endpoints
    def create_repo(self, query):
        payload = json.loads(self._body())
        kind = payload.get("type") or "model"
        repo_id = (
            f"{payload['organization']}/{payload['name']}"
            if payload.get("organization")
            else payload["name"]
        )
        url = f"{self.server.base}/{PREFIX[kind]}{repo_id}"
        store = self.server.store
        if f"{kind}/{repo_id}" in store.repos:
            return self._error(409, "You already created this repo", url=url)
        if kind == "space" and not payload.get("sdk"):
            return self._error(400, "a Space needs an sdk")
        # huggingface_hub < 2 sends "private": true; 2.x sends "visibility": "private"
        visibility = payload.get("visibility")
        if visibility not in (None, "public", "private", "protected"):
            return self._error(400, f"unknown visibility {visibility!r}")
        private = bool(payload.get("private")) or visibility == "private"
        repo = {"id": repo_id, "private": private, "sdk": payload.get("sdk")}
        repo.update(commits={}, branches={}, tags={})
        store.commit(
            repo, "main", {".gitattributes": store.put_blob(GITATTRIBUTES)}, "initial commit", None
        )
        store.repos[f"{kind}/{repo_id}"] = repo
        store.save()
        self._send(200, {"url": url, "name": repo_id})

    def refs(self, query, kinds, repo_id):
        repo = self.server.store.repo(KINDS[kinds], repo_id)

        def refs_of(space, prefix):
            return [
                {"name": n, "ref": f"{prefix}{n}", "targetCommit": oid}
                for n, oid in repo[space].items()
            ]

        body = {
            "branches": refs_of("branches", "refs/heads/"),
            "converts": [],
            "tags": refs_of("tags", "refs/tags/"),
        }
        if "include_prs" in query:
            body["pullRequests"] = []
        self._send(200, body)

    def preupload(self, query, kinds, repo_id, revision):
        store = self.server.store
        repo = store.repo(KINDS[kinds], repo_id)
        files = store.repo(KINDS[kinds], repo_id)["commits"][store.resolve(repo, revision)]["files"]
        payload = json.loads(self._body())
        answer = [
            {
                "path": f["path"],
                "uploadMode": "regular",
                "shouldIgnore": False,
                "oid": files.get(f["path"]),
            }
            for f in payload["files"]
        ]
        self._send(200, {"files": answer, "commitOid": store.resolve(repo, revision)})

    def commit(self, query, kinds, repo_id, revision):
        store = self.server.store
        kind = KINDS[kinds]
        repo = store.repo(kind, repo_id)
        branch = unquote(revision)
        if branch not in repo["branches"]:
            return self._error(400, f"commit to {branch}: not a branch")
        lines = [json.loads(line) for line in self._body().splitlines() if line.strip()]
        if not lines or lines[0]["key"] != "header":
            return self._error(400, "commit payload must start with a header line")
        head = repo["branches"][branch]
        parent = lines[0]["value"].get("parentCommit")
        if parent and parent != head:
            return self._error(412, "A commit has happened since. Please refresh and try again.")
        files = dict(repo["commits"][head]["files"])
        for line in lines[1:]:
            key, value = line["key"], line["value"]
            if key == "file":
                if value.get("encoding") != "base64":
                    return self._error(400, f"unsupported encoding {value.get('encoding')}")
                files[value["path"]] = store.put_blob(base64.b64decode(value["content"]))
            elif key == "deletedFile":
                if value["path"] not in files:
                    return self._error(404, "A file with this name doesn't exist")
                files.pop(value["path"])
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                for path in [p for p in files if p.startswith(prefix)]:
                    files.pop(path)
            else:  # lfsFile, copy ops: never asked for, since pre-upload says "regular"
                return self._error(400, f"hub_server: unsupported commit operation {key}")
        oid = store.commit(repo, branch, files, lines[0]["value"]["summary"], head)
        store.save()
        url = f"{self.server.base}/{PREFIX[kind]}{repo_id}/commit/{oid}"
        self._send(200, {"commitUrl": url, "commitOid": oid, "success": True})

    def create_tag(self, query, kinds, repo_id, revision):
        store = self.server.store
        repo = store.repo(KINDS[kinds], repo_id)
        oid = store.resolve(repo, revision)
        tag = json.loads(self._body())["tag"]
        if tag in repo["tags"]:
            return self._error(409, f"Tag {tag} already exists")
        repo["tags"][tag] = oid
        store.save()
        self._send(200, {"name": tag})

    def _files(self, kind, repo_id, revision):
        store = self.server.store
        repo = store.repo(kind, repo_id)
        token = self.server.token
        if repo["private"] and token and self.headers.get("Authorization") != f"Bearer {token}":
            # as the Hub: a private repo read without its token does not exist (404, not 401)
            raise NotFound(f"Repository Not Found for url: {self.path}")
        oid = store.resolve(repo, revision)
        return repo, oid, repo["commits"][oid]["files"]

    def _entry(self, path, oid):
        return {"type": "file", "oid": oid, "size": len(self.server.store.blob(oid)), "path": path}

    def _tree(self, files, folder, recursive):
        prefix = folder.strip("/") + "/" if folder.strip("/") else ""
        entries, folders = [], set()
        for path, oid in sorted(files.items()):
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix) :]
            parts = rest.split("/")
            for depth in range(1, len(parts)):
                if recursive or depth == 1:
                    folders.add(prefix + "/".join(parts[:depth]))
            if recursive or len(parts) == 1:
                entries.append(self._entry(path, oid))
        dirs = [
            {"type": "directory", "oid": "0" * 40, "size": 0, "path": p} for p in sorted(folders)
        ]
        return dirs + entries

    def info(self, query, kinds, repo_id, revision="main"):
        kind = KINDS[kinds]
        repo, oid, files = self._files(kind, repo_id, revision)
        card = files.get("README.md")
        card_data = None
        if card:
            import yaml

            text = self.server.store.blob(card).decode()
            if text.startswith("---\n"):
                card_data = yaml.safe_load(text.split("\n---\n", 1)[0][4:])
        body = {
            "_id": hashlib.sha1(repo_id.encode()).hexdigest()[:24],
            "id": repo_id,
            "author": repo_id.split("/")[0],
            "sha": oid,
            "private": repo["private"],
            "disabled": False,
            "gated": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "lastModified": "2026-01-01T00:00:00.000Z",
            "createdAt": "2026-01-01T00:00:00.000Z",
            "siblings": [{"rfilename": p} for p in sorted(files)],
            "cardData": card_data,
        }
        if kind == "space":
            body["sdk"] = repo["sdk"]
        self._send(200, body)

    def tree(self, query, kinds, repo_id, revision, path=""):
        _, _, files = self._files(KINDS[kinds], repo_id, revision)
        recursive = query.get("recursive", ["false"])[0].lower() in ("1", "true")
        entries = self._tree(files, path or "", recursive)
        if path and not entries:
            raise NotFound(f"Entry not found: {path}", "EntryNotFound")
        self._send(200, entries)

    def paths_info(self, query, kinds, repo_id, revision):
        _, _, files = self._files(KINDS[kinds], repo_id, revision)
        raw = self._body().decode()
        if self.headers.get("Content-Type", "").startswith("application/json"):
            paths = json.loads(raw)["paths"]
        else:
            paths = parse_qs(raw).get("paths", [])
        out = []
        for path in paths:
            path = path.strip("/")
            if path in files:
                out.append(self._entry(path, files[path]))
            elif any(p.startswith(path + "/") for p in files) or path == "":
                out.append({"type": "directory", "oid": "0" * 40, "size": 0, "path": path})
        self._send(200, out)

    def resolve(self, query, prefix, repo_id, revision, path):
        kind = {"": "model", "datasets/": "dataset", "spaces/": "space"}[prefix]
        _, oid, files = self._files(kind, repo_id, revision)
        if path not in files:
            return self._send(
                404,
                {"error": "Entry not found"},
                {
                    "X-Error-Code": "EntryNotFound",
                    "X-Error-Message": "Entry not found",
                    "X-Repo-Commit": oid,
                },
            )
        data = self.server.store.blob(files[path])
        headers = {"X-Repo-Commit": oid, "ETag": f'"{files[path]}"', "Accept-Ranges": "bytes"}
        status, full = 200, len(data)
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", "") or "")
        if match and self.command == "GET":
            start = int(match[1]) if match[1] else max(0, full - int(match[2]))
            end = int(match[2]) if match[1] and match[2] else full - 1
            data, status = data[start : end + 1], 206
            headers["Content-Range"] = f"bytes {start}-{start + len(data) - 1}/{full}"
        elif self.command == "HEAD":
            headers["Content-Length"] = str(full)
        self._send(status, data, headers, content_type="application/octet-stream")

    def whoami(self, query):
        """The token's owner, as huggingface_hub's whoami() reads it (publish asks first)."""
        token = self.server.token
        if token and self.headers.get("Authorization") != f"Bearer {token}":
            return self._error(401, "Invalid credentials in Authorization header")
        self._send(200, {"type": "user", "name": "argbench-test", "auth": {"type": "access_token"}})

    def agent_harnesses(self, query):
        """huggingface_hub >= 1.x fetches the registry of AI-agent env vars (telemetry)."""
        self._send(200, {"standardEnvVars": [], "harnesses": {}})

    def validate_yaml(self, query):
        """The card's front matter must be YAML mapping (the Hub checks more; errors alike)."""
        import yaml

        content = json.loads(self._body())["content"]
        match = re.match(r"---\r?\n(.*?)\r?\n---", content, flags=re.S)
        try:
            data = yaml.safe_load(match[1]) if match else {}
            if not isinstance(data, dict):
                raise yaml.YAMLError(f"metadata is a {type(data).__name__}, not a mapping")
        except yaml.YAMLError as error:
            return self._send(400, {"errors": [{"message": str(error)}], "warnings": []})
        self._send(200, {"errors": [], "warnings": []})


REPO = r"(?P<repo_id>[^/]+/[^/]+)"
KIND = r"(?P<kinds>models|datasets|spaces)"
REV = r"(?P<revision>[^/]+)"
ROUTES = [
    ("POST", r"/api/repos/create", Handler.create_repo),
    ("GET", rf"/api/{KIND}/{REPO}/refs", Handler.refs),
    ("POST", rf"/api/{KIND}/{REPO}/preupload/{REV}", Handler.preupload),
    ("POST", rf"/api/{KIND}/{REPO}/commit/{REV}", Handler.commit),
    ("POST", rf"/api/{KIND}/{REPO}/tag/{REV}", Handler.create_tag),
    ("GET", rf"/api/{KIND}/{REPO}", Handler.info),
    ("GET", rf"/api/{KIND}/{REPO}/revision/{REV}", Handler.info),
    ("GET", rf"/api/{KIND}/{REPO}/tree/{REV}(?:/(?P<path>.*))?", Handler.tree),
    ("POST", rf"/api/{KIND}/{REPO}/paths-info/{REV}", Handler.paths_info),
    ("GET", rf"/(?P<prefix>datasets/|spaces/|){REPO}/resolve/{REV}/(?P<path>.+)", Handler.resolve),
    ("HEAD", rf"/(?P<prefix>datasets/|spaces/|){REPO}/resolve/{REV}/(?P<path>.+)", Handler.resolve),
    ("POST", r"/api/validate-yaml", Handler.validate_yaml),
    ("GET", r"/api/agent-harnesses", Handler.agent_harnesses),
    ("GET", r"/api/whoami-v2", Handler.whoami),
]


class HubServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, state: Path, token: str | None):
        super().__init__(("127.0.0.1", port), Handler)
        self.base = f"http://127.0.0.1:{self.server_address[1]}"
        self.store = Store(state)
        self.token = token
        self.lock = threading.Lock()
        self.calls: list[str] = []
        self.unknown: list[str] = []
        self.faults: list[dict] = []

    def take_fault(self, what: str) -> dict | None:
        for fault in self.faults:
            if re.search(fault["match"], what):
                fault["times"] = fault.get("times", 1) - 1
                if fault["times"] <= 0:
                    self.faults.remove(fault)
                return fault
        return None


def endpoint_names(calls: list[str]) -> list[str]:
    """Calls reduced to their endpoint (repo ids, revisions and paths replaced)."""
    names = set()
    for call in calls:
        method, path = call.split(" ", 1)
        for _, pattern, handler in ROUTES:
            if re.fullmatch(pattern, path):
                names.add(f"{method} {handler.__name__}")
                break
    return sorted(names)


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--token")
    args = parser.parse_args(argv)
    server = HubServer(args.port, args.state, args.token)
    print(f"listening on {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
