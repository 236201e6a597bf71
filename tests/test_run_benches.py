"""scripts/run_benches.py on stand-in benches: a timed-out bench is stopped with the process it
started and recorded as such; --append finishes a run in parts; --only keeps its order; the
``argbench-bench-summary:`` lines (scripts/summary_line.py) are collected, a malformed one or
none at all fails the bench, naming it. That every real bench prints its summary at --small is
CI's `make benches` step (run_benches exits 1 on a bench without one), not run twice here."""

from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOOD = (
    'argbench-bench-summary: {"work": "sort 1,000 items", "baseline": "bubble sort", '
    '"baseline_s": 2.0, "argbench_s": 0.5, "ratio": 4.0, "items": 1000}'
)


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / f"scripts/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _runner(scripts: Path):
    module = _load("run_benches")
    module.SCRIPTS = scripts
    return module


def test_timeout_append_and_order(tmp_path):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "bench_fast.py").write_text(f"print('fast ratio x2.0')\nprint({GOOD!r})\n")
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


@pytest.mark.parametrize(
    "line, why",
    [
        ("argbench-bench-summary: {work: 1}", "not JSON"),
        ('argbench-bench-summary: ["work"]', "not a JSON object"),
        (GOOD.replace('"ratio": 4.0, ', ""), "without ratio"),
        (GOOD.replace('"ratio": 4.0', '"ratio": 3.0'), "is not baseline_s / argbench_s"),
        (GOOD.replace('"baseline_s": 2.0', '"baseline_s": "2.0"'), "baseline_s must be a number"),
        (GOOD.replace('"argbench_s": 0.5', '"argbench_s": 0'), "argbench_s must be a positive"),
        (GOOD.replace('"baseline_s": 2.0', '"baseline_s": NaN'), "baseline_s must be a positive"),
        (GOOD.replace('"work": "sort 1,000 items"', '"work": " "'), "work must be a non-empty"),
    ],
)
def test_a_malformed_summary_line_is_refused_naming_the_bench(line, why):
    summary_line = _load("summary_line")
    with pytest.raises(summary_line.BadSummary, match=why) as error:
        summary_line.parse_summaries(f"human output\n{line}\n", "bench_x")
    assert str(error.value).startswith("bench_x: line 2:")
    # the control: the good line, with its extra key, and the line the helper prints
    (good,) = summary_line.parse_summaries(f"human output\n{GOOD}\n", "bench_x")
    assert good == {**json.loads(GOOD.split(": ", 1)[1])}
    printed = summary_line.summary_line("w", "b", 0.271834, 0.000157, n=3)
    assert summary_line.parse_summaries(printed, "bench_x")[0]["ratio"] == pytest.approx(1731.43)


def _summary_run(tmp_path, capsys):
    """run_benches over three stand-in benches (good, bad ratio, silent): (benches.json's
    runs by name, stderr, the output folder)."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    second = GOOD.replace("sort 1,000 items", "sort 2,000 items")
    (scripts / "bench_good.py").write_text(f"print('x4')\nprint({GOOD!r})\nprint({second!r})\n")
    bad = GOOD.replace('"ratio": 4.0', '"ratio": 40.0')
    (scripts / "bench_bad.py").write_text(f"print('x4')\nprint({bad!r})\n")
    (scripts / "bench_silent.py").write_text("print('ratio x4, in words only')\n")
    out = tmp_path / "out"
    assert _runner(scripts).main(["--out", str(out)]) == 1
    err = capsys.readouterr().err
    runs = {b["bench"]: b for b in json.loads((out / "benches.json").read_text())["benches"]}
    return runs, err, out


def test_summaries_are_collected_and_a_bad_or_missing_one_fails_its_bench(tmp_path, capsys):
    runs, err, _ = _summary_run(tmp_path, capsys)
    assert "error: bench_bad: line 2: summary ratio 40.0 is not baseline_s / argbench_s" in err
    assert "error: bench_silent: printed no argbench-bench-summary: line" in err
    assert "failed: bench_bad, bench_silent" in err
    good = runs["bench_good"]["summary"]
    assert [s["work"] for s in good] == ["sort 1,000 items", "sort 2,000 items"]
    assert all(s["ratio"] == 4.0 and s["items"] == 1000 for s in good)
    assert all(s["date"] == runs["bench_good"]["started"] for s in good)
    assert all("CPUs, load " in s["machine"] for s in good)
    assert runs["bench_bad"]["summary"] == [] and "bench_bad" in runs["bench_bad"]["summary_error"]
    assert runs["bench_good"]["returncode"] == 0 and "summary_error" not in runs["bench_good"]


def test_the_performance_table_is_built_from_the_summaries_and_a_bad_entry_stops_it(
    tmp_path, capsys
):
    """The page's table from that benches.json (the docs hook: needs the docs tools, which
    CI's newest-releases venv does not install)."""
    pytest.importorskip("mkdocs")
    _, _, out = _summary_run(tmp_path, capsys)
    hooks = _load("mkdocs_hooks")
    summary = json.loads((out / "benches.json").read_text())
    with pytest.raises(hooks.BadSummary, match="bench_bad: line 2"):
        hooks.summary_table(summary, out)
    summary["benches"] = [b for b in summary["benches"] if b["bench"] != "bench_bad"]
    del summary["benches"][-1]["summary_error"]  # bench_silent as a run from before the lines
    lines = hooks.summary_table(summary, out)
    table = "\n".join(lines)
    header = "| work | baseline | baseline s | argbench s | ratio | machine | date |"
    rows = [line for line in lines[lines.index(header) :] if line.startswith("|")]
    assert len(rows) == 2 + 3 and {r.count("|") - r.count("\\|") for r in rows} == {8}, rows
    assert "| `bench_good` sort 1,000 items | bubble sort | 2 | 0.5 | x4 |" in table
    assert "| `bench_silent` no summary yet (output from before them) |" in table
    summary["benches"][0]["summary"][0]["argbench_s"] = 1.0  # typed by hand into benches.json
    with pytest.raises(hooks.BadSummary, match="bench_good: summary ratio 4.0 is not"):
        hooks.summary_table(summary, out)


def test_an_append_run_stopped_halfway_keeps_the_benches_it_did_not_reach(tmp_path):
    """--append over a whole earlier run: while the second bench runs (or if the run is
    stopped then), benches.json still holds the earlier record of every bench not yet redone."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    out = tmp_path / "out"
    for name in ("bench_a", "bench_b"):
        (scripts / f"{name}.py").write_text(f"print({GOOD!r})\n")
    runner = _runner(scripts)
    assert runner.main(["--out", str(out)]) == 0
    first = {b["bench"]: b for b in json.loads((out / "benches.json").read_text())["benches"]}
    # bench_b, run again, copies benches.json as it is while bench_b runs
    seen = tmp_path / "seen.json"
    (scripts / "bench_b.py").write_text(
        "import shutil\n"
        f"shutil.copy({str(out / 'benches.json')!r}, {str(seen)!r})\n"
        f"print({GOOD!r})\n"
    )
    assert runner.main(["--out", str(out), "--append", "--only", "bench_a", "bench_b"]) == 0
    during = {b["bench"]: b for b in json.loads(seen.read_text())["benches"]}
    assert during["bench_b"] == first["bench_b"]  # was dropped at the start of the run
    assert during["bench_a"]["started"] >= first["bench_a"]["started"]
    after = json.loads((out / "benches.json").read_text())["benches"]
    assert [b["bench"] for b in after] == ["bench_a", "bench_b"]
