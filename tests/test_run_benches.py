"""scripts/run_benches.py on stand-in benches: a timed-out bench is stopped with the process it
started and recorded as such; --append finishes a run in parts; --only keeps its order."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _runner(scripts: Path):
    spec = importlib.util.spec_from_file_location("run_benches", ROOT / "scripts/run_benches.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.SCRIPTS = scripts
    return module


def test_timeout_append_and_order(tmp_path):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "bench_fast.py").write_text("print('fast ratio x2.0')\n")
    # a bench whose child outlives it unless the whole process group is stopped
    (scripts / "bench_slow.py").write_text(
        "import subprocess, sys, time\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(tmp_path / 'child.pid')!r}, 'w').write(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    out = tmp_path / "out"
    runner = _runner(scripts)
    start = time.monotonic()
    assert runner.main(["--out", str(out), "--timeout", "3", "--only", "bench_slow"]) == 1
    assert time.monotonic() - start < 30  # the child did not hold the pipe open
    child = int((tmp_path / "child.pid").read_text())
    time.sleep(0.5)
    try:
        os.kill(child, 0)
        alive = Path(f"/proc/{child}/stat").read_text().split()[2] != "Z"
    except ProcessLookupError:
        alive = False
    assert not alive, "the timed-out bench's child is still running"
    summary = json.loads((out / "benches.json").read_text())
    (slow,) = summary["benches"]
    assert slow["timed_out"] is True and slow["returncode"] is None
    assert (out / "bench_slow.txt").read_text() == "started\n"
    assert runner.main(["--out", str(out), "--append", "--only", "bench_fast"]) == 0
    summary = json.loads((out / "benches.json").read_text())
    assert [b["bench"] for b in summary["benches"]] == ["bench_slow", "bench_fast"]
    assert summary["benches"][1]["returncode"] == 0 and "started" in summary["benches"][1]
    assert (
        runner.main(["--out", str(out), "--only", "bench_fast", "bench_slow", "--timeout", "1"])
        == 1
    )
    summary = json.loads((out / "benches.json").read_text())
    assert [b["bench"] for b in summary["benches"]] == ["bench_fast", "bench_slow"]
