"""The Hub layout: ``README.md`` (card with YAML ``configs``/``dataset_info``) + Parquet files.

The folder ``build`` writes is what ``publish`` uploads and what
``datasets.load_dataset(folder, config)`` reads. (The module is ``layout``, not ``build``: a
submodule named ``build`` would replace the documented function ``argbench.build`` on the
package as soon as it is imported.)
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import yaml

from argbench.io import lock_file, staged_folder
from argbench.load import config_names, load
from argbench.loaders import builder_class

PARQUET_NAME = "{split}-00000-of-00001.parquet"


def card_template(name: str) -> str:
    return (
        resources.files("argbench.dataset_cards").joinpath(f"{name}.md").read_text(encoding="utf-8")
    )


def _split_front_matter(text: str) -> tuple[dict, str]:
    """(template YAML header, body)."""
    if not text.startswith("---\n"):
        return {}, text
    header, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(header) or {}, body


SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")]
SIZE_CATEGORIES += [(1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")]


def size_category(rows: int) -> str:
    """The Hub's size bucket for a number of examples."""
    return next((label for limit, label in SIZE_CATEGORIES if rows < limit), "n>10M")


def card_metadata(name: str, infos: dict, download_sizes: dict[str, int]):
    """The card's YAML as ``huggingface_hub.DatasetCardData``: the template's descriptive
    fields, plus ``configs`` and ``dataset_info`` computed from the build.

    ``datasets`` reads ``version`` from each ``configs`` entry (a ``BuilderConfig`` field) and
    ``citation``, ``description``, ``homepage``, ``license`` from each ``dataset_info`` entry
    into the loaded ``DatasetInfo``, from a folder and from the Hub alike. ``download_size`` is
    the bytes of the config's Parquet files: what ``load_dataset`` downloads (and reports).
    """
    from huggingface_hub import DatasetCardData

    cls = builder_class(name)
    header, _ = _split_front_matter(card_template(name))
    rows = {c: sum(s.num_examples for s in info.splits.values()) for c, info in infos.items()}
    configs, dataset_info = [], []
    for config, info in infos.items():
        configs.append(
            {
                "config_name": config,
                "version": str(info.version),
                "data_files": [
                    {"split": split, "path": f"data/{config}/{split}-*.parquet"}
                    for split in info.splits
                ],
                **({"default": True} if config == cls.DEFAULT_CONFIG_NAME else {}),
            }
        )
        described = info._to_yaml_dict()
        described["download_size"] = download_sizes[config]
        dataset_info.append(
            {
                "config_name": config,
                **described,
                "description": info.description,
                "citation": info.citation,
                # a one-line value last: the card parser drops the line break before "---",
                # which would cut the final newline off a multi-line value here
                "homepage": info.homepage,
                "license": info.license,
            }
        )
    return DatasetCardData(
        **header,
        size_categories=[size_category(max(rows.values()))],
        configs=configs,
        dataset_info=dataset_info,
    )


def how_to_load(name: str, infos: dict, repo_id: str | None = None) -> str:
    """The card's "How to load" section. A card published to the Hub (``repo_id``) leads with
    its Hub id at this version's tag; a card that is not (the template, ``argbench build``)
    leads with the commands that work where the reader is: argbench itself, or the folder the
    build wrote. Never a placeholder id a reader would have to guess."""
    cls = builder_class(name)
    version = str(next(iter(infos.values())).version)
    config = cls.DEFAULT_CONFIG_NAME or next(iter(infos))
    others = ", ".join(f"`{c}`" for c in infos if c != config)
    if repo_id:
        code = [
            "from datasets import load_dataset",
            "",
            f'ds = load_dataset("{repo_id}", "{config}", revision="v{version}")',
        ]
        intro = f"From the Hub, at the tag of this version (`v{version}`):"
    else:
        code = [
            "import argbench",
            "",
            f'ds = argbench.load_dataset("{name}", "{config}")',
        ]
        intro = "With argbench installed (see its Install page), from the authors' release:"
    lines = [
        intro,
        "",
        "```python",
        *code,
        "split = next(iter(ds.values()))",
        f"print(split.info.version)  # {version}",
        "print(split.info.citation)  # the BibTeX below",
        "```",
        "",
        f"Configs: `{config}` (the default)" + (f", {others}." if others else "."),
        f"`argbench build {name} --out build` writes the Hub layout to `build/{name}`, which plain",
        f'`datasets` loads: `load_dataset("build/{name}", "{config}")`.',
    ]
    if not repo_id:
        lines.append(
            f"`argbench publish {name} --repo-id YOUR_ORG/{name}` uploads it to the Hub (the"
            " card of the upload names its real id)."
        )
    lines += [
        "Version and citation travel with this card, so `info.version` and `info.citation` are",
        "the same wherever it is loaded from: `datasets` reads the version from each `configs`",
        "entry of the YAML header, and the citation, description, homepage and licence from",
        "each `dataset_info` entry.",
    ]
    return "\n".join(lines)


class _CardDumper(yaml.SafeDumper):
    """Multi-line strings (citations, descriptions) as readable ``|`` blocks."""


_CardDumper.add_representer(
    str,
    lambda dumper, text: dumper.represent_scalar(
        "tag:yaml.org,2002:str", text, style="|" if "\n" in text else None
    ),
)


def render_card(
    name: str,
    infos: dict,
    statistics: dict[str, list[str]],
    download_sizes: dict[str, int],
    repo_id: str | None = None,
) -> str:
    """The card: YAML from :func:`card_metadata`, the template's prose with computed tables."""
    from huggingface_hub import DatasetCard

    cls = builder_class(name)
    _, body = _split_front_matter(card_template(name))
    version = str(next(iter(infos.values())).version)

    rows = ["| config | split | rows |", "|---|---|---|"]
    rows += [
        f"| {config} | {split} | {info.splits[split].num_examples:,} |"
        for config, info in infos.items()
        for split in info.splits
    ]
    stats = []
    for config, lines in statistics.items():
        if lines:
            stats += [f"#### `{config}`", "", *lines, ""]
    sources = ["| file | commit | sha256 |", "|---|---|---|"]
    sources += [
        f"| [{source.filename}]({source.url}) | `{source.commit}` | `{source.sha256}` |"
        for source in cls.SOURCES.values()
    ]
    filled = (
        body.replace("{{version}}", version)
        .replace("{{rows}}", "\n".join(rows))
        .replace("{{statistics}}", "\n".join(stats).rstrip())
        .replace("{{sources}}", "\n".join(sources))
        .replace("{{how_to_load}}", how_to_load(name, infos, repo_id))
        .replace("{{citation}}", cls.CITATION.rstrip())
    )
    if "{{" in filled:
        raise ValueError(
            f"card template {name}.md has an unknown placeholder near {filled[filled.index('{{') :][:40]!r}"
        )
    metadata = card_metadata(name, infos, download_sizes)
    header = yaml.dump(
        metadata.to_dict(), Dumper=_CardDumper, sort_keys=False, allow_unicode=True, width=100
    )
    text = f"---\n{header}---\n{filled}"
    # str(DatasetCard) would re-dump the YAML in flow style; keep ours, checked to read back
    if DatasetCard(text).data.to_dict() != metadata.to_dict():
        raise ValueError(f"{name}: the card's YAML header does not read back as written")
    return text


def build(
    name: str,
    out_dir,
    *,
    sources=None,
    cache_dir=None,
    log: Callable[[str], None] | None = None,
    repo_id: str | None = None,
    num_proc: int | None = None,
    eval_yaml: Callable[[str, str, str], str | None] | None = None,
) -> Path:
    """Write ``<out_dir>/<name>/`` atomically: a failed build leaves the previous folder (or none).

    ``repo_id``: the Hub repository the folder is for, named in the card's "How to load".
    ``eval_yaml(name, pretty name, description)``: the text of the folder's ``eval.yaml`` (the
    Hub's benchmark registration), or None for none; it comes from the benchmark tasks, a
    layer above this one (:func:`argbench.build` and ``publish`` pass
    :func:`argbench.hub_eval.eval_yaml`).
    ``num_proc``: processes for generating the rows (see :func:`argbench.load.builder`).
    The folder is written whole (:func:`argbench.io.staged_folder`): builds of one dataset
    into one folder take turns, each first removes what a killed build left beside it, files
    in ``<out_dir>/<name>/`` that argbench did not write are kept (and never overwritten: a
    build that would is refused). The folder is made like any other, so it follows the umask.
    """
    log = log or (lambda message: None)
    cls = builder_class(name)
    out_dir = output_folder(Path(out_dir))
    final = out_dir / name
    if final.exists() and not final.is_dir():
        raise FileExistsError(
            f"{final} is a file, not a dataset folder; move it away or choose another --out"
        )
    _remove_legacy_leftovers(out_dir, name, log)
    waiting = f"waiting for another build of {name} into {out_dir}"
    with staged_folder(final, what="--out", wait=waiting, log=log) as staging:
        infos, statistics, download_sizes = {}, {}, {}
        for config in config_names(name):
            log(f"{name}/{config}: building")
            splits = load(name, config, sources=sources, cache_dir=cache_dir, num_proc=num_proc)
            for split, ds in splits.items():
                target = staging.path / "data" / config / PARQUET_NAME.format(split=split)
                target.parent.mkdir(parents=True, exist_ok=True)
                ds.to_parquet(str(target))
                log(
                    f"{name}/{config}/{split}: {len(ds):,} rows -> {target.relative_to(staging.path)}"
                )
            infos[config] = next(iter(splits.values())).info
            infos[config].splits = _splits_of(splits)
            statistics[config] = cls.card_statistics(config, dict(splits))
            download_sizes[config] = sum(
                p.stat().st_size for p in (staging.path / "data" / config).glob("*.parquet")
            )
        card = render_card(name, infos, statistics, download_sizes, repo_id)
        (staging.path / "README.md").write_text(card, encoding="utf-8")
        benchmark = eval_yaml and _benchmark(eval_yaml, name, card, infos)
        if benchmark:  # the Hub's benchmark registration
            (staging.path / "eval.yaml").write_text(benchmark, encoding="utf-8")
    log(f"{name}: written to {final}")
    return final


def _benchmark(eval_yaml, name: str, card: str, infos: dict) -> str | None:
    """``eval_yaml`` called with the corpus's pretty name (the card's) and description."""
    header = yaml.safe_load(card.split("---\n")[1]) or {}
    description = (next(iter(infos.values())).description or "").strip().split("\n\n")[0]
    return eval_yaml(name, header.get("pretty_name") or name, description)


def output_folder(out_dir: Path) -> Path:
    """``out_dir``, created if missing; errors say what is wrong with it and what to do."""
    if out_dir.exists() and not out_dir.is_dir():
        raise NotADirectoryError(
            f"output folder {out_dir} is a file; pass a folder (it is created when missing)"
        )
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(
            f"cannot create output folder {out_dir}: a part of that path is a file"
        ) from None
    except PermissionError as error:
        raise _cannot_write(out_dir, error) from None
    return out_dir


def _cannot_write(out_dir: Path, error: OSError) -> PermissionError:
    return PermissionError(
        f"cannot write to output folder {out_dir} ({error.strerror}: {error.filename}); "
        "choose a folder you can write to with --out"
    )


def _remove_legacy_leftovers(out_dir: Path, name: str, log: Callable[[str], None]) -> None:
    """What a killed build of an earlier argbench left: ``.<name>.partial-*`` folders and the
    lock file ``.<name>.lock`` (removed when no process holds it)."""
    for leftover in sorted(out_dir.glob(f".{name}.partial-*")):
        _remove(leftover)
        log(f"removed {leftover.name}, left by an interrupted build")
    lock = out_dir / f".{name}.lock"
    if lock.exists():
        try:
            with lock_file(lock, wait=False):
                pass  # deleted on release
        except (BlockingIOError, PermissionError):
            pass


def _remove(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path)


def _splits_of(splits):
    from datasets import SplitDict, SplitInfo

    return SplitDict(
        {
            name: SplitInfo(name=name, num_examples=len(ds), num_bytes=ds.data.nbytes)
            for name, ds in splits.items()
        }
    )


def row_counts(folder) -> dict[str, dict[str, int]]:
    """Rows per config and split, read from the Parquet footers of a built folder."""
    import pyarrow.parquet as pq

    counts: dict[str, dict[str, int]] = {}
    for path in sorted(Path(folder, "data").glob("*/*.parquet")):
        split = path.name.split("-00000")[0]
        counts.setdefault(path.parent.name, {})
        counts[path.parent.name][split] = (
            counts[path.parent.name].get(split, 0) + pq.ParquetFile(path).metadata.num_rows
        )
    return counts
