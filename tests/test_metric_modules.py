"""Every metric module as evaluate's own metrics are tested: its docstring examples run, and
its ``_compute`` names every option (no ``**kwargs``), so callers can check options."""

from __future__ import annotations

import doctest
import inspect
import os

import pytest

import argbench
from argbench.metrics import metric_path

METRICS = argbench.list_metrics()


@pytest.mark.parametrize("name", METRICS)
def test_docstring_examples_run(name, monkeypatch):
    """The examples of ``_KWARGS_DESCRIPTION`` (evaluate.load("metrics/<name>") from the
    checkout root, as the docstrings say)."""
    metric = argbench.load_metric(name)
    module = inspect.getmodule(type(metric))
    monkeypatch.chdir(metric_path(name).parents[1])
    monkeypatch.setattr(module, "evaluate", __import__("evaluate"), raising=False)
    examples = doctest.DocTestParser().get_doctest(
        module._KWARGS_DESCRIPTION, vars(module).copy(), name, module.__file__, 0
    )
    assert examples.examples, f"{name}: _KWARGS_DESCRIPTION has no runnable example"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(examples)
    assert runner.failures == 0, f"{name}: {runner.failures} docstring example(s) failed"


@pytest.mark.parametrize("name", METRICS)
def test_compute_names_its_options(name):
    metric = argbench.load_metric(name)
    parameters = inspect.signature(metric._compute).parameters.values()
    assert not any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in parameters)
    assert os.path.isfile(metric_path(name) / "README.md")
