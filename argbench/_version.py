"""argbench's version, in a module of its own (the ground floor): the modules that record it
(signatures, results documents, published tags) import it from here, never from the package
face ``argbench``. pyproject.toml carries the same string (tests/test_metric_modules.py)."""

__version__ = "0.1.0"
