"""The log and journal readers, fuzzed (referee/lab/bench/log_fuzz.py: a few hundred cases
here, ten thousand in `referee bench-reliability`), and the journal set-ups the fuzz showed
`referee resume` once crashed on."""

import json

import pytest

from referee.cli.main import main
from referee.lab.bench.log_fuzz import GOOD, fuzz, mutate, replay_reader, resume_reader


def test_a_few_hundred_mutated_logs_are_read_or_refused_never_a_crash():
    r = fuzz(300, seed=31)
    assert r.cases == 300
    assert r.crash_count == 0, r.crashes[:3]
    for reader in ("replay", "resume"):       # the mutations reach both outcomes
        assert r.outcomes[(reader, "read")] > 10 and r.outcomes[(reader, "refused")] > 10


def test_the_fuzz_tells_a_crash_from_a_refusal(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_bytes(mutate("stroop", [], ("none",)))
    assert replay_reader(p) == "read" and resume_reader(p) == "read"
    p.write_bytes(mutate("stroop", [("set", 1, "card", [1])], ("none",)))
    assert replay_reader(p) == "refused" and resume_reader(p) == "refused"
    p.write_text("not json\n" * 3)
    assert replay_reader(p) == "refused"


@pytest.mark.parametrize("setup, named", [
    ([1], '"setup" must be an object'),
    ({"channels": ["zed", "ann", "bob"]}, '"channels" must name players'),
    ({"channels": "ann"}, '"channels" must name players'),
    ({"channels": ["ann", "bob"], "devices": 3}, '"devices" must be a name'),
    ({"virtual_deck": True, "seed": [1]}, '"seed" must be a whole number'),
    ({"audio": {"file": "g.wav", "frames": "many"}}, '"audio" must hold'),
])
def test_resume_names_a_setup_it_cannot_use(tmp_path, capsys, setup, named):
    game = dict(GOOD["stroop"][0], setup=setup)
    p = tmp_path / "game.jsonl"
    p.write_text("".join(json.dumps(o) + "\n" for o in [game] + GOOD["stroop"][1:3]))
    assert main(["resume", str(p), "--audio", str(p), "--speak-to", "text"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"referee resume: {p}: line 1: ") and named in err, err


def test_resume_names_names_given_that_are_no_players(tmp_path, capsys):
    p = tmp_path / "game.jsonl"
    p.write_text("".join(json.dumps(o) + "\n" for o in GOOD["stroop"][:3]))
    assert main(["resume", str(p), "--names", "ann,zed", "--speak-to", "text"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee resume: channels ['ann', 'zed']: each must be"), err
