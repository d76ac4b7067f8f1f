"""End to end in a real terminal: ``p2pcards play bura --bots 1`` in tmux,
a bot peer in its own process over loopback, moves typed at the keyboard."""

import os
import shutil
import subprocess
import sys
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


class Terminal:
    def __init__(self, name: str):
        self.name = name

    def screen(self) -> str:
        res = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return res.stdout

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def wait_for(self, predicate, what: str, timeout: float = 60.0) -> str:
        # A safety net for a hung game, not a timing assertion.
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"never saw {what}; the screen:\n{self.screen()}")


@pytest.fixture
def terminal(tmp_path):
    name = f"p2pcards-ui-test-{os.getpid()}"
    command = (
        f"cd {tmp_path} && HOME={tmp_path} PYTHONPATH={REPO} {sys.executable} -m p2pcards play bura --bots 1 "
        f"--seed 3 --name Tester; echo EXITED $?; sleep 30"
    )
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", command], check=True)
    try:
        yield Terminal(name)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


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
        terminal.wait_for(lambda s: "(Enter plays it)" in s, "the hint")
        terminal.keys("Enter")
        terminal.wait_for(lambda s: s.count("Tester ") > before, "my move in the log")
        moves += 1
    terminal.keys("quit", "Enter")
    terminal.wait_for(lambda s: "Leave the game?" in s or "EXITED" in s, "the question")
    if "Leave the game?" in terminal.screen():
        terminal.keys("y", "Enter")
    screen = terminal.wait_for(lambda s: "EXITED" in s, "the program to end")
    assert "EXITED 0" in screen
