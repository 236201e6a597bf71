"""``argbench reproduce``: the papers' tables, recomputed beside the published figures."""

from __future__ import annotations

from pathlib import Path

from argbench.cli import add_data_options
from argbench.io import claim_output


def _cmd_reproduce(args) -> int:
    from argbench.layout import output_folder
    from argbench.reproduce import count_sentence, reproduce

    output_folder(Path(args.out))  # a file or an unwritable place: say so before the work
    for name in ("report.md", "report.json"):  # writable, and no other run writing them
        claim_output(Path(args.out) / name, suffixes=None, what="--out")

    def run(judge, judge_note=""):
        return reproduce(
            args.out,
            sources=args.sources,
            cache_dir=args.cache_dir,
            plots=args.plots,
            model=args.model,
            judge=judge,
            judge_answers=args.judge_answers,
            judge_note=judge_note,
            log=lambda m: print(m, flush=True),
        )

    if args.judge and args.judge.startswith("gguf:"):
        from argbench.llm import SMALL_TEST_JUDGE_NOTE, packaged_gguf, serve_gguf
        from argbench.models import file_sha256

        weights = Path(args.judge[len("gguf:") :])
        # argbench serves the weights: the judge is named by their sha256, not by a name
        with serve_gguf(weights) as endpoint:
            try:  # SmolLM2 under any file name is SmolLM2: compared by content
                small = endpoint.weights_sha256 == file_sha256(packaged_gguf())
            except FileNotFoundError:
                small = False
            sections = run(endpoint, SMALL_TEST_JUDGE_NOTE if small else "")
    else:
        sections = run(args.judge)
    print()
    print((Path(args.out) / "report.md").read_text(encoding="utf-8"))
    print(
        f"report: {Path(args.out) / 'report.md'}, {Path(args.out) / 'report.json'}; "
        f"{count_sentence(sections)} (see each section's summary)"
    )
    return 0


def add_commands(sub) -> None:
    rep = sub.add_parser("reproduce", help="build the corpora and recompute the papers' tables")
    rep.add_argument(
        "--out", default="reproduction", help="folder for report.md, report.json, figures"
    )
    rep.add_argument(
        "--plots", action="store_true", help="also draw PNG figures (needs matplotlib)"
    )
    rep.add_argument(
        "--model",
        help="sentence-transformers model for every embedding metric (default: the papers' models)",
    )
    rep.add_argument(
        "--judge",
        help="LLM judge for AAC: an OpenAI-compatible model name (endpoint from OPENAI_BASE_URL), "
        "or gguf:FILE to start llama.cpp's server on that GGUF file (llama-cpp-python[server])",
    )
    rep.add_argument(
        "--judge-answers",
        type=int,
        metavar="N",
        help="judge only the first N answers of each CAM config (a quick check; not comparable)",
    )
    add_data_options(rep)
    rep.set_defaults(run=_cmd_reproduce)
