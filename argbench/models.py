"""The one place that names and hashes models: embedding model folders and served weights alike.

Why one place: a signature (and a cache key) must name a model by what it computes with, not
by where its files happen to lie, so a judge is the same judge under two file names and a
changed file is never the same model. Every file is hashed by :func:`argbench.sources.sha256_of`
(remembered per path, size and modification time, so a run hashes a big file once); this
module turns those hashes into the names signatures carry:

* a weights file (a GGUF an LLM server loads): ``<stem>@sha256:<12 hex>`` (:func:`weights_name`);
* a model folder: a Hub snapshot in the HF cache is ``org/name@<commit12>``, any other folder
  ``<name>@folder-sha256:<12 hex>`` over each file's relative path and content
  (:func:`folder_signature`);
* a loaded model object: ``weights-sha256:<12 hex>`` over its parameters
  (:func:`weights_fingerprint`).

:meth:`argbench.signature.Signature.differences` compares ``@sha256:`` and ``@folder-sha256:``
values by the hash alone.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from argbench.io import atomic_write
from argbench.sources import sha256_of

__all__ = [
    "file_sha256",
    "folder_fingerprint",
    "folder_model_name",
    "folder_signature",
    "snapshot_name",
    "weights_fingerprint",
    "weights_name",
]

_FOLDER_SIGNATURES: dict[tuple[str, str], str] = {}  # (path, cheap fingerprint) -> signature


def file_sha256(path) -> str:
    """The full sha256 (hex) of one file, hashed once per process for an unchanged file."""
    return sha256_of(Path(path))


def weights_name(path, digest: str | None = None) -> str:
    """``<file stem>@sha256:<12 hex>``: a weights file named by its content (the stem only tells
    a reader which file it was; two names of the same bytes compare equal)."""
    digest = digest or file_sha256(path)
    return f"{Path(path).stem}@sha256:{digest[:12]}"


def folder_fingerprint(path: Path) -> str:
    """Cheap fingerprint of a local model folder: every file's relative path, size and mtime
    (decides when a folder must be hashed again, never names the model)."""
    h = hashlib.sha256()
    for file in sorted(p for p in Path(path).rglob("*") if p.is_file()):
        stat = file.stat()
        h.update(f"{file.relative_to(path)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return h.hexdigest()


def snapshot_name(path: Path) -> str | None:
    """``org/name@<commit12>`` for a folder of the HF cache (``models--org--name/snapshots/<commit>``)."""
    parts = Path(path).parts
    if (
        len(parts) >= 3
        and parts[-2] == "snapshots"
        and parts[-3].startswith("models--")
        and re.fullmatch(r"[0-9a-f]{40}", parts[-1])
    ):
        return f"{parts[-3][len('models--') :].replace('--', '/')}@{parts[-1][:12]}"
    return None


def _folder_sha256(path: Path) -> str:
    """sha256 over each file's relative path and content (dot files and folders left out)."""
    digest = hashlib.sha256()
    files = []
    for root, folders, names in os.walk(path, followlinks=True):
        folders[:] = [f for f in folders if not f.startswith(".")]
        files += [Path(root, n) for n in names if not n.startswith(".")]
    for file in sorted(files, key=lambda f: f.relative_to(path).as_posix()):
        inner = bytes.fromhex(file_sha256(file))
        digest.update(f"{file.relative_to(path).as_posix()}\0".encode() + inner)
    return digest.hexdigest()


def folder_signature(path, memo_dir: Path | None = None) -> str:
    """A model folder's name in signatures, the same on every machine.

    A Hub snapshot in the HF cache is named by repo and commit; any other folder by its
    name (:func:`folder_model_name`) and content, ``<name>@folder-sha256:<12 hex>`` (e.g.
    ``all-MiniLM-L6-v2@folder-sha256:584f01a0a740``): the name so that a reader can tell which
    model it was, the sha256 over each file's relative path and content (dot files and dot
    folders such as ``.git`` left out) so that the files are pinned; neither the folder's
    location nor file times matter. Hashing reads the weights once: the hash is kept per
    process and, with ``memo_dir``, in ``memo_dir/signature.txt`` (the embedding cache folder,
    itself keyed by the folder's paths, sizes and times).
    """
    path = Path(path).expanduser().resolve()
    named = snapshot_name(path)
    if named:
        return named
    key = (str(path), folder_fingerprint(path))
    memo = memo_dir / "signature.txt" if memo_dir else None
    signature = _FOLDER_SIGNATURES.get(key)
    if signature is None and memo and memo.is_file():
        # the hash alone (memos written before the folder name was added held no name either)
        signature = memo.read_text(encoding="utf-8").strip().rpartition("@")[2]
    if signature is None:
        signature = f"folder-sha256:{_folder_sha256(path)[:12]}"
    if memo and not memo.is_file():
        memo_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(memo, signature)  # concurrent runs write the same content
    _FOLDER_SIGNATURES[key] = signature
    return f"{folder_model_name(path)}@{signature}"


def folder_model_name(path: Path) -> str:
    """What a reader calls the model in a folder: its model card's title when that is one word
    (sentence-transformers cards start ``# all-MiniLM-L6-v2``), else the folder's name."""
    card = Path(path) / "README.md"
    if card.is_file():
        with open(card, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("# "):
                    title = line[2:].strip()
                    if re.fullmatch(r"[\w.+/-]+", title):
                        return title
                    break
    return Path(path).name


def weights_fingerprint(model) -> str:
    """Content hash of a loaded model's parameters and module configuration."""
    h = hashlib.sha256(repr(model).encode())
    h.update(str(getattr(model, "max_seq_length", None)).encode())
    for name, tensor in model.state_dict().items():
        h.update(name.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()
