"""The replay reads like a game page (issue 25 item 7), in English, Polish and
Hungarian, at 80x24 and 120x40, read off the screen: a header of one line,
numbered moves shown whole (a long one wraps under its text, never cut), and
the result with the winner on the last screen, at the end of the move list
and in ``replay --text``. The game: replays/kanasta-4p (pairs; bot1 + bot3
win 11,200 to 9,345)."""

import io
import os
import re
import shutil
import subprocess
import sys

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from p2pcards import i18n
from p2pcards.audit.replay import MOVE, load_replay
from p2pcards.ui.replay_viewer import ReplayViewer
from p2pcards.ui.scoresheet import shell_text
from tests.helpers import REPO, Terminal, environment

KANASTA = os.path.join(REPO, "replays", "kanasta-4p.p2plog")
RESULT = {"en": "bot1 + bot3 win 11,200 : 9,345",
          "pl": "bot1 + bot3 wygrywają 11 200 : 9 345",
          "hu": "bot1 + bot3 nyert, 11 200 : 9 345"}
SIZES = [(80, 24), (120, 40)]


@pytest.fixture(scope="module")
def replay():
    return load_replay(KANASTA)


def viewer_at(replay, columns: int, rows: int) -> ReplayViewer:
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=rows, columns=columns), term="xterm")
        return ReplayViewer(replay, input=pipe, output=output)


def text(fragments) -> str:
    return fragment_list_to_text(fragments)


def unwrapped(lines: list[str]) -> str:
    return re.sub(r"\s+", " ", " ".join(lines))


@pytest.mark.parametrize("language", ["en", "pl", "hu"])
@pytest.mark.parametrize("columns,rows", SIZES)
def test_moves_are_numbered_and_shown_whole(replay, language, columns, rows):
    i18n.set_language(language)
    viewer = viewer_at(replay, columns, rows)
    session, side_width = viewer.session, viewer._side_width()
    assert side_width >= 30 if columns >= 80 else True
    for move in list(range(0, len(replay.moves), 61)) + [len(replay.moves) - 1]:
        session.go(move)
        header = text(viewer._header())
        assert "\n" not in header and len(header) <= columns, header
        lines = text(viewer._side()).splitlines()
        assert all(len(line) <= side_width for line in lines), lines
        current = session.current
        number = session.move_number(move)
        shown = shell_text([session.move_text(move)])
        if current.kind == MOVE:  # numbered within its deal, whole
            assert number == sum(1 for m in replay.moves[:move + 1] if m.deal == current.deal and m.kind == MOVE)
            shown = f"{number}. {shown}"
        assert unwrapped([shown]) in unwrapped(lines), (shown, lines)
        marked = next(i for i, line in enumerate(lines) if line.startswith("\u25b6"))
        if move not in (0, len(replay.moves) - 1):
            assert 0 < marked < len(lines) - 1  # moves before it and after it are in sight


@pytest.mark.parametrize("language", ["en", "pl", "hu"])
@pytest.mark.parametrize("columns,rows", SIZES)
def test_the_last_screen_names_the_winner(replay, language, columns, rows):
    i18n.set_language(language)
    viewer = viewer_at(replay, columns, rows)
    viewer.session.go(len(replay.moves) - 1)
    table = text(viewer._table()).splitlines()
    assert RESULT[language] in table, table
    assert all(len(line) <= columns - viewer._side_width() - 1 for line in table)
    assert RESULT[language] in unwrapped(text(viewer._side()).splitlines())  # after the last move


@pytest.mark.parametrize("language", ["en", "pl", "hu"])
def test_the_text_record_ends_with_the_result(language, tmp_path):
    run = subprocess.run([sys.executable, "-m", "p2pcards", "replay", KANASTA, "--text", "--lang", language],
                         capture_output=True, text=True, env=environment(tmp_path), timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert RESULT[language] in lines
    assert any(line.startswith("   1. ") for line in lines)  # numbered moves


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
@pytest.mark.parametrize("language,columns,rows", [("pl", 80, 24), ("hu", 120, 40)])
def test_the_review_in_a_terminal(language, columns, rows, tmp_path):
    """As a player opens it: the header on one line while the log is read and
    after, the last move (End) names the winners."""
    name = f"p2pcards-review-{language}-{os.getpid()}"
    command = (f"cd {tmp_path} && P2PCARDS_HOME={tmp_path} PYTHONPATH={REPO} {sys.executable} -m p2pcards "
               f"replay {KANASTA} --lang {language}; sleep 30")
    terminal = Terminal(name, command, columns, rows)
    try:
        clean = {"pl": "audyt: bez zarzutu", "hu": "ellenőrzés: rendben"}[language]
        screen = terminal.wait_for(lambda s: clean in s, "the log read and audited", timeout=120)
        terminal.keys("End")

        def drawn(s: str) -> bool:  # the whole screen (tmux may show it half redrawn)
            lines = s.splitlines()
            return RESULT[language] in s and len(lines) >= 2 and clean in lines[0] and "\u2502" in lines[1]

        # the header is one line: the table and the move list follow on the second
        screen = terminal.wait_for(drawn, "the result on the last screen under a one-line header")
        assert len(screen.splitlines()[0].rstrip()) <= columns and "Traceback" not in screen
    finally:
        terminal.close()
