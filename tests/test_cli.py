from argbench.cli import main


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "claimdiff" in out and "cqs_gen" in out


def test_build_prints_progress_and_summary(fixture_mirror, tmp_path, capsys, cache_dir):
    mirror = fixture_mirror("cqs_gen")
    code = main(
        [
            "build",
            "cqs_gen",
            "--out",
            str(tmp_path / "out"),
            "--sources",
            str(mirror),
            "--cache-dir",
            cache_dir,
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "[1/1] cqs_gen" in out
    assert "cqs_gen/interventions/validation" in out and "summary (rows per config/split):" in out
    assert (tmp_path / "out/cqs_gen/README.md").is_file()


def test_build_unknown_name_is_an_error(capsys, tmp_path):
    assert main(["build", "nope", "--out", str(tmp_path)]) == 2
    assert "unknown dataset(s): nope" in capsys.readouterr().err


def test_build_missing_sources_reports_error(capsys, tmp_path, cache_dir):
    code = main(
        [
            "build",
            "cqs_gen",
            "--out",
            str(tmp_path / "o"),
            "--sources",
            str(tmp_path / "none"),
            "--cache-dir",
            cache_dir,
        ]
    )
    assert code == 1
    assert "not available offline" in capsys.readouterr().err
