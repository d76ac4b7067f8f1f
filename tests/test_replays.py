"""The recorded matches in ``replays/`` stay readable: every file verifies,
audits to what ``replays/README.md`` says (clean, or exit 1 blaming exactly
the recorded cheater) and replays without error. A change of the log format,
the dealing or the rules engines that would orphan old replays fails here.

Since protocol version 2 even the whole-match kanasta and kanaszta logs audit
and replay in seconds (``benchmarks/audit.py``), so every file is audited and
replayed in full by default; a case marked ``slow`` would run only with
``pytest -m slow tests/test_replays.py`` (its signatures, hash chain and end
entry are still checked by default).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from p2pcards.protocol.log import read_log

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPLAYS = os.path.join(REPO, "replays")


@dataclasses.dataclass(frozen=True)
class Case:
    game: str
    players: int
    entries: int
    deals: int
    exit_code: int  # of `p2pcards audit`
    cheater: int | None = None  # the one seat the audit blames
    slow: bool = False  # the full audit and replay run only with -m slow


# What replays/README.md describes, file by file.
CASES = {
    "bura-3p.p2plog": Case("bura", 3, 305, 5, 0),
    "warkocz-3p.p2plog": Case("warkocz", 3, 45, 1, 0),
    "kanasta-4p.p2plog": Case("kanasta", 4, 3682, 17, 0),
    "kanaszta-4p.p2plog": Case("kanaszta", 4, 2207, 14, 0),
    "bura-3p-phantom-card.p2plog": Case("bura", 3, 17, 0, 1, cheater=1),
    "warkocz-3p-false-pass.p2plog": Case("warkocz", 3, 388, 7, 1, cheater=1),
}


def _params():
    return [pytest.param(name, marks=[pytest.mark.slow] if case.slow else [], id=name.removesuffix(".p2plog"))
            for name, case in CASES.items()]


def test_every_replay_is_listed_and_described():
    files = {f for f in os.listdir(REPLAYS) if f.endswith(".p2plog")}
    assert files == set(CASES), "a replay without a case here (or a case without its file)"
    with open(os.path.join(REPLAYS, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for name in CASES:
        assert name in readme, f"{name} is not described in replays/README.md"


@pytest.mark.parametrize("name", list(CASES), ids=[n.removesuffix(".p2plog") for n in CASES])
def test_file_verifies(name):
    """Signatures, hash chain, entry 0 and the end entry: fast, for every file."""
    case = CASES[name]
    log = read_log(os.path.join(REPLAYS, name), strict=True, finished=True)
    assert log.table.game == case.game
    assert len(log.table.players) == case.players
    assert len(log) == case.entries
    end = log.end.payload
    blamed = {b["seat"] for b in end.get("blame") or []}
    if case.cheater is not None and end.get("blame"):
        assert blamed == {case.cheater}  # caught at the table: the honest peers' end entry names it
    elif case.cheater is None:
        assert not blamed


def _check_report(case: Case, report: dict) -> None:
    assert report["game"] == case.game
    assert report["entries"] == case.entries
    assert report["deals"] == case.deals
    if case.cheater is None:
        assert report["ok"] is True and report["violations"] == [], report["violations"]
    else:
        assert report["ok"] is False
        assert {v["seat"] for v in report["violations"]} == {case.cheater}, report["violations"]


@pytest.mark.parametrize("name", _params())
def test_audit_and_replay(name):
    """``load_replay`` builds the replay from the audit's own walk through the
    log (``audit_log(observe=...)``): one pass for both."""
    from p2pcards.audit.replay import DEALT, MOVE, load_replay
    from p2pcards.ui.replay_record import game_record

    case = CASES[name]
    replay = load_replay(os.path.join(REPLAYS, name))
    assert (0 if replay.audit_ok else 1) == case.exit_code
    _check_report(case, replay.result)
    assert replay.result["complete"] is True
    assert len(replay.frames) == case.entries
    assert len(replay.deal_starts()) >= max(1, case.deals)
    assert all(m.kind != DEALT or m.last > m.first for m in replay.moves), "the dealing is one step"
    assert sum(m.kind == MOVE for m in replay.moves) == sum(f.kind == "action" for f in replay.frames)
    lines = list(game_record(replay, show_all=True))
    assert lines[-1] == ("Audit: clean." if case.cheater is None else lines[-1])
    assert not any("REFUSED" in line for line in lines)
    if case.cheater is not None:
        assert any(line.lstrip().startswith("!!") and replay.names[case.cheater] in line for line in lines)
    seat_lines = list(game_record(replay, seat=0))
    assert any("your hand:" in line for line in seat_lines) or case.deals == 0


# The command line itself on the two cheapest files (a clean one, a cheat).
@pytest.mark.parametrize("name", ["warkocz-3p.p2plog", "bura-3p-phantom-card.p2plog"])
def test_cli_audit_exit_code(name):
    case = CASES[name]
    run = subprocess.run([sys.executable, "-m", "p2pcards", "audit", os.path.join(REPLAYS, name), "--json"],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=REPO), timeout=600)
    assert run.returncode == case.exit_code, run.stdout + run.stderr
    _check_report(case, json.loads(run.stdout))


# What the audit and the game record import, run as a player runs them: neither the network
# layer (trio), nor an event loop (asyncio), nor the terminal UI (prompt-toolkit), nor babel
# (digit groups come from a table); the audit not even the table's screen. Each of these cost
# the commands' start 0.1-0.4 s (issue 26).
IMPORTS_PROBE = """
import contextlib, io, sys
from p2pcards.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(code, " ".join(sorted(sys.modules)))
"""


@pytest.mark.parametrize("command", [["audit"], ["replay", "--text"], ["replay", "--json"],
                                     ["--lang", "pl", "replay", "--text"]])
def test_audit_and_replay_import_no_network_ui_or_babel(command):
    run = subprocess.run([sys.executable, "-c", IMPORTS_PROBE, *command, os.path.join(REPLAYS, "warkocz-3p.p2plog")],
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=REPO), timeout=600)
    assert run.returncode == 0, run.stderr
    code, modules = run.stdout.split(" ", 1)
    assert code == "0", run.stdout
    roots = {m.split(".")[0] for m in modules.split()}
    unwanted = {"trio", "asyncio", "prompt_toolkit", "babel"}
    po = os.path.join(REPO, "p2pcards", "locale", "pl", "LC_MESSAGES", "p2pcards.po")
    mo = po[:-3] + ".mo"
    if "pl" in command and not (os.path.exists(mo) and os.path.getmtime(mo) >= os.path.getmtime(po)):
        unwanted.discard("babel")  # no compiled catalog (tools/catalogs.py compile): babel reads the .po
    assert not roots & unwanted, sorted(roots & unwanted)
    assert "p2pcards.net" not in modules.split()
    if command == ["audit"]:
        assert not {m for m in modules.split() if m.startswith(("p2pcards.ui.render", "p2pcards.ui.session"))}
