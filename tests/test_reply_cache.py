"""The LLM reply cache (argbench.llm.reply_cache): its key, field by field, and its storage
(one SQLite file) corrupted every way we could think of; each case with its control."""

from __future__ import annotations

import os
import sqlite3
import warnings

import pytest

from argbench.llm import ChatEndpoint, ReplyCache, reply_key

from .openai_stub import StubServer

BASE = {
    "identity": "sha256:" + "ab" * 32,
    "model": "judge",
    "system": "Be strict.",
    "prompt": "Is A coherent with B?",
    "temperature": 0.0,
    "max_tokens": 8,
    "structured": "grammar",
}


@pytest.mark.parametrize(
    "field, other",
    [
        ("identity", "sha256:" + "cd" * 32),
        ("identity", "id:judge-v2"),
        ("identity", "fp:" + "00" * 32),
        ("model", "judge-2"),
        ("system", None),
        ("system", "Be lenient."),
        ("prompt", "Is A coherent with C?"),
        ("temperature", 0.7),
        ("temperature", None),
        ("max_tokens", None),
        ("max_tokens", 9),
        ("structured", "json_schema"),
        ("structured", None),
    ],
)
def test_every_field_of_the_key_changes_it(field, other):
    assert reply_key(**{**BASE, field: other}) != reply_key(**BASE)
    assert reply_key(**BASE) == reply_key(**dict(BASE))  # control: the same question


def test_key_fields_do_not_run_together_and_free_text_is_one_mode():
    a = reply_key(**{**BASE, "system": "ab", "prompt": "c"})
    b = reply_key(**{**BASE, "system": "a", "prompt": "bc"})
    assert a != b
    off = reply_key(**{**BASE, "structured": "off"})
    assert off == reply_key(**{**BASE, "structured": None})


def test_a_key_needs_an_identity_never_a_url_alone():
    with pytest.raises(ValueError, match="identity"):
        reply_key(**{**BASE, "identity": None})


def _filled(folder, n=400):
    cache = ReplyCache(folder)
    keys = [bytes([i % 256, i // 256]) * 16 for i in range(n)]
    for i, key in enumerate(keys):
        cache.put(key, f"reply {i} " + "x" * 200)
    cache.close()
    return keys


def _page_corrupt(path):
    data = bytearray(path.read_bytes())
    page = 4096
    for offset in range(2 * page, len(data) - page, 3 * page):  # B-tree pages, not the header
        data[offset : offset + 64] = b"\xa5" * 64
    path.write_bytes(bytes(data))


def _truncate(path):
    size = path.stat().st_size
    with open(path, "r+b") as handle:
        handle.truncate(size // 2 + 100)


def _garbage(path):
    path.write_bytes(os.urandom(8192))


def _text_file(path):
    path.write_text('{"this": "is json, not a database"}\n')


def _header_only(path):
    data = path.read_bytes()
    path.write_bytes(data[:100])  # a header that promises pages which are not there


def _other_layout(path):
    path.unlink()
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE reply (prompt TEXT, answer TEXT, score REAL)")
    con.execute("INSERT INTO reply VALUES ('p', 'a', 1.0)")
    con.commit()
    con.close()


def _view(path):
    path.unlink()
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE other (key BLOB, text TEXT)")
    con.execute("CREATE VIEW reply AS SELECT key, text FROM other")
    con.commit()
    con.close()


def _bad_index(path):
    con = sqlite3.connect(path)
    # the primary key's index points at rows that are not there: writable_schema damage
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    page = len(data) // pages
    data[(pages - 1) * page : (pages - 1) * page + 200] = b"\x0d" + b"\xff" * 199
    path.write_bytes(bytes(data))


CORRUPTIONS = {
    "page-corrupted": _page_corrupt,
    "truncated": _truncate,
    "random bytes": _garbage,
    "a text file": _text_file,
    "header only": _header_only,
    "another table layout": _other_layout,
    "a view named reply": _view,
    "last page overwritten": _bad_index,
}


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_a_corrupt_cache_is_moved_aside_and_started_afresh(tmp_path, name):
    keys = _filled(tmp_path)
    path = tmp_path / "replies.sqlite"
    CORRUPTIONS[name](path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cache = ReplyCache(tmp_path)
        found = cache.get(keys)
        cache.put(b"k" * 32, "fresh")
        assert cache.get([b"k" * 32]) == {b"k" * 32: "fresh"}  # the new cache works
        cache.close()
    assert found == {}  # nothing answers from a damaged file
    moved = [w for w in caught if "moved it to" in str(w.message)]
    assert len(moved) == 1, [str(w.message) for w in caught]
    assert list(tmp_path.glob("replies.sqlite.corrupt-*"))
    assert ReplyCache(tmp_path).get([b"k" * 32]) == {b"k" * 32: "fresh"}


def test_control_an_intact_cache_answers_and_is_left_in_place(tmp_path):
    keys = _filled(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        found = ReplyCache(tmp_path).get(keys)
    assert len(found) == len(keys) and found[keys[3]].startswith("reply 3 ")
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_an_empty_file_is_a_new_cache_not_a_corrupt_one(tmp_path):
    (tmp_path / "replies.sqlite").write_bytes(b"")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cache = ReplyCache(tmp_path)
        cache.put(b"k" * 32, "ok")
        assert cache.get([b"k" * 32]) == {b"k" * 32: "ok"}


def test_rows_that_are_not_text_are_not_answers(tmp_path):
    cache = ReplyCache(tmp_path)
    with cache.con:
        cache.con.execute("INSERT INTO reply VALUES (?, ?)", (b"a" * 32, b"\x00bytes"))
        cache.con.execute("INSERT INTO reply VALUES (?, ?)", (b"c" * 32, None))
    assert cache.get([b"a" * 32, b"c" * 32]) == {}


def test_a_stray_journal_does_not_make_old_replies_answer(tmp_path):
    keys = _filled(tmp_path, 50)
    (tmp_path / "replies.sqlite-journal").write_bytes(os.urandom(4096))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        cache = ReplyCache(tmp_path)
        found = cache.get(keys)
    # either the journal is ignored (the file is intact) or the cache was moved aside
    assert found == {} or all(found[k].startswith("reply ") for k in found)


@pytest.mark.parametrize("obstacle", ["a folder", "read-only"])
def test_a_cache_that_cannot_be_used_is_skipped_not_moved(tmp_path, obstacle):
    if obstacle == "a folder":
        (tmp_path / "replies.sqlite").mkdir()
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes through read-only permissions")
        _filled(tmp_path, 5)
        os.chmod(tmp_path / "replies.sqlite", 0o444)
        os.chmod(tmp_path, 0o555)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cache = ReplyCache(tmp_path)
            cache.put(b"k" * 32, "x")
        assert any("cannot be used" in str(w.message) for w in caught)
        assert not list(tmp_path.glob("*.corrupt-*"))
    finally:
        os.chmod(tmp_path, 0o755)


def test_a_judge_run_against_a_corrupt_cache_still_scores(tmp_path):
    llm = {"model": "stub-model", "api_key": "k", "cache_dir": tmp_path, "progress": False}
    with StubServer(lambda request, number: (200, "1", 0, None)) as server:
        endpoint = ChatEndpoint(base_url=server.base_url, **llm)
        assert endpoint.complete(["p1", "p2"]) == ["1", "1"]
        _page_corrupt_small(tmp_path / "replies.sqlite")
        with pytest.warns(UserWarning, match="moved it to"):
            again = ChatEndpoint(base_url=server.base_url, **llm).complete(["p1", "p2"])
        assert again == ["1", "1"] and len(server.requests) == 4  # asked again, not guessed
        third = ChatEndpoint(base_url=server.base_url, **llm).complete(["p1", "p2"])
        assert third == ["1", "1"] and len(server.requests) == 4  # control: the new cache


def _page_corrupt_small(path):
    """A two-row cache has one table page: damage the page its rows are on."""
    data = bytearray(path.read_bytes())
    data[4096 + 8 : 4096 + 64] = b"\xa5" * 56
    path.write_bytes(bytes(data))


def test_a_stored_reply_the_judge_now_refuses_is_asked_again_and_dropped(tmp_path):
    with StubServer(lambda request, number: (200, "1", 0, None)) as server:
        endpoint = ChatEndpoint(
            "stub-model", base_url=server.base_url, api_key="k", cache_dir=tmp_path
        )
        endpoint.complete(["p"])  # finds the identity; stores "1"
        cache = ReplyCache(tmp_path)
        cache.put(endpoint._key("p", None), "Sure! Maybe.")  # as an older argbench stored it
        cache.close()
        replies = endpoint.complete(["p"], accept=lambda i, reply: reply in ("0", "1"))
        assert replies == ["1"] and len(server.requests) == 2
        assert ReplyCache(tmp_path).get([endpoint._key("p", None)]) == {
            endpoint._key("p", None): "1"
        }
