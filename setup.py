"""Packages are found, not listed: every folder with an ``__init__.py`` under the folders below,
at any depth, ships under the import name its folder maps to. Everything else about the build
is in pyproject.toml (metadata, package data).

Why a setup.py: ``loaders/``, ``metrics/`` and ``dataset_cards/`` stay at the top level (the
design card) but ship as ``argbench.loaders``, ``argbench.metrics``, ``argbench.dataset_cards``.
pyproject's ``[tool.setuptools.packages.find]`` names a package by its folder's path under
``where`` (``loaders``, never ``argbench.loaders``), and ``packages`` is either that directive
or a hand-written list, not both: only code can find the subpackages under a mapped folder.
"""

from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
# import name -> folder
PACKAGE_DIRS = {
    "argbench": "argbench",
    "argbench.loaders": "loaders",
    "argbench.metrics": "metrics",
    "argbench.dataset_cards": "dataset_cards",
}


def find_packages() -> list[str]:
    """Each folder holding an ``__init__.py`` (a metric folder, an evaluate module, has none)."""
    found = []
    for name, folder in PACKAGE_DIRS.items():
        for init in (HERE / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(HERE / folder).parts
            if "__pycache__" not in parts:
                found.append(".".join((name, *parts)))
    return sorted(found)


setup(package_dir=PACKAGE_DIRS, packages=find_packages())
