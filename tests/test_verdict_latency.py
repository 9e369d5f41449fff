"""referee bench-latency's figures and its BENCHMARKS.md section (the live run itself is a
benchmark, not a test: `referee bench-latency`)."""

from referee.lab.bench.verdict_latency import SECTION, percentile, section, summary, write_section


def test_percentiles_are_nearest_rank():
    xs = [0.1 * k for k in range(1, 21)]          # 0.1 .. 2.0
    assert percentile(xs, 50) == xs[9] and percentile(xs, 95) == xs[18]
    assert percentile([0.3], 95) == 0.3


def test_only_its_own_section_of_benchmarks_md_is_rewritten(tmp_path):
    rows = [{"delay": d, "decided": d - 0.05, "rendered": 0.01, "played": 0.04}
            for d in (0.3, 0.4, 0.6)]
    text = section({"rows": rows, "skipped": [2], "rounds": 4}, "referee bench-latency")
    assert text.startswith(SECTION) and "| p95 | ≤ 500 ms | 600 ms | **missed** |" in text
    assert "rounds [2]" in text and summary({"rows": rows, "skipped": [], "rounds": 3})["n"] == 3
    md = tmp_path / "BENCHMARKS.md"
    write_section(md, text)                        # a new file holds only this section
    assert md.read_text().startswith(SECTION)
    md.write_text("# Hearing benchmark\n\nfigures\n\n" + md.read_text() + "\n# Other\n\nmore\n")
    write_section(md, text.replace("600 ms", "450 ms"))
    out = md.read_text()
    assert out.startswith("# Hearing benchmark\n\nfigures\n") and out.endswith("# Other\n\nmore\n")
    assert out.count(SECTION) == 1 and "450 ms" in out and "600 ms" not in out
    assert "No round could be measured" in section({"rows": [], "skipped": [1], "rounds": 1}, "x")
