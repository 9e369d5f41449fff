"""referee bench-latency's figures and its BENCHMARKS.md section (the live run itself is a
benchmark, not a test: `referee bench-latency`)."""

from referee.lab.bench.verdict_latency import (SECTION, TARGET_P95_TALKING, percentile, section, summary,
                                              talking_rows, write_section)


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


def test_calls_made_while_the_referee_talks_are_a_row_of_their_own_with_a_300_ms_target():
    quiet = [{"delay": d, "decided": d - 0.05, "rendered": 0.01, "played": p}
             for d, p in ((0.3, 0.04), (0.4, 0.06), (0.45, 0.05))]
    # timed by the verdict's print (end of call -> print) plus the quiet rounds' print -> sound
    talked = [{"talking": True, "decided": s - 0.03, "rendered": 0.03, "said": s} for s in (0.15, 0.2, 0.32)]
    rows = talking_rows(talked, quiet)
    assert [round(r["delay"], 3) for r in rows] == [0.2, 0.25, 0.37] and all(r["talking"] for r in rows)
    assert talking_rows(talked, []) == []            # nothing to time the sound by
    result = {"rows": quiet + rows, "skipped": [], "rounds": 6}
    assert summary(result)["n"] == 3 and summary(result)["p95"] == 0.45      # the quiet rounds only
    assert summary(result, talking=True)["p95"] == 0.37 and TARGET_P95_TALKING == 0.3
    text = section(result, "referee bench-latency")
    assert "| p95 | ≤ 500 ms | 450 ms | met |" in text
    assert "| p95 | ≤ 300 ms | 370 ms | **missed** |" in text
    assert "3 measured in quiet, 3 while the referee talked" in text
    assert "No call made while the referee talked" in section({"rows": quiet, "skipped": [], "rounds": 3}, "x")
    assert "100 played in 3 games of at most 48" in section(
        {"rows": quiet, "skipped": [], "rounds": 100}, "x")


def test_every_round_deals_another_card_and_its_call_qualifies():
    # one deck: a card dealt twice is refused, and the bench's rounds went unanswered
    from referee.core.cards import Card
    from referee.core.games.stroop import qualifies
    from referee.lab.bench.verdict_latency import rounds_to_play

    plan = rounds_to_play(96)        # two games: every card of each dealt once
    assert len({deal for deal, _, _ in plan[:48]}) == 48 == len({d for d, _, _ in plan[48:]})
    assert all(qualifies(call, Card.parse(deal)) for deal, _, call in plan)
    assert {who for _, who, _ in plan} == {"ann", "bob"}
