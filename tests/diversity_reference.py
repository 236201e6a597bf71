"""diversity 0.3.1, the peer that argbench's diversity values must equal (tests and benchmarks)."""

from __future__ import annotations

from collections.abc import Callable


def diversity_reference() -> tuple[Callable, Callable] | None:
    """diversity 0.3.1's ``compression_ratio`` and ``ngram_diversity_score``, which our values
    must equal (for tests and benchmarks); loaded without the package's ``__init__``, which
    downloads NLTK data. None when the package is not installed."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("diversity")
    if spec is None:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    functions = []
    for name, func in (
        ("compression", "compression_ratio"),
        ("ngram_diversity", "ngram_diversity_score"),
    ):
        sub = importlib.util.spec_from_file_location(f"_diversity_{name}", folder / f"{name}.py")
        module = importlib.util.module_from_spec(sub)
        sub.loader.exec_module(module)
        functions.append(getattr(module, func))
    return functions[0], functions[1]
