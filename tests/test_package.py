import subprocess
import sys


def test_import_is_light():
    code = "import sys, argbench; heavy = {'datasets', 'evaluate', 'torch', 'sentence_transformers', 'pyarrow'}; print(sorted(heavy & set(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_public_api():
    import argbench

    for name in ("list_datasets", "load_dataset", "build", "list_metrics", "load_metric"):
        assert callable(getattr(argbench, name))
