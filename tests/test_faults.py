"""Crashes and dropped connections, injected into real selfplay matches: each
peer its own OS process over loopback, one of them killed abruptly (SIGKILL,
no clean-up) and restarted with ``p2pcards resume``, or cut off for a few
seconds. Every match must finish with byte-identical logs that audit clean."""

import random
import subprocess
import sys

import pytest

from p2pcards.audit import audit_file
from p2pcards.cli.selfplay import selfplay

GAMES = [("bura", 2, {"rounds": 1}), ("bura", 3, {"rounds": 1}), ("warkocz", 3, {"target": 3})]
FAST = {"table.turn_timeout": 20, "table.rejoin_timeout": 30, "table.deals": 1}
# A drop cuts every connection of the seat, which then refuses to dial or be
# dialled for this long: the others' redialling backs off and the seat misses
# entries whatever the length, so a second is the same fault as the default 3 s.
DROP_SECONDS = 1.0


def fault_cases(count, seed):
    rnd = random.Random(seed)
    for i in range(count):
        game, players, options = GAMES[i % len(GAMES)]
        kind = "crash" if i % 2 == 0 else "drop"
        yield pytest.param(game, players, options, kind, rnd.randrange(players), rnd.randrange(6, 30),
                           id=f"{i}-{game}{players}-{kind}")


def play_with_fault(tmp_path, game, players, options, kind, seat, entry):
    out = tmp_path / "game.p2plog"
    fault = {kind: (seat, entry)}
    summary = selfplay(game, players, f"faults-{entry}", str(out), options={**options, **FAST},
                       workdir=str(tmp_path / "work"), timeout=300, drop_seconds=DROP_SECONDS, **fault)
    assert "logs_differ" not in summary, summary
    assert summary["seats_finished"] == list(range(players)), summary
    result = summary["result"]
    assert not result["aborted"], result
    report = audit_file(out)
    assert report.exit_code == 0, report.violations
    return summary


@pytest.mark.parametrize("game,players,options,kind,seat,entry", list(fault_cases(30, 1)))
def test_match_survives_fault(tmp_path, game, players, options, kind, seat, entry):
    play_with_fault(tmp_path, game, players, options, kind, seat, entry)


@pytest.mark.slow
@pytest.mark.parametrize("game,players,options,kind,seat,entry", list(fault_cases(60, 2)))
def test_match_survives_fault_nightly(tmp_path, game, players, options, kind, seat, entry):
    play_with_fault(tmp_path, game, players, options, kind, seat, entry)


def test_resume_refuses_a_missing_or_foreign_state_file(tmp_path):
    missing = subprocess.run([sys.executable, "-m", "p2pcards", "resume", str(tmp_path / "nope.state")],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "no state file" in missing.stderr
    junk = tmp_path / "junk.state"
    junk.write_bytes(b"not a state file")
    junk.chmod(0o600)
    bad = subprocess.run([sys.executable, "-m", "p2pcards", "resume", str(junk)], capture_output=True, text=True)
    assert bad.returncode == 2 and "state file" in bad.stderr and "Traceback" not in bad.stderr
