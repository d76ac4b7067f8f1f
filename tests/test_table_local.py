"""The table protocol end to end in one process: real dealing cryptography,
real signatures, every seat checking every entry."""

import pytest

from tests.helpers import run_match


@pytest.mark.parametrize("game_id,players,options", [
    ("bura", 2, {"rounds": 1}),
    ("bura", 3, {"rounds": 1}),
    ("warkocz", 2, {"target": 5}),
    ("warkocz", 3, {"target": 5}),
])
def test_whole_match_between_seat_drivers(game_id, players, options):
    drivers = run_match(game_id, players, options)
    logs = [d.log.to_bytes() for d in drivers]
    assert all(log == logs[0] for log in logs)
    machine = drivers[0].machine
    assert machine.finished and not machine.aborted and not machine.findings
    end = drivers[0].log.end.payload
    assert end["deals"] >= 1
    assert drivers[0].log.agreed
