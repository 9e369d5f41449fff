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


def test_a_part_run_alone_keeps_the_other_parts_figures_and_says_when_each_was_run(tmp_path):
    out = tmp_path / "B.md"
    out.write_text("# Reliability\n\n`referee bench-reliability` on 2026-01-01. It took 9.0 minutes.\n\n"
                   "## Device loss\n\n| a | 1 | 1 |\n\n## Fuzzed logs and journals\n\nold fuzz\n\n"
                   "## A long session\n\nold long\n\n# Next\n\nkept\n")
    assert main(["bench-reliability", "--parts", "fuzz", "--fuzz", "20", "--out", str(out)]) == 0
    section, rest = out.read_text().split("# Reliability\n", 1)[1].split("\n# Next\n")
    assert rest == "\nkept\n"
    subs = {s.splitlines()[0]: s for s in section.split("\n## ")[1:]}
    assert list(subs) == ["Device loss", "Fuzzed logs and journals", "A long session"]
    old = "_Run: with the other parts of `referee bench-reliability` on 2026-01-01. It took 9.0 minutes._"
    assert old in subs["Device loss"] and "| a | 1 | 1 |" in subs["Device loss"]
    assert old in subs["A long session"] and "old long" in subs["A long session"]
    assert "old fuzz" not in section and "20 mutated Stroop" in subs["Fuzzed logs and journals"]
    assert "_Run: `referee bench-reliability --parts fuzz --fuzz 20` on " in subs["Fuzzed logs and journals"]
    # run again: the kept subsections are not stamped twice
    assert main(["bench-reliability", "--parts", "fuzz", "--fuzz", "20", "--out", str(out)]) == 0
    assert out.read_text().count(old) == 2


def test_the_long_file_is_the_game_then_quiet_noise_written_a_block_at_a_time(tmp_path):
    import numpy as np

    from referee.audio.wav import WavReader, read_pcm16, write_wav
    from referee.lab.bench.long_file import BLOCK, NOISE_DBFS, padded

    rate = 16000
    game = np.random.default_rng(3).uniform(-0.5, 0.5, (rate * 2, 3))
    write_wav(tmp_path / "game.wav", game, rate)
    minutes = 2.5 * BLOCK / 60            # three blocks of padding, the last one short
    out = padded(tmp_path / "game.wav", tmp_path / "long.wav", minutes)
    r = WavReader(out)
    try:
        assert (r.rate, r.channels, r.frames) == (rate, 3, int(minutes * 60 * rate))
        head = r.read_pcm16(0, 2 * rate)
        rest = r.read_pcm16(2 * rate, r.frames).astype(float) / 32768
    finally:
        r.close()
    assert np.array_equal(head, read_pcm16(tmp_path / "game.wav")[0])
    level = 10 * np.log10(np.mean(rest ** 2, axis=0))
    assert np.all(np.abs(level - NOISE_DBFS) < 1.5), level
    assert abs(np.corrcoef(rest[:, 0], rest[:, 1])[0, 1]) < 0.05   # each mic its own noise


def test_a_mic_more_than_the_game_has_hears_the_others_leaked(tmp_path):
    import numpy as np

    from referee.audio.wav import WavReader, write_wav
    from referee.lab.bench.kill_resume import LEAK
    from referee.lab.bench.long_file import padded

    rate = 16000
    game = np.random.default_rng(4).uniform(-0.3, 0.3, (rate, 3))
    write_wav(tmp_path / "game.wav", game, rate)
    r = WavReader(padded(tmp_path / "game.wav", tmp_path / "four.wav", 0.05, mics=4))
    try:
        x = r.read_pcm16(0, rate).astype(float)
        assert r.channels == 4
    finally:
        r.close()
    assert np.allclose(x[:, 3], np.clip(x[:, :3].sum(axis=1) * LEAK, -32768, 32767), atol=1.5)
