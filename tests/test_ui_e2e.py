"""End to end in a real terminal: ``p2pcards play bura --bots 1`` in tmux,
a bot peer in its own process over loopback, moves typed at the keyboard."""

import os
import shutil
import sys

import pytest

from tests.helpers import REPO, Terminal

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


@pytest.fixture
def terminal(tmp_path):
    name = f"p2pcards-ui-test-{os.getpid()}"
    command = (
        f"cd {tmp_path} && HOME={tmp_path} PYTHONPATH={REPO} {sys.executable} -m p2pcards play bura --bots 1 "
        f"--seed 3 --name Tester; echo EXITED $?; sleep 30"
    )
    terminal = Terminal(name, command, columns=120, rows=40)
    try:
        yield terminal
    finally:
        terminal.close()


def typed(screen: str) -> str:
    """What stands on the input line (the screen's last line, after the prompt)."""
    return screen.rstrip().splitlines()[-1].partition(">")[2].strip()


def test_play_bura_against_a_bot_peer_in_a_real_terminal(terminal):
    screen = terminal.wait_for(lambda s: "Trump:" in s, "the bura table")
    assert "Tester" in screen and "Ada" in screen and "connected" in screen
    assert any(sym in screen for sym in "\u2663\u2666\u2665\u2660")  # cards with suit symbols
    # nonsense gets an explanation, the game goes on
    terminal.wait_for(lambda s: "your move>" in s, "my turn")
    terminal.keys("frobnicate", "Enter")
    terminal.wait_for(lambda s: "unknown command 'frobnicate'" in s, "the explanation")
    # two moves of my own: the greedy hint fills the line, Enter plays it
    moves = 0
    while moves < 2:
        screen = terminal.wait_for(lambda s: "your move>" in s or "match over" in s, "my turn")
        if "match over" in screen:
            break
        before = screen.count("Tester ")
        terminal.keys("hint", "Enter")
        # The hint's words may still stand from the last move: wait for the
        # move itself on the input line, or Enter would find the line empty.
        terminal.wait_for(lambda s: "(Enter plays it)" in s and typed(s) not in ("", "hint"), "the hint")
        terminal.keys("Enter")
        # Played: it shows in the log, or (a deal that ends on it at once, its
        # score sheet over the table) at least the input line is empty again.
        terminal.wait_for(lambda s: s.count("Tester ") > before or typed(s) == "", "my move played")
        moves += 1
    terminal.keys("quit", "Enter")
    terminal.wait_for(lambda s: "Leave the game?" in s or "EXITED" in s, "the question")
    if "Leave the game?" in terminal.screen():
        terminal.keys("y", "Enter")
    screen = terminal.wait_for(lambda s: "EXITED" in s, "the program to end")
    assert "EXITED 0" in screen
