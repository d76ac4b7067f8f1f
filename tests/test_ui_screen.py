"""What the terminal really shows: the app draws into prompt-toolkit's screen
buffer (read back cell by cell) while the input comes from a pipe, at 120, 80
and 60 columns and after resizing between them."""

import io
import re

import pytest
import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from p2pcards.identity import Identity
from p2pcards.ui.app import LOG_WIDTH, WIDE, run_app
from p2pcards.ui.render import render_hand, render_log, render_table
from p2pcards.ui.session import PHASE_PLAYING, LocalSession
from tests.helpers import until

CHAT = "shall we play another after this one with proofs and everything signed twice"



class Screen:
    """The app at a terminal whose size the test changes."""

    def __init__(self, ui, pipe, size):
        self.ui, self.pipe, self.size = ui, pipe, size

    async def resize(self, columns: int, rows: int = 40) -> None:
        self.size[:] = [columns, rows]
        await self.redraw(self.ui.app._on_resize)

    async def redraw(self, cause=None) -> None:
        before = self.ui.app.render_counter
        if cause is not None:
            cause()
        else:
            self.ui.invalidate()
        await until(lambda: self.ui.app.render_counter > before)

    async def type(self, line: str) -> None:
        handled = self.ui.lines_handled
        self.pipe.send_text(line + "\r")
        await until(lambda: self.ui.lines_handled > handled)
        await until(lambda: self.ui.jobs_done == self.ui.jobs_submitted)
        await self.redraw()

    def rows(self) -> list[str]:
        screen = self.ui.app.renderer._last_screen
        columns, rows = self.size
        return ["".join(screen.data_buffer[y][x].char for x in range(columns)).rstrip() for y in range(rows)]


def at_screen(game_id, players, script, *, names=None, columns=120):
    size = [columns, 40]
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=size[1], columns=size[0]), term="xterm-256color")
    with create_pipe_input() as pipe:

        async def main(ui):
            session = LocalSession(game_id, players, names=names, bots="random", seed=5, bot_delay=0,
                                   pause=None, max_deals=1)
            session.fingerprints = [Identity.from_seed(bytes([s + 1]) * 32).fingerprint for s in range(players)]
            ui.show(session)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(session.run)
                await until(lambda: session.match_info()["phase"] == PHASE_PLAYING)
                # The bots think in a thread: wait until they have played up to the
                # person's turn, so no move of theirs lands in the log mid-script.
                await until(lambda: bool(session.legal_actions()))
                await script(Screen(ui, pipe, size), session)
                nursery.cancel_scope.cancel()
            ui.app.exit()

        run_app(main, input=pipe, output=output)


def body_rows(rows: list[str]) -> list[str]:
    """The rows between the rule under the header and the rule above the message line."""
    rules = [i for i, r in enumerate(rows) if r and set(r) == {"\u2500"}]
    return rows[rules[0] + 1:rules[-1]]


LONG_NAMES = ["Maximilian Vandersloot", "Ada", "Bolesław Wierzbicki", "Zsófia"]


@pytest.mark.parametrize("game_id,players", [("bura", 4), ("kanaszta", 4), ("warkocz", 3), ("kanasta", 2)])
def test_the_table_fits_every_width_and_the_log_column_keeps_its_place(game_id, players):
    async def script(screen, session):
        await screen.type(f"chat {CHAT}")
        for columns in (120, 80, 60, 120, 100, 60):
            await screen.resize(columns)
            rows = screen.rows()
            body = body_rows(rows)
            assert body, rows
            if columns >= WIDE:
                divider = columns - LOG_WIDTH - 1
                # the divider stands in the same column on every row of the body
                assert all(len(r) > divider and r[divider] == "\u2502" for r in body), (columns, body)
                log = [r[divider + 1:].strip() for r in body]
            else:
                log = [r.strip() for r in body]
            # the chat line is broken between words, never inside one
            words = [w for r in log for w in r.split()]
            for word in CHAT.split():
                assert word in words, (columns, word, "\n".join(rows))
            # the table's own lines fit its width, fingerprints whole or absent
            width = columns - LOG_WIDTH - 1 if columns >= WIDE else columns
            for fragments in (render_table(session, False, width, with_hand=False), render_hand(session, False, width)):
                lines = fragment_list_to_text(fragments).splitlines()
                assert all(len(line) <= width for line in lines), (columns, [l for l in lines if len(l) > width])
            table = fragment_list_to_text(render_table(session, False, width, with_hand=False))
            for fp in session.fingerprints:
                shown = [line for line in table.splitlines() if "key " in line]
                assert all(fp in line or fp[:4] not in line for line in shown)

    at_screen(game_id, players, script, names=LONG_NAMES[:players])


def test_the_log_wraps_at_spaces_to_its_width():
    class Session:
        names = ["Ada", "You"]

        def last_moves(self):
            return ["Ada: " + "word " * 30 + "x" * 60]

    lines = fragment_list_to_text(render_log(Session(), width=20)).splitlines()
    assert all(len(line) <= 20 for line in lines), lines
    assert lines[1].startswith("Ada: word")
    words = [w for line in lines[1:] for w in line.split()]
    assert words[1:31] == ["word"] * 30  # no word broken in two
    assert "".join(l.strip() for l in lines[1:]).count("x") == 60  # a word too long for a line is cut, not lost


def test_log_records_go_to_the_message_line_not_over_the_screen(capfd):
    import logging
    import threading

    root = logging.getLogger()
    printed = logging.StreamHandler()  # what P2PCARDS_LOG's basicConfig installs: lines on stderr
    root.addHandler(printed)
    seen = []

    async def main(ui):
        logging.getLogger("p2pcards.net.endpoint").warning("rejected connection from %s: %s", "127.0.0.1:56202", "bad hello")
        await until(lambda: "rejected connection" in "".join(t for _, t in ui.message))
        seen.append("".join(t for _, t in ui.message))
        # from another thread too (zeroconf logs from its own)
        worker = threading.Thread(target=logging.getLogger("p2pcards.net.lobby").warning,
                                  args=("not advertising the table on the LAN: no interface",))
        worker.start()
        worker.join()
        await until(lambda: "not advertising" in "".join(t for _, t in ui.message))
        seen.append("".join(t for _, t in ui.message))
        ui.app.exit()

    try:
        with create_pipe_input() as pipe:
            run_app(main, input=pipe, output=Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80)))
        assert printed in root.handlers  # given back once the screen is closed
    finally:
        root.removeHandler(printed)
    assert seen == ["rejected connection from 127.0.0.1:56202: bad hello",
                    "not advertising the table on the LAN: no interface"]
    assert "rejected" not in capfd.readouterr().err


def test_a_refusal_shows_cards_as_the_table_does():
    from p2pcards.cards import deck_for, display

    async def script(screen, session):
        await until(lambda: session.legal_actions())
        missing = next(c for c in deck_for("bura") if c not in session.view()["hand"])
        await screen.resize(80)
        await screen.type(f"b {missing}")
        shown = "\n".join(screen.rows()[-6:])
        assert display(missing) in shown and f" {missing}" not in shown, shown

    at_screen("bura", 2, script)


@pytest.mark.parametrize("game_id,players,options", [("warkocz", 2, {"target": 6}), ("bura", 3, {"rounds": 1}),
                                                     ("kanaszta", 2, {"target": 500})])
def test_the_match_ends_on_a_score_sheet_that_stays_in_the_shell(game_id, players, options):
    from p2pcards.ui.render import render_table

    summary = io.StringIO()
    seen = {}
    size = [80, 24]
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=size[1], columns=size[0]), term="xterm-256color")

    async def main(ui):
        session = LocalSession(game_id, players, seat=0, bots="greedy", seed=2, bot_delay=0, pause=0,
                               options=options, turn_time=0.001)  # the bot plays the human's moves at once
        ui.show(session)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(session.run)
            await until(lambda: session.match_info()["phase"] == "over" and ui.pager is not None)
            nursery.cancel_scope.cancel()
        info = session.match_info()
        seen["pager"] = "\n".join(ui.pager)
        seen["result"] = info["result"]
        seen["deals"] = session.finished_deals()
        seen["table"] = fragment_list_to_text(render_table(session, False, 80))
        seen["names"] = session.names
        ui.app.exit()

    with create_pipe_input() as pipe:
        run_app(main, input=pipe, output=output, summary=summary)
    sheet, result, deals = seen["pager"], seen["result"], seen["deals"]
    assert f"Deal {len(deals)}: score sheet" in sheet and "Hands at the end:" in sheet
    assert "The match is over: " in sheet and "Final standings:" in sheet
    chips = result["chips"]
    if chips is not None:
        for seat, name in enumerate(seen["names"]):
            assert f"{name}: {chips[seat]} chips" in sheet
            # the table's rows show the same final chips as the sheet (no deal's stale count)
            assert re.search(rf"^. {name}\b.*\b{chips[seat]} chips", seen["table"], re.M), seen["table"]
        assert deals[-1].match_chips == chips
    else:
        assert deals[-1].match_scores == result["scores"]
        for score in result["scores"]:
            assert f": {score} points" in sheet
    printed = summary.getvalue()
    assert "The match is over: " in printed and "Final standings:" in printed
    assert "\u2665" in printed or "\u2660" in printed or "\u2666" in printed or "\u2663" in printed  # cards as 7♠


def test_keys_lists_every_players_whole_fingerprint():
    async def script(screen, session):
        await screen.resize(80)
        await screen.type("keys")
        shown = "\n".join(screen.rows())
        for name, fp in zip(session.names, session.fingerprints):
            assert f"{name}: {fp}" in shown, shown

    at_screen("bura", 3, script)
