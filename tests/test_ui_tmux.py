"""End to end in a real terminal (tmux, 80x24): the host of a LAN table sees
the address others join at (with --port 0 too), and keeps seeing it in the
lobby while players sit down; a bot peer joins by exactly that address.
A whole match of ``play`` ends on its score sheet, which stays in the shell,
and leaves nothing in the temporary directory."""

import os
import re
import time
import shutil
import subprocess
import sys

import pytest

from tests.helpers import REPO, Terminal

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


@pytest.fixture
def host(tmp_path):
    name = f"p2pcards-host-test-{os.getpid()}"
    command = (f"cd {tmp_path} && HOME={tmp_path} PYTHONPATH={REPO} {sys.executable} -m p2pcards host bura "
               f"--players 3 --port 0 --name Host; echo EXITED $?; sleep 30")
    terminal = Terminal(name, command)
    try:
        yield terminal
    finally:
        terminal.close()


def test_the_host_sees_the_address_to_join_and_keeps_it_in_the_lobby(host, tmp_path):
    join = re.compile(r"p2pcards join (\d+\.\d+\.\d+\.\d+):(\d+)")
    screen = host.wait_for(lambda s: join.search(s), "the address to join")
    address, port = join.search(screen).groups()
    assert int(port) != 0
    assert all(len(line) <= 80 for line in screen.splitlines())
    bot = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", "bot", f"{address}:{port}", "--name", "Ada"],
        cwd=tmp_path, env={**os.environ, "HOME": str(tmp_path / "bot"), "PYTHONPATH": REPO},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        screen = host.wait_for(lambda s: "2 of 3 seated" in s, "the bot seated")
        assert f"p2pcards join {address}:{port}" in screen  # still there with a player seated
        assert "Ada" in screen and "bura" in screen.splitlines()[0] + screen
        assert "Traceback" not in screen
    finally:
        bot.kill()
        bot.wait()
    host.keys("quit", "Enter")
    host.wait_for(lambda s: "EXITED" in s, "the host to leave")


@pytest.fixture
def one_deal(tmp_path):
    name = f"p2pcards-play-test-{os.getpid()}"
    (tmp_path / "tmp").mkdir()
    command = (f"cd {tmp_path} && HOME={tmp_path} TMPDIR={tmp_path / 'tmp'} PYTHONPATH={REPO} {sys.executable} "
               f"-m p2pcards play bura --bots 1 --seed 5 --name You -o table.deals=1; echo EXITED $?; sleep 30")
    terminal = Terminal(name, command)
    try:
        yield terminal
    finally:
        terminal.close()


def test_a_match_ends_on_its_score_sheet_which_stays_in_the_shell(one_deal, tmp_path):
    term = one_deal
    end = time.monotonic() + 240  # a safety net for a hung game, not a timing assertion
    while time.monotonic() < end:
        screen = term.wait_for(lambda s: "your move>" in s or "score sheet" in s, "my turn or the sheet")
        if "The match is over" in screen:
            break
        if "score sheet" in screen:
            time.sleep(0.2)
            continue
        term.keys("hint", "Enter")
        term.wait_for(lambda s: re.search(r"\(Enter\s+plays\s+it\)", s) or "score sheet" in s, "the hint")
        term.keys("Enter")
        # the move is sent: the input line is empty again and the hint gone
        term.wait_for(lambda s: s.rstrip().splitlines()[-1].strip() in ("your move>", ">")
                      and "plays" not in s, "my move taken")
    screen = term.wait_for(lambda s: "The match is over" in s, "the match's end on the sheet")
    assert "Deal 1: score sheet" in screen and "Hands at the end:" in screen
    assert "reconnecting" not in screen
    term.keys("PageDown")  # the rest of the sheet, on a small screen
    term.wait_for(lambda s: "Final standings:" in s, "the standings")
    term.keys("Escape")
    table = term.wait_for(lambda s: "match over" in s and "score sheet" not in s.splitlines()[2], "the table")
    assert "reconnecting" not in table
    term.keys("quit", "Enter")
    shell = term.wait_for(lambda s: "EXITED" in s, "the program to end")
    assert "EXITED 0" in shell
    assert "The match is over: " in shell and "Final standings:" in shell and "p2pcards audit " in shell
    assert list((tmp_path / "tmp").iterdir()) == []  # the bots' folder is gone
