"""Run every bench script (``scripts/bench_*.py``, found by name, so a new bench is included)
and keep what each printed: the files the documentation takes its timings from.

    python scripts/run_benches.py --small --out bench-output   # CI: each bench at a small size
    python scripts/run_benches.py --out benchmarks             # full size (up to an hour)

Writes ``<out>/<bench>.txt`` (the bench's standard output) and ``<out>/benches.json`` (per
bench: the command, exit status, seconds, output file; and the machine). Exits 1 when any
bench fails, after running all of them, so that a broken bench is a red CI.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent


def benches() -> list[Path]:
    return sorted(SCRIPTS.glob("bench_*.py"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="pass --small to every bench")
    parser.add_argument("--out", required=True, help="folder for the output files")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these benches (bench_cli ...)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chosen = [b for b in benches() if not args.only or b.stem in args.only]
    if args.only and len(chosen) != len(args.only):
        parser.error(f"unknown bench in {args.only}; benches: {[b.stem for b in benches()]}")
    runs, failed = [], []
    for script in chosen:
        command = [sys.executable, str(script.relative_to(SCRIPTS.parent))]
        command += ["--small"] if args.small else []
        start = time.perf_counter()
        print(f"== {' '.join(['python', *command[1:]])}", flush=True)
        done = subprocess.run(
            command, cwd=SCRIPTS.parent, capture_output=True, text=True, env=os.environ
        )
        seconds = time.perf_counter() - start
        (out / f"{script.stem}.txt").write_text(done.stdout, encoding="utf-8")
        print(done.stdout, end="")
        if done.returncode:
            print(done.stderr[-3000:], file=sys.stderr)
            failed.append(script.stem)
        print(f"-- exit {done.returncode}, {seconds:.1f} s", flush=True)
        runs.append(
            {
                "bench": script.stem,
                "command": " ".join(["python", *command[1:]]),
                "returncode": done.returncode,
                "seconds": round(seconds, 1),
                "output": f"{script.stem}.txt",
            }
        )
    machine = f"{platform.platform()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
    summary = {"small": args.small, "machine": machine, "benches": runs}
    (out / "benches.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
