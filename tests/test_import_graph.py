"""argbench's import graph keeps the house's floors: each layer imports only from the layers
below it, modules import each other without cycles, and no argbench -> argbench import hides
inside a function unless it keeps a heavy library off `import argbench`.

The graph is read from the source text with `ast` (nothing is imported): every module of
`argbench/`, `loaders/` (installed as `argbench.loaders`) and `metrics/` (`argbench.metrics`).

Run it as a script to see the numbers:

    python tests/test_import_graph.py --stats             # counts, breaks, cycles
    python tests/test_import_graph.py --closure argbench.cli.evaluate   # modules and layers
    python tests/test_import_graph.py --trace evaluate cr_diversity FILE  # what a run imports
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# the package's folders, by the installed name of each (pyproject.toml: package-dir)
PACKAGE_DIRS = {
    "argbench": "argbench",
    "argbench.loaders": "loaders",
    "argbench.metrics": "metrics",
}

# The floors, lowest first (docs/development.md, "Layers"). A module sits on the floor of the
# longest prefix listed here (the package face `argbench` only itself); a package's `__init__`
# sits on its package's floor. Modules the house does not name sit with their package:
# loaders.registry (the release files by dataset name) on data; llm/* on engines; every
# scoring/* (significance, bradley_terry, bt_newton, pair_design, sparsification,
# cq_human_agreement, cq_submissions: computations over metric outputs and judgments) and the
# metrics' evaluate modules and Space apps on scoring; results/write on results;
# leaderboard/* and harness/lm_eval_tasks on outputs.
LAYERS: list[tuple[str, list[str]]] = [
    (
        "ground",
        [
            "argbench.io",
            "argbench.sources",
            "argbench.errors",
            "argbench.constants",
            "argbench._version",
            "argbench.signature",
            "argbench.models",
            "argbench.tokenize",
            "argbench.cache_files",
            "argbench.citations",
            "argbench.browser",
        ],
    ),
    ("data", ["argbench.loaders", "argbench.load", "argbench.layout"]),
    ("engines", ["argbench.embedding", "argbench.embedding_store", "argbench.llm"]),
    ("scoring", ["argbench.scoring", "argbench.metrics", "argbench.records"]),
    ("tasks", ["argbench.tasks"]),
    ("results", ["argbench.results"]),
    (
        "outputs",
        [
            "argbench.harness",
            "argbench.hub_eval",
            "argbench.eee",
            "argbench.reproduce",
            "argbench.leaderboard",
            "argbench.publish",
            "argbench.space_bundle",
        ],
    ),
    ("face", ["argbench.cli", "argbench"]),
]

# Libraries heavy enough that argbench imports them inside the functions that use them, so
# that `import argbench` and `argbench --help` stay fast (DESIGN.md, Conventions). Times are
# `python -X importtime` on the development machine; none is loaded by `argbench --help`.
HEAVY = {
    "datasets",  # ~2.4 s: pyarrow, pandas, fsspec, huggingface_hub
    "evaluate",
    "torch",
    "sentence_transformers",
    "transformers",
    "openai",
    "gradio",
    "matplotlib",
    "spacy",
    "scipy",
    "pandas",
    "pyarrow",
    "inspect_ai",
    "lm_eval",
    "numpy",  # ~0.1 s
    "yaml",  # ~25 ms
    "urllib.request",  # ~30 ms with http.client, email and ssl
    "asyncio",  # ~35 ms
}

# The argbench modules that may be imported inside a function, each with the heavy library
# its import brings in. Checked both ways: the library must be in the module's import
# closure, and an importer that already loads that library at its top must import the
# module at its top too (nothing is saved by waiting).
LAZY_MODULES: dict[str, str] = {
    "argbench.load": "datasets",  # builders run in-process
    "argbench.loaders.claimdiff": "datasets",
    "argbench.layout": "datasets",
    "argbench.embedding": "numpy",  # (sentence-transformers only when a text is encoded)
    "argbench.scoring.bradley_terry": "numpy",
    "argbench.scoring.claim_relation": "numpy",
    "argbench.scoring.cq_reference_match": "numpy",
    "argbench.scoring.significance": "numpy",
    "argbench.scoring.statistics": "numpy",
    "argbench.scoring.sparsification": "numpy",
    "argbench.leaderboard.cqs_submissions": "numpy",
    "argbench.reproduce": "numpy",
    "argbench.reproduce.webis": "numpy",
    "argbench.hub_eval": "yaml",
    "argbench.models": "urllib.request",  # through argbench.sources
    "argbench.llm": "urllib.request",  # the LLM client
    "argbench.browser": "asyncio",  # the headless browser's driver
}

# The command line's parser imports every command module (argbench.cli.COMMANDS), so a
# command imports its implementation on the outputs floor (the leaderboard, publishing, the
# harnesses, the reproduction) inside its function: `argbench evaluate` loads none of them.
COMMANDS = "argbench.cli."
COMMANDS_IMPORT_LATE = "outputs"

# The package face `argbench/__init__.py` runs before any submodule is imported (`import
# argbench.io` runs it first), so it imports nothing of argbench at its top but the version:
# each import there would be paid by every submodule import. Its functions import what they
# wrap, and are exempt.
FACE = "argbench"

# Known problems in modules other work is rewriting now, tolerated by the tests until it lands
# (reported by --stats all the same). This list is to be emptied, never extended. Each entry is
# (importing module, imported module).
KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported argbench module
    line: int
    in_function: bool


def module_files(root: Path, package_dirs: dict[str, str]) -> dict[str, Path]:
    """Installed module name -> file, for every .py file of the package's folders."""
    modules: dict[str, Path] = {}
    for package, folder in package_dirs.items():
        base = root / folder
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([package, *parts])] = path
    return modules


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return name in modules and modules[name].name == "__init__.py"


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of dotted ``name`` that is a module of the package."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _targets(node: ast.AST, source: str, modules: dict[str, Path], top: str) -> list[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        return [t for n in names if n.split(".")[0] == top and (t := _resolve(n, modules))]
    assert isinstance(node, ast.ImportFrom)
    if node.level:
        package = source if _is_package(source, modules) else source.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    if base.split(".")[0] != top:
        return []
    found = []
    for alias in node.names:
        # `from argbench.x import y` imports the submodule argbench.x.y when there is one
        sub = f"{base}.{alias.name}"
        target = sub if sub in modules else _resolve(base, modules)
        if target:
            found.append(target)
    return found


def _third_party(node: ast.AST, top: str) -> list[str]:
    """Dotted names of the other packages' modules ``node`` imports."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] != top]
    if isinstance(node, ast.ImportFrom) and not node.level and node.module:
        return [] if node.module.split(".")[0] == top else [node.module]
    return []


class _Walker(ast.NodeVisitor):
    def __init__(self, source: str, modules: dict[str, Path], top: str):
        self.source, self.modules, self.top = source, modules, top
        self.depth = 0
        self.imports: list[Import] = []
        self.libraries: set[str] = set()  # third-party modules imported at module level

    def _function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _import(self, node):
        for target in dict.fromkeys(_targets(node, self.source, self.modules, self.top)):
            if target != self.source:
                self.imports.append(Import(self.source, target, node.lineno, self.depth > 0))
        if self.depth == 0:
            self.libraries.update(_third_party(node, self.top))

    visit_Import = visit_ImportFrom = _import


@dataclass
class Graph:
    modules: dict[str, Path]
    imports: list[Import]
    libraries: dict[str, set[str]]  # module -> third-party libraries imported at its top
    _closures: dict = field(default_factory=dict, repr=False)

    def edges(self, *, in_function: bool | None = None) -> set[tuple[str, str]]:
        return {
            (i.source, i.target)
            for i in self.imports
            if in_function is None or i.in_function == in_function
        }

    def closure(self, start: str, *, in_function: bool = False) -> set[str]:
        """Modules imported, directly or not, by importing ``start``, the packages that hold
        each included (Python runs ``a/__init__`` before ``a.b``); ``in_function=True``: also
        what their functions import, i.e. what calling into them may load."""
        edges: dict[str, set[str]] = {}
        for i in self.imports:
            if in_function or not i.in_function:
                edges.setdefault(i.source, set()).add(i.target)
        for module in self.modules:
            parent = module.rpartition(".")[0]
            if parent in self.modules:
                edges.setdefault(module, set()).add(parent)
        seen, todo = {start}, [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen


def read_graph(root: Path = ROOT, package_dirs: dict[str, str] = PACKAGE_DIRS) -> Graph:
    modules = module_files(root, package_dirs)
    top = next(iter(package_dirs))
    imports: list[Import] = []
    libraries: dict[str, set[str]] = {}
    for name, path in modules.items():
        walker = _Walker(name, modules, top)
        walker.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        imports += walker.imports
        libraries[name] = walker.libraries
    return Graph(modules, imports, libraries)


@functools.cache
def package_graph() -> Graph:
    """argbench's own graph, read once per process."""
    return read_graph()


def layer_of(module: str, layers: list[tuple[str, list[str]]] = LAYERS) -> int:
    best, floor = "", -1
    for index, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            within = "." in prefix and module.startswith(prefix + ".")
            if (module == prefix or within) and len(prefix) > len(best):
                best, floor = prefix, index
    if floor < 0:
        raise KeyError(f"{module} sits on no floor: add it to LAYERS")
    return floor


def climbing(graph: Graph, layers=LAYERS) -> list[Import]:
    """Imports (at any depth) of a module on a higher floor than the importer's."""
    return [i for i in graph.imports if layer_of(i.target, layers) > layer_of(i.source, layers)]


def cycles(graph: Graph, *, in_function: bool = False) -> list[list[str]]:
    """Strongly connected groups of two or more modules over module-level imports
    (``in_function=True``: over every import, as if each were hoisted)."""
    edges: dict[str, list[str]] = {}
    for source, target in sorted(graph.edges(in_function=None if in_function else False)):
        edges.setdefault(source, []).append(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))
    for v in sorted(graph.modules):
        if v not in index:
            visit(v)
    return sorted(found)


def brought_in(graph: Graph, module: str, heavy=HEAVY) -> set[str]:
    """The heavy libraries importing ``module`` loads (its module-level imports followed)."""
    loaded = set().union(*(graph.libraries[m] for m in graph.closure(module)))
    return {h for h in heavy for name in loaded if name == h or name.startswith(h + ".")}


def hidden(
    graph: Graph, lazy_modules: dict[str, str] = LAZY_MODULES, face: str = FACE
) -> list[Import]:
    """argbench -> argbench imports inside functions that the allowlist does not cover: the
    imported module is not in ``lazy_modules``, or the importer loads its library anyway."""
    late = [name for name, _ in LAYERS].index(COMMANDS_IMPORT_LATE)
    return [
        i
        for i in graph.imports
        if i.in_function
        and i.source != face
        and not (i.source.startswith(COMMANDS) and layer_of(i.target) == late)
        and (i.target not in lazy_modules or lazy_modules[i.target] in brought_in(graph, i.source))
    ]


def stale_allowances(graph: Graph, lazy_modules: dict[str, str] = LAZY_MODULES) -> list[str]:
    """LAZY_MODULES entries whose module no longer brings in the library named for it."""
    stale = []
    for module, library in lazy_modules.items():
        if module not in graph.modules:
            stale.append(f"{module}: no such module")
            continue
        if library not in brought_in(graph, module):
            stale.append(f"{module}: its import brings in no {library}")
    return stale


def problems(graph: Graph, exceptions: set[tuple[str, str]] = KNOWN_EXCEPTIONS, **kw):
    """(climbing imports, cycles, hidden imports), known exceptions left out."""
    layers = kw.get("layers", LAYERS)

    def known(i: Import) -> bool:
        return (i.source, i.target) in exceptions

    return (
        [i for i in climbing(graph, layers) if not known(i)],
        [c for c in cycles(graph)],
        [
            i
            for i in hidden(graph, kw.get("lazy_modules", LAZY_MODULES), kw.get("face", FACE))
            if not known(i)
        ],
    )


def _describe(i: Import, layers=LAYERS) -> str:
    where = "in a function" if i.in_function else "at the top"
    names = [name for name, _ in layers]
    return (
        f"{i.source} ({names[layer_of(i.source, layers)]}) -> {i.target} "
        f"({names[layer_of(i.target, layers)]}), line {i.line}, {where}"
    )


# ---------------------------------------------------------------- the package itself


def test_every_module_sits_on_a_floor():
    graph = package_graph()
    for module in graph.modules:
        layer_of(module)


def test_no_import_climbs_a_floor():
    breaks = problems(package_graph())[0]
    assert not breaks, "imports that climb the layers:\n" + "\n".join(map(_describe, breaks))


def test_no_cycle_between_modules():
    found = cycles(package_graph())
    assert not found, "module-level import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_hidden_argbench_import():
    found = problems(package_graph())[2]
    assert not found, (
        "argbench imports inside functions (hoist them to the top of the module, or list the "
        "imported module in LAZY_MODULES with the heavy library it brings in):\n"
        + "\n".join(map(_describe, found))
    )


def test_the_allowlists_are_current():
    graph = package_graph()
    assert not stale_allowances(graph)
    lazy = {target for _, target in graph.edges(in_function=True)}
    assert not [module for module in LAZY_MODULES if module not in lazy], "unused entries"
    assert not [pair for pair in KNOWN_EXCEPTIONS if pair not in graph.edges()]


def test_no_module_below_the_face_imports_the_face():
    """The version is argbench._version's; the face's functions are the modules' below it."""
    found = [
        i
        for i in package_graph().imports
        if i.target == FACE
        and layer_of(i.source) < layer_of(FACE)
        and (i.source, i.target) not in KNOWN_EXCEPTIONS
    ]
    assert not found, "\n".join(map(_describe, found))


# ---------------------------------------------------------------- the checker itself


def _package(tmp_path: Path, files: dict[str, str]) -> Graph:
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return read_graph(tmp_path, {"pkg": "pkg"})


TOY_LAYERS = [("low", ["pkg.low", "pkg.heavy"]), ("high", ["pkg.high", "pkg"])]


def test_the_checker_reports_a_climbing_import(tmp_path):
    graph = _package(
        tmp_path,
        {"__init__.py": "", "low.py": "from pkg.high import thing\n", "high.py": "thing = 1\n"},
    )
    breaks, circles, lazy = problems(graph, set(), layers=TOY_LAYERS, lazy_modules={})
    assert [(i.source, i.target) for i in breaks] == [("pkg.low", "pkg.high")]
    assert not circles and not lazy
    with pytest.raises(KeyError, match="sits on no floor"):
        layer_of("pkg.elsewhere", TOY_LAYERS)


def test_the_checker_reports_a_circle(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "",
            "high.py": "from . import low\n",
            "low.py": "import pkg.heavy\n",
            "heavy.py": "from pkg import low\n",
        },
    )
    assert cycles(graph) == [["pkg.heavy", "pkg.low"]]
    # an import inside a function closes no circle at import time
    graph = _package(tmp_path, {"heavy.py": "def f():\n    from pkg import low\n"})
    assert cycles(graph) == []


def test_the_checker_reports_a_hidden_import(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "",
            "heavy.py": "import torch\n",
            "low.py": "",
            "high.py": (
                "def f():\n    from pkg.low import x\n"
                "def g():\n    from pkg import heavy\n"
                "class C:\n    def m(self):\n        import pkg.low\n"
            ),
        },
    )
    found = hidden(graph, lazy_modules={"pkg.heavy": "torch"}, face="pkg")
    assert [(i.source, i.target, i.line) for i in found] == [
        ("pkg.high", "pkg.low", 2),
        ("pkg.high", "pkg.low", 7),
    ]
    # waiting saves nothing when the importer loads the library itself: reported
    graph = _package(tmp_path, {"high.py": "import torch\ndef g():\n    from pkg import heavy\n"})
    found = hidden(graph, lazy_modules={"pkg.heavy": "torch"}, face="pkg")
    assert [(i.source, i.target, i.line) for i in found] == [("pkg.high", "pkg.heavy", 3)]
    # a lazy module that no longer brings its library in is reported
    assert stale_allowances(graph, {"pkg.heavy": "torch"}) == []
    assert stale_allowances(graph, {"pkg.low": "torch"}) == [
        "pkg.low: its import brings in no torch"
    ]


def test_from_package_import_name_resolves_to_the_submodule(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "",
            "sub/__init__.py": "VALUE = 1\n",
            "sub/mod.py": "from . import VALUE\nfrom .. import low\n",
            "low.py": "from pkg.sub import mod, VALUE\n",
        },
    )
    assert sorted(graph.edges()) == [
        ("pkg.low", "pkg.sub"),
        ("pkg.low", "pkg.sub.mod"),
        ("pkg.sub.mod", "pkg.low"),
        ("pkg.sub.mod", "pkg.sub"),
    ]


# ---------------------------------------------------------------- numbers, for people


def stats(graph: Graph) -> str:
    def known(found: list[Import]) -> str:
        n = sum((i.source, i.target) in KNOWN_EXCEPTIONS for i in found)
        return f"{len(found)} ({n} of them KNOWN_EXCEPTIONS)"

    total = len({(i.source, i.line) for i in graph.imports})
    inside = len({(i.source, i.line) for i in graph.imports if i.in_function})
    lines = [
        f"argbench -> argbench import statements: {total}, inside functions: {inside} "
        f"({100 * inside / total:.0f} %)"
    ]
    breaks = climbing(graph)
    lines.append(f"imports that climb the layers: {known(breaks)}")
    lines += ["  " + _describe(i) for i in breaks]
    found = cycles(graph)
    lines.append(f"module-level cycles: {len(found)}")
    lines += ["  " + " <-> ".join(c) for c in found]
    hoisted = cycles(graph, in_function=True)
    lines.append(f"cycles counting imports inside functions too: {len(hoisted)}")
    lines += ["  " + " <-> ".join(c) for c in hoisted]
    lazy = hidden(graph)
    lines.append(f"argbench imports inside functions outside LAZY_MODULES: {known(lazy)}")
    lines += ["  " + _describe(i) for i in lazy]
    face = [i for i in graph.imports if i.target == FACE and layer_of(i.source) < layer_of(FACE)]
    lines.append(f"imports of the package face `argbench` below the face: {known(face)}")
    lines += ["  " + _describe(i) for i in face]
    return "\n".join(lines)


def by_layer(title: str, reached) -> str:
    names = [name for name, _ in LAYERS]
    floors = Counter(layer_of(m) for m in reached)
    lines = [f"{title}: {len(set(reached))} modules on {len(floors)} floors"]
    for floor in sorted(floors):
        members = sorted(m for m in set(reached) if layer_of(m) == floor)
        lines.append(f"  {names[floor]} ({len(members)}): {', '.join(members)}")
    return "\n".join(lines)


def closure_by_layer(graph: Graph, start: str, *, in_function: bool = True) -> str:
    reached = graph.closure(start, in_function=in_function)
    followed = " (imports inside functions followed)" if in_function else ""
    return by_layer(f"{start}{followed}", reached)


def trace(argv: list[str]) -> str:
    """The argbench modules one ``argbench ARGV`` run imports, by floor (a fresh process)."""
    code = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] == 'argbench')), file=sys.__stderr__))\n"
        "from argbench.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    reached = json.loads(done.stderr.strip().splitlines()[-1])
    return by_layer(f"argbench {' '.join(argv)} (exit status {done.returncode})", reached)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stats", action="store_true", help="counts, breaks, cycles")
    parser.add_argument("--closure", metavar="MODULE", help="what importing MODULE reaches")
    parser.add_argument(
        "--top-level-only", action="store_true", help="with --closure: module-level imports only"
    )
    parser.add_argument(
        "--trace",
        nargs=argparse.REMAINDER,
        metavar="ARGV",
        help="run `argbench ARGV` and list the argbench modules it imported, by floor",
    )
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="another checkout (default: this one)"
    )
    args = parser.parse_args()
    graph = read_graph(args.root)
    if args.trace:
        print(trace(args.trace))
    elif args.stats or not args.closure:
        print(stats(graph))
    if args.closure:
        print(closure_by_layer(graph, args.closure, in_function=not args.top_level_only))
