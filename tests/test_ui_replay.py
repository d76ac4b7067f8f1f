"""The replay viewer on a real finished game (a bura match between bot peers):
moves, not protocol entries; the move list, first decisions, autoplay, score
sheets; opening at once while the log is read; a game somebody left."""

import io
import json
import os
import subprocess
import sys
import time

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from prompt_toolkit.output.vt100 import Vt100_Output

from p2pcards.audit.replay import DEAL_OVER, DEALT, MOVE, load_replay, open_replay
from p2pcards.cards import display
from p2pcards.protocol.log import GameLog, read_log, write_log
from p2pcards.protocol.narration import entry_line
from p2pcards.ui.replay_viewer import ReplayViewer
from p2pcards.ui.scoresheet import shell_text

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPLAYS = os.path.join(REPO, "replays")
ENV = dict(os.environ, PYTHONPATH=REPO)


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    out = tmp_path_factory.mktemp("replay") / "bura.log"
    subprocess.run(
        [sys.executable, "-m", "p2pcards", "selfplay", "bura", "--players", "2", "--seed", "3", "--deals", "3",
         "--out", str(out)],
        check=True, capture_output=True, env=ENV, timeout=120,
    )
    return out


@pytest.fixture(scope="module")
def replay(log_path):
    return load_replay(log_path)


@pytest.fixture(scope="module")
def unfinished(log_path, tmp_path_factory):
    """The same game left in the middle of its deal: no end entry."""
    full = read_log(log_path)
    moves = [e.seq for e in full.entries if e.kind == "action"]
    cut = GameLog()
    cut.extend(full.entries[: moves[len(moves) // 2] + 1])
    path = tmp_path_factory.mktemp("left") / "left.log"
    write_log(path, cut)
    return path


def view_with_keys(replay, keys: str, **kw) -> ReplayViewer:
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
        viewer = ReplayViewer(replay, input=pipe, output=output, **kw)
        pipe.send_text(keys + "q")
        viewer.app.run()
    return viewer


def text(fragments) -> str:
    return fragment_list_to_text(fragments)


def test_steps_are_moves_with_the_dealing_folded_into_one(replay):
    viewer = view_with_keys(replay, "n")
    assert viewer.session.current.kind == DEALT
    assert viewer.session.view() is not None  # the dealt hands are on the table
    viewer = view_with_keys(replay, "nnnnp")
    assert viewer.session.move == 3 and viewer.session.current.kind == MOVE
    assert shell_text([viewer.session.current.text]) in text(viewer._table())
    assert "shuffl" not in text(viewer._side())  # the move list holds moves, not protocol entries
    # The protocol entries stay in the detail view, stepped one by one.
    viewer = view_with_keys(replay, "nen")
    assert viewer.session.detail
    assert viewer.session.frame.index == replay.moves[1].last + 1
    assert "Entries of move" in text(viewer._side())


def test_next_deal_never_lands_off_the_table(replay):
    viewer = view_with_keys(replay, "]")
    assert viewer.session.current.kind == DEALT and viewer.session.view() is not None
    viewer = view_with_keys(replay, "]]]]")
    assert viewer.session.view() is not None
    assert "no deal on the table" not in text(viewer._table())


def test_first_decision_of_a_deal(replay):
    viewer = view_with_keys(replay, "d")
    move = viewer.session.current
    assert move.kind == MOVE
    before = replay.frames[move.first - 1]
    assert len(replay.game.legal_actions(replay.full_state(before))) > 1
    earlier = [m for m in replay.moves[:viewer.session.move] if m.kind == MOVE]
    for m in earlier:  # every move before it was forced
        assert len(replay.game.legal_actions(replay.full_state(replay.frames[m.first - 1]))) == 1


def test_jumping_to_an_entry_and_to_the_end(replay):
    viewer = view_with_keys(replay, "15\r")
    assert viewer.session.frame.index == 15
    viewer = view_with_keys(replay, "99999\r")
    assert "no entry 99999" in viewer.note


def test_move_list_marks_the_current_move_and_a_click_goes_there(replay):
    viewer = view_with_keys(replay, "nnn")
    side = viewer._side()
    marked = [line for line in text(side).splitlines() if line.startswith("\u25b6")]
    assert marked == ["\u25b6   2. " + shell_text([viewer.session.move_text(3)])]  # numbered within the deal
    lines, line = [], []
    for fragment in side:
        for k, piece in enumerate(fragment[1].split("\n")):
            if k:
                lines.append(line)
                line = []
            line.append((fragment, piece))
    line5 = next(ln for ln in lines if "".join(p for _, p in ln) == f"  {viewer.session.move_number(5):>3}. " + shell_text([viewer.session.move_text(5)]))
    clickable = next(f for f, piece in line5 if piece and len(f) == 3)
    clickable[2](MouseEvent((0, 0), MouseEventType.MOUSE_UP, MouseButton.LEFT, frozenset()))
    assert viewer.session.move == 5


def test_autoplay_runs_to_the_end_at_the_chosen_speed(replay):
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
        viewer = ReplayViewer(replay, input=pipe, output=output)
        last = len(replay.moves) - 1

        def at_the_end():
            if viewer.autoplay and viewer.session.move == last:
                pipe.send_text("q")

        viewer.session.subscribe(at_the_end)
        started = time.monotonic()
        pipe.send_text("++++" + "\x1b[F" + "ppp" + "g")  # fastest, End, three back, play
        viewer.app.run()
    assert viewer.session.move == last
    assert time.monotonic() - started < 30


def test_score_sheet_at_the_end_of_a_deal(replay):
    over = next(i for i, m in enumerate(replay.moves) if m.kind == DEAL_OVER)
    viewer = view_with_keys(replay, "\x1b[F")  # End
    viewer.session.go(over)
    table = text(viewer._table())
    assert "score sheet" in table and "Hands at the end" in table
    viewer = view_with_keys(replay, "nnnr")  # asked for in the middle of the deal
    assert "score sheet" in text(viewer._table())


@pytest.mark.parametrize("name", ["warkocz-3p.p2plog", "bura-3p.p2plog"])
def test_all_hands_sorted_as_the_table_sorts_them(name):
    replay = load_replay(os.path.join(REPLAYS, name))
    viewer = view_with_keys(replay, "n" * 3, show_all=True)
    table = text(viewer._table()).split("All hands:")[1].splitlines()[1:]
    for seat in range(replay.players):
        view = replay.view(viewer.session.frame, seat)  # what that seat's own screen showed
        shown = replay.game.hand_order(view["hand"], view.get("trump_suit"))
        assert table[seat] == f"  {replay.names[seat]:<12}" + " ".join(display(c) for c in shown)
        assert any(symbol in table[seat] for symbol in "\u2660\u2665\u2666\u2663")


def test_each_seat_sees_its_own_hand(replay):
    # A move in the middle of the match (the deals' seeds are fresh each run,
    # so the middle step may be a deal's end, which shows its score sheet).
    middle = next(i for i in range(len(replay.moves) // 2, len(replay.moves)) if replay.moves[i].kind == MOVE)
    viewer = view_with_keys(replay, "n" * middle, seat=0)
    mine = viewer.session.view()["hand"]
    assert "Your hand" in text(viewer._table())
    viewer = view_with_keys(replay, "n" * middle + "s", seat=0)
    assert viewer.session.seat == 1 and (viewer.session.view()["hand"] != mine or not mine)
    viewer = view_with_keys(replay, "n" * middle + "ss", seat=0)
    assert viewer.session.seat is None


def test_opens_before_the_log_is_read_with_a_progress_bar():
    """The biggest recorded match: the screen's first frame needs entry 0 only."""
    biggest = max((os.path.join(REPLAYS, f) for f in os.listdir(REPLAYS) if f.endswith(".p2plog")),
                  key=os.path.getsize)
    started = time.perf_counter()
    replay = open_replay(biggest)
    assert time.perf_counter() - started < 1.0
    assert len(replay.frames) == 1 and not replay.done.is_set()
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
        viewer = ReplayViewer(replay, input=pipe, output=output)
        assert "checking the file's signatures" in text(viewer._header())
        assert "Rules:" in text(viewer._table())  # the options, in words
        viewer.session.go(50)
        assert "still reading the log" in viewer.note and viewer.session.move == 0


def test_the_walk_fills_the_replay_and_a_cancel_stops_it(log_path):
    replay = open_replay(log_path)
    replay.start().join(60)
    assert replay.done.is_set() and replay.complete and replay.progress() == 1.0
    assert len(replay.frames) == len(read_log(log_path))
    stopped = open_replay(log_path)
    stopped.on_progress = stopped.cancel  # cancelled at its first report
    stopped.start().join(60)
    assert stopped.done.is_set() and stopped.report is None and stopped.error is None


def test_a_game_somebody_left_is_audited_and_replayed(unfinished):
    run = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(unfinished), "--json"],
                         capture_output=True, text=True, env=ENV, timeout=120)
    assert run.returncode == 3, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["complete"] is False and report["violations"] == []
    run = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(unfinished)],
                         capture_output=True, text=True, env=ENV, timeout=120)
    assert "did not finish" in run.stdout and "stops after entry" in run.stdout
    replay = load_replay(unfinished)
    assert not replay.complete
    viewer = view_with_keys(replay, "\x1b[F")
    assert "did not finish" in text(viewer._header())
    assert viewer.session.frame is replay.frames[-1]
    run = subprocess.run([sys.executable, "-m", "p2pcards", "replay", str(unfinished), "--text"],
                         capture_output=True, text=True, env=ENV, timeout=120)
    assert run.returncode == 0 and "The game did not finish" in run.stdout


def test_text_is_a_game_record(log_path):
    run = subprocess.run([sys.executable, "-m", "p2pcards", "replay", str(log_path), "--text", "--as", "0"],
                         capture_output=True, text=True, env=ENV, timeout=120)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Rules: " in out and "{" not in out  # options in words, not a dict
    assert any(s in out for s in "\u2660\u2665\u2666\u2663")
    assert "Deal 1" in out and "score sheet" in out and "Final standings" in out
    assert "shuffl" not in out and "#" not in out  # a record of the game, not of the protocol
    assert "your hand:" in out and out.rstrip().endswith("Audit: clean.")


def test_json_has_one_object_per_move(log_path, replay):
    run = subprocess.run([sys.executable, "-m", "p2pcards", "replay", str(log_path), "--json"],
                         capture_output=True, text=True, env=ENV, timeout=120)
    assert run.returncode == 0, run.stderr
    objects = [json.loads(line) for line in run.stdout.splitlines()]
    assert objects[0]["kind"] == "table" and objects[-1] == {"kind": "audit", "complete": True,
                                                               "violations": [], "error": None}
    moves = [o for o in objects if o["kind"] == "move"]
    assert len(moves) == sum(m.kind == MOVE for m in replay.moves)
    for o in moves:
        assert isinstance(o["seat"], int) and o["action"] and isinstance(o["cards"], list)
        assert o["changed"], "a move changes the table"
        assert all(len(c) <= 3 and not c.startswith("?") for c in o["cards"])  # known after the reveal


def test_the_table_and_the_replay_word_entries_alike():
    names = ["You", "Ada"]
    for kind in ("shuffle", "rekey", "keys", "reveal", "abort", "end"):
        for author in (0, 1):
            line = entry_line(kind, author, {"culprit": 1, "kind": "silent", "detail": "x"}, names, 0, [0, 1])
            assert "You shuffles" not in line and "You reveals" not in line and "You revealed its" not in line
    assert entry_line("shuffle", 0, {}, names, 1) == "deal 2: shuffling (every player in turn, with proofs)"


def test_a_tampered_file_is_refused_after_its_table_is_shown(log_path, tmp_path):
    """Entry 0 is enough to open the screen; a forged later entry stops the
    reading with the reason, never a half-trusted game."""
    data = bytearray(log_path.read_bytes())
    data[-10] ^= 0x01  # inside the end entry's signatures
    forged = tmp_path / "forged.log"
    forged.write_bytes(bytes(data))
    replay = open_replay(forged)
    replay.walk()
    assert replay.done.is_set() and replay.report is None
    assert replay.error and "cannot replay" in replay.error and len(replay.frames) == 1
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=40, columns=120), term="xterm")
        viewer = ReplayViewer(replay, input=pipe, output=output)
        assert replay.error in text(viewer._header())
    for form in ("--text", "--json"):
        run = subprocess.run([sys.executable, "-m", "p2pcards", "replay", str(forged), form],
                             capture_output=True, text=True, env=ENV, timeout=120)
        assert run.returncode != 0 and "cannot replay" in run.stderr and not run.stdout


@pytest.mark.parametrize("columns", [120, 80, 60])
def test_the_table_column_never_spills_into_the_move_list(replay, columns):
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=columns), term="xterm")
        viewer = ReplayViewer(replay, input=pipe, output=output, show_all=True)
        width = columns - viewer._side_width() - 1
        assert width >= columns * 5 // 8 - 1
        for move in range(0, len(replay.moves), 3):
            viewer.session.go(move)
            for line in text(viewer._table()).splitlines():
                assert len(line) <= width, (move, line)


def test_a_replay_in_polish_lists_its_table_and_deals_in_polish(log_path):
    """The move list's own lines (the table, each deal's dealing and end)
    speak the reader's language, like the moves narrated between them."""
    from p2pcards import i18n

    i18n.set_language("pl")
    replay = load_replay(log_path)
    kinds = {}
    for move in replay.moves:
        kinds.setdefault(move.kind, move.text)
    assert " dla 2 graczy: " in replay.moves[0].text and "(miejsce 0)" in replay.moves[0].text
    assert kinds[DEALT].startswith("rozdanie 1: rozdaje ")
    assert kinds[DEAL_OVER] == "rozdanie 1 skończone"
    english = [m.text for m in replay.moves if any(w in m.text for w in (" for ", "seat ", "dealt", " is over"))]
    assert not english, english
