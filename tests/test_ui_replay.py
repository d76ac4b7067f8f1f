"""The replay viewer on a real finished game (a bura match between bot peers)."""

import io
import os
import subprocess
import sys

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from p2pcards.ui.replay_viewer import ReplayViewer

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    from p2pcards.audit.replay import load_replay

    out = tmp_path_factory.mktemp("replay") / "bura.log"
    env = dict(os.environ, PYTHONPATH=REPO)
    subprocess.run(
        [sys.executable, "-m", "p2pcards", "selfplay", "bura", "--players", "2", "--seed", "3", "--deals", "1",
         "--out", str(out)],
        check=True, capture_output=True, env=env, timeout=120,
    )
    return load_replay(out)


def view_with_keys(replay, keys: str, **kw) -> ReplayViewer:
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
        viewer = ReplayViewer(replay, input=pipe, output=output, **kw)
        pipe.send_text(keys + "q")
        viewer.app.run()
    return viewer


def test_stepping_forward_and_back_through_the_log(replay):
    viewer = view_with_keys(replay, "nnnnnnnnnnp")
    assert viewer.session.position == 9
    frames = replay.frames
    assert viewer.session.last_moves()[-1] == f"#{frames[9].index} {frames[9].text}"


def test_jumping_to_an_entry_and_to_the_end(replay):
    last = replay.frames[-1]
    viewer = view_with_keys(replay, "15\r")
    assert viewer.session.frame.index == 15
    viewer = view_with_keys(replay, "99999\r")
    assert "no entry 99999" in viewer.note
    viewer = view_with_keys(replay, "]")
    assert viewer.session.position in replay.deal_starts() or viewer.session.frame is last


def test_each_seat_sees_its_own_hand_and_all_hands_can_be_shown(replay):
    # somewhere in the middle of the deal
    middle = len(replay.frames) // 2
    viewer = view_with_keys(replay, "n" * middle, seat=0)
    s = viewer.session
    mine = s.view()["hand"]
    table = fragment_list_to_text(viewer._table())
    assert "Your hand" in table
    viewer = view_with_keys(replay, "n" * middle + "s", seat=0)
    assert viewer.session.seat == 1
    assert viewer.session.view()["hand"] != mine or not mine
    viewer = view_with_keys(replay, "n" * middle + "ss", seat=0)
    assert viewer.session.seat is None  # a spectator after the last seat
    viewer = view_with_keys(replay, "n" * middle + "a")
    assert viewer.show_all
    assert "All hands:" in fragment_list_to_text(viewer._table())
