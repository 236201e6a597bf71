import hashlib
import io

import pytest

from argbench import sources
from argbench.sources import ChecksumError, SourceFile, SourceNotFoundError, resolve

CONTENT = b'{"data": [], "ver": 1.0}'
GOOD = SourceFile(
    "https://example.org/o/r/" + "a" * 40 + "/x.json", hashlib.sha256(CONTENT).hexdigest()
)


def _mirror(root, content=CONTENT):
    path = root / GOOD.mirror_relpath
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    return path


def test_mirror_layout_and_commit():
    assert GOOD.mirror_relpath == "example.org/o/r/" + "a" * 40 + "/x.json"
    assert GOOD.commit == "a" * 40
    assert GOOD.filename == "x.json"


def test_sources_argument_then_environment(tmp_path, monkeypatch):
    env_path = _mirror(tmp_path / "env")
    arg_path = _mirror(tmp_path / "arg")
    monkeypatch.setenv("ARGBENCH_SOURCES", str(tmp_path / "env"))
    assert resolve(GOOD) == env_path
    assert resolve(GOOD, sources=tmp_path / "arg") == arg_path
    # a mirror without the file falls through to the next place
    assert resolve(GOOD, sources=tmp_path / "empty") == env_path


def test_checksum_mismatch_names_file_and_both_sums(tmp_path):
    _mirror(tmp_path, b"tampered")
    with pytest.raises(ChecksumError) as info:
        resolve(GOOD, sources=tmp_path)
    message = str(info.value)
    assert "x.json" in message and GOOD.sha256 in message
    assert hashlib.sha256(b"tampered").hexdigest() in message


def test_offline_missing_file_names_url_and_mirror_path(tmp_path):
    with pytest.raises(SourceNotFoundError) as info:
        resolve(GOOD, sources=tmp_path)
    assert GOOD.url in str(info.value)
    assert str(tmp_path / GOOD.mirror_relpath) in str(info.value)


class _Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_download_is_verified_cached_and_bad_download_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "0")
    served = {"body": b"corrupted"}
    monkeypatch.setattr(
        sources.urllib.request, "urlopen", lambda url, timeout: _Response(served["body"])
    )
    with pytest.raises(ChecksumError):
        resolve(GOOD)
    assert not any(p.is_file() for p in (tmp_path / "downloads").rglob("*"))

    served["body"] = CONTENT
    path = resolve(GOOD)
    assert path.read_bytes() == CONTENT
    served["body"] = b"never fetched again"
    assert resolve(GOOD) == path


def test_network_failure_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "0")

    def refuse(url, timeout):
        raise sources.urllib.error.URLError("no route")

    monkeypatch.setattr(sources.urllib.request, "urlopen", refuse)
    with pytest.raises(SourceNotFoundError, match="could not download https://example.org"):
        resolve(GOOD)


def test_reads_outside_the_loaders_are_checksummed_too(tmp_path):
    """Scripts, tests and reproduce reach release files through the registry (path_of), so a
    corrupted mirror file fails there as it does in a build."""
    from argbench.loaders.cam_answers import release_answer_texts
    from argbench.loaders.registry import declared, path_of
    from argbench.sources import mirror_path

    for dataset, key in (("cqs_gen", "trial_output"), ("cam_answers", "silver_112")):
        target = mirror_path(tmp_path, declared(dataset)[key])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("[]")  # valid JSON, wrong content
    with pytest.raises(ChecksumError, match="output_llama8.json"):
        path_of("cqs_gen", "trial_output", tmp_path)
    with pytest.raises(ChecksumError, match="silver_112x3.json"):
        release_answer_texts(tmp_path)
    with pytest.raises(KeyError, match="declares no source 'nope'"):
        path_of("cqs_gen", "nope", tmp_path)
