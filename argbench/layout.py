"""The Hub layout: ``README.md`` (card with YAML ``configs``/``dataset_info``) + Parquet files.

The folder ``build`` writes is what ``publish`` uploads and what
``datasets.load_dataset(folder, config)`` reads. (The module is ``layout``, not ``build``: a
submodule named ``build`` would replace the documented function ``argbench.build`` on the
package as soon as it is imported.)
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import yaml

from argbench.load import config_names, load
from argbench.loaders import builder_class

PARQUET_NAME = "{split}-00000-of-00001.parquet"


def card_template(name: str) -> str:
    return (
        resources.files("argbench.dataset_cards").joinpath(f"{name}.md").read_text(encoding="utf-8")
    )


def _split_front_matter(text: str) -> tuple[dict, str]:
    if not text.startswith("---\n"):
        return {}, text
    header, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(header) or {}, body


def render_card(name: str, infos: dict, statistics: dict[str, list[str]]) -> str:
    """The card: the template's YAML and prose, plus computed configs, statistics and sources."""
    cls = builder_class(name)
    header, body = _split_front_matter(card_template(name))
    header["configs"] = [
        {
            "config_name": config,
            "data_files": [
                {"split": split, "path": f"data/{config}/{split}-*.parquet"}
                for split in info.splits
            ],
            **({"default": True} if config == cls.DEFAULT_CONFIG_NAME else {}),
        }
        for config, info in infos.items()
    ]
    header["dataset_info"] = [
        {"config_name": config, **info._to_yaml_dict()} for config, info in infos.items()
    ]
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
        .replace("{{citation}}", cls.CITATION.rstrip())
    )
    if "{{" in filled:
        raise ValueError(
            f"card template {name}.md has an unknown placeholder near {filled[filled.index('{{') :][:40]!r}"
        )
    return "---\n" + yaml.safe_dump(header, sort_keys=False, allow_unicode=True) + "---\n" + filled


def build(
    name: str,
    out_dir,
    *,
    sources=None,
    cache_dir=None,
    log: Callable[[str], None] | None = None,
    num_proc: int | None = None,
) -> Path:
    """Write ``<out_dir>/<name>/`` atomically: a failed build leaves the previous folder (or none).

    ``num_proc``: processes for generating the rows (see :func:`argbench.load.builder`).
    """
    log = log or (lambda message: None)
    cls = builder_class(name)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / name
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.partial-", dir=out_dir))
    try:
        infos, statistics = {}, {}
        for config in config_names(name):
            log(f"{name}/{config}: building")
            splits = load(name, config, sources=sources, cache_dir=cache_dir, num_proc=num_proc)
            for split, ds in splits.items():
                target = staging / "data" / config / PARQUET_NAME.format(split=split)
                target.parent.mkdir(parents=True, exist_ok=True)
                ds.to_parquet(str(target))
                log(f"{name}/{config}/{split}: {len(ds):,} rows -> {target.relative_to(staging)}")
            infos[config] = next(iter(splits.values())).info
            infos[config].splits = _splits_of(splits)
            statistics[config] = cls.card_statistics(config, dict(splits))
        (staging / "README.md").write_text(render_card(name, infos, statistics), encoding="utf-8")
        _replace_dir(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    log(f"{name}: written to {final}")
    return final


def _splits_of(splits):
    from datasets import SplitDict, SplitInfo

    return SplitDict(
        {
            name: SplitInfo(name=name, num_examples=len(ds), num_bytes=ds.data.nbytes)
            for name, ds in splits.items()
        }
    )


def _replace_dir(staging: Path, final: Path) -> None:
    """Swap the finished folder in; the old one is removed only after the new one is in place."""
    if final.exists():
        trash = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.replace(final, trash)
        os.replace(staging, final)
        shutil.rmtree(trash, ignore_errors=True)
    else:
        os.replace(staging, final)


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
