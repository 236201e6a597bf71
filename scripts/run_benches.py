"""Run every bench script (``scripts/bench_*.py``, found by name, so a new bench is included)
and keep what each printed: the files the documentation takes its timings from.

    python scripts/run_benches.py --small --out bench-output   # CI: each bench at a small size
    python scripts/run_benches.py --out benchmarks             # full size (up to an hour)

Writes ``<out>/<bench>.txt`` (the bench's standard output) and ``<out>/benches.json`` (per
bench: the command, exit status, seconds, output file, ``summary``: the comparisons it printed as
``argbench-bench-summary:`` lines (scripts/summary_line.py), each with the machine and the UTC
date it ran; and the machine and UTC date of the run), rewritten
after every bench so that a long full-size run that is stopped keeps the benches that finished.
``--timeout`` stops a bench that runs longer (recorded with exit status ``null`` and
``"timed_out": true``). ``--append`` keeps the benches an earlier run of the same size wrote to
``<out>`` and adds (or replaces) the ones run now, each with the time it started and the load
average when it ended. Exits 1 when any bench fails or times out, after running all of them,
so that a broken bench is a red CI; a bench that exits 0 without a summary line, or prints a malformed
one, counts as failed (the error names the bench and the line).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from summary_line import PREFIX, BadSummary, parse_summaries  # noqa: E402 (a sibling of this file)


def without_local_paths(text: str) -> str:
    """A bench's output as the site shows it: the checkout and the environment's paths of the
    machine it ran on become ``.`` and ``<venv>`` (the docs must not show a machine's paths)."""
    return text.replace(sys.prefix, "<venv>").replace(str(SCRIPTS.parent), ".")


def benches() -> list[Path]:
    return sorted(SCRIPTS.glob("bench_*.py"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="pass --small to every bench")
    parser.add_argument("--out", required=True, help="folder for the output files")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these benches, in this order")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="stop a bench after this")
    parser.add_argument(
        "--append",
        action="store_true",
        help="keep the benches already in <out>/benches.json (same size) and add or replace "
        "the ones run now: a long full-size run finished in parts",
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    by_name = {b.stem: b for b in benches()}
    # --only runs the benches in the order given (the quick ones first, say)
    chosen = (
        [by_name[n] for n in args.only if n in by_name] if args.only else list(by_name.values())
    )
    if args.only and len(chosen) != len(args.only):
        parser.error(f"unknown bench in {args.only}; benches: {[b.stem for b in benches()]}")
    runs, failed, kept = [], [], []
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    summary_path = out / "benches.json"
    if args.append and summary_path.is_file():
        earlier = json.loads(summary_path.read_text(encoding="utf-8"))
        if earlier["small"] != args.small:
            parser.error(f"--append: {summary_path} is a run of another size")
        # an earlier bench's record stays until this run replaces it: a run stopped halfway
        # keeps the records (and output files) of the benches it did not reach
        kept = earlier["benches"]
        started = earlier.get("date", started)
    for script in chosen:
        command = [sys.executable, str(script.relative_to(SCRIPTS.parent))]
        command += ["--small"] if args.small else []
        start = time.perf_counter()
        print(f"== {' '.join(['python', *command[1:]])}", flush=True)
        run = {
            "bench": script.stem,
            "command": " ".join(["python", *command[1:]]),
            "started": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        }
        # its own process group: a bench that times out is stopped with every process it
        # started (a bench's child would otherwise hold the output pipe open)
        process = subprocess.Popen(
            command,
            cwd=SCRIPTS.parent,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=os.environ,
            start_new_session=True,
        )
        try:
            stdout, stderr = process.communicate(timeout=args.timeout)
            returncode = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, _ = process.communicate()
            returncode, stderr = None, f"timed out after {args.timeout} s"
            run["timed_out"] = True
        except BaseException:  # Ctrl-C: the bench's own session would not get it
            os.killpg(process.pid, signal.SIGKILL)
            raise
        seconds = time.perf_counter() - start
        stdout = without_local_paths(stdout or "")
        (out / f"{script.stem}.txt").write_text(stdout, encoding="utf-8")
        print(stdout or "", end="")
        if returncode != 0:
            print((stderr or "")[-3000:], file=sys.stderr)
            failed.append(script.stem)
        print(f"-- exit {returncode}, {seconds:.1f} s", flush=True)
        run.update(returncode=returncode, seconds=round(seconds, 1), output=f"{script.stem}.txt")
        run["load"] = round(os.getloadavg()[0], 1)
        machine = f"{platform.platform()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
        try:
            found = parse_summaries(stdout, script.stem)
            if not found and returncode == 0:
                raise BadSummary(f"{script.stem}: printed no {PREFIX.strip()} line")
        except BadSummary as error:
            print(f"error: {error}", file=sys.stderr)
            run["summary_error"] = str(error)
            found = []
            if script.stem not in failed:
                failed.append(script.stem)
        # each comparison says where and when it was measured (the load: the machine is shared)
        where = f"{platform.platform()}, {os.cpu_count()} CPUs, load {run['load']}"
        run["summary"] = [{**record, "machine": where, "date": run["started"]} for record in found]
        runs.append(run)
        done = {r["bench"] for r in runs}
        records = [r for r in kept if r["bench"] not in done] + runs
        summary = {"small": args.small, "machine": machine, "date": started, "benches": records}
        summary_path.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    # SIGTERM becomes SystemExit, so the bench being run is stopped with its process group
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
