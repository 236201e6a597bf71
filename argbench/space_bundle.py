"""A metric as a Gradio Space that works where argbench is not installed.

``evaluate.load("org/name")`` only fetches ``name.py`` and the files it imports relatively,
and refuses a module whose top-level imports are missing; no package index has argbench. So
the Space carries argbench itself: :func:`space_folder` adds ``_argbench_bundle.py`` (this
argbench as a zip, put on ``sys.path`` unless the same version is installed) and imports it
first in the module, and its ``requirements.txt`` lists argbench's own dependencies instead of
argbench. Uploading and tagging is :mod:`argbench.publish`'s.
"""

from __future__ import annotations

import ast
import base64
import io
import re
import zipfile
from pathlib import Path

from argbench._version import __version__
from argbench.metrics import metric_path

# the packages a bundle holds; files of other kinds (caches, bytecode) stay out
_BUNDLED = ("argbench", "argbench.loaders", "argbench.metrics", "argbench.dataset_cards")
_BUNDLED_SUFFIXES = (".py", ".json", ".yaml", ".md", ".txt")

_BOOTSTRAP = '''"""argbench {version}, bundled: this Space works where argbench is not installed.

Imported by the metric module (relatively; evaluate fetches this file with it) or the
leaderboard app before their argbench imports. Unless argbench {version} is installed, the zip below is written beside this file
and put first on sys.path. Made by argbench.publish.space_folder; do not edit.
"""

import base64
import importlib.util
import os
import sys
from pathlib import Path

ARGBENCH_VERSION = "{version}"
_ZIP = "{data}"


def _installed_version():
    if importlib.util.find_spec("argbench") is None:
        return None
    import argbench

    return argbench.__version__


if "argbench" in sys.modules and sys.modules["argbench"].__version__ != ARGBENCH_VERSION:
    raise ImportError(
        f"argbench {{sys.modules['argbench'].__version__}} is already imported; this Space is "
        f"argbench {{ARGBENCH_VERSION}}: load it in a fresh process or install that version"
    )
if _installed_version() != ARGBENCH_VERSION:
    _path = Path(__file__).with_name(f"argbench-{{ARGBENCH_VERSION}}.zip")
    if not _path.is_file():
        _tmp = _path.with_suffix(f".{{os.getpid()}}.tmp")
        _tmp.write_bytes(base64.b64decode(_ZIP))
        os.replace(_tmp, _path)
    sys.modules.pop("argbench", None)
    sys.path.insert(0, str(_path))
'''


def _bundle_zip() -> bytes:
    """This argbench's packages as a zip (importable with zipimport: argbench is pure Python)."""
    import importlib

    buffer = io.BytesIO()
    seen = set()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for package in _BUNDLED:
            folder = Path(importlib.import_module(package).__file__).parent
            prefix = package.replace(".", "/")
            for path in sorted(folder.rglob("*")):
                relative = path.relative_to(folder)
                if (
                    path.is_file()
                    and path.suffix in _BUNDLED_SUFFIXES
                    and "__pycache__" not in relative.parts
                    and f"{prefix}/{relative.as_posix()}" not in seen
                ):
                    name = f"{prefix}/{relative.as_posix()}"
                    seen.add(name)
                    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                    archive.writestr(info, path.read_bytes(), zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def _space_requirements(folder: Path) -> str:
    return space_requirements((folder / "requirements.txt").read_text())


def space_requirements(text: str) -> str:
    """The requirements ``text`` with argbench's own requirements (and those of the extras it
    names) instead of ``argbench[...]==version``, which no package index has."""
    from importlib.metadata import requires

    wanted = text.split()
    extras = set()
    for line in wanted:
        match = re.fullmatch(r"argbench(?:\[([^\]]*)\])?==.*", line)
        if match and match[1]:
            extras.update(e.strip() for e in match[1].split(","))
    out = [line for line in wanted if not line.startswith("argbench")]
    for requirement in requires("argbench") or []:
        spec, _, marker = requirement.partition(";")
        extra = re.search(r'extra == "([^"]+)"', marker)
        if (extra is None or extra[1] in extras) and spec.strip() not in out:
            out.append(spec.strip())
    return "\n".join(out) + "\n"


def _import_bundle_first(source: str) -> str:
    """The module with its top-level argbench imports run after the bundle is on sys.path.

    They go inside ``if True:`` (evaluate checks only column-0 imports for installed
    libraries, and the bundle provides argbench).
    """
    lines = source.splitlines(keepends=True)
    spans = [
        (node.lineno - 1, node.end_lineno)
        for node in ast.parse(source).body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and any(
            name.split(".")[0] == "argbench"
            for name in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            + ([a.name for a in node.names] if isinstance(node, ast.Import) else [])
        )
    ]
    if not spans:
        return source
    first = spans[0][0]
    for start, end in reversed(spans):
        lines[start:end] = ["    " + line for line in lines[start:end]]
    header = (
        # no comment on this line: evaluate reads one after a relative import as a URL
        "from ._argbench_bundle import ARGBENCH_VERSION\n"
        "\n"
        "if True:  # argbench from the bundle unless this version is installed\n"
    )
    return "".join(lines[:first]) + header + "".join(lines[first:])


def space_folder(name: str, out: Path, module: str | None = None) -> Path:
    """The Space of metric ``name`` in ``out``: the metric folder, the module importing the
    bundle first, ``_argbench_bundle.py`` and resolvable ``requirements.txt``. ``module``: the
    Space's name, when it is not the metric's (``evaluate.load("ORG/SPACE")`` fetches
    ``SPACE.py``, so the module file and the app take that name)."""
    folder = metric_path(name)
    module_name = module or name
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(folder.iterdir()):
        if path.is_file() and not path.name.endswith(".pyc") and path.name != f"{name}.py":
            text = path.read_bytes()
            if path.name == "app.py":
                text = text.replace(f'"{name}.py"'.encode(), f'"{module_name}.py"'.encode())
            (out / path.name).write_bytes(text)
    source = (folder / f"{name}.py").read_text()
    (out / f"{module_name}.py").write_text(_import_bundle_first(source))
    (out / "requirements.txt").write_text(_space_requirements(folder))
    (out / "_argbench_bundle.py").write_text(bundle_module())
    return out


def bundle_module() -> str:
    """The text of ``_argbench_bundle.py``: this argbench as a zip, put on ``sys.path`` when
    imported unless the same version is installed (metric Spaces, the leaderboard Space)."""
    data = base64.b64encode(_bundle_zip()).decode("ascii")
    return _BOOTSTRAP.format(version=__version__, data=data)


def check_space_name(name: str, repo_id: str) -> str:
    """The module name of the Space ``repo_id``: ``evaluate.load("ORG/SPACE")`` fetches and
    imports ``SPACE.py``, so the metric's module takes the Space's name, which must be one
    Python can import."""
    space = repo_id.partition("/")[2]
    if not space.isidentifier():
        raise ValueError(
            f"{repo_id}: evaluate.load('{repo_id}') fetches and imports {space}.py, which is "
            f"not an importable module name; name the Space with letters, digits and _ "
            f"(for example ORG/{name})"
        )
    return space
