"""What ships is what is tested: the sdist and the wheel that ``python -m build`` makes from
this checkout hold every package folder and data file of the checkout, and the wheel,
installed in a clean venv, runs the commands from a folder outside the checkout.

``python -m build`` builds the sdist, then the wheel from that sdist (what pip does when it
installs an sdist): a package missing from the sdist is missing from the wheel too, and both
file lists are compared with the checkout. One venv (pip's cache supplies the dependencies):
every package of the checkout imported, ``argbench --version``, every subcommand's ``--help``
(read from the installed argparse parser and compared with the checkout's), and, with the
mirror, a real ``evaluate`` of two systems, ``compare`` and ``leaderboard`` on the CAM expert
answers (argument_relevance: no torch).
``make wheel-check`` runs this file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the backport `build` depends on
    import tomli as tomllib

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# import name -> folder of the checkout (the design card keeps these three at the top level)
PACKAGE_DIRS = {
    "argbench": "argbench",
    "argbench.loaders": "loaders",
    "argbench.metrics": "metrics",
    "argbench.dataset_cards": "dataset_cards",
}
# data files that ship: pyproject's package-data globs, relative to a package folder (metric
# folders are evaluate modules, not subpackages: their files are data of argbench.metrics)
DATA = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]

# run by the checkout's python and by the wheel's: every (sub)command path of the real parser
COMMANDS_SCRIPT = """
import argparse, json
from argbench.cli import parser

def walk(command, path):
    for action in command._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) not in seen:  # an alias names the same parser
                    seen.add(id(sub))
                    yield [*path, name]
                    yield from walk(sub, [*path, name])

print(json.dumps(list(walk(parser(), []))))
"""


def _folder(package: str) -> Path:
    """The checkout folder of a package name (through the mapped top-level folders)."""
    for name, folder in sorted(PACKAGE_DIRS.items(), key=lambda item: -len(item[0])):
        if package == name or package.startswith(name + "."):
            rest = package[len(name) :].lstrip(".")
            return ROOT / folder / Path(*rest.split(".")) if rest else ROOT / folder
    raise ValueError(package)


def checkout_packages() -> list[str]:
    """Every folder with an ``__init__.py`` under the package folders, at any depth."""
    found = []
    for name, folder in PACKAGE_DIRS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            if "__pycache__" not in parts:
                found.append(".".join((name, *parts)))
    return sorted(found)


def expected_files() -> dict[str, Path]:
    """Path in the wheel -> the checkout's file: each package's modules, and the data files."""
    files = {}
    for package in checkout_packages():
        folder = _folder(package)
        for module in folder.glob("*.py"):
            files["/".join([*package.split("."), module.name])] = module
    for package, patterns in DATA.items():
        folder = _folder(package)
        for pattern in patterns:
            for path in folder.glob(pattern):
                if path.is_file() and "__pycache__" not in path.parts:
                    inside = path.relative_to(folder).as_posix()
                    files["/".join([*package.split("."), inside])] = path
    return files


def run(args, cwd, env, timeout=600):
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, args))} exited {done.returncode}\n"
        f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    )
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel built from it, as ``python -m build`` makes them."""
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], ROOT, env, timeout=900)
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory):
    """A clean venv with the wheel installed; a working folder outside the checkout; its env."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    run([sys.executable, "-m", "venv", str(venv)], ROOT, env)
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], ROOT, env)
    run([python, "-m", "pip", "install", "-q", str(dist["wheel"])], ROOT, env)
    work = tmp_path_factory.mktemp("outside")
    assert ROOT not in work.parents
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        HF_HOME=str(work / "hf"),  # no dataset or metric module from another run
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        ARGBENCH_LLM_CACHE=str(work / "llm"),
    )
    env.pop("ARGBENCH_SOURCES", None)
    return {"python": python, "work": work, "env": env}


def _missing(names: set[str], wanted: dict[str, Path], prefix: str) -> list[str]:
    return sorted(f"{prefix}{path}" for path in wanted if f"{prefix}{path}" not in names)


def test_the_wheel_holds_every_package_and_data_file_of_the_checkout(dist):
    names = set(zipfile.ZipFile(dist["wheel"]).namelist())
    packages = checkout_packages()
    assert {"argbench", "argbench.loaders", "argbench.metrics", "argbench.cli"} <= set(packages)
    lost = [p for p in packages if "/".join(p.split(".")) + "/__init__.py" not in names]
    assert not lost, f"package folders of the checkout missing from {dist['wheel'].name}: {lost}"
    missing = _missing(names, expected_files(), "")
    assert not missing, f"files of the checkout missing from {dist['wheel'].name}: {missing}"
    stray = sorted(n for n in names if n.startswith(("loaders/", "metrics/", "dataset_cards/")))
    assert not stray, f"top-level folders shipped under their own name: {stray}"


def test_the_sdist_holds_every_package_and_data_file_of_the_checkout(dist):
    with tarfile.open(dist["sdist"]) as sdist:
        names = set(sdist.getnames())
    (top,) = {name.split("/")[0] for name in names}
    wanted = {path.relative_to(ROOT).as_posix(): path for path in expected_files().values()}
    missing = _missing(names, wanted, f"{top}/")
    assert not missing, f"files of the checkout missing from {dist['sdist'].name}: {missing}"


def test_the_installed_commands_run_outside_the_checkout(installed):
    python, work, env = installed["python"], installed["work"], installed["env"]
    where = run([python, "-c", "import argbench; print(argbench.__file__)"], work, env).strip()
    assert ROOT not in Path(where).parents, f"argbench imported from the checkout: {where}"
    from argbench import __version__

    assert run(["argbench", "--version"], work, env).strip() == f"argbench {__version__}"
    commands = json.loads(run([python, "-c", COMMANDS_SCRIPT], work, env))
    here = json.loads(run([sys.executable, "-c", COMMANDS_SCRIPT], ROOT, os.environ.copy()))
    assert commands == here, "the installed argbench has other subcommands than the checkout"
    assert len(commands) > 5
    for command in commands:
        out = run(["argbench", *command, "--help"], work, env)
        assert out.startswith(f"usage: argbench {' '.join(command)}"), out[:200]


FACES_SCRIPT = """
import importlib, json, sys
import argbench
from argbench.reproduce.report import published_figures

for package in json.loads(sys.argv[1]):
    importlib.import_module(package)  # with the core dependencies only
assert published_figures()  # reproduce/published.yaml, read as package data
metric = argbench.load_metric("argument_relevance")  # evaluate.load of metrics/<name>/
result = metric.compute(predictions=["Cats are smarter [1]."], references=[[3]])
assert result["f1"] == 1.0, result
print("ok")
"""


def test_every_package_imports_from_the_wheel_and_finds_its_data(installed):
    python, work, env = installed["python"], installed["work"], installed["env"]
    packages = json.dumps(checkout_packages())
    assert run([python, "-c", FACES_SCRIPT, packages], work, env).strip() == "ok"


@pytest.mark.mirror
def test_evaluate_compare_leaderboard_from_the_wheel(real_mirror, installed):
    # real_mirror (session scope) skips, saying why, before the wheel is built and installed
    work, env = installed["work"], {**installed["env"], "ARGBENCH_SOURCES": str(real_mirror)}
    out = run(["argbench", "sample", "cam_answers", "--out", "experts.jsonl"], work, env)
    assert out.startswith("wrote experts.jsonl: 80 answers of cam_answers/gold/train")
    experts = [json.loads(line) for line in (work / "experts.jsonl").read_text().splitlines()]
    uncited = [{**e, "answer": e["answer"].split("[")[0]} for e in experts]
    (work / "uncited.jsonl").write_text("".join(json.dumps(e) + "\n" for e in uncited))
    for system in ("experts", "uncited"):
        out = run(
            ["argbench", "evaluate", "argument_relevance", f"{system}.jsonl"]
            + ["--dataset", "cam_answers", "--config", "gold", "--out", f"{system}.results.json"],
            work,
            env,
        )
        assert out.startswith(f"argument_relevance of {system}.jsonl on cam_answers/gold/train")
    out = run(["argbench", "compare", "experts.results.json", "uncited.results.json"], work, env)
    assert "experts - uncited" in out, out
    out = run(
        ["argbench", "leaderboard", "experts.results.json", "uncited.results.json"]
        + ["--out", "board", "--resamples", "200"],
        work,
        env,
    )
    assert (work / "board" / "index.html").is_file(), out
    (task,) = json.loads((work / "board" / "leaderboard.json").read_text())
    assert [row["system"] for row in task["rows"]] == ["experts", "uncited"]
