"""``p2pcards replay FILE``: step through a game on the same table screen the
players saw.

A :class:`ReplaySession` presents one move of a ``p2pcards.audit.replay.Replay``
through the read side of the seat session, so the table is drawn by the same
``render_table``; the viewer adds the keys to move through the game, the list
of moves beside the table, the score sheet of each deal and, on request, the
protocol entries behind each move. The log is read in a thread while the
screen is already up: what is read so far can be watched at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2pcards.audit.replay import DEAL_OVER, MOVE, THE_END
from p2pcards.i18n import N_, _, ngettext, worded
from p2pcards.ui.render import Painter, match_verdict, render_table, wrap_fragments
from p2pcards.ui.scoresheet import deal_sheet, match_sheet, result_line
from p2pcards.ui.session import PHASE_PLAYING, FinishedDeal, Notifier
from p2pcards.ui.wording import with_own_cards

# prompt-toolkit is imported where the screen is built: ``replay --text`` reads
# the game through a ReplaySession without it (issue 26: its import is a
# fifth of the command's time).
if TYPE_CHECKING:
    from prompt_toolkit.application import Application
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.key_binding import KeyBindings

# Translators: the replay's keys, at the bottom of its screen; keep the keys, translate the words.
KEYS_HELP = N_(
    "\u2192/n \u2190/p move  \u2191\u2193 list  ]/[ deal  d first decision  g autoplay +/- speed  "
    "r score sheet  e entries  s seat  a all hands  123\u21b5 entry  q quit"
)
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)  # moves a second


class ReplaySession:
    """One move of a replay, seen from ``seat`` (None: a spectator). With
    ``detail`` the steps are the protocol entries instead of the moves."""

    def __init__(self, replay, seat: int | None = None):
        self.replay = replay
        self.game = replay.game
        self.seat = seat
        self.names = list(replay.names)
        self.fingerprints = ["" for _ in self.names]
        self.move = 0  # index into replay.moves
        self.entry = 0  # frame position shown
        self.detail = False
        self.note = ""
        self._notifier = Notifier()
        self._numbers: list[int | None] = []  # each move's number within its deal (None: not a move)
        self._counted = (-1, 0)  # the deal numbered last, and its moves so far

    @property
    def frame(self):
        return self.replay.frames[self.entry]

    @property
    def current(self):
        return self.replay.moves[self.move]

    @property
    def options(self) -> dict:
        view = self.view() or {}
        return view.get("options") or self.replay.options or self.game.default_options(self.replay.players)

    def view(self) -> dict | None:
        return self.replay.view(self.frame, self.seat)

    def match_info(self) -> dict:
        view = self.view() or {}
        chips = view.get("chips")
        scores = view.get("scores")
        if scores is None:
            scores = [0] * self.game.sides(self.replay.players, view.get("options") or {})
        return {
            "phase": PHASE_PLAYING,
            "deal_index": self.frame.deal,
            "scores": list(scores),
            "chips": list(chips) if chips is not None else None,
            "bank": view.get("bank", 0),
            "target": view.get("target") or (view.get("options") or {}).get("target"),
            "last_deal": None,
            "result": None,
            "reason": None,
        }

    def to_act(self) -> int | None:
        to_act = (self.view() or {}).get("to_act")
        return to_act if isinstance(to_act, int) and to_act >= 0 else None

    def legal_actions(self) -> list[dict]:
        return []

    def hint(self) -> None:
        return None

    def peer_status(self) -> dict[int, str]:
        return {}

    def turn_deadline(self) -> None:
        return None

    def move_text(self, i: int) -> str:
        """Move ``i`` in words; face-down cards named once the deal's reveal made them known."""
        move = self.replay.moves[i]
        if move.kind != MOVE:
            return move.text
        action = self.replay.public_action(self.replay.frames[move.first])
        return with_own_cards(move.text, move.seat, move.seat, action)

    def move_number(self, i: int) -> int | None:
        """Move ``i``'s number within its deal, as a game record numbers them (None: a deal's start or end)."""
        moves = self.replay.moves
        numbers = self._numbers
        for move in moves[len(numbers):]:  # the log is read on meanwhile: number what is new
            if move.kind != MOVE:
                numbers.append(None)
                continue
            if move.deal != self._counted[0]:
                self._counted = (move.deal, 0)
            self._counted = (move.deal, self._counted[1] + 1)
            numbers.append(self._counted[1])
        return numbers[i]

    def result_line(self) -> str | None:
        """Who won and the final scores, once the whole log is read and it ends the match."""
        replay = self.replay
        if not (replay.done.is_set() and replay.complete and replay.match_result is not None):
            return None
        return result_line(self.game, self.names, self.options, replay.match_result) or None

    def subscribe(self, callback):
        return self._notifier.subscribe(callback)

    # ----- the score sheet ---------------------------------------------------------
    def sheet(self) -> list[str] | None:
        """This deal's score sheet, once the log has its end."""
        deal = self.frame.deal
        result = self.replay.results.get(deal)
        if result is None:
            return None
        over = next((m for m in self.replay.moves if m.deal == deal and m.kind == DEAL_OVER), None)
        hands = self.replay.hands(self.replay.frame_of(over)) if over is not None else None
        finished = FinishedDeal(result.number, result.scores, hands, result.match_scores, result.match_chips,
                                result.bank, result.bank_won)
        return deal_sheet(self.game, self.names, self.options, finished)

    # ----- moving ---------------------------------------------------------------------
    def _loading_note(self) -> None:
        if not self.replay.done.is_set():
            self.note = _("still reading the log ({percent})").format(percent=f"{self.replay.progress():.0%}")

    def go(self, move: int) -> None:
        """To move number ``move`` (as far as the log is read)."""
        last = len(self.replay.moves) - 1
        if move > last:
            self._loading_note()
        self.move = max(0, min(last, move))
        self.entry = self.current.last
        self._notifier.notify()

    def step(self, n: int) -> None:
        if not self.detail:
            return self.go(self.move + n)
        last = len(self.replay.frames) - 1
        if self.entry + n > last:
            self._loading_note()
        self.entry = max(0, min(last, self.entry + n))
        self.move = self._move_of(self.entry)
        self._notifier.notify()

    def _move_of(self, entry: int) -> int:
        moves = self.replay.moves
        for i in range(len(moves) - 1, -1, -1):
            if moves[i].first <= entry:
                return i
        return 0

    def jump_to_entry(self, entry: int) -> bool:
        for i, frame in enumerate(self.replay.frames):
            if frame.index >= entry:
                self.entry = i
                self.move = self._move_of(i)
                self._notifier.notify()
                return True
        return False

    def next_deal(self, step: int) -> None:
        starts = self.replay.deal_starts()
        if step > 0:
            later = [s for s in starts if s > self.move]
            if later:
                self.go(later[0])
            else:
                self._loading_note()
                self.go(len(self.replay.moves) - 1)
        else:
            earlier = [s for s in starts if s < self.move]
            self.go(earlier[-1] if earlier else 0)

    def first_decision(self) -> None:
        deal = self.current.deal
        if not any(m.deal == deal and m.kind == MOVE for m in self.replay.moves):
            deal = next((m.deal for m in self.replay.moves[self.move:] if m.kind == MOVE), deal)
        found = self.replay.first_decision(deal)
        if found is None:
            self.note = _("no move of this deal read yet")
        else:
            self.go(found)

    def switch_seat(self) -> None:
        order = list(range(self.replay.players)) + [None]
        self.seat = order[(order.index(self.seat) + 1) % len(order)]
        self._notifier.notify()


class ReplayViewer:
    def __init__(self, replay, seat: int | None = None, show_all: bool = False, ascii: bool = False,
                 input=None, output=None):
        self.session = ReplaySession(replay, seat)
        self.show_all = show_all
        self.ascii = ascii
        self.typed = ""  # digits of an entry number to jump to
        self.show_sheet = False
        self.speed = 2  # index into SPEEDS
        self.autoplay = False
        self._autoplay_task = None
        self.app = self._build(input, output)

    @property
    def note(self) -> str:
        return self.session.note

    @note.setter
    def note(self, text: str) -> None:
        self.session.note = text

    def _header(self) -> StyleAndTextTuples:
        """One line: the game and where the replay stands first; then, as far
        as the screen is wide, whose view, the reading or the result and the
        audit, the modes on."""
        s = self.session
        replay = s.replay
        who = _("everybody (spectator)") if s.seat is None else s.names[s.seat]
        # (text, style), most important first; each is shown only if it fits whole
        pieces = [(" " + _("replay: {game}").format(game=s.game.id) + " ", "class:title"),
                  # Translators: where the replay stands: deal number, move number/of.
                  ("  " + _("deal {deal}  move {move}/{moves}").format(
                      deal=s.frame.deal + 1, move=s.move, moves=len(replay.moves) - 1), "")]
        if self.typed:
            pieces.append(("  " + _("jump to entry: {number}").format(number=self.typed) + "_", "class:hint"))
        if replay.reading and not replay.done.is_set():
            pieces.append(("  " + _("checking the file's signatures\u2026"), "class:hint"))
        elif not replay.done.is_set():
            pieces.append(("  " + _("reading the log {progress}").format(progress=f"{replay.progress():.0%}"),
                           "class:hint"))
        elif replay.error:
            pieces.append((f"  {replay.error}", "class:error"))
        elif not replay.complete:
            pieces.append(("  " + _("the game did not finish: the log stops at entry {index}").format(
                index=replay.frames[-1].index), "class:error"))
        elif replay.audit_ok:
            pieces.append(("  " + _("audit: clean"), "class:label"))
        else:
            count = len(replay.result["violations"])
            pieces.append(("  " + ngettext("audit: {n} violation", "audit: {n} violations", count).format(n=count),
                           "class:error"))
        if self.autoplay:
            pieces.append(("  " + _("autoplay {speed}/s").format(speed=f"{SPEEDS[self.speed]:g}"), "class:warn"))
        if self.show_all:
            pieces.append(("  " + _("all hands"), "class:warn"))
        if s.detail:
            pieces.append(("  " + _("entries"), "class:warn"))
        pieces.append(("  " + _("entry {entry}").format(entry=s.frame.index), ""))
        pieces.append(("  " + _("as {who}").format(who=who), ""))
        room = self._columns()
        out: StyleAndTextTuples = []
        for text, style in pieces:
            if len(text) <= room or not out or style == "class:error":  # a fault is always told (wrapped)
                out.append((style, text))
                room -= len(text)
        return out

    def _table(self) -> StyleAndTextTuples:
        s = self.session
        width = self._columns() - self._side_width() - 1
        p = Painter(self.ascii, width)
        text = s.frame.text if s.detail else s.move_text(s.move)
        p.rich(text, "class:warn").nl()
        frames = [s.frame] if s.detail else s.replay.frames[s.current.first: s.current.last + 1]
        for frame in frames:
            for v in s.replay.findings.get(frame.index, []):
                who = s.names[v["seat"]] if isinstance(v.get("seat"), int) else _("nobody identified")
                # Translators: an audit finding: {kind} is the cheat's protocol name, {detail} the audit's words.
                p.text("!! " + _("{kind} by {name}: {detail}").format(kind=v["kind"], name=who, detail=worded(v["detail"])),
                       "class:error").nl()
            if 0 <= frame.author < len(s.names):
                for said in frame.chat:
                    p.text(f"{s.names[frame.author]}: ", "class:label").text(said, "class:chat").nl()
        p.nl()
        result = s.result_line() if s.current.kind == THE_END else None
        if result:  # the last screen: who won, the standings
            p.text(result, "class:title").nl().nl()
            for line in match_sheet(s.game, s.names, s.options, s.replay.match_result,
                                    match_verdict(s, s.replay.match_result)):
                p.rich(line).nl()
            return wrap_fragments(p.out, width)
        sheet = s.sheet() if (self.show_sheet or s.current.kind == DEAL_OVER) else None
        if sheet is not None:
            for line in sheet:
                p.rich(line).nl()
            return wrap_fragments(p.out, width)
        if self.show_sheet:
            p.text(_("(this deal's score sheet comes with its end)"), "class:label").nl().nl()
        if s.view() is None:
            for line in _options_lines(s):
                p.text(line).nl()
            return wrap_fragments(p.out, width)
        p.out += render_table(s, self.ascii, width)
        if self.show_all:
            hands = s.replay.hands(s.frame)
            p.nl().label(_("All hands:")).nl()
            if hands is None:
                p.text("  " + _("not known: this deal's keys were never revealed"), "class:label").nl()
            else:
                trump = (s.view() or {}).get("trump_suit")
                for seat, hand in enumerate(hands):
                    p.text(f"  {s.names[seat]:<12}").cards(s.game.hand_order(hand, trump)).nl()
        return wrap_fragments(p.out, width)

    def _side(self) -> StyleAndTextTuples:
        """The move list as a game record: numbered moves, each deal's start
        and end, the result after the last move; long moves wrap under their
        text. The current one marked, as many around it as the height holds;
        a click on a move goes there. With ``e``: the entries of this move."""
        s = self.session
        width = self._side_width()
        rows = max(4, self._body_rows() - 1)  # under the list's title
        title = Painter(self.ascii)
        if s.detail:
            title.label(_("Entries of move {move}").format(move=s.move)).nl()
            count, current = len(s.replay.frames), s.entry

            def text(i):
                return f"#{s.replay.frames[i].index} {s.replay.frames[i].text}"
        else:
            title.label(_("Moves")).nl()
            count, current = len(s.replay.moves), s.move

            def text(i):
                number = s.move_number(i)
                return s.move_text(i) if number is None else f"{number:>3}. {s.move_text(i)}"
        result = None if s.detail else s.result_line()

        def item(i: int) -> StyleAndTextTuples:
            p = Painter(self.ascii)
            if i == count:  # the result, under the last move
                p.text("  " + result, "class:title")
            else:
                p.rich(("\u25b6 " if i == current else "  ") + text(i), "class:warn" if i == current else "")
            hang = 7 if not s.detail and i < count and s.move_number(i) is not None else 4
            lines = wrap_fragments(p.out, width, indent=" " * hang)
            handler = self._click(min(i, count - 1))
            return [(style, piece, handler) for style, piece, *_rest in lines] + [("", "\n")]

        def height(fragments) -> int:
            return sum(piece.count("\n") for _style, piece, *_rest in fragments)

        last = count if result else count - 1
        shown = {current: item(current)}
        used = height(shown[current])
        before, after = current - 1, current + 1
        # Keep the current move about a third down the list: what comes next matters most.
        while used < rows and (before >= 0 or after <= last):
            if before >= 0 and (after > last or current - before <= (after - current) // 2):
                i, before = before, before - 1
            else:
                i, after = after, after + 1
            lines = item(i)
            if used + height(lines) > rows:
                break
            shown[i] = lines
            used += height(lines)
        out = title.out
        for i in sorted(shown):
            out += shown[i]
        return out

    def _click(self, i: int):
        from prompt_toolkit.mouse_events import MouseEventType

        def handler(mouse_event):
            if mouse_event.event_type != MouseEventType.MOUSE_UP:
                return NotImplemented
            s = self.session
            if s.detail:
                s.step(i - s.entry)
            else:
                s.go(i)
            return None
        return handler

    def _columns(self) -> int:
        try:
            return self.app.output.get_size().columns
        except Exception:
            return 100

    def _side_width(self) -> int:
        """The move list: 3/8 of the screen, 30 columns at 80, at most 48 (the table keeps the rest)."""
        return max(22, min(48, self._columns() * 3 // 8))

    def _footer(self) -> StyleAndTextTuples:
        return [("class:label", _(KEYS_HELP)), ("class:error", " " + self.note)]

    def _height(self, fragments: StyleAndTextTuples) -> int:
        """The rows a line of the frame takes, wrapped at the screen's width (at most 2)."""
        from prompt_toolkit.formatted_text import fragment_list_to_text

        return max(1, min(2, -(-len(fragment_list_to_text(fragments).rstrip()) // self._columns())))

    def _body_rows(self) -> int:
        """The rows between the header and the keys."""
        return self._rows() - self._height(self._header()) - self._height(self._footer())

    def _rows(self) -> int:
        try:
            return self.app.output.get_size().rows
        except Exception:
            return 40

    def _build(self, input, output) -> Application:
        from prompt_toolkit.application import Application
        from prompt_toolkit.layout import HSplit, Layout, VSplit, Window
        from prompt_toolkit.layout.controls import FormattedTextControl
        from prompt_toolkit.layout.dimension import Dimension

        from p2pcards.ui.app import STYLE

        body = VSplit(
            [
                Window(FormattedTextControl(self._table), wrap_lines=True),
                Window(width=1, char="|" if self.ascii else "\u2502", style="class:rule"),
                Window(FormattedTextControl(self._side), width=lambda: Dimension.exact(self._side_width()),
                       wrap_lines=False),
            ]
        )
        root = HSplit(
            [
                Window(FormattedTextControl(self._header), height=lambda: Dimension.exact(self._height(self._header())),
                       wrap_lines=True),
                body,
                Window(FormattedTextControl(self._footer), height=lambda: Dimension.exact(self._height(self._footer())),
                       wrap_lines=True),
            ]
        )
        return Application(layout=Layout(root), key_bindings=self._keys(), style=STYLE, full_screen=True,
                           mouse_support=True, input=input, output=output)

    # ----- autoplay ---------------------------------------------------------------
    def autoplay_tick(self) -> bool:
        """One move on; False at the end of what can be shown."""
        s = self.session
        if s.move >= len(s.replay.moves) - 1:
            return not s.replay.done.is_set()  # wait for more of the log
        s.go(s.move + 1)
        return True

    async def _autoplay(self) -> None:
        import asyncio  # here: the game record (replay --text) shares this module and needs no event loop

        while self.autoplay:
            await asyncio.sleep(1 / SPEEDS[self.speed])
            if not self.autoplay_tick():
                self.autoplay = False
            self.app.invalidate()

    def toggle_autoplay(self) -> None:
        self.autoplay = not self.autoplay
        if self.autoplay and self.app.is_running:
            self._autoplay_task = self.app.create_background_task(self._autoplay())

    def _keys(self) -> KeyBindings:
        from prompt_toolkit.key_binding import KeyBindings

        kb = KeyBindings()
        s = self.session

        def step(n):
            def handler(event):
                self.note = ""
                s.step(n)
            return handler

        for key in ("right", "n", " "):
            kb.add(key)(step(1))
        for key in ("left", "p", "backspace"):
            kb.add(key)(step(-1))
        kb.add("down")(step(1))
        kb.add("up")(step(-1))
        kb.add("]")(lambda e: s.next_deal(1))
        kb.add("pagedown")(lambda e: s.next_deal(1))
        kb.add("[")(lambda e: s.next_deal(-1))
        kb.add("pageup")(lambda e: s.next_deal(-1))
        kb.add("d")(lambda e: s.first_decision())
        kb.add("home")(lambda e: s.go(0))
        kb.add("end")(lambda e: s.go(len(s.replay.moves) - 1))
        kb.add("s")(lambda e: s.switch_seat())
        kb.add("g")(lambda e: self.toggle_autoplay())

        @kb.add("+")
        def _key(event):
            self.speed = min(len(SPEEDS) - 1, self.speed + 1)

        @kb.add("-")
        def _key(event):
            self.speed = max(0, self.speed - 1)

        @kb.add("a")
        def _key(event):
            self.show_all = not self.show_all

        @kb.add("r")
        def _key(event):
            self.show_sheet = not self.show_sheet

        @kb.add("e")
        def _key(event):
            s.detail = not s.detail
            if not s.detail:
                s.go(s.move)

        for digit in "0123456789":
            @kb.add(digit)
            def _key(event, digit=digit):
                self.typed += digit

        @kb.add("enter")
        def _key(event):
            if self.typed:
                if not s.jump_to_entry(int(self.typed)):
                    self.note = _("there is no entry {number}").format(number=self.typed)
                self.typed = ""

        @kb.add("escape", eager=True)
        def _key(event):
            self.typed = ""

        @kb.add("q")
        @kb.add("c-c")
        def _key(event):
            self.autoplay = False
            event.app.exit()

        return kb


def _options_lines(session) -> list[str]:
    from p2pcards.ui.lobby import options_lines

    table = session.replay.log.table
    extra = table.extra if isinstance(table.extra, dict) else {}
    return options_lines(dict(table.options or {}), dict(extra), session.replay.game.id)


def run_viewer(replay, seat: int | None = None, show_all: bool = False, ascii: bool = False,
               input=None, output=None) -> None:
    """Step through ``replay`` until q; the log is read meanwhile if it is not yet."""
    viewer = ReplayViewer(replay, seat, show_all, ascii, input, output)
    if not replay.done.is_set():
        replay.on_progress = viewer.app.invalidate
        replay.start()
    try:
        viewer.app.run()
    finally:
        replay.cancel()
