"""Writing results documents: checked before they are written, and never over another run's.

:func:`write_results` writes one document with its digest, atomically (:mod:`argbench.io`),
after checking it as :func:`~argbench.results.verify.read_results` will when it is read back;
:func:`write_results_once` writes a run's documents unless a file already holds another
result.
"""

from __future__ import annotations

import json
from pathlib import Path

from argbench.io import (
    Staging,
    atomic_write,
    claim_output,
    is_claimed,
    read_json,
    release_output,
    write_json,
)
from argbench.results.document import content_digest, plain
from argbench.results.verify import verify_document

__all__ = ["RUN_VOLATILE", "same_result", "write_results", "write_results_once"]


def write_results(doc: dict, path, *, claim: bool = True) -> Path:
    """The results document as JSON with its ``digest``, written atomically through
    :mod:`argbench.io` (checked against the schema first: a document ``read_results`` would
    refuse is never written); under the output's claim unless ``claim`` is False (a file of
    a folder written whole, :func:`argbench.io.staged_folder`, locked as a whole)."""
    body = plain({k: v for k, v in doc.items() if k != "digest"})
    verify_document(body, f"results for {path}")
    return write_json(path, {**body, "digest": content_digest(body)}, claim=claim)


# What differs between two runs that produced the same result: when, by which command line,
# and the digest over both.
RUN_VOLATILE = ("created", "command", "digest")


def same_result(old, new: dict, *, strip=None) -> bool:
    """Whether ``old`` (a document read from disk) holds the result ``new`` would write: equal
    but for :data:`RUN_VOLATILE` (``strip(doc)`` may drop more, such as a log's path as typed)."""
    if not isinstance(old, dict):
        return False

    def kept(doc: dict) -> dict:
        doc = {k: v for k, v in doc.items() if k not in RUN_VOLATILE}
        return strip(doc) if strip is not None else doc

    return json.dumps(plain(kept(old)), sort_keys=True) == json.dumps(
        plain(kept(new)), sort_keys=True
    )


def write_results_once(
    planned,
    *,
    strip=None,
    advice="write into another --out folder or move those files away",
    staging: Staging | None = None,
) -> list[tuple[Path, dict, bool]]:
    """Write each ``(path, document)`` of ``planned`` unless the path already holds the same
    result (:func:`same_result`); returns (path, document, written). No run erases another:
    when any path holds another result (another model, threshold or version, or an edited
    file) nothing at all is written and :class:`FileExistsError` names the files.

    ``staging``: the paths are in a folder being written whole
    (:func:`argbench.io.staged_folder`); each is compared with the file argbench wrote at its
    place in the target, and the same result is kept as it was (its bytes copied)."""
    planned = [(Path(path), doc) for path, doc in planned]
    claimed = []  # every path is locked before it is looked at: a concurrent run waits
    for path, _ in planned:
        if staging is None and not is_claimed(path):  # a staged folder is locked whole
            claim_output(path, suffixes=(".json",))
            claimed.append(path)
    outcome, others = [], []
    for path, doc in planned:
        old_path = path if staging is None else staging.earlier(path)
        if old_path is not None and old_path.exists():
            try:
                old = read_json(old_path)
            except ValueError:
                old = None  # not JSON: another file, never overwritten
            if not same_result(old, doc, strip=strip):
                others.append(path if staging is None else staging.target_of(path))
            elif staging is not None:
                atomic_write(path, old_path.read_bytes())
            outcome.append((path, doc, False))
        else:
            outcome.append((path, doc, True))
    if others:
        for path in claimed:
            release_output(path)
        listed = ", ".join(str(p) for p in others[:3]) + (
            f" and {len(others) - 3} more" if len(others) > 3 else ""
        )
        raise FileExistsError(
            f"{listed} {'exist and hold' if len(others) > 1 else 'exists and holds'} another "
            "result (a run with other settings or another argbench version, or an edited file); "
            f"nothing was written. To keep both, {advice}"
        )
    try:
        for path, doc, new in outcome:
            if new:
                write_results(doc, path, claim=staging is None)
    finally:  # the claims taken here end with the write (a notebook keeps its process)
        for path in claimed:
            release_output(path)
    return outcome
