"""`referee bench-reliability` writes its own section of the report and keeps the others
(here only its fuzz part, small; the whole run is the benchmark's)."""

from referee.cli.main import main


def test_the_fuzz_part_writes_the_reliability_section_and_keeps_the_rest(tmp_path, capsys):
    out = tmp_path / "B.md"
    out.write_text("# Hearing benchmark\n\nkept\n")
    assert main(["bench-reliability", "--parts", "fuzz", "--fuzz", "40", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# Hearing benchmark\n\nkept\n") and "\n# Reliability\n" in text
    section = text.split("# Reliability", 1)[1]
    assert "--parts fuzz --fuzz 40" in section
    assert "40 mutated Stroop and Goop logs" in section
    rows = [line for line in section.splitlines() if line.startswith("| `referee ")]
    assert len(rows) == 2 and all(line.endswith("| 0 |") for line in rows), rows   # no crash


def test_an_unknown_part_is_one_line(capsys, tmp_path):
    assert main(["bench-reliability", "--parts", "fuzz,speed", "--out", str(tmp_path / "B.md")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "speed" in err
    assert not (tmp_path / "B.md").exists()
