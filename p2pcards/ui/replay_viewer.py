"""``p2pcards replay FILE``: step through a finished game on the same table
screen the players saw.

A :class:`ReplaySession` presents one frame of a ``p2pcards.audit.replay.Replay``
through the read side of the seat session, so the table is drawn by the same
``render_table``; the viewer adds the keys to move through the log.
"""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension

from p2pcards.ui.render import Painter, render_table
from p2pcards.ui.session import PHASE_PLAYING, Notifier

KEYS_HELP = (
    "\u2192/n/space next  \u2190/p previous  ]/[ next/previous deal  Home/End first/last  "
    "digits+Enter jump to entry  s switch seat  a all hands  q quit"
)


class ReplaySession:
    """One frame of a replay, seen from ``seat`` (None: a spectator)."""

    def __init__(self, replay, seat: int | None = None):
        self.replay = replay
        self.game = replay.game
        self.seat = seat
        self.names = list(replay.names)
        self.fingerprints = ["" for _ in self.names]
        self.position = 0
        self._notifier = Notifier()

    @property
    def frame(self):
        return self.replay.frames[self.position]

    @property
    def options(self) -> dict:
        view = self.view() or {}
        return view.get("options") or self.game.default_options(self.replay.players)

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

    def last_moves(self) -> list[str]:
        lines = []
        for frame in self.replay.frames[max(0, self.position - 40): self.position + 1]:
            lines.append(f"#{frame.index} {frame.text}")
            lines += [f"{self.names[frame.author]}: {text}" for text in frame.chat if 0 <= frame.author < len(self.names)]
        return lines

    def subscribe(self, callback):
        return self._notifier.subscribe(callback)

    # ----- moving ---------------------------------------------------------------------
    def go(self, position: int) -> None:
        self.position = max(0, min(len(self.replay.frames) - 1, position))
        self._notifier.notify()

    def jump_to_entry(self, entry: int) -> bool:
        for i, frame in enumerate(self.replay.frames):
            if frame.index >= entry:
                self.go(i)
                return True
        return False

    def next_deal(self, step: int) -> None:
        starts = self.replay.deal_starts()
        if step > 0:
            later = [s for s in starts if s > self.position]
            self.go(later[0] if later else len(self.replay.frames) - 1)
        else:
            earlier = [s for s in starts if s < self.position]
            self.go(earlier[-1] if earlier else 0)

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
        self.note = ""
        self.app = self._build(input, output)

    def _header(self) -> StyleAndTextTuples:
        s = self.session
        frame = s.frame
        who = "everybody (spectator)" if s.seat is None else s.names[s.seat]
        p = Painter(self.ascii)
        p.text(f" replay: {s.game.id} ", "class:title")
        p.text(f"  entry {frame.index} ({s.position + 1}/{len(s.replay.frames)})  deal {frame.deal + 1}  as {who}")
        if self.show_all:
            p.text("  all hands", "class:warn")
        if self.typed:
            p.text(f"   jump to entry: {self.typed}_", "class:hint")
        return p.out

    def _table(self) -> StyleAndTextTuples:
        s = self.session
        p = Painter(self.ascii, self._columns() - 45)
        p.rich(f"#{s.frame.index} {s.frame.text}", "class:warn").nl()
        for v in s.replay.findings.get(s.frame.index, []):
            who = s.names[v["seat"]] if isinstance(v.get("seat"), int) else "nobody identified"
            p.text(f"!! {v['kind']} by {who}: {v['detail']}", "class:error").nl()
        p.nl()
        if s.view() is None:
            p.text("(no deal on the table at this entry)", "class:label").nl()
            return p.out
        p.out += render_table(s, self.ascii, self._columns() - 45)
        if self.show_all:
            hands = s.replay.hands(s.frame)
            p.nl().label("All hands:").nl()
            if hands is None:
                p.text("  not known: this deal's keys were never revealed", "class:label").nl()
            else:
                for seat, hand in enumerate(hands):
                    p.text(f"  {s.names[seat]:<12}").cards(hand).nl()
        return p.out

    def _log(self) -> StyleAndTextTuples:
        p = Painter(self.ascii)
        for line in self.session.last_moves()[-30:]:
            p.rich(line).nl()
        return p.out

    def _columns(self) -> int:
        try:
            return self.app.output.get_size().columns
        except Exception:
            return 100

    def _build(self, input, output) -> Application:
        from p2pcards.ui.app import STYLE

        body = VSplit(
            [
                Window(FormattedTextControl(self._table), wrap_lines=True),
                Window(width=1, char="|" if self.ascii else "\u2502", style="class:rule"),
                Window(FormattedTextControl(self._log), width=Dimension(preferred=44, max=56), wrap_lines=True),
            ]
        )
        root = HSplit(
            [
                Window(FormattedTextControl(self._header), height=1),
                body,
                Window(FormattedTextControl(lambda: [("class:label", KEYS_HELP), ("class:error", " " + self.note)]),
                       height=Dimension(min=1, max=2), wrap_lines=True),
            ]
        )
        return Application(layout=Layout(root), key_bindings=self._keys(), style=STYLE, full_screen=True,
                           input=input, output=output)

    def _keys(self) -> KeyBindings:
        kb = KeyBindings()
        s = self.session

        def step(n):
            def handler(event):
                self.note = ""
                s.go(s.position + n)
            return handler

        for key in ("right", "n", " "):
            kb.add(key)(step(1))
        for key in ("left", "p", "backspace"):
            kb.add(key)(step(-1))
        kb.add("]")(lambda e: s.next_deal(1))
        kb.add("pagedown")(lambda e: s.next_deal(1))
        kb.add("[")(lambda e: s.next_deal(-1))
        kb.add("pageup")(lambda e: s.next_deal(-1))
        kb.add("home")(lambda e: s.go(0))
        kb.add("end")(lambda e: s.go(len(s.replay.frames) - 1))
        kb.add("s")(lambda e: s.switch_seat())

        @kb.add("a")
        def _(event):
            self.show_all = not self.show_all

        for digit in "0123456789":
            @kb.add(digit)
            def _(event, digit=digit):
                self.typed += digit

        @kb.add("enter")
        def _(event):
            if self.typed:
                if not s.jump_to_entry(int(self.typed)):
                    self.note = f"there is no entry {self.typed}"
                self.typed = ""

        @kb.add("escape", eager=True)
        def _(event):
            self.typed = ""

        @kb.add("q")
        @kb.add("c-c")
        def _(event):
            event.app.exit()

        return kb


def run_viewer(replay, seat: int | None = None, show_all: bool = False, ascii: bool = False,
               input=None, output=None) -> None:
    """Step through ``replay`` (a ``p2pcards.audit.replay.Replay``) until q."""
    ReplayViewer(replay, seat, show_all, ascii, input, output).app.run()
