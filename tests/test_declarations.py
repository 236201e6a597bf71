"""A benchmark task and a metric are each declared once, and everything else reads the
declaration: the Hub's eval.yaml, the lm-eval and inspect tasks, the results' pairing key, the
command line's columns. These tests hold the declarations to that."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from argbench import list_datasets, list_metrics
from argbench.harness import lm_eval_glue, runs
from argbench.hub_eval import eval_yaml
from argbench.scoring import declared_metrics, headline_of
from argbench.tasks import TaskDeclarationError, hub_tasks, read_tasks, samples, task, tasks

ROOT = Path(__file__).resolve().parents[1]


def test_every_metric_folder_has_one_declaration_and_back():
    """Adding a metric is its scoring module (with METRIC) and its metrics/<name>/ folder."""
    assert list(declared_metrics()) == list_metrics()
    for name, spec in declared_metrics().items():
        assert set(spec.columns) >= set(spec.inputs), name  # every input has a record field
        if spec.headline:
            assert spec.headline.aggregation in ("mean", "corpus")
    assert headline_of("claim_relation").aggregation == "corpus"
    assert declared_metrics()["cr_diversity"].module_type == "measurement"
    with pytest.raises(ValueError, match="cr_diversity has no headline figure"):
        headline_of("cr_diversity")


def test_the_prompts_hash_as_before_the_declarations():
    """A results file names its task's prompt by hash: moving the prompts into the declarations
    changed no hash (the same run signs the same way)."""
    before = {
        "cam_answers": "518dac3b",
        "claimdiff_s": "9c731061",
        "claimdiff_w": "9c731061",
        "cqs_gen_test": "7e684435",
        "cqs_gen": "7e684435",
    }
    hashes = {name: runs.identity(name)["prompt"] for name in tasks(harness=True)}
    assert {name: hashes[name] for name in before} == before
    # a new task with a new prompt pins its hash here
    assert set(hashes.values()) == set(before.values())


def test_hub_tasks_and_eval_yaml_come_from_the_declarations():
    ids = {(h.task, h.id) for h in hub_tasks()}
    assert ("cqs_gen_test", "cq_reference_match") in ids
    assert ("claimdiff_rationales", "rationale_f1") in ids
    assert len({(task(t).corpus, i) for t, i in ids}) == len(ids)  # unique per corpus
    text = eval_yaml("cqs_gen", "CQs-Gen", "critical questions")
    assert "id: cq_reference_match\n" in text and "split: test" in text
    assert eval_yaml("webis_argquality20", "x", "y") is None  # no task: no benchmark file
    assert {t.corpus for t in tasks().values()} <= set(list_datasets())


def test_lm_eval_files_are_written_from_the_declarations_and_resolve(tmp_path, monkeypatch):
    """lm-eval's own loader reads each written YAML and finds every function it names."""
    _yaml_loader = pytest.importorskip("lm_eval.tasks._yaml_loader")
    monkeypatch.setenv(lm_eval_glue.CACHE_ENV, str(tmp_path))
    folder = lm_eval_glue.lm_eval_path()
    assert folder.parent == tmp_path
    names = {p.name for p in folder.glob("*.yaml")}
    assert names == {f"argbench_{name}.yaml" for name in tasks(harness=True)}
    for path in sorted(folder.glob("*.yaml")):
        config = _yaml_loader.load_yaml(path, resolve_func=True)
        name = config["task"].removeprefix("argbench_")
        assert callable(config["doc_to_text"]) and callable(config["process_results"])
        assert [m["metric"] for m in config["metric_list"]] == list(runs.figures(name))
    assert lm_eval_glue.lm_eval_path() == folder  # written once: the same folder again
    with pytest.raises(AttributeError, match="no function 'prompt__nonexistent'"):
        lm_eval_glue.function("prompt__nonexistent")


def test_inspect_registers_one_task_per_harness_declaration():
    pytest.importorskip("inspect_ai")
    from argbench.harness import _registry

    assert sorted(_registry.__all__) == sorted(tasks(harness=True))


def _declare(folder: Path, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "corpus.yaml").write_text(textwrap.dedent(text))
    return folder


GOOD = """\
corpus: cqs_gen
tasks:
  - name: mine
    corpus: cqs_gen
    config: interventions
    split: validation
    id_fields: [intervention_id]
    prediction: cqs
    metrics: [cq_reference_match]
    description: a task
"""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("metrics: [cq_reference_match]", "metrics: [no_such_metric]"), "unknown metric"),
        (("    description: a task\n", "    description: a task\n    colour: red\n"), "colour"),
        (("    split: validation\n", ""), "missing field.*split"),
        (("    description: a task\n", "    description: a task\n    harness: true\n"), "kind"),
        (("prediction: cqs", "prediction: cqs\n    hub: {rationale_f1: x}"), "not one of the"),
        (
            (
                "    description: a task\n",
                "    description: a task\n    harness: true\n    kind: "
                "relation\n    prompt: x\n    choices: [a, b]\n",
            ),
            "field dev: kind relation needs",
        ),
    ],
)
def test_a_malformed_declaration_names_file_task_and_field(tmp_path, change, message):
    good = read_tasks(_declare(tmp_path / "good", GOOD))
    assert good["mine"].metrics == ("cq_reference_match",)
    folder = _declare(tmp_path / "bad", GOOD.replace(*change))
    with pytest.raises(TaskDeclarationError, match=rf"corpus\.yaml, task 'mine'.*{message}"):
        read_tasks(folder)


def test_samples_are_declared_with_the_corpora():
    assert set(samples()) == {"cqs_gen", "cam_answers"}
    assert samples()["cqs_gen"].source == "trial_output"


# names (of corpora, of metrics) compared with a value (`name == "cqs_gen"`) anywhere but in
# the per-corpus places: loaders/ (one builder per corpus), argbench/reproduce/ (one module
# per paper) and the declarations themselves
_PER_CORPUS = ("loaders", "argbench/reproduce", "argbench/tasks")


def name_branches(root: Path, names) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(ROOT if root.is_relative_to(ROOT) else root).as_posix()
        if relative.startswith(_PER_CORPUS) or "/." in f"/{relative}":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                for side in (node.left, *node.comparators):
                    values = side.elts if isinstance(side, (ast.Tuple, ast.List)) else [side]
                    for value in values:
                        if isinstance(value, ast.Constant) and value.value in names:
                            found.append(f"{relative}:{node.lineno}: {value.value!r}")
    return found


def test_no_code_branches_on_a_corpus_name(tmp_path):
    corpora = set(list_datasets())
    assert name_branches(ROOT / "argbench", corpora) == []
    assert name_branches(ROOT / "metrics", corpora) == []
    # the check sees such a branch
    (tmp_path / "mod.py").write_text('def f(t):\n    return 1 if t.dataset == "claimdiff" else 2\n')
    assert name_branches(tmp_path, corpora) == ["mod.py:2: 'claimdiff'"]


def test_no_code_branches_on_a_metric_name(tmp_path):
    """A metric's facts are fields of its declaration (``Metric``: ``references_apart``,
    ``max_questions``, ``submission_field``, ...), read by the code: no comparison with a
    declared metric's name in argbench/ or metrics/ (before: five, in the command line's
    output and inputs and in evaluate_predictions)."""
    metrics = set(declared_metrics())
    assert name_branches(ROOT / "argbench", metrics) == []
    assert name_branches(ROOT / "metrics", metrics) == []
    # the check sees such a branch, in a tuple too
    (tmp_path / "mod.py").write_text(
        'def f(m):\n    return m != "cq_reference_match" or m in ("cr_diversity",)\n'
    )
    assert name_branches(tmp_path, metrics) == [
        "mod.py:2: 'cq_reference_match'",
        "mod.py:2: 'cr_diversity'",
    ]


def test_claimdiff_s_doc_runs_the_document_level_pairs(harness_env, monkeypatch):
    """The task added as one declaration: its documents are test_doc's pairs (each marked
    test) plus the dev pairs, and lm-eval and inspect have it."""
    monkeypatch.setenv("ARGBENCH_HARNESS_DATA", harness_env["env"]["ARGBENCH_HARNESS_DATA"])
    runs._cached_split.cache_clear()
    docs = runs.documents("claimdiff_s_doc")
    test_doc = runs.run_split("claimdiff", "S", "test_doc").data
    assert [d["pair_id"] for d in docs if d["part"] == "test"] == test_doc["pair_id"]
    assert any(d["part"] == "dev" for d in docs)
    assert "argbench_claimdiff_s_doc.yaml" in {
        p.name for p in lm_eval_glue.lm_eval_path().iterdir()
    }
    runs._cached_split.cache_clear()


def test_lm_eval_files_edited_or_written_twice_at_once_are_made_right(tmp_path, monkeypatch):
    """Hostile: an edited or truncated task file in the cache is replaced, not used; two
    processes writing the folder at once both get the right files."""
    monkeypatch.setenv(lm_eval_glue.CACHE_ENV, str(tmp_path / "a"))
    folder = lm_eval_glue.lm_eval_path()
    good = (folder / "argbench_cqs_gen.yaml").read_text()
    (folder / "argbench_cqs_gen.yaml").write_text(
        good.replace("max_gen_toks: 256", "max_gen_toks: 1")
    )
    (folder / "utils.py").write_text("")
    assert lm_eval_glue.lm_eval_path() == folder
    assert (folder / "argbench_cqs_gen.yaml").read_text() == good
    assert "def __getattr__" in (folder / "utils.py").read_text()
    script = "from argbench.harness.lm_eval_glue import lm_eval_path; print(lm_eval_path())"
    env = {**os.environ, lm_eval_glue.CACHE_ENV: str(tmp_path / "b")}
    procs = [
        subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = {p.communicate(timeout=120)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs) and len(outputs) == 1
    written = Path(outputs.pop())
    assert (written / "argbench_cqs_gen.yaml").read_text() == good
    assert [p.name for p in written.parent.iterdir() if p.name.startswith(".")] == []


def test_the_spaces_bundle_reads_the_declarations_from_its_zip(tmp_path):
    """The metric and leaderboard Spaces run argbench from a zip (argbench.space_bundle); the
    task declarations must be read from inside it (the results' id columns come from them).
    Control: the same question answered by the installed argbench."""
    from argbench.results import ID_COLUMNS
    from argbench.space_bundle import _bundle_zip

    bundle = tmp_path / "argbench.zip"
    bundle.write_bytes(_bundle_zip())
    script = (
        f"import sys; sys.path.insert(0, {str(bundle)!r})\n"
        "import argbench.tasks, argbench.results\n"
        "assert argbench.tasks.__file__.startswith(sys.path[0]), argbench.tasks.__file__\n"
        "print(sorted(argbench.tasks.tasks()) and argbench.results.ID_COLUMNS)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(ID_COLUMNS)
    assert ("question_id", "answer_index") in ID_COLUMNS and ("intervention_id",) in ID_COLUMNS
