"""The table screen as prompt-toolkit formatted text, drawn from
``session.view()`` and ``session.match_info()``. Pure functions of what the
session says: no terminal needed (the benchmark and the tests render them).

Every game shares the frame (header, players, hand, log); ``_AREAS`` holds
each game's own middle part (melds and pile, the row, the trick and trump).
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.cards import RANKS, display, is_red, is_unknown, rank, suit
from p2pcards.ui.commands import canasta_word, split_cards
from p2pcards.ui.wording import verb
from p2pcards.ui.session import (
    PHASE_ABORTED, PHASE_BETWEEN, PHASE_DEALING, PHASE_OVER, PHASE_PLAYING, seat_name,
)

Fragments = list[tuple[str, str]]

BACK_UNICODE = "\u2592\u2592"
BACK_ASCII = "##"


class Painter:
    """Builds the fragments of one screen; knows ascii mode and the width."""

    def __init__(self, ascii: bool = False, width: int = 100):
        self.ascii = ascii
        self.width = width
        self.out: Fragments = []

    def text(self, s: str, style: str = "") -> "Painter":
        self.out.append((style, s))
        return self

    def nl(self) -> "Painter":
        self.out.append(("", "\n"))
        return self

    def card(self, code: str, style: str = "") -> "Painter":
        if is_unknown(code):
            return self.back()
        cls = "class:card.red" if is_red(code) else "class:card"
        self.out.append((f"{cls} {style}".strip(), display(code, self.ascii)))
        return self

    def back(self, n: int = 1) -> "Painter":
        sym = BACK_ASCII if self.ascii else BACK_UNICODE
        self.out.append(("class:back", " ".join([sym] * n)))
        return self

    def cards(self, codes, sep: str = " ", style: str = "") -> "Painter":
        for i, code in enumerate(codes):
            if i:
                self.text(sep)
            self.card(code, style)
        return self

    def rich(self, line: str, style: str = "") -> "Painter":
        """Free text (a log line) with its card codes shown as cards."""
        for piece, is_card in split_cards(line):
            if is_card:
                self.card(piece)
            else:
                self.text(piece, style)
        return self

    def hand(self, codes: list[str], marked: set[str] = frozenset(), indent: str = "  ") -> "Painter":
        """Cards on as many lines as the width needs, never splitting a card;
        the ``marked`` ones underlined."""
        used = len(indent)
        self.text(indent)
        for code in codes:
            w = len(display(code, self.ascii)) + 2
            if used + w > self.width and used > len(indent):
                self.nl().text(indent)
                used = len(indent)
            self.card(code, "underline" if code in marked else "").text("  ")
            used += w
        return self.nl()

    def flow(self, boxes: list[Fragments], indent: str = "  ", gap: str = "  ", used: int = 0) -> "Painter":
        """Pieces of text side by side, wrapped to the width between pieces;
        ``used``: columns already taken on the current line."""
        start = used
        for box in boxes:
            w = sum(len(t) for _, t in box)
            if used > start and used + len(gap) + w > self.width:
                self.nl().text(indent)
                used = start = len(indent)
            elif used > start:
                self.text(gap)
                used += len(gap)
            elif not used:
                self.text(indent)
                used = start = len(indent)
            self.out.extend(box)
            used += w
        if boxes:
            self.nl()
        return self

    def label(self, s: str) -> "Painter":
        return self.text(s, "class:label")


def wrap_fragments(fragments: Fragments, width: int, indent: str = "  ") -> Fragments:
    """``fragments`` with every line wider than ``width`` broken at its last
    space that fits (cut where a word alone is wider), the rest indented:
    the screen never wraps a line itself, so words and cards stay whole and
    nothing runs into the column beside."""
    out: Fragments = []
    line: list[tuple[str, str]] = []  # (style, one character)

    def emit(cells) -> None:
        for style, ch in cells:
            if out and out[-1][0] == style and out[-1][1] != "\n":
                out[-1] = (style, out[-1][1] + ch)
            else:
                out.append((style, ch))

    def flush() -> None:
        nonlocal line
        while len(line) > width:
            cut = next((i for i in range(width, len(indent), -1) if line[i][1] == " "), None)
            head, rest = (line[:cut], line[cut + 1:]) if cut is not None else (line[:width], line[width:])
            emit(head)
            out.append(("", "\n"))
            line = [("", ch) for ch in indent] + rest
        emit(line)
        line = []

    for style, text in fragments:
        for i, part in enumerate(text.split("\n")):
            if i:
                flush()
                out.append(("", "\n"))
            line.extend((style, ch) for ch in part)
    flush()
    return out


def fmt_clock(seconds: float) -> str:
    seconds = max(0, int(seconds + 0.999))
    return f"{seconds // 60}:{seconds % 60:02d}"


def sort_hand(game_id: str, hand: list[str], trump_suit: str | None = None) -> list[str]:
    """Canastas group by rank (wilds, then 3s last); the others keep the
    engine's order (suit, then rank), bura's trumps moved to the end."""
    if game_id not in ("kanasta", "kanaszta"):
        return sorted(hand, key=lambda c: suit(c) == trump_suit) if trump_suit else list(hand)

    def key(c: str):
        r = rank(c)
        if r is None:
            return (3, 0, c)
        if r in ("JK", "2"):
            return (2, 0 if r == "2" else 1, c)
        if r == "3":
            return (1, 0, c)
        return (0, RANKS.index(r), suit(c) or "")

    return sorted(hand, key=key)


# ----- the frame ---------------------------------------------------------------------

def render_header(session, ascii: bool = False, remaining: float | None = None) -> Fragments:
    """The top line: game, deal, whose turn with the countdown."""
    p = Painter(ascii)
    info = session.match_info()
    p.text(f" {session.game.id} ", "class:title")
    if session.seat is None:
        p.text(" watching", "class:warn")
    p.text(f"  deal {info.get('deal_index', 0) + 1}", "class:label")
    target = info.get("target")
    if target and session.game.id != "bura":  # bura's target is a declaration's points, not the match's
        p.text(f" \u00b7 to {target}", "class:label")
    if info.get("chips") is not None:
        # During a deal its own view is the freshest; after it, the match's.
        view = (session.view() or {}) if info.get("phase") == PHASE_PLAYING else {}
        p.text(f" \u00b7 bank {view.get('bank', info.get('bank', 0))}", "class:label")
    p.text("   ")
    phase = info.get("phase")
    who = session.to_act()
    if phase == PHASE_DEALING:
        p.text("dealing\u2026", "class:warn")
    elif phase == PHASE_BETWEEN and info.get("deals_go_on"):
        p.text("deal over \u2014 the next deal is on its way", "class:warn")
    elif phase == PHASE_BETWEEN:
        p.text("deal over \u2014 type next for the next deal", "class:warn")
        if remaining is not None:
            p.text(f" (it starts in {fmt_clock(remaining)})", "class:label")
    elif phase == PHASE_OVER:
        p.text("match over", "class:warn")
    elif phase == PHASE_ABORTED:
        p.text("game stopped: " + (info.get("reason") or "?"), "class:error")
    elif getattr(session, "pause_line", None) is not None and session.pause_line():
        p.text(session.pause_line(), "class:warn")
    elif who is not None:
        if who == session.seat:
            p.text(" your turn ", "class:turn")
        else:
            p.text(f"{seat_name(session.names, who)} to play", "class:other-turn")
        if remaining is not None:
            style = "class:error" if remaining <= 10 and who == session.seat else "class:label"
            p.text(f"  \u23f1 {fmt_clock(remaining)}" if not ascii else f"  {fmt_clock(remaining)} left", style)
    return p.out


def _side_score(session, info: dict, s: int) -> int | None:
    scores = info.get("scores") or []
    side = session.game.side_of(s, len(session.names), session.options)
    return scores[side] if side < len(scores) else None


def _players(p: Painter, session, view: dict | None, info: dict, extra: Callable[[int], str] | None) -> None:
    """One line per seat: turn marker, name, cards in hand, score/chips,
    connection, and the key's fingerprint where the width has room for it.
    A row too wide for the table goes on below, indented: it never runs
    into the log beside it."""
    names = session.names
    counts = (view or {}).get("hand_counts") or []
    who = session.to_act()
    status = session.peer_status()
    width = max(len(n) for n in names) + 2
    # During a deal its own view is more current than the match (fees paid
    # this deal); once it is over, the match's chips are (the settlement made).
    playing = info.get("phase") == PHASE_PLAYING
    chips = ((view or {}).get("chips") if playing else None) or info.get("chips")
    pairs = session.game.sides(len(names), session.options) != len(names)
    prints = getattr(session, "fingerprints", None) or []
    for s, name in enumerate(names):
        turn = s == who
        style = "class:me" if s == session.seat else ""
        you = " (you)" if s == session.seat and name.lower() != "you" else ""
        boxes: list[Fragments] = [[
            ("class:turn-mark", ("\u25b6 " if not p.ascii else "> ") if turn else "  "),
            (style, f"{name + you:<{width + 6}}"),
        ]]
        if s < len(counts):
            boxes.append([("", f"{counts[s]:>3} card{'s' if counts[s] != 1 else ' '}")])
        if chips is not None and s < len(chips):
            boxes.append([("", f"{chips[s]:>5} chips")])
        else:
            score = _side_score(session, info, s)
            if score is not None:
                boxes.append([("", f"{score:>6} pts{' (pair ' + str(s % 2 + 1) + ')' if pairs else ''}")])
        if extra and extra(s):
            boxes.append([("", extra(s))])
        if view and view.get("dealer") == s:
            boxes.append([("class:dim", "dealer")])
        st = status.get(s)
        if st:
            boxes.append([("class:ok" if st in ("connected", "bot") else "class:warn", st)])
        used = sum(len(t) for box in boxes for _, t in box) + 2 * max(0, len(boxes) - 2)
        if s < len(prints) and prints[s] and used + 2 + len("key ") + len(prints[s]) <= p.width:
            # who is who, to compare with the players in person (all of it, or not at all)
            boxes.append([("class:dim", f"key {prints[s]}")])
        first, rest = boxes[0], boxes[1:]
        p.out.extend(first)
        if rest:
            p.flow(rest, indent=" " * 4, gap="  ", used=sum(len(t) for _, t in first))
        else:
            p.nl()


def render_table(session, ascii: bool = False, width: int = 100, with_hand: bool = True) -> Fragments:
    """The table: players, the game's own area, and (``with_hand``) your hand."""
    p = Painter(ascii, width)
    view = session.view()
    info = session.match_info()
    area = _AREAS.get(session.game.id)
    if view is None:
        _players(p, session, None, info, None)
        p.nl().text("Waiting for the deal\u2026", "class:warn").nl()
        return wrap_fragments(p.out, width)
    _players(p, session, view, info, area.seat_extra(view) if area else None)
    p.nl()
    if area:
        area.draw(p, session, view)
    _outcome(p, session, info)
    if with_hand:
        p.nl()
        p.out += render_hand(session, ascii, width)
    return wrap_fragments(p.out, width)


def render_hand(session, ascii: bool = False, width: int = 100) -> Fragments:
    """This seat's hand, sorted, wrapped to ``width``; nothing for a spectator."""
    p = Painter(ascii, width)
    view = session.view()
    hand = view.get("hand") if view else None
    if hand is not None and session.seat is not None:
        playable = playable_cards(session)
        p.label(f"Your hand ({len(hand)}):")
        if playable:
            p.label("  underlined: cards you can play now")
        p.nl()
        p.hand(sort_hand(session.game.id, hand, view.get("trump_suit")), playable)
    return wrap_fragments(p.out, width)


# Moves that take any card (a discard, a face-down throw) say nothing about
# which cards fit; the others do.
_ANY_CARD = ("discard", "throw", "red3")


def playable_cards(session) -> set[str]:
    """The hand's cards that some legal move (other than one taking any card) uses."""
    out: set[str] = set()
    for action in session.legal_actions():
        if action.get("type") not in _ANY_CARD:
            out.update(action.get("cards") or [])
    return out


def _outcome(p: Painter, session, info: dict) -> None:
    phase = info.get("phase")
    if phase not in (PHASE_BETWEEN, PHASE_OVER):
        return
    last = info.get("last_deal")
    if last:
        p.nl().label("Last deal: ")
        seats = last.get("seats") or []
        p.text(", ".join(f"{seat_name(session.names, s)} {v:+d}" for s, v in enumerate(seats)))
        p.nl()
    result = info.get("result")
    if phase == PHASE_OVER and result:
        p.text(f"The match is over: {match_verdict(session, result)}", "class:warn").nl()
        chips = result.get("chips")
        if chips is not None:
            p.label("Final chips: ").text(", ".join(f"{seat_name(session.names, s)} {c}" for s, c in enumerate(chips)))
            p.nl()


def match_verdict(session, result: dict) -> str:
    """Who won: the engine's winner (a side), else for chip games the biggest stack."""
    names = session.names
    n = len(names)
    winner = result.get("winner")
    chips = result.get("chips")
    if winner is None and chips:
        best = max(chips)
        if chips.count(best) == 1:
            winner = chips.index(best)
    if winner is None:
        return "a draw."
    if session.game.sides(n, session.options) != n:
        members = [names[s] for s in range(n) if session.game.side_of(s, n, session.options) == winner]
        return f"{' and '.join(members)} win!"
    who = seat_name(names, winner)
    return f"{who} win!" if who == "You" else f"{who} wins!"


def render_log(session, ascii: bool = False, lines: int = 30, width: int = 44) -> Fragments:
    """The last moves and chat, newest last, wrapped at spaces to ``width``."""
    p = Painter(ascii, width)
    p.label("Last moves").nl()
    for line in session.last_moves()[-lines:]:
        p.rich(line, "class:chat" if _is_chat(line, session) else "").nl()
    return wrap_fragments(p.out, width)


def _is_chat(line: str, session) -> bool:
    return any(line.startswith(n + ": ") for n in session.names)


# ----- the games' own areas -------------------------------------------------------------

class Area:
    """The middle of the table for one game."""

    def seat_extra(self, view: dict) -> Callable[[int], str] | None:
        return None

    def draw(self, p: Painter, session, view: dict) -> None:
        raise NotImplementedError


class BuraArea(Area):
    SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

    def seat_extra(self, view):
        taken = view.get("tricks_taken") or []
        return lambda s: f"{taken[s]} trick{'s' if taken[s] != 1 else ''}" if s < len(taken) else ""

    def draw(self, p, session, view):
        names = session.names
        p.label("Trump: ").card(view["trump"]).text(f" ({self.SUITS.get(view.get('trump_suit'), '?')})")
        p.label("   Stock: ").text(str(view.get("stock", 0)))
        if view.get("trump_drawn"):
            p.text(" (trump card drawn)", "class:label")
        p.label("   Bank: ").text(str(view.get("bank", 0)))
        p.nl()
        trick = view.get("trick") or []
        lead_size = view.get("lead_size") or 0
        if not trick:
            leader = view.get("leader")
            if view.get("phase") == "play" and leader is not None and leader >= 0:
                who = seat_name(names, leader)
                p.label("Trick: ").text(f"{who} {verb(who, 'leads')} (up to {view.get('max_lead', 3)} cards of one suit)")
        else:
            p.label("Trick: ")
            p.text(f"{lead_size} card{'s' if lead_size != 1 else ''} each").nl()
            best = view.get("best")
            for play in trick:
                who = f"{seat_name(names, play['seat'])}:"
                p.text("  " + who.ljust(max(12, len(who) + 1)))
                if play.get("down"):
                    if play.get("cards"):
                        p.cards(play["cards"], style="class:down").text(" (your cards, face down)", "class:label")
                    else:
                        p.back(play.get("count", 1)).text(" face down", "class:label")
                else:
                    p.cards(play.get("cards") or [])
                if play["seat"] == best:
                    p.text("  \u2190 best" if not p.ascii else "  <- best", "class:ok")
                p.nl()
        if not trick:
            p.nl()
        last = view.get("last_trick")
        if last and not trick:
            p.label("Last trick: ").text(f"{seat_name(names, last['taker'])} took ")
            for i, play in enumerate(last.get("plays") or []):
                if i:
                    p.text(" | ")
                if play.get("down") and not play.get("cards"):
                    p.back(play.get("count", 1))
                else:
                    p.cards(play.get("cards") or [])
            p.nl()
        for b in view.get("bessas") or []:
            p.text(f"Bessa by {seat_name(names, b['seat'])}: ", "class:warn").cards(b["cards"]).nl()
        phase = view.get("phase")
        if phase == "declare":
            p.text(f"{seat_name(names, view.get('to_act'))} took the trick and may declare (decl) or not (pas)", "class:warn").nl()
        elif phase == "bessa":
            p.text(f"A bessa was shown: {seat_name(names, view.get('to_act'))} may beat it (bessa CARDS) or pas", "class:warn").nl()
        decl = view.get("declaration")
        if decl:
            who = seat_name(names, decl["seat"])
            verdict = (f"{verb(who, 'wins')} the bank" if decl.get("won")
                       else f"{verb(who, 'fails')} and {verb(who, 'pays')} {decl.get('paid', 0)}")
            p.text(f"{who} declared {decl.get('points')} points and {verdict}: ", "class:warn")
            p.cards(decl.get("cards") or []).nl()
        result = view.get("result")
        if result and not (decl and result.get("end") in ("declared", "failed_declaration")):
            p.text(self._result_text(result, names), "class:warn").nl()

    @staticmethod
    def _result_text(result: dict, names) -> str:
        end = result.get("end")
        who = seat_name(names, result.get("winner"))
        return {
            "declared": f"{who} declared and {verb(who, 'wins')} the bank.",
            "failed_declaration": "The declaration failed; the bank grows and the cards are dealt again.",
            "bessa": f"{who} {verb(who, 'wins')} the bank with a bessa.",
            "exhausted": "All cards played without a declaration: everybody doubles the bank.",
            "unpayable": "Somebody cannot pay: the bank is shared out and the match ends.",
        }.get(end, f"deal over ({end})")


class WarkoczArea(Area):
    def draw(self, p, session, view):
        names = session.names
        row = view.get("row") or []
        p.label("Row: ")
        if not row:
            p.text("(none: the player to act leads with any card)")
        for i, step in enumerate(row):
            if i:
                p.text(" \u2192 " if not p.ascii else " > ", "class:label")
            p.cards(step["cards"])
            if "9C" in step["cards"]:
                p.text(f"(={step['as']})", "class:warn")
        p.nl()
        needed = view.get("needed")
        to_act = view.get("to_act")
        if needed is not None and to_act is not None and to_act >= 0:
            article = "an" if needed in ("8", "A") else "a"
            p.text(f"{seat_name(names, to_act)} must continue with {article} {needed}", "class:warn")
            if view.get("passes"):
                p.text(f" ({view['passes']} pas so far)", "class:label")
            p.nl()
        elif to_act is not None and to_act >= 0:
            who = seat_name(names, to_act)
            p.text(f"{who} {verb(who, 'leads')} a new row", "class:warn").nl()
        played = view.get("played") or {}
        exhausted = set(view.get("exhausted") or [])
        p.label("Played: ")
        for r, n in played.items():
            p.text(f"{r}:{n} ", "class:dim" if r in exhausted else "")
        p.nl()
        # A gag is a K or a card whose next rank is used up.
        gags = ["K"] + [RANKS[RANKS.index(r) - 1] for r in sorted(exhausted, key=RANKS.index) if r != "2"]
        p.label("Gag now: ").text(" ".join(sorted(set(gags), key=RANKS.index)))
        if exhausted:
            p.label(f"  ({', '.join(sorted(exhausted, key=RANKS.index))} used up)")
        p.nl()
        p.label("Rows done: ").text(str(len(view.get("rows_done") or [])))
        p.label("   Set aside: ").text(str(view.get("aside_count", 0)))
        p.label("   Bank: ").text(str(view.get("bank", 0)))
        wb = view.get("warkocz_by")
        p.label("   Warkocz: ").text("not played yet" if wb is None else f"played by {seat_name(names, wb)}")
        p.nl()
        # The match totals, this deal's points included once it is over.
        scores = session.match_info().get("scores") or view.get("scores") or []
        p.label("Points: ").text(", ".join(f"{seat_name(names, s)} {v}" for s, v in enumerate(scores)))
        p.text(f"  (to {view.get('target')})", "class:label").nl()
        if view.get("winner") is not None:
            how = ""
            if view.get("aria"):
                how = " with an aria (x4, ending with the warkocz)" if view.get("aria_warkocz") else " with an aria (x2)"
            p.text(f"{seat_name(names, view['winner'])} went out{how}.", "class:warn").nl()


class CanastaArea(Area):
    """Both canastas: stock, pile, melds by owner (player, or side when a pair
    shares melds), red 3s, the first-meld minimum."""

    def owner_name(self, session, view: dict, owner: int) -> str:
        names = session.names
        if session.game.id == "kanaszta" and view.get("pairs"):
            return " + ".join(names[s] for s in range(len(names)) if s % 2 == owner)
        return seat_name(names, owner)

    def my_owner(self, session, view: dict) -> int | None:
        if session.seat is None:
            return None
        if session.game.id == "kanaszta" and view.get("pairs"):
            return session.seat % 2
        return session.seat

    def draw(self, p, session, view):
        p.label("Stock: ").text(str(view.get("stock_count", 0)))
        pile = view.get("pile") or []
        p.label("   Pile: ").text(f"{len(pile)} card{'s' if len(pile) != 1 else ''}")
        if pile:
            p.label(", top ").card(pile[-1])
        if view.get("frozen"):
            p.text("  FROZEN (take only with two naturals of its rank)", "class:error")
        if view.get("stopped"):
            p.text("  STOP card: the pile may not be taken now", "class:warn")
        p.nl()
        melds = view.get("melds") or []
        owners: dict[int, list[int]] = {}
        for i, m in enumerate(melds):
            owners.setdefault(m["owner"], []).append(i)
        if not melds:
            p.label("Melds: none yet").nl()
        mine = self.my_owner(session, view)
        for owner in sorted(owners, key=lambda o: (o != mine, o)):
            # Melds flow side by side after their owner's name as far as the
            # width allows: small terminals must still show every meld.
            # The running total of the cards melded (canasta bonuses come at the deal's end).
            worth = sum(session.game.value(c) for i in owners[owner] for c in melds[i]["cards"] if not is_unknown(c))
            label = f"  {self.owner_name(session, view, owner)} ({worth} pts): "
            p.text(label, "class:me" if owner == mine else "")
            boxes = [self._meld_box(p, i, melds[i], session.game.id) for i in owners[owner]]
            p.flow(boxes, indent=" " * len(label), gap="   ", used=len(label))
        red3s = view.get("red3s") or []
        if any(red3s):
            p.label("Red 3s: ")
            first = True
            for s, threes in enumerate(red3s):
                if threes:
                    if not first:
                        p.text(", ")
                    first = False
                    p.text(f"{seat_name(session.names, s)} ").cards(threes)
            p.nl()
        if mine is not None:
            opened = view.get("opened") or []
            minimum = view.get("minimum") or []
            if mine < len(opened) and not opened[mine] and mine < len(minimum):
                p.label(f"Your first meld must be worth at least {minimum[mine]}")
                if view.get("turn_value") and view.get("to_act") == session.seat:
                    p.label(f" (melded this turn: {view['turn_value']})")
                p.nl()
        if view.get("to_act") == session.seat and session.seat is not None:
            p.text(self._turn_help(session.game.id, view), "class:hint").nl()
        if view.get("went_out") is not None:
            how = " concealed (from hand)" if view.get("concealed") else ""
            p.text(f"{seat_name(session.names, view['went_out'])} went out{how}.", "class:warn").nl()
        elif view.get("deal_over"):
            p.text("The stock ran out: nobody went out.", "class:warn").nl()

    @staticmethod
    def _meld_box(p: Painter, i: int, meld: dict, game_id: str) -> Fragments:
        box = Painter(p.ascii)
        box.text(f"{i + 1}) ", "class:label").cards(meld["cards"])
        n = len(meld["cards"])
        if meld.get("canasta"):
            box.text(f" ({n}, {canasta_word(game_id, meld['canasta'])})", "class:ok")
        elif n >= 5:
            box.text(f" ({n}, {7 - n} to a canasta)", "class:label")
        else:
            box.text(f" ({n})", "class:label")
        return box.out

    @staticmethod
    def _turn_help(game_id: str, view: dict) -> str:
        phase = view.get("phase")
        if phase == "setup":
            return "Lay your red 3s: r3 CARDS (r3 alone if you have none)."
        if phase == "draw":
            if game_id == "kanaszta":
                return "Draw (dr) or take the pile (t ...)."
            return "Draw a card: dr."
        if view.get("can_take_pile") and game_id == "kanasta":
            return "Take the pile (t ...), meld (m), add (a N ...), or discard (d CARD) to end your turn."
        return "Meld (m), add (a N ...), or discard (d CARD) to end your turn."


_CANASTA = CanastaArea()
_AREAS: dict[str, Area] = {"bura": BuraArea(), "warkocz": WarkoczArea(), "kanasta": _CANASTA, "kanaszta": _CANASTA}
