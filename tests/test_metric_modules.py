"""Every metric module as evaluate's own metrics are tested: its docstring examples run, and
its ``_compute`` names every option (no ``**kwargs``), so callers can check options."""

from __future__ import annotations

import ast
import copy
import doctest
import inspect
import math
import os
import re
import shutil
import sys
from pathlib import Path

import evaluate
import pytest

import argbench
from argbench.metrics import metric_path
from argbench.scoring import features, metric_function

METRICS = argbench.list_metrics()


@pytest.mark.parametrize("name", METRICS)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    """The examples of ``_KWARGS_DESCRIPTION`` run from any folder (here an empty temp one, not
    the checkout), in a fresh namespace: they reach the module through the installed argbench."""
    metric = argbench.load_metric(name)
    module = inspect.getmodule(type(metric))
    monkeypatch.chdir(tmp_path)
    examples = doctest.DocTestParser().get_doctest(
        module._KWARGS_DESCRIPTION, {}, name, module.__file__, 0
    )
    assert examples.examples, f"{name}: _KWARGS_DESCRIPTION has no runnable example"
    assert "metrics/" not in module._KWARGS_DESCRIPTION, f"{name}: a path that needs the checkout"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(examples)
    assert runner.failures == 0, f"{name}: {runner.failures} docstring example(s) failed"


@pytest.mark.parametrize("name", METRICS)
def test_compute_names_its_options(name):
    metric = argbench.load_metric(name)
    parameters = inspect.signature(metric._compute).parameters.values()
    assert not any(p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) for p in parameters)
    assert os.path.isfile(metric_path(name) / "README.md")


# ---- the module and its plain function (what `argbench evaluate` calls) are one metric ----

ARGUMENTS = ["Cats are smarter than dogs.", "Dogs are more loyal than cats."]
EXAMPLES = {
    "annotator_agreement": {"ratings": [[0, 0, 1], [2, 2, 2], [1, None, 1], [3, 3, 2]]},
    "argument_answer_coherence": {
        "predictions": ["Cats are clever [1]. Dogs are loyal [1, 2].", "Both are fine [2]."],
        "references": [ARGUMENTS, ARGUMENTS],
        "judge": lambda argument, excerpt: argument.split()[0] == excerpt.split()[0],
    },
    "argument_overlap": {
        "predictions": ["Speed: Cats are smarter than dogs [1].", "Dogs are loyal [2]."],
        "references": [ARGUMENTS, ARGUMENTS],
    },
    "argument_relevance": {
        "predictions": ["A is faster [1, 2]. B is cheaper [generated].", "Only [3]."],
        "references": [[3, 0, 2], [1, None, 2]],
    },
    "bradley_terry": {
        "item_a": ["x", "x", "y", "z", "u"],
        "item_b": ["y", "z", "z", "x", "v"],
        "outcome": ["a", "a", "tie", "b", "b"],
        "group": ["t", "t", "t", "t", "s"],
    },
    "claim_relation": {
        "predictions": [0.9, 0.2, 0.6, 0.4, 0.6],
        "references": [1, 0, 1, 0, 0],
        "dev_predictions": [0.8, 0.3, 0.5],
        "dev_references": [1, 0, 1],
    },
    "cq_reference_match": {
        "predictions": [["Is the source reliable?", "Why?"], ["Who says so?"]],
        "references": [
            [{"id": "a", "cq": "Is the source reliable?", "label": "Useful"}],
            [{"id": "b", "cq": "Who says so?", "label": 2}],
        ],
        "matcher": lambda question, cqs: cqs.index(question) if question in cqs else None,
    },
    "cr_diversity": {"predictions": ["Is the claim true?", "Is the claim true?", "Who says so?"]},
    "rationale_f1": {
        "predictions": [["Stone as the access point"], []],
        "references": [["Stone as the access point to WikiLeaks"], ["saw"]],
        "contexts": ["Officials saw Stone as the access point to WikiLeaks.", "Officials saw it."],
    },
}


def test_every_metric_has_an_example():
    assert sorted(EXAMPLES) == METRICS


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b and type(a) is type(b)


@pytest.mark.parametrize("name", METRICS)
def test_function_and_module_compute_the_same(name):
    """`argbench evaluate` calls argbench.scoring.<name>.<name>; evaluate.load runs the module."""
    function, inputs = metric_function(name)
    metric = argbench.load_metric(name)
    # plus the optional per-example inputs (metrics/_inputs.py), which the CLI passes as options
    assert features({**inputs, **getattr(metric, "OPTIONAL_INPUTS", {})}) == metric.features
    module_parameters = list(inspect.signature(metric._compute).parameters.values())
    function_parameters = list(inspect.signature(function).parameters.values())
    assert [(p.name, p.default) for p in module_parameters] == [
        (p.name, p.default) for p in function_parameters
    ]
    example = EXAMPLES[name]
    direct = function(**copy.deepcopy(example))
    through_evaluate = metric.compute(**copy.deepcopy(example))
    assert _same(direct, through_evaluate), (direct, through_evaluate)


# ---- each metric folder is an evaluate Space ----


def _pyproject_version() -> str:
    text = (Path(__file__).parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    return re.search(r'^version = "(.+)"$', text, flags=re.M).group(1)


def test_package_version_is_the_pyproject_version():
    assert argbench.__version__ == _pyproject_version()


@pytest.mark.parametrize("name", METRICS)
def test_folder_is_an_evaluate_space(name):
    from huggingface_hub import SpaceCard
    from packaging.requirements import Requirement

    folder = metric_path(name)
    (requirement,) = [
        Requirement(line)
        for line in (folder / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert requirement.name == "argbench" and str(requirement.specifier) == (
        f"=={_pyproject_version()}"
    )
    card = SpaceCard.load(folder / "README.md").data
    assert card.sdk == "gradio" and card.app_file == "app.py" and card["pinned"] is False
    assert card.sdk_version.startswith("3.")  # evaluate's launcher uses gradio 3's gr.inputs
    from argbench.metrics import module_type

    assert card.tags[:2] == ["evaluate", module_type(name)]  # cr_diversity: a measurement
    assert card.title != name and card.title[0].isupper()  # human-readable
    assert card["emoji"] and card["colorFrom"] and card["colorTo"]
    assert " ".join(card["description"].split()) == " ".join(
        argbench.load_metric(name).description.split()
    )
    app = ast.parse((folder / "app.py").read_text())  # parsed, not run: no gradio at test time
    calls = {
        ast.unparse(node.func): [ast.unparse(a) for a in node.args]
        for node in ast.walk(app)
        if isinstance(node, ast.Call)
    }
    kind = "" if module_type(name) == "metric" else ", module_type='measurement'"
    assert calls["launch_gradio_widget"] == [
        f"evaluate.load(str(Path(__file__).with_name('{name}.py')){kind})"
    ]


@pytest.mark.parametrize("name", ["cr_diversity", "cq_reference_match"])
def test_a_copy_of_the_folder_loads_where_argbench_is_installed(name, tmp_path, monkeypatch):
    """What a Space holds: the folder alone, elsewhere; evaluate.load(folder) must work."""
    copy_dir = tmp_path / name
    shutil.copytree(metric_path(name), copy_dir)
    monkeypatch.chdir(tmp_path)
    metric = evaluate.load(str(copy_dir))
    example = EXAMPLES[name]
    assert _same(metric.compute(**example), argbench.load_metric(name).compute(**example))


def test_without_argbench_evaluate_asks_for_it(tmp_path, monkeypatch):
    """Why a Space needs requirements.txt: evaluate imports each top-level module the script
    imports (`importlib.import_module`) and names those that fail as missing dependencies."""
    copy_dir = tmp_path / "cr_diversity"
    shutil.copytree(metric_path("cr_diversity"), copy_dir)
    monkeypatch.setitem(sys.modules, "argbench", None)  # `import argbench` now fails
    with pytest.raises(ImportError, match=r"install the following dependencies\['argbench'\]"):
        evaluate.load(str(copy_dir))


@pytest.mark.parametrize("name", METRICS)
def test_every_printed_value_is_defined_in_the_card(name):
    """`argbench evaluate` prints each scalar with its meaning from the card's Outputs table:
    a value the card does not define is a drift between code and card."""
    from argbench.cli.evaluate import format_table, scalars
    from argbench.metrics import output_meanings

    function, _ = metric_function(name)
    result = function(**copy.deepcopy(EXAMPLES[name]))
    meanings = output_meanings(name)
    rows, _ = scalars({k: v for k, v in result.items() if k != "signature"})
    undefined = [n for n, _ in rows if not (meanings.get(n) or meanings.get(n.split(".")[0]))]
    assert not undefined, f"{name}: the card's Outputs table does not define {undefined}"
    table = format_table(result, name)
    assert all((meanings.get(n) or meanings[n.split(".")[0]]) in table for n, _ in rows)
    assert str(metric_path(name) / "README.md") in table
