"""Whole matches between real peers over loopback TCP: every peer checks
every entry, and all end with byte-identical, auditable logs."""

import pytest

from p2pcards.audit import audit_file
from tests.netsim import play_network_match

CASES = [
    ("bura", 2, {"rounds": 1}),
    ("bura", 4, {"rounds": 1}),
    ("warkocz", 2, {"target": 4}),
    ("warkocz", 4, {"target": 4}),
    ("kanasta", 4, {"table.deals": 1}),
    ("kanaszta", 3, {"table.deals": 1}),
]


@pytest.mark.parametrize("game,players,options", CASES)
async def test_match_between_real_peers(game, players, options, tmp_path):
    results = await play_network_match(game, players, options, tmp_path)
    logs = [open(r.log_path, "rb").read() for r in results]
    assert all(log == logs[0] for log in logs), "peers' logs differ"
    machine = results[0].driver.machine
    assert machine.finished and not machine.aborted
    report = audit_file(results[0].log_path)
    assert report.exit_code == 0, report.violations
    assert report.deals >= 1
