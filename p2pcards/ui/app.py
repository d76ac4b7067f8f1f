"""The full-screen table: prompt-toolkit on asyncio, with trio in guest mode
on the same thread so the networking (trio) and the screen share one loop.

    run_app(trio_main)        # trio_main(ui) sets up a session, then ui.show(session)

What ``trio_main`` may call on ``ui`` (a :class:`TableApp`), from trio:

- ``ui.set_status(*lines)``: the waiting screen's text (lobby, connecting);
- ``await ui.ask(lines) -> bool``: show a question, wait for yes or no;
- ``ui.show(session)``: from now on the table of this ``SeatSession``;
- ``ui.leave_table(*lines)``: back to the waiting screen;
- ``ui.say(text, style)``: a message above the input line.

When ``trio_main`` returns, the screen stays until the player quits; when it
raises, the screen closes and ``run_app`` raises the same exception. Quitting
cancels ``trio_main``.

The screen redraws whenever the session reports a change; moves typed by the
player go to the session through one trio worker task, in order, so the input
line never blocks while the network answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.completion import Completer, Completion
from prompt_toolkit.data_structures import Point
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    DynamicContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.filters import Condition
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import TextArea

from p2pcards import i18n
from p2pcards.cards import display
from p2pcards.games import IllegalAction
from p2pcards.i18n import _, ngettext, shown
from p2pcards.ui import commands
from p2pcards.ui.render import (
    Painter, fmt_clock, match_verdict, render_hand, render_header, render_log, render_table, wrap_fragments,
)
from p2pcards.ui.scoresheet import deal_sheet, match_sheet, shell_text
from p2pcards.ui.session import PHASE_ABORTED, PHASE_BETWEEN, PHASE_OVER, PHASE_PLAYING, seat_name

STYLE = Style.from_dict(
    {
        "title": "bold reverse",
        "label": "fg:ansibrightblack",
        "card": "bold",
        "card.red": "bold fg:ansired",
        "back": "fg:ansiblue",
        "down": "italic",
        "turn": "bold reverse fg:ansigreen",
        "turn-mark": "bold fg:ansigreen",
        "other-turn": "fg:ansiyellow",
        "me": "bold",
        "ok": "fg:ansigreen",
        "warn": "fg:ansiyellow",
        "error": "fg:ansired bold",
        "hint": "fg:ansicyan",
        "chat": "fg:ansimagenta",
        "dim": "fg:ansibrightblack",
        "prompt": "bold",
        "prompt.turn": "bold fg:ansigreen",
        "rule": "fg:ansibrightblack",
    }
)

WIDE = 100  # columns from which the log stands beside the table instead of below it
LOG_WIDTH = 44  # the log column beside the table: fixed, so its divider never moves
TICK = 0.25  # seconds between countdown refreshes
PLAYERS_ONLY = ("away", "back", "pause", "continue", "yes", "no")  # commands a spectator has no use for

if sys.version_info < (3, 11):  # Python 3.10: trio depends on the backport
    from exceptiongroup import BaseExceptionGroup



def _hanging_indent(line: str, width: int) -> str:
    """How a pager line goes on when wrapped: under its second column where
    it has one (help's "  usage      what it does"), else indented a little."""
    m = re.match(r"( {2}\S(?:.*?\S)? {2,})\S", line)
    return " " * len(m.group(1)) if m and len(m.group(1)) <= width // 2 else "  "


def _guarded(draw):
    """A drawing method that shows its failure instead of raising it."""

    def guarded(self):
        try:
            return draw(self)
        except Exception as exc:
            return [("class:error", _("(cannot draw this part: {error})").format(error=f"{type(exc).__name__}: {exc}") + "\n")]

    return guarded


class MoveCompleter(Completer):
    """Tab offers exactly the legal moves (and the table commands)."""

    def __init__(self, ui: "TableApp"):
        self.ui = ui

    def get_completions(self, document, complete_event):
        session = self.ui.session
        if session is None:
            return
        text = document.text_before_cursor
        try:
            lines = commands.completions(session.game.id, text, session.legal_actions())
        except Exception:  # a completion must never take the screen down
            return
        for line in lines:
            shown = "".join(display(piece, self.ui.ascii) if card else piece for piece, card in commands.split_cards(line))
            yield Completion(line, start_position=-len(text), display=shown)


class TableApp:
    """The application and its state. ``show``/``set_status`` are called from
    trio (the lead's code); everything else runs in prompt-toolkit."""

    def __init__(self, ascii: bool = False, input=None, output=None):
        self.ascii = ascii
        self.session = None
        self.status: list[str] = [_("Starting\u2026")]
        self.message: list[tuple[str, str]] = []
        self.pager: list[str] | None = None
        self.pager_title = ""
        self.pager_is_sheet = False  # the pager shows the score sheet (``score`` shows it again)
        self.pager_offset = 0
        self.pager_rows = 0
        self.confirm_quit = False
        self.log_path: str | None = None  # where the finished match's log is kept, once it is
        self._sheets_shown = (0, False)
        self._question: tuple[trio.Event, list[bool]] | None = None
        self.remaining: float | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._hint_wanted = False  # "hint" typed on my turn before my client asked for the move
        # Set by the lobby (trio side): says a line to the table while it fills and is accepted.
        self.lobby_chat: Callable[[str], None] | None = None
        self._suggested: str | None = None  # the hinted move standing in the input line, untouched
        # A move sent and not yet taken in: the table still says it is my turn
        # until my entry is in the log, but the prompt must not invite another.
        self._move_sent = False
        self._token: trio.lowlevel.TrioToken | None = None
        self._jobs: trio.MemorySendChannel | None = None
        self._pending: list[Callable[[], Awaitable[None]]] = []
        # Progress counters: lines entered, jobs given to trio and finished
        # (tests and the benchmark wait on them instead of sleeping).
        self.lines_handled = 0
        self.jobs_submitted = 0
        self.jobs_done = 0
        self.app = self._build(input, output)

    # ----- for the trio side ---------------------------------------------------------
    def show(self, session) -> None:
        """Show this session's table from now on (lobby → table)."""
        if self._unsubscribe:
            self._unsubscribe()
        self.session = session
        self._sheets_shown = (0, False)  # (deals whose sheet opened, the match's end shown)
        self._hint_wanted = False
        self._move_sent = False
        self._unsubscribe = session.subscribe(self._session_changed)
        self.pager = None
        self.say(_("Welcome to {game}. Tab lists your legal moves; help explains the commands; "
                   "keys shows the players' key fingerprints.").format(game=session.game.id), "class:label")

    def set_status(self, *lines: str) -> None:
        """The waiting text shown before a session exists (lobby, connecting)."""
        self.status = list(lines)
        self.invalidate()

    async def ask(self, lines: list[str]) -> bool:
        """Show ``lines`` (a question: accept this table?) and wait until the
        player answers yes or no in the input line."""
        if self.session is None:
            self.set_status(*lines)
        else:
            self.say("\n".join(lines), "class:warn")
        answered = trio.Event()
        answer: list[bool] = []
        self._question = (answered, answer)
        self.invalidate()
        try:
            await answered.wait()
        finally:
            self._question = None
            self.invalidate()
        return answer[0]

    def leave_table(self, *status: str) -> None:
        """Back from the table to the waiting screen, showing ``status``."""
        if self._unsubscribe:
            self._unsubscribe()
            self._unsubscribe = None
        self.session = None
        self.set_status(*status)

    def say(self, text: str, style: str = "") -> None:
        """A message in the line above the input."""
        self.message = [(style, text)]
        self.invalidate()

    def invalidate(self) -> None:
        self.app.invalidate()

    def _session_changed(self) -> None:
        """A redraw; and when a deal (or the match) has just ended, its score sheet."""
        try:
            deals = len(self.session.finished_deals())
            over = self.session.match_info().get("phase") == PHASE_OVER
        except Exception:  # a session without sheets still gets its redraws
            deals, over = 0, False
        if (deals, over) != self._sheets_shown and (deals > self._sheets_shown[0] or over):
            self._sheets_shown = (deals, over)
            self.show_score_sheet()
        if self._move_sent and (self.session.to_act() != self.session.seat or self.session.legal_actions()):
            self._move_sent = False  # taken in: the turn moved on, or my next move of this turn is asked for
        if self._hint_wanted and self.session.legal_actions():
            self._hint_wanted = False
            asyncio.get_running_loop().call_soon(self._hint)  # after this change is taken in
        self.invalidate()

    def score_sheet(self) -> list[str]:
        """The last deal's score sheet, the match's end after it once it is over."""
        session = self.session
        if session is None:
            return []
        deals = session.finished_deals() if hasattr(session, "finished_deals") else []
        lines = deal_sheet(session.game, session.names, session.options, deals[-1]) if deals else []
        info = session.match_info()
        if info.get("phase") == PHASE_OVER and info.get("result"):
            lines += [""] if lines else []
            lines += match_sheet(session.game, session.names, session.options, info["result"],
                                 match_verdict(session, info["result"]), self.log_path)
        return lines

    def closing_summary(self) -> str | None:
        """What the shell keeps once the screen closes: the match's score
        sheet and end, why the game stopped, or for a seat that left it
        unfinished how to come back."""
        session = self.session
        if session is None:
            return None
        try:
            info = session.match_info()
            if info.get("phase") == PHASE_OVER:
                return shell_text(self.score_sheet(), self.ascii)
            if info.get("phase") == PHASE_ABORTED:
                stopped = _("The game stopped: {reason}").format(reason=info.get("reason") or "?")
                if self.log_path:
                    stopped += "\n" + _("The log is kept in {path}").format(path=self.log_path)
                return stopped
            peer = getattr(session, "peer", None)
            if peer is not None and session.seat is not None and not (peer.machine.stopped or peer.machine.finished):
                # A seat left mid-game: its log and state file wait for it.
                return _("The game is not over. Come back to it with: p2pcards resume (or the same command again)")
        except Exception as exc:  # the screen is gone; a summary is not worth a traceback
            return _("(no summary: {error})").format(error=f"{type(exc).__name__}: {exc}")
        return None

    def match_logged(self, path: str) -> None:
        """The match is over and its log kept at ``path``: the sheet says where."""
        self.log_path = path
        if self.session is not None and self.session.match_info().get("phase") == PHASE_OVER:
            self.show_score_sheet()

    def show_score_sheet(self) -> None:
        lines = self.score_sheet()
        if not lines:
            self.say(_("No deal has ended yet."), "class:label")
            return
        # Shown again while open (the match's log now kept, say): the player's
        # place in it stays, as it would in a pager redrawn under the reader.
        offset = self.pager_offset if self.pager is not None and self.pager_is_sheet else 0
        # The message line keeps what it said (a refusal must not vanish under the sheet).
        self.open_pager(_("score sheet"), "\n".join(lines), keep_message=True)
        self.pager_is_sheet = True
        self.pager_offset = min(offset, max(0, self.pager_rows - 3))

    # ----- layout ----------------------------------------------------------------------
    def _build(self, input, output) -> Application:
        self.input = TextArea(
            height=1,
            multiline=False,
            prompt=self._prompt,
            completer=MoveCompleter(self),
            complete_while_typing=False,
            history=InMemoryHistory(),
            accept_handler=self._accept,
        )
        # The hand has its own window at the bottom of the table: however many
        # melds the table shows, your cards stay in view.
        # The table's text is laid out for exactly the width it is given
        # (render_* wrap by themselves), so its window never wraps or grows.
        self.table_window = HSplit(
            [
                Window(FormattedTextControl(self._table_text), wrap_lines=True),
                Window(FormattedTextControl(self._hand_text), wrap_lines=True, dont_extend_height=True),
            ],
            width=lambda: Dimension.exact(self._table_width()),
        )
        self.log_control = FormattedTextControl(
            self._log_text, get_cursor_position=self._log_cursor, show_cursor=False
        )
        self.pager_window = Window(FormattedTextControl(self._pager_text), wrap_lines=True)
        wide = VSplit(
            [
                self.table_window,
                Window(width=1, char="\u2502" if not self.ascii else "|", style="class:rule"),
                Window(self.log_control, width=Dimension.exact(LOG_WIDTH), wrap_lines=True),
            ]
        )
        narrow = HSplit(
            [
                self.table_window,
                Window(height=1, char="\u2500" if not self.ascii else "-", style="class:rule"),
                # a short terminal gives its rows to the table, not the log
                Window(self.log_control, height=lambda: Dimension(min=2, max=7 if self._rows() >= 32 else 3),
                       wrap_lines=True),
            ]
        )
        lobby = Window(FormattedTextControl(self._lobby_text), wrap_lines=True)

        def body():
            if self.pager is not None:
                return self.pager_window
            if self.session is None:
                return lobby
            return wide if self._columns() >= WIDE else narrow

        rule = "\u2500" if not self.ascii else "-"
        root = FloatContainer(
            content=HSplit(
                [
                    Window(FormattedTextControl(self._header_text), height=1),
                    Window(height=1, char=rule, style="class:rule"),
                    DynamicContainer(body),
                    Window(height=1, char=rule, style="class:rule"),
                    ConditionalContainer(
                        Window(
                            FormattedTextControl(self._message_text),
                            height=Dimension(min=1, max=8),
                            wrap_lines=True,
                            dont_extend_height=True,
                        ),
                        filter=Condition(lambda: bool(self.message)),
                    ),
                    self.input,
                ]
            ),
            floats=[Float(xcursor=True, ycursor=True, content=CompletionsMenu(max_height=12, scroll_offset=1))],
        )
        return Application(
            layout=Layout(root, focused_element=self.input),
            key_bindings=self._keys(),
            style=STYLE,
            full_screen=True,
            input=input,
            output=output,
        )

    def _rows(self) -> int:
        try:
            return self.app.output.get_size().rows
        except Exception:
            return 24

    def _columns(self) -> int:
        try:
            return self.app.output.get_size().columns
        except Exception:
            return 80

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()

        @kb.add("c-c")
        @kb.add("c-q")
        def _key(event):
            if self.confirm_quit:
                self._leave()
            else:
                self._quit()

        @kb.add("escape", eager=True)
        def _key(event):
            self.pager = None
            self.confirm_quit = False
            self.message = []

        @kb.add("pageup")
        def _key(event):
            if self.pager is not None:
                self.pager_offset = max(0, self.pager_offset - self._page())

        @kb.add("pagedown")
        def _key(event):
            if self.pager is not None:
                self.pager_offset = min(max(0, self.pager_rows - 3), self.pager_offset + self._page())

        @kb.add("f1")
        def _key(event):
            self._run_command(commands.UiCommand("help"))

        # A hint stands in the input line as a suggestion: Enter plays it, and
        # the first letter typed replaces it instead of being added to it.
        @kb.add(Keys.Any, filter=Condition(lambda: self._suggested is not None
                                           and self.input.buffer.text == self._suggested))
        def _key(event):
            self._suggested = None
            event.current_buffer.text = ""
            event.current_buffer.insert_text(event.data)

        return kb

    def _page(self) -> int:
        info = self.pager_window.render_info
        return max(1, (info.window_height if info else 20) - 4)  # the title takes rows too: none skipped

    # ----- what is drawn ---------------------------------------------------------------
    # Every drawing function runs inside prompt-toolkit's render: an exception
    # there (a session in a state nobody foresaw) would end the program, so
    # each one shows the error in its place instead.
    def _prompt(self):
        if self.confirm_quit:
            return [("class:error", _("Leave the game? (y/n)") + " ")]
        if self._question is not None:
            return [("class:warn", _("(yes/no)") + "> ")]
        s = self.session
        try:
            mine = s is not None and s.seat is not None and s.to_act() == s.seat and not self._move_sent
        except Exception:
            mine = False
        # Translators: the input line's prompt when it is the player's turn.
        return [("class:prompt.turn", _("your move") + "> ")] if mine else [("class:prompt", "> ")]

    @_guarded
    def _header_text(self):
        if self.session is None:
            return [("class:title", " p2pcards ")]
        return render_header(self.session, self.ascii, self.remaining)

    def _table_width(self) -> int:
        columns = self._columns()
        return columns - LOG_WIDTH - 1 if columns >= WIDE else columns

    def _log_width(self) -> int:
        return LOG_WIDTH if self._columns() >= WIDE else self._columns()

    @_guarded
    def _table_text(self):
        return render_table(self.session, self.ascii, self._table_width(), with_hand=False)

    @_guarded
    def _hand_text(self):
        return render_hand(self.session, self.ascii, self._table_width())

    @_guarded
    def _log_text(self):
        fragments = render_log(self.session, self.ascii, width=self._log_width())
        self._log_lines = sum(text.count("\n") for _, text in fragments)
        return fragments

    def _log_cursor(self) -> Point:
        # Keep the newest line in view: the window scrolls to the "cursor",
        # put on the last line of the text just rendered.
        return Point(0, getattr(self, "_log_lines", 0))

    @_guarded
    def _message_text(self):
        """The message line, broken between words to the terminal's width."""
        p = Painter(self.ascii, self._columns())
        for style, text in self.message:
            if "error" in style:  # the rules' reasons name cards (8S): shown as the table shows them (8♠)
                p.rich(text, style)
            else:  # help and hints teach how cards are typed: KH stays KH
                p.text(text, style)
        return wrap_fragments(p.out, self._columns(), indent="")

    def _lobby_text(self):
        out = [("", "\n")]
        for line in self.status:
            out.append(("", line + "\n"))
        out.append(("class:label", "\n" + _("quit or Ctrl-C leaves.") + "\n"))
        return wrap_fragments(out, self._columns())

    @_guarded
    def _pager_text(self):
        """The pager's title, then its text from ``pager_offset`` on, counted
        in screen rows (a long line wrapped counts for each of its rows)."""
        width = self._columns()
        head = Painter(self.ascii, width)
        head.text(f" {self.pager_title} ", "class:title").label("  " + _("PgUp/PgDn scroll, Esc or Enter back to the table"))
        if self.pager_is_sheet:
            head.label(" " + _("(score shows it again)"))
        clock = self._sheet_clock() if self.pager_is_sheet else None
        if clock is not None:
            head.nl().text(clock[0], clock[1])
        rows: list[list[tuple[str, str]]] = [[]]
        for line in self.pager or []:
            body = Painter(self.ascii, width)
            body.rich(line).nl()
            for style, text in wrap_fragments(body.out, width, indent=_hanging_indent(line, width)):
                for i, part in enumerate(text.split("\n")):
                    if i:
                        rows.append([])
                    if part:
                        rows[-1].append((style, part))
        self.pager_rows = len(rows)
        out = wrap_fragments(head.out, width) + [("", "\n\n")]
        for row in rows[self.pager_offset:]:
            out += row + [("", "\n")]
        return out

    def _sheet_clock(self) -> tuple[str, str] | None:
        """While a score sheet is open the table plays on: the next deal's
        turn and the same countdown the header and every other player show,
        so that nobody's time runs out unseen behind the sheet."""
        session = self.session
        info = session.match_info() if session is not None else {}
        phase = info.get("phase")
        number = info.get("deal_index", 0) + 1
        if phase == PHASE_PLAYING:
            who = session.to_act()
            if who is None or getattr(session, "pause_line", lambda: None)():
                return None
            left = fmt_clock(self.remaining) if self.remaining is not None else None
            if who == session.seat:
                text = (_("Deal {number}: your move, {clock} left. Enter takes you back to the table.")
                        if left else _("Deal {number}: your move. Enter takes you back to the table."))
                return text.format(number=number, clock=left), "class:turn"
            name = seat_name(session.names, who)
            text = _("Deal {number}: {name} to play, {clock} left.") if left else _("Deal {number}: {name} to play.")
            return text.format(number=number, name=name, clock=left), "class:other-turn"
        if phase == PHASE_BETWEEN and info.get("deals_go_on"):
            return _("The next deal is being dealt…"), "class:warn"
        return None

    def open_pager(self, title: str, text: str, keep_message: bool = False) -> None:
        self.pager = text.splitlines()
        self.pager_title = title
        self.pager_is_sheet = False
        self.pager_offset = 0
        self.pager_rows = len(self.pager)
        if not keep_message:
            self.message = []

    # ----- input -----------------------------------------------------------------------
    def _accept(self, buffer) -> bool:
        """Enter: never raises; returns True to keep the text in the input line."""
        text = buffer.text
        self._suggested = None
        try:
            return self._handle(text)
        except Exception as exc:  # an unforeseen bug must cost a message, not the game
            self.say(_("internal error: {error}").format(error=f"{type(exc).__name__}: {exc}"), "class:error")
            return False
        finally:
            self.lines_handled += 1

    def _handle(self, text: str) -> bool:
        if self._question is not None and not self.confirm_quit:
            return self._answer(text)
        if self.confirm_quit:
            self.confirm_quit = False
            if i18n.answer(text) is True:
                self._leave()
            else:
                self.say(_("Staying at the table."), "class:label")
            return False
        if self.pager is not None:
            self.pager = None
            if not text.strip():
                return False
        if not text.strip():
            return False
        if self.session is None:
            word = text.strip().split()[0].lower()
            if word == "q" or commands.table_command(word) == "quit":
                self.app.exit()
            elif not self._lobby_chat(text):
                self.say(_("The table is not ready yet; quit leaves."), "class:label")
            return False
        session = self.session
        try:
            parsed = commands.parse(session.game.id, text, session.legal_actions(), session.view())
        except commands.CommandError as exc:
            self.say(str(exc), "class:error")
            return False
        if isinstance(parsed, commands.UiCommand):
            return self._run_command(parsed)
        self._send_action(parsed)
        return False

    def _lobby_chat(self, text: str) -> bool:
        """``chat TEXT`` typed before the game: said to the table by the lobby. False if it is no chat."""
        word, _space, rest = text.strip().partition(" ")
        if (self.lobby_chat is None or self._token is None or self.session is not None
                or commands.table_command(word) != "chat"):
            return False
        if not rest.strip():
            self.say(_("chat what? chat TEXT"), "class:error")
        else:
            said = rest.strip()
            self._token.run_sync_soon(self.lobby_chat, said)  # the lobby lives on trio's side
            self.message = []
        return True

    def _answer(self, text: str) -> bool:
        word = text.strip().lower()
        if commands.table_command(word) == "quit":
            self._quit()
            return False
        if self._lobby_chat(text):
            return False
        said = i18n.answer(word)  # yes/no, and the player's language's words
        if said is not None:
            answered, answer = self._question
            answer.append(said)
            self._token.run_sync_soon(answered.set)  # a trio Event is set from inside trio
            self._question = None
        else:
            self.say(_("Please answer yes or no."), "class:error")
        return False

    def _run_command(self, cmd: commands.UiCommand) -> bool:
        session = self.session
        if session is None:
            return False
        game_id = session.game.id
        if cmd.name == "help":
            try:
                text = commands.help_text(game_id, cmd.arg)
            except commands.CommandError as exc:
                self.say(str(exc), "class:error")
                return False
            if text.count("\n") > 6:
                self.open_pager(_("help: {game}").format(game=game_id), text)
            else:
                self.say(text)
        elif cmd.name == "rules":
            from p2pcards.rules import table_rules

            try:
                # one column spare: the pager window wraps what reaches its edge
                text = table_rules(game_id, self._columns() - 1, i18n.language(), ascii=self.ascii)
                self.open_pager(_("rules: {game}").format(game=game_id), text)
            except (OSError, IllegalAction) as exc:
                self.say(_("the rules text is missing: {error}").format(error=exc), "class:error")
        elif cmd.name == "hint":
            return self._hint()
        elif cmd.name == "moves":
            legal = session.legal_actions()
            if not legal:
                self.say(_("You have no move now."), "class:label")
            else:
                lines = sorted({commands.format_action(game_id, a) for a in legal})
                count = ngettext("{n} legal move:", "{n} legal moves:", len(lines)).format(n=len(lines))
                text = count + "\n" + "\n".join("  " + line for line in lines)
                if len(lines) > 6:
                    self.open_pager(_("legal moves"), text)
                else:
                    self.say(text)
        elif cmd.name == "chat":
            if not cmd.arg:
                self.say(_("chat what? chat TEXT"), "class:error")
            else:
                self._submit(lambda: session.chat(cmd.arg))
        elif cmd.name == "score":
            self.show_score_sheet()
        elif cmd.name == "keys":
            prints = getattr(session, "fingerprints", None) or []
            lines = [f"{name}: {prints[s] if s < len(prints) and prints[s] else _('(no key: not a network table)')}"
                     for s, name in enumerate(session.names)]
            self.say(_("Key fingerprints (compare them in person):") + "\n" + "\n".join(lines), "class:label")
        elif cmd.name == "next":
            info = session.match_info()
            phase = info.get("phase")
            if phase in (PHASE_OVER, PHASE_ABORTED):
                self.say(_("The match is over; quit leaves the table."), "class:label")
            elif phase == PHASE_PLAYING:
                self.say(_("The deal is still being played."), "class:label")
            elif info.get("deals_go_on"):
                self.say(_("The next deal starts by itself once every player has shown its keys."), "class:label")
            else:
                self._submit(session.ready)
                self.say(_("Ready for the next deal."), "class:label")
        elif cmd.name in PLAYERS_ONLY and session.seat is None:
            self.say(_("You are watching: only the players pause, answer or play. quit leaves."), "class:label")
        elif cmd.name in ("away", "back"):
            set_away = getattr(session, "set_away", None)
            if set_away is None:
                self.say(_("Only a network table plays for you while you are away."), "class:label")
            else:
                away = cmd.name == "away"

                async def switch() -> None:  # the peer lives on trio's side
                    set_away(away)

                self._submit(switch)
                self.say(_("Your client plays for you until you type back.") if cmd.name == "away"
                         else _("You play your own moves again."), "class:label")
        elif cmd.name in ("pause", "continue", "yes", "no"):
            self._pause_command(session, cmd.name)
        elif cmd.name == "quit":
            self._quit()
        return False

    def _pause_command(self, session, name: str) -> None:
        """pause, continue, and the answers to a pause (table.md §3a)."""
        if getattr(session, "pause_line", None) is None:
            self.say(_("Only a network table can pause."), "class:label")
            return
        asked = getattr(session.peer.machine, "pause", None) if session.peer is not None else None
        if name == "pause":
            refusal = session.pause_refusal()
            if refusal:
                self.say(_("No pause: {reason}.").format(reason=refusal), "class:error")
                return
            self._submit(session.ask_pause)
            self.say(_("You ask the table for a pause (in place of your next move)."), "class:label")
        elif name == "continue":
            if asked is None or not asked.held:
                self.say(_("The game is not paused."), "class:label")
                return
            self._submit(session.ask_continue)
            self.say(_("Play goes on once the pause's end is signed."), "class:label")
        elif asked is None or asked.held or asked.asker == session.seat:
            self.say(_("Nobody asks you about a pause now."), "class:label")
        else:
            yes = name == "yes"

            async def answer() -> None:
                await session.answer_pause(yes)

            self._submit(answer)
            self.say(_("You agree to the pause.") if yes else _("You refuse the pause."), "class:label")

    def _hint(self) -> bool:
        if self._move_sent:
            self.say(_("your move is already on its way"), "class:label")
            return False
        try:
            action = self.session.hint()
        except Exception as exc:  # a missing or failing bot is no reason to stop the game
            self.say(_("no hint available: {error}").format(error=exc), "class:error")
            return False
        if action is None:
            session = self.session
            if session.seat is not None and getattr(session, "to_act", lambda: None)() == session.seat:
                # The log says it is my turn but my client is still taking in what
                # came before (acknowledgements, my cards): hint as soon as it asks.
                self._hint_wanted = True
                self.say(_("A moment: your move is not ready yet; the hint follows."), "class:label")
            else:
                self.say(_("You have no move now."), "class:label")
            return False
        line = commands.format_action(self.session.game.id, action)
        why = getattr(self.session, "hint_why", None)
        # Translators: {why}: the bot's reason for the move, in words.
        hint = (_("hint: {move} ({why})  (Enter plays it)") if why else _("hint: {move}  (Enter plays it)"))
        self.say(hint.format(move=line, why=why), "class:hint")
        self.input.buffer.text = line
        self.input.buffer.cursor_position = len(line)
        self._suggested = line
        return True

    def _leave(self) -> None:
        """Leave during a game: a network seat says so first (and can come back)."""
        leave = getattr(self.session, "leave", None)
        if leave is None:
            self.app.exit()
            return

        async def job() -> None:
            try:
                await leave()
            finally:
                self.app.exit()

        self.say(_("Leaving the table\u2026"), "class:label")
        self._submit(job)

    def _quit(self) -> None:
        info = self.session.match_info() if self.session else {}
        if self.session is None or info.get("phase") in (PHASE_OVER, PHASE_ABORTED):
            self.app.exit()
            return
        self.confirm_quit = True
        self.invalidate()

    def _send_action(self, action: dict) -> None:
        session = self.session
        line = commands.format_action(session.game.id, action) if action.get("type") else str(action)
        self.say(f"\u2026 {line}", "class:label")
        self._move_sent = True

        async def job():
            try:
                await session.act(action)
            except IllegalAction as exc:  # the engine's reason, in the player's language
                self._move_sent = False
                self.say(f"{line}: {shown(exc)}", "class:error")
            except Exception as exc:  # the network may fail; the player must hear why
                self._move_sent = False
                self.say(_("{move}: could not be played: {error}").format(move=line, error=exc), "class:error")
            else:
                if self.message and self.message[0][1].startswith("\u2026"):
                    self.message = []
            self.invalidate()

        self._submit(job)

    def _submit(self, job: Callable[[], Awaitable[None]]) -> None:
        """Run ``job`` in trio's worker task, after the jobs submitted before it."""
        self.jobs_submitted += 1
        if self._token is None or self._jobs is None:
            self._pending.append(job)
            return
        self._token.run_sync_soon(self._jobs.send_nowait, job)

    # ----- trio side ---------------------------------------------------------------------
    async def _trio_host(self, trio_main: Callable[["TableApp"], Awaitable[Any]]) -> Any:
        send, recv = trio.open_memory_channel(math.inf)
        result = None
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                self._jobs = send
                self._token = trio.lowlevel.current_trio_token()
                for job in self._pending:
                    send.send_nowait(job)
                self._pending.clear()
                nursery.start_soon(self._worker, recv)
                nursery.start_soon(self._ticker)
                result = await trio_main(self)
                # trio_main is done (the match is over): the table stays up until the player quits.
                await trio.sleep_forever()
        except BaseExceptionGroup as group:
            # Our helper tasks never fail: the error is trio_main's own, hand it back as it was.
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise
        return result

    async def _worker(self, recv) -> None:
        async for job in recv:
            try:
                await job()
            except Exception as exc:  # chat or ready refused, a peer gone: say so, go on
                self.say(str(exc) or type(exc).__name__, "class:error")
            finally:
                self.jobs_done += 1

    async def _ticker(self) -> None:
        """The countdown: the deadline is on trio's clock, so it is read here."""
        shown = None
        while True:
            session = self.session
            try:
                deadline = session.turn_deadline() if session is not None else None
            except Exception:  # no countdown is better than no game
                deadline = None
            self.remaining = None if deadline is None else max(0.0, deadline - trio.current_time())
            whole = None if self.remaining is None else int(self.remaining)
            if whole != shown:
                shown = whole
                self.invalidate()
            await trio.sleep(TICK)

    def cancel_trio(self) -> None:
        if self._token is not None:
            try:
                self._token.run_sync_soon(self._nursery.cancel_scope.cancel)
            except trio.RunFinishedError:
                pass


class ScreenLogHandler(logging.Handler):
    """Log records (a refused connection, no LAN announcement) shown in the
    screen's message line: a line printed to the terminal would be drawn over
    the full-screen table. Records may come from other threads (zeroconf):
    they are handed to the screen's own loop."""

    def __init__(self, ui: TableApp, loop: asyncio.AbstractEventLoop):
        super().__init__(logging.WARNING)
        self.ui, self.loop = ui, loop

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            style = "class:error" if record.levelno >= logging.ERROR else "class:warn"
            self.loop.call_soon_threadsafe(self.ui.say, text, style)
        except RuntimeError:  # the loop is closed: the screen is gone, nobody to tell
            pass
        except Exception:
            self.handleError(record)


@contextlib.contextmanager
def logging_to_screen(ui: TableApp, loop: asyncio.AbstractEventLoop):
    """While the screen runs, log records and Python warnings go to its
    message line instead of the terminal (handlers writing there step aside)."""
    root = logging.getLogger()
    terminal = [h for h in root.handlers if isinstance(h, logging.StreamHandler)
                and getattr(h, "stream", None) in (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__)]
    handler = ScreenLogHandler(ui, loop)
    for h in terminal:
        root.removeHandler(h)
    root.addHandler(handler)
    logging.captureWarnings(True)
    try:
        yield handler
    finally:
        logging.captureWarnings(False)
        root.removeHandler(handler)
        for h in terminal:
            root.addHandler(h)


async def run_app_async(trio_main: Callable[[TableApp], Awaitable[Any]], ui: TableApp) -> Any:
    """Run the screen and ``trio_main(ui)`` (in trio guest mode) until the
    player quits or ``trio_main`` fails; returns what it returned."""
    loop = asyncio.get_running_loop()
    with logging_to_screen(ui, loop):
        return await _run_app_async(trio_main, ui, loop)


async def _run_app_async(trio_main, ui: TableApp, loop) -> Any:
    trio_done: asyncio.Future = loop.create_future()

    def done(outcome) -> None:
        if not trio_done.done():
            trio_done.set_result(outcome)
        if ui.app.is_running:
            ui.app.exit()

    trio.lowlevel.start_guest_run(
        ui._trio_host,
        trio_main,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=done,
        host_uses_signal_set_wakeup_fd=True,
    )

    def exit_if_trio_finished() -> None:
        if trio_done.done():
            ui.app.exit()

    hangups = _end_on_hangup(loop, ui)
    try:
        await ui.app.run_async(pre_run=exit_if_trio_finished)
    finally:
        for signum in hangups:
            loop.remove_signal_handler(signum)
        if not trio_done.done():
            ui.cancel_trio()
        outcome = await trio_done
    return outcome.unwrap()


def _end_on_hangup(loop, ui: TableApp) -> list[int]:
    """A closed terminal window (SIGHUP) or a kill (SIGTERM) ends the table
    in order, from the loop: an exception raised by a signal handler in the
    middle of trio's or the screen's work could leave the process hung for
    good (seen once: a closed window's process still running an hour later)."""
    if threading.current_thread() is not threading.main_thread():
        return []
    installed = []
    for signum in (getattr(signal, "SIGHUP", None), signal.SIGTERM):
        if signum is None:
            continue
        try:
            loop.add_signal_handler(signum, ui.cancel_trio)
        except (NotImplementedError, RuntimeError, ValueError):  # no signals on this loop
            continue
        installed.append(signum)
    return installed


def run_app(trio_main: Callable[[TableApp], Awaitable[Any]], *, ascii: bool = False, input=None, output=None,
            summary=None) -> Any:
    """The terminal table: ``trio_main(ui)`` runs in trio (guest mode) next to
    the screen; it calls ``ui.set_status(...)`` while it sets things up and
    ``ui.show(session)`` once a seat session exists. Returns when the player
    quits; an exception from ``trio_main`` ends the screen and is re-raised.
    ``summary``: a file (sys.stdout) that gets the match's end once the
    screen has closed, so that it stays in the shell."""
    ui = TableApp(ascii=ascii or not unicode_terminal(), input=input, output=output)
    try:
        return asyncio.run(run_app_async(trio_main, ui))
    finally:
        text = ui.closing_summary() if summary is not None else None
        if text:
            print(text, file=summary, flush=True)


def unicode_terminal() -> bool:
    """Whether the terminal takes the suit symbols; if not, cards are drawn KH, 10S."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    return encoding in ("utf8", "utf16", "utf32", "")


def play_local(
    game_id: str,
    bots: int = 1,
    *,
    name: str | None = None,
    strategy: str = "greedy",
    seed=None,
    options: dict | None = None,
    ascii: bool = False,
    bot_delay: float = 0.8,
    turn_time: float | None = None,
    input=None,
    output=None,
) -> None:
    """You against ``bots`` in-process bots, no network: a LocalSession in the app."""
    from p2pcards.ui.session import LocalSession
    from p2pcards.ui.wording import you

    players = bots + 1
    session = LocalSession(
        game_id,
        players,
        seat=0,
        names=[name or you()] + LocalSession._default_names(players, None)[:bots],
        bots=strategy,
        seed=seed,
        options=options,
        bot_delay=bot_delay,
        turn_time=turn_time,
    )

    async def main(ui: TableApp) -> None:
        ui.show(session)
        await session.run()

    run_app(main, ascii=ascii, input=input, output=output)
