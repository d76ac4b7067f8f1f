"""People at network tables, with real processes on real terminals (tmux):
an idle person's own client plays for them, marked as such at the table and
in the log; ``away`` hands the seat to it; the audit stays clean."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.helpers import REPO, Terminal, make_genesis

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


def _command(home, args: str) -> str:
    return (f"cd {home} && P2PCARDS_HOME={home} HOME={home} PYTHONPATH={REPO} {sys.executable} -m p2pcards "
            f"{args}; echo EXITED $?; sleep 30")


@pytest.fixture
def terminal(request):
    terminals = []

    def open_terminal(home, args: str) -> Terminal:
        term = Terminal(f"p2pcards-people-{os.getpid()}-{len(terminals)}", _command(home, args))
        terminals.append(term)
        return term

    yield open_terminal
    for term in terminals:
        term.close()


def test_an_idle_person_is_played_for_and_the_game_goes_on(terminal, tmp_path):
    term = terminal(tmp_path, "play bura --bots 1 --seed 5 --name Zoe -o table.turn_timeout=2 -o table.deals=1")
    # Zoe types nothing: after the turn time her own client moves for her.
    term.wait_for(lambda s: "played automatically for Zoe" in s, "a move played for the idle player", timeout=90)
    term.keys("away", "Enter")  # the rest of the deal without waiting for the clock
    term.wait_for(lambda s: "match over" in s.splitlines()[0], "the end of the deal", timeout=240)
    term.keys("Escape")
    term.keys("quit", "Enter")
    assert "EXITED 0" in term.wait_for(lambda s: "EXITED" in s, "the program to end")
    logs = sorted((tmp_path / "games").glob("*.p2plog"))
    assert len(logs) == 1
    audit = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(logs[0]), "--json"],
                           capture_output=True, text=True, env={**os.environ, "PYTHONPATH": REPO})
    assert audit.returncode == 0, audit.stdout + audit.stderr
    report = json.loads(audit.stdout)
    assert report["ok"] and report["violations"] == []  # exit 0: clean and finished
    from p2pcards.protocol.log import read_log

    entries = read_log(logs[0]).entries
    auto = [e for e in entries if e.kind == "action" and e.payload.get("auto") is True]
    assert auto and all(e.author == 0 for e in auto)  # only Zoe's seat, never the bot's
    replay = subprocess.run([sys.executable, "-m", "p2pcards", "replay", str(logs[0]), "--text"],
                            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": REPO})
    assert replay.stdout.count("(played automatically for Zoe)") == len(auto), replay.stderr


@pytest.mark.parametrize("value", [1, "yes", None, 0])
def test_the_auto_mark_must_be_a_boolean(value):
    from p2pcards.bots import Bot
    from p2pcards.protocol.log import make_entry
    from p2pcards.protocol.machine import ACTION, Violation
    from p2pcards.protocol.driver import SeatDriver

    genesis, signers = make_genesis("bura", 2)
    drivers = [SeatDriver(genesis, i, signers[i]) for i in range(2)]
    while drivers[0].machine.expect().kind != ACTION:  # deal until the first move is due
        want = drivers[0].machine.expect()
        entry = drivers[want.author].write()
        drivers[1 - want.author].receive(entry)
    want = drivers[0].machine.expect()
    author, other = drivers[want.author], drivers[1 - want.author]
    action = Bot("greedy", 1).choose(author.game, author.my_state())

    def signed(auto) -> object:
        payload = author.me.payload(author.machine, want, action)
        payload["auto"] = auto
        return make_entry(other.log.next_seq, other.log.head_hash, want.author, ACTION, payload,
                          signers[want.author])

    with pytest.raises(Violation) as caught:
        other.receive(signed(value))
    assert caught.value.kind == "bad-entry" and caught.value.seat == want.author
    honest = signed(True)
    other.receive(honest)
    assert other.machine.auto_moves == {honest.seq}


def _processes_of(term) -> set[int]:
    """Every process under the terminal's shell (the player's and its bots')."""
    import subprocess as sp

    shell = int(sp.run(term.tmux + ["display", "-p", "-t", term.name, "#{pane_pid}"],
                       capture_output=True, text=True).stdout.strip())
    found, todo = set(), [shell]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                kids = [int(k) for k in f.read().split()]
        except OSError:
            continue
        found.update(kids)
        todo += kids
    return found


def _wait_until_gone(pids: set[int], timeout: float = 60.0) -> None:
    # A safety net for a hung process, not a timing assertion.
    import time

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        alive = {p for p in pids if os.path.exists(f"/proc/{p}") and "Z" not in _state(p)}
        if not alive:
            return
        time.sleep(0.1)
    raise AssertionError(f"processes {sorted(alive)} still run after their terminal closed")


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "Z"


def _audit(log) -> dict:
    audit = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(log), "--json"],
                           capture_output=True, text=True, env={**os.environ, "PYTHONPATH": REPO})
    assert audit.returncode == 0, audit.stdout + audit.stderr
    return json.loads(audit.stdout)


def test_a_person_whose_terminal_closed_comes_back_by_running_play_again(terminal, tmp_path):
    args = "play bura --bots 1 --seed 5 --name Zoe -o table.deals=1"
    first = terminal(tmp_path, args)
    first.wait_for(lambda s: "your move>" in s and "Trump:" in s, "the table")
    processes = _processes_of(first)
    first.close()  # the terminal window closes: the player and its bot are gone mid-game
    _wait_until_gone(processes)  # none of them lingers on (nor holds the game's port or log)
    states = list((tmp_path / "games").glob("*.p2plog.state"))
    assert len(states) == 1 and states[0].stat().st_mode & 0o777 == 0o600
    listing = subprocess.run([sys.executable, "-m", "p2pcards", "resume"], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": REPO,
                                                            "P2PCARDS_HOME": str(tmp_path)})
    assert listing.returncode == 0 and "1. bura with Zoe, Ada: deal 1, entry" in listing.stdout, listing

    again = terminal(tmp_path, args)
    again.wait_for(lambda s: "Resume it? (yes/no" in s, "the offer to resume")
    again.keys("yes", "Enter")
    again.wait_for(lambda s: "your move>" in s and "Trump:" in s, "the table again")
    again.keys("away", "Enter")
    again.wait_for(lambda s: "match over" in s.splitlines()[0], "the end of the deal", timeout=240)
    again.keys("Escape")
    again.keys("quit", "Enter")
    assert "EXITED 0" in again.wait_for(lambda s: "EXITED" in s, "the program to end")
    logs = list((tmp_path / "games").glob("*.p2plog"))
    assert len(logs) == 1  # the same game, not a new one
    assert _audit(logs[0])["violations"] == []
    assert list((tmp_path / "play-bots").iterdir()) == []  # the bots' files go once the game is over


def test_a_joiner_who_crashed_or_quit_comes_back_and_the_host_sees_who_is_gone(terminal, tmp_path):
    import re

    hana, joe = tmp_path / "hana", tmp_path / "joe"
    hana.mkdir(), joe.mkdir()
    host = terminal(hana, "host bura --players 3 --bind 127.0.0.1 --port 0 --name Hana -o table.deals=1")
    address = re.compile(r"p2pcards join (127\.0\.0\.1:\d+)")
    where = address.search(host.wait_for(lambda s: address.search(s), "the address to join")).group(1)
    join = f"join {where} --name Joe"
    first = terminal(joe, join)
    bot = subprocess.Popen([sys.executable, "-m", "p2pcards", "bot", where, "--name", "Ada"],
                           env={**os.environ, "PYTHONPATH": REPO, "P2PCARDS_HOME": str(tmp_path / "ada")},
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for person in (host, first):
            person.wait_for(lambda s: "Accept this table?" in s, "the table to accept")
            person.keys("yes", "Enter")
        first.wait_for(lambda s: "Trump:" in s, "Joe's table")
        first.close()  # Joe's terminal closes: a crash, no goodbye
        screen = host.wait_for(lambda s: "Joe's connection broke" in s, "the host told Joe is gone")
        assert re.search(r"Joe\b.*reconnecting \(\d:\d\d left\)", screen), screen  # the countdown, by name

        again = terminal(joe, join)
        offer = again.wait_for(lambda s: "Resume it? (yes/no" in s, "the offer")
        assert re.search(r"unfinished game of this table: bura with Hana, (Joe, Ada|Ada, Joe): deal 1",
                         re.sub(r"\s*\n\s*", " ", offer)), offer  # seats in the order they sat down (the offer wraps between words)
        again.keys("yes", "Enter")
        again.wait_for(lambda s: "Trump:" in s, "Joe back at the table")
        host.wait_for(lambda s: "Joe is back" in s, "the host told Joe is back")

        again.keys("quit", "Enter")
        again.wait_for(lambda s: "Leave the game?" in s, "the question")
        again.keys("y", "Enter")
        again.wait_for(lambda s: "EXITED" in s, "Joe to leave")
        screen = host.wait_for(lambda s: "Joe left the table" in s, "the host told Joe left on purpose")
        assert re.search(r"Joe\b.*left \(\d:\d\d to come back\)", screen), screen

        third = terminal(joe, "resume")
        third.wait_for(lambda s: "Come back to which game?" in s, "the list of games")
        third.keys("1", "Enter")
        third.wait_for(lambda s: "Trump:" in s, "Joe back again")
        third.keys("away", "Enter")
        host.keys("away", "Enter")
        for person in (host, third):
            person.wait_for(lambda s: "match over" in s.splitlines()[0], "the end of the deal", timeout=240)
        logs = list((hana / "games").glob("*.p2plog"))
        assert len(logs) == 1 and _audit(logs[0])["violations"] == []
        assert list((joe / "games").glob("*.p2plog")) and len(list((joe / "games").glob("*.p2plog"))) == 1
    finally:
        bot.kill()
        bot.wait()


def test_new_starts_afresh_beside_an_unfinished_game(terminal, tmp_path):
    args = "play bura --bots 1 --seed 5 --name Zoe -o table.deals=1"
    first = terminal(tmp_path, args)
    first.wait_for(lambda s: "your move>" in s and "Trump:" in s, "the table")
    first.close()
    fresh = terminal(tmp_path, args + " --new")
    # No question is asked: unanswered, it would keep the table from opening.
    fresh.wait_for(lambda s: "your move>" in s and "Trump:" in s, "a new table")
    assert len(list((tmp_path / "games").glob("*.p2plog"))) == 2
    fresh.close()
