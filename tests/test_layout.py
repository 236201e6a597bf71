import datasets
import pytest
import yaml

import argbench
from argbench import layout


def test_build_round_trips_through_plain_load_dataset(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("claimdiff")
    folder = argbench.build("claimdiff", tmp_path / "out", sources=mirror, cache_dir=cache_dir)
    assert folder == tmp_path / "out" / "claimdiff"
    assert (folder / "data/S/train-00000-of-00001.parquet").is_file()
    for config in ("S", "W", "unfiltered"):
        ours = argbench.load_dataset("claimdiff", config, sources=mirror, cache_dir=cache_dir)
        plain = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "plain-cache"))
        assert set(plain) == set(ours)
        for split in ours:
            assert plain[split].features == ours[split].features
            assert plain[split].to_list() == ours[split].to_list()


def test_card_has_configs_dataset_info_version_and_sources(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("cqs_gen")
    folder = argbench.build("cqs_gen", tmp_path, sources=mirror, cache_dir=cache_dir)
    text = (folder / "README.md").read_text()
    header = yaml.safe_load(text.split("---\n")[1])
    assert header["license"] == "unknown"
    configs = {c["config_name"]: c for c in header["configs"]}
    assert configs["interventions"]["data_files"] == [
        {"split": "validation", "path": "data/interventions/validation-*.parquet"},
        {"split": "test", "path": "data/interventions/test-*.parquet"},
    ]
    assert configs["interventions"]["default"] is True
    infos = {i["config_name"]: i for i in header["dataset_info"]}
    assert infos["questions"]["splits"] == [
        {
            "name": "validation",
            "num_bytes": infos["questions"]["splits"][0]["num_bytes"],
            "num_examples": 4,
        }
    ]
    assert "version 1.0.0" in text and "{{" not in text
    assert "@inproceedings{calvo-figueras" in text
    assert "| Useful | " not in text and "- Useful: 2 (50.0%)" in text
    assert layout.row_counts(folder) == {
        "interventions": {"test": 1, "validation": 2},
        "questions": {"validation": 4},
    }


def test_failed_build_leaves_previous_folder_and_no_partial(
    fixture_mirror, cache_dir, tmp_path, monkeypatch
):
    mirror = fixture_mirror("cqs_gen")
    out = tmp_path / "out"
    folder = argbench.build("cqs_gen", out, sources=mirror, cache_dir=cache_dir)
    before = (folder / "README.md").read_text()

    def explode(*args, **kwargs):
        raise RuntimeError("interrupted while writing the card")

    monkeypatch.setattr(layout, "render_card", explode)
    with pytest.raises(RuntimeError, match="interrupted"):
        argbench.build("cqs_gen", out, sources=mirror, cache_dir=cache_dir)
    assert sorted(p.name for p in out.iterdir()) == ["cqs_gen"]
    assert (folder / "README.md").read_text() == before


def test_failed_first_build_leaves_no_folder(fixture_mirror, cache_dir, tmp_path, monkeypatch):
    mirror = fixture_mirror("cqs_gen")
    monkeypatch.setattr(
        layout, "render_card", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt())
    )
    with pytest.raises(KeyboardInterrupt):
        argbench.build("cqs_gen", tmp_path / "out", sources=mirror, cache_dir=cache_dir)
    assert list((tmp_path / "out").iterdir()) == []
