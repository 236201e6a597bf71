import datasets
import pytest
import yaml
from huggingface_hub import DatasetCard, DatasetCardData

import argbench
from argbench import layout
from argbench.loaders import builder_class


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
    assert header["license"] == "cc-by-3.0"  # the authors' Hub copy declares it
    configs = {c["config_name"]: c for c in header["configs"]}
    assert configs["interventions"]["data_files"] == [
        {"split": "validation", "path": "data/interventions/validation-*.parquet"},
        {"split": "test", "path": "data/interventions/test-*.parquet"},
    ]
    assert configs["interventions"]["default"] is True
    infos = {i["config_name"]: i for i in header["dataset_info"]}
    assert [(s["name"], s["num_examples"]) for s in infos["questions"]["splits"]] == [
        ("validation", 4),
        ("test", 5),
    ]
    assert "version 2.0.0" in text and "{{" not in text
    assert "@inproceedings{calvo-figueras" in text
    assert 'argbench.load_dataset("cqs_gen", "interventions")' in text and '"ORG/' not in text
    assert "- validation: 4 questions; Useful 2 (50.0%)," in text
    assert "- submitted questions: 12, in 3 blocks" in text
    assert layout.row_counts(folder) == {
        "interventions": {"test": 2, "validation": 2},
        "questions": {"test": 5, "validation": 4},
        "extended": {"test": 2},
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


CARD_FIELDS = (
    "pretty_name",
    "license",
    "language",
    "annotations_creators",
    "language_creators",
    "multilinguality",
    "source_datasets",
    "task_categories",
    "task_ids",
    "tags",
)


@pytest.mark.parametrize("name", argbench.list_datasets())
def test_card_template_has_hub_metadata_and_a_licence_section(name):
    header, body = layout._split_front_matter(layout.card_template(name))
    data = DatasetCardData(**header)  # huggingface_hub's class takes every field
    assert all(data.to_dict().get(field) for field in CARD_FIELDS), sorted(header)
    assert data.multilinguality == ["monolingual"]
    licence = " ".join(body.split("## Licence\n", 1)[1].split("\n## ", 1)[0].split())
    if data.license == "unknown":  # the release states none: say so, and what is known
        assert "so the card says `unknown`" in licence and "What is known" in licence
    else:
        assert builder_class(name).LICENSE == data.license and "CC BY" in licence
    assert "{{how_to_load}}" in body


def test_card_metadata_version_citation_and_download_size_survive_plain_loading(
    fixture_mirror, cache_dir, tmp_path
):
    """What a user of the folder (or the Hub repo) gets: the card's version and citation in
    every split's info, and download_size = the bytes datasets downloads (the Parquet files)."""
    mirror = fixture_mirror("cqs_gen")
    folder = argbench.build("cqs_gen", tmp_path / "out", sources=mirror, cache_dir=cache_dir)
    card = DatasetCard.load(folder / "README.md").data
    assert all(card.to_dict().get(field) for field in CARD_FIELDS)
    assert card.size_categories == ["n<1K"]  # the fixture has 4 questions
    assert [c["version"] for c in card.configs] == ["2.0.0"] * 3
    for info in card.dataset_info:
        parquet = (folder / "data" / info["config_name"]).glob("*.parquet")
        assert info["download_size"] == sum(p.stat().st_size for p in parquet) > 0
    cls = builder_class("cqs_gen")
    for config in ("interventions", "questions"):
        plain = datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "plain"))
        ours = argbench.load_dataset("cqs_gen", config, sources=mirror, cache_dir=cache_dir)
        (described,) = [i for i in card.dataset_info if i["config_name"] == config]
        for split in plain:
            info, own = plain[split].info, ours[split].info
            assert str(info.version) == "2.0.0" == str(cls.VERSION)
            assert info.citation == own.citation == cls.CITATION
            assert (info.description, info.homepage, info.license) == (
                own.description,
                own.homepage,
                own.license,
            )
            assert info.download_size == described["download_size"]


def test_size_category():
    assert [layout.size_category(n) for n in (4, 999, 1_000, 41_856, 250_000)] == [
        "n<1K",
        "n<1K",
        "1K<n<10K",
        "10K<n<100K",
        "100K<n<1M",
    ]
