"""The table screen as prompt-toolkit formatted text, drawn from
``session.view()`` and ``session.match_info()``. Pure functions of what the
session says: no terminal needed (the benchmark and the tests render them).

Every game shares the frame (header, players, hand, log); ``_AREAS`` holds
the middle part of each layout a game has (``Game.layout``: melds and pile,
the row, the trick and trump).
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.cards import RANKS, display, is_red, is_unknown
from p2pcards.i18n import N_, _, ngettext, pgettext
from p2pcards.ui.commands import canasta_word, split_cards
from p2pcards.ui.wording import is_you
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


# ----- the frame ---------------------------------------------------------------------

def render_header(session, ascii: bool = False, remaining: float | None = None) -> Fragments:
    """The top line: game, deal, whose turn with the countdown."""
    p = Painter(ascii)
    info = session.match_info()
    p.text(f" {session.game.id} ", "class:title")
    if session.seat is None:
        p.text(" " + _("watching"), "class:warn")
    # Translators: the header's deal number ("deal 2"), then the match's target ("to 5000").
    p.text("  " + _("deal {number}").format(number=info.get("deal_index", 0) + 1), "class:label")
    target = info.get("target")
    if target and session.game.match_points:  # else the target is no match's (bura: a declaration's points)
        p.text(" \u00b7 " + _("to {target}").format(target=target), "class:label")
    if info.get("chips") is not None:
        # During a deal its own view is the freshest; after it, the match's.
        view = (session.view() or {}) if info.get("phase") == PHASE_PLAYING else {}
        p.text(" \u00b7 " + _("bank {chips}").format(chips=view.get("bank", info.get("bank", 0))), "class:label")
    p.text("   ")
    phase = info.get("phase")
    who = session.to_act()
    if phase == PHASE_DEALING:
        p.text(_("dealing\u2026"), "class:warn")
    elif phase == PHASE_BETWEEN and info.get("deals_go_on"):
        p.text(_("deal over \u2014 the next deal is on its way"), "class:warn")
    elif phase == PHASE_BETWEEN:
        p.text(_("deal over \u2014 type next"), "class:warn")
        if remaining is not None:
            p.text(" " + _("(it starts in {clock})").format(clock=fmt_clock(remaining)), "class:label")
    elif phase == PHASE_OVER:
        p.text(_("match over"), "class:warn")
    elif phase == PHASE_ABORTED:
        # Translators: {reason} may be English: it comes from the log or another player.
        p.text(_("game stopped: {reason}").format(reason=info.get("reason") or "?"), "class:error")
    elif getattr(session, "pause_line", None) is not None and session.pause_line():
        p.text(session.pause_line(), "class:warn")
    elif who is not None:
        if who == session.seat:
            p.text(" " + _("your turn") + " ", "class:turn")
        else:
            p.text(_("{name} to play").format(name=seat_name(session.names, who)), "class:other-turn")
        if remaining is not None:
            style = "class:error" if remaining <= 10 and who == session.seat else "class:label"
            clock = fmt_clock(remaining)
            p.text(f"  \u23f1 {clock}" if not ascii else "  " + _("{clock} left").format(clock=clock), style)
    return p.out


def _side_score(session, info: dict, s: int) -> int | None:
    scores = info.get("scores") or []
    side = session.game.side_of(s, len(session.names), session.options)
    return scores[side] if side < len(scores) else None


def cards_count(n: int, shown: str | None = None) -> str:
    """``3 cards``; ``shown``: the number as it is to be written (padded)."""
    return ngettext("{n} card", "{n} cards", n).format(n=n if shown is None else shown)


# What a session says of a seat's connection (``peer_status``), in words.
_STATUS_WORDS = {"connected": N_("connected"), "bot": N_("bot"), "connecting": N_("connecting"),
                 "blamed": N_("blamed")}


def status_words(status: str) -> str:
    """A seat's connection in the player's language (the longer ones come in words already)."""
    text = _STATUS_WORDS.get(status)
    return _(text) if text else status


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
    # Plural forms differ in length (Polish "4 karty", "5 kart"): padded to
    # the longest, the columns after them line up.
    card_words = _padded([cards_count(n, f"{n:>3}") for n in counts])
    chip_words = _padded([ngettext("{n} chip", "{n} chips", c).format(n=f"{c:>5}") for c in chips or []])
    for s, name in enumerate(names):
        turn = s == who
        style = "class:me" if s == session.seat else ""
        you = " " + _("(you)") if s == session.seat and not is_you(name) else ""
        boxes: list[Fragments] = [[
            ("class:turn-mark", ("\u25b6 " if not p.ascii else "> ") if turn else "  "),
            (style, f"{name + you:<{width + 6}}"),
        ]]
        if s < len(counts):
            boxes.append([("", card_words[s])])
        if chips is not None and s < len(chips):
            boxes.append([("", chip_words[s])])
        else:
            score = _side_score(session, info, s)
            if score is not None:
                points = f"{score:>6}"
                pair = session.game.side_of(s, len(names), session.options) + 1
                # Translators: a player's match points beside their name; a pair's number when pairs play.
                boxes.append([("", _("{points} pts (pair {pair})").format(points=points, pair=pair) if pairs
                               else _("{points} pts").format(points=points))])
        if extra and extra(s):
            boxes.append([("", extra(s))])
        if view and view.get("dealer") == s:
            # Translators: beside the player who dealt this deal.
            boxes.append([("class:dim", _("dealer"))])
        st = status.get(s)
        if st:
            boxes.append([("class:ok" if st in ("connected", "bot") else "class:warn", status_words(st))])
        used = sum(len(t) for box in boxes for _style, t in box) + 2 * max(0, len(boxes) - 2)
        key = _("key {fingerprint}").format(fingerprint=prints[s]) if s < len(prints) and prints[s] else ""
        if key and used + 2 + len(key) <= p.width:
            # who is who, to compare with the players in person (all of it, or not at all)
            boxes.append([("class:dim", key)])
        first, rest = boxes[0], boxes[1:]
        p.out.extend(first)
        if rest:
            p.flow(rest, indent=" " * 4, gap="  ", used=sum(len(t) for _style, t in first))
        else:
            p.nl()


def _padded(words: list[str]) -> list[str]:
    longest = max(map(len, words), default=0)
    return [w.ljust(longest) for w in words]


def render_table(session, ascii: bool = False, width: int = 100, with_hand: bool = True) -> Fragments:
    """The table: players, the game's own area, and (``with_hand``) your hand."""
    p = Painter(ascii, width)
    view = session.view()
    info = session.match_info()
    area = _AREAS.get(session.game.layout)
    if view is None:
        _players(p, session, None, info, None)
        p.nl().text(_("Waiting for the deal\u2026"), "class:warn").nl()
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
        p.label(_("Your hand ({count}):").format(count=len(hand)))
        if playable:
            p.label("  " + _("underlined: cards you can play now"))
        p.nl()
        p.hand(session.game.hand_order(hand, view.get("trump_suit")), playable)
    return wrap_fragments(p.out, width)


def playable_cards(session) -> set[str]:
    """The hand's cards that some legal move uses, but for the moves that say
    nothing about which cards fit (``Game.any_card_actions``)."""
    out: set[str] = set()
    any_card = session.game.any_card_actions
    for action in session.legal_actions():
        if action.get("type") not in any_card:
            out.update(action.get("cards") or [])
    return out


def _outcome(p: Painter, session, info: dict) -> None:
    phase = info.get("phase")
    if phase not in (PHASE_BETWEEN, PHASE_OVER):
        return
    last = info.get("last_deal")
    if last:
        p.nl().label(_("Last deal:") + " ")
        seats = last.get("seats") or []
        p.text(", ".join(f"{seat_name(session.names, s)} {v:+d}" for s, v in enumerate(seats)))
        p.nl()
    result = info.get("result")
    if phase == PHASE_OVER and result:
        p.text(_("The match is over: {verdict}").format(verdict=match_verdict(session, result)), "class:warn").nl()
        chips = result.get("chips")
        if chips is not None:
            p.label(_("Final chips:") + " ").text(", ".join(f"{seat_name(session.names, s)} {c}" for s, c in enumerate(chips)))
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
    pairs = session.game.sides(n, session.options) != n

    def members(side: int) -> list[str]:
        return [names[s] for s in range(n) if session.game.side_of(s, n, session.options) == side]
    if winner is None:
        # nobody alone at the top: the chips (per seat) or the points (per side) shared first place
        totals = chips or result.get("scores") or []
        best = max(totals, default=0)
        leaders = [i for i, t in enumerate(totals) if t == best]
        named = [seat_name(names, i) if chips or not pairs else " + ".join(members(i)) for i in leaders]
        # Translators: the match ended with these players (or pairs "Ada + Bolek") level at the top.
        return _("a tie for first place: {names}.").format(names=", ".join(named))
    if pairs:
        team = members(winner)
        # Translators: the winning pair ("Ada and You win!").
        return _("{first} and {second} win!").format(first=team[0], second=" + ".join(team[1:]))
    who = seat_name(names, winner)
    return _("You win!") if is_you(who) else _("{name} wins!").format(name=who)


def render_log(session, ascii: bool = False, lines: int = 30, width: int = 44) -> Fragments:
    """The last moves and chat, newest last, wrapped at spaces to ``width``."""
    p = Painter(ascii, width)
    p.label(_("Last moves")).nl()
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
    SUITS = {"C": N_("clubs"), "D": N_("diamonds"), "H": N_("hearts"), "S": N_("spades")}

    def seat_extra(self, view):
        taken = view.get("tricks_taken") or []
        return lambda s: ngettext("{n} trick", "{n} tricks", taken[s]).format(n=taken[s]) if s < len(taken) else ""

    def draw(self, p, session, view):
        names = session.names
        suit_name = self.SUITS.get(view.get("trump_suit"))
        p.label(_("Trump:") + " ").card(view["trump"]).text(f" ({_(suit_name) if suit_name else '?'})")
        p.label("   " + _("Stock:") + " ").text(str(view.get("stock", 0)))
        if view.get("trump_drawn"):
            p.text(" " + _("(trump card drawn)"), "class:label")
        p.label("   " + _("Bank:") + " ").text(str(view.get("bank", 0)))
        p.nl()
        trick = view.get("trick") or []
        lead_size = view.get("lead_size") or 0
        if not trick:
            leader = view.get("leader")
            if view.get("phase") == "play" and leader is not None and leader >= 0:
                who = seat_name(names, leader)
                most = view.get("max_lead", 3)
                leads = (ngettext("You lead (up to {n} card of one suit)", "You lead (up to {n} cards of one suit)", most)
                         if is_you(who) else
                         ngettext("{name} leads (up to {n} card of one suit)", "{name} leads (up to {n} cards of one suit)",
                                  most))
                p.label(_("Trick:") + " ").text(leads.format(name=who, n=most))
        else:
            p.label(_("Trick:") + " ")
            p.text(ngettext("{n} card each", "{n} cards each", lead_size).format(n=lead_size)).nl()
            best = view.get("best")
            for play in trick:
                who = f"{seat_name(names, play['seat'])}:"
                p.text("  " + who.ljust(max(12, len(who) + 1)))
                if play.get("down"):
                    if play.get("cards"):
                        p.cards(play["cards"], style="class:down").text(" " + _("(your cards, face down)"), "class:label")
                    else:
                        p.back(play.get("count", 1)).text(" " + _("face down"), "class:label")
                else:
                    p.cards(play.get("cards") or [])
                if play["seat"] == best:
                    # Translators: an arrow points at the play that is best so far in the trick.
                    p.text(("  \u2190 " if not p.ascii else "  <- ") + _("best"), "class:ok")
                p.nl()
        if not trick:
            p.nl()
        last = view.get("last_trick")
        if last and not trick:
            taker = seat_name(names, last["taker"])
            took = _("You took") if is_you(taker) else _("{name} took").format(name=taker)
            p.label(_("Last trick:") + " ").text(took + " ")
            for i, play in enumerate(last.get("plays") or []):
                if i:
                    p.text(" | ")
                if play.get("down") and not play.get("cards"):
                    p.back(play.get("count", 1))
                else:
                    p.cards(play.get("cards") or [])
            p.nl()
        for b in view.get("bessas") or []:
            p.text(_("Bessa by {name}:").format(name=seat_name(names, b["seat"])) + " ", "class:warn").cards(b["cards"]).nl()
        phase = view.get("phase")
        if phase in ("declare", "bessa"):
            who = seat_name(names, view.get("to_act"))
            you = is_you(who)
            if phase == "declare":
                text = (_("You took the trick and may declare (decl) or not (pas)") if you else
                        _("{name} took the trick and may declare (decl) or not (pas)"))
            else:
                text = (_("A bessa was shown: you may beat it (bessa CARDS) or pass (pas)") if you else
                        _("A bessa was shown: {name} may beat it (bessa CARDS) or pass (pas)"))
            p.text(text.format(name=who), "class:warn").nl()
        decl = view.get("declaration")
        if decl:
            who = seat_name(names, decl["seat"])
            p.text(declaration_text(who, decl) + " ", "class:warn")
            p.cards(decl.get("cards") or []).nl()
        result = view.get("result")
        if result and not (decl and result.get("end") in ("declared", "failed_declaration")):
            p.text(self._result_text(result, names), "class:warn").nl()

    @staticmethod
    def _result_text(result: dict, names) -> str:
        end = result.get("end")
        who = seat_name(names, result.get("winner"))
        you = is_you(who)
        if end == "declared":
            return _("You declared and win the bank.") if you else _("{name} declared and wins the bank.").format(name=who)
        if end == "bessa":
            return _("You win the bank with a bessa.") if you else _("{name} wins the bank with a bessa.").format(name=who)
        if end == "failed_declaration":
            return _("The declaration failed; the bank grows and the cards are dealt again.")
        if end == "exhausted":
            return _("All cards played without a declaration: everybody doubles the bank.")
        if end == "unpayable":
            return _("Somebody cannot pay: the bank is shared out and the match ends.")
        return _("deal over ({end})").format(end=end)


def declaration_text(who: str, decl: dict) -> str:
    """``Ada declared 33 points and wins the bank:`` (the cards follow)."""
    points, paid = decl.get("points"), decl.get("paid", 0)
    n = points if isinstance(points, int) else 0
    if decl.get("won"):
        text = (ngettext("You declared {n} point and win the bank:", "You declared {n} points and win the bank:", n)
                if is_you(who) else
                ngettext("{name} declared {n} point and wins the bank:", "{name} declared {n} points and wins the bank:",
                         n))
    elif is_you(who):
        # Translators: a failed declaration in bura; {paid}: the chips paid into the bank.
        text = ngettext("You declared {n} point and fail and pay {paid}:",
                        "You declared {n} points and fail and pay {paid}:", n)
    else:
        text = ngettext("{name} declared {n} point and fails and pays {paid}:",
                        "{name} declared {n} points and fails and pays {paid}:", n)
    return text.format(name=who, n=points, paid=paid)


class WarkoczArea(Area):
    def draw(self, p, session, view):
        names = session.names
        row = view.get("row") or []
        p.label(_("Row:") + " ")
        if not row:
            p.text(_("(none: the player to act leads with any card)"))
        for i, step in enumerate(row):
            if i:
                p.text(" \u2192 " if not p.ascii else " > ", "class:label")
            p.cards(step["cards"])
            if session.game.wild_card in step["cards"]:
                p.text(f"(={step['as']})", "class:warn")
        p.nl()
        needed = view.get("needed")
        to_act = view.get("to_act")
        if needed is not None and to_act is not None and to_act >= 0:
            who = seat_name(names, to_act)
            # English says "an 8", "an A", "a 7": two messages, the same in most languages.
            if needed in ("8", "A"):
                text = _("You must continue with an {rank}") if is_you(who) else _("{name} must continue with an {rank}")
            else:
                text = _("You must continue with a {rank}") if is_you(who) else _("{name} must continue with a {rank}")
            p.text(text.format(name=who, rank=needed), "class:warn")
            if view.get("passes"):
                passes = view["passes"]
                # Translators: how many players said "pas" (passed) on this row so far.
                p.text(" " + ngettext("({n} pas so far)", "({n} pas so far)", passes).format(n=passes), "class:label")
            p.nl()
        elif to_act is not None and to_act >= 0:
            who = seat_name(names, to_act)
            text = _("You lead a new row") if is_you(who) else _("{name} leads a new row").format(name=who)
            p.text(text, "class:warn").nl()
        played = view.get("played") or {}
        exhausted = set(view.get("exhausted") or [])
        # Translators: how many cards of each rank were played this deal ("7:3 8:4").
        p.label(_("Played:") + " ")
        for r, n in played.items():
            p.text(f"{r}:{n} ", "class:dim" if r in exhausted else "")
        p.nl()
        p.label(_("Gag now:") + " ").text(" ".join(session.game.gag_ranks(exhausted)))
        if exhausted:
            used_up = ", ".join(sorted(exhausted, key=RANKS.index))
            p.label("  " + _("({ranks} used up)").format(ranks=used_up))
        p.nl()
        p.label(_("Rows done:") + " ").text(str(len(view.get("rows_done") or [])))
        p.label("   " + _("Set aside:") + " ").text(str(view.get("aside_count", 0)))
        p.label("   " + _("Bank:") + " ").text(str(view.get("bank", 0)))
        wb = view.get("warkocz_by")
        p.label("   " + _("Warkocz:") + " ").text(
            _("not played yet") if wb is None else _("played by {name}").format(name=seat_name(names, wb)))
        p.nl()
        # The match totals, this deal's points included once it is over.
        scores = session.match_info().get("scores") or view.get("scores") or []
        p.label(_("Points:") + " ").text(", ".join(f"{seat_name(names, s)} {v}" for s, v in enumerate(scores)))
        p.text("  " + _("(to {target})").format(target=view.get("target")), "class:label").nl()
        if view.get("winner") is not None:
            p.text(warkocz_went_out(seat_name(names, view["winner"]), view.get("aria"), view.get("aria_warkocz")),
                   "class:warn").nl()


def warkocz_went_out(who: str, aria: bool = False, ending_with_warkocz: bool = False) -> str:
    """``Ada went out with an aria (x2).``"""
    you = is_you(who)
    if aria and ending_with_warkocz:
        text = (_("You went out with an aria (x4, ending with the warkocz).") if you else
                _("{name} went out with an aria (x4, ending with the warkocz)."))
    elif aria:
        text = _("You went out with an aria (x2).") if you else _("{name} went out with an aria (x2).")
    else:
        text = _("You went out.") if you else _("{name} went out.")
    return text.format(name=who)


def canasta_went_out(who: str, concealed: bool = False) -> str:
    """``Ada went out concealed (from hand).``"""
    if concealed:
        return (_("You went out concealed (from hand).") if is_you(who) else
                _("{name} went out concealed (from hand).").format(name=who))
    return _("You went out.") if is_you(who) else _("{name} went out.").format(name=who)


class CanastaArea(Area):
    """Both canastas: stock, pile, melds by owner (player, or side when a pair
    shares melds), red 3s, the first-meld minimum."""

    @staticmethod
    def pair_melds(session, view: dict) -> bool:
        """Whether a pair shares its melds (the engine says: kanaszta's do)."""
        return bool(session.game.side_melds and view.get("pairs"))

    def owner_name(self, session, view: dict, owner: int) -> str:
        names = session.names
        if self.pair_melds(session, view):
            return " + ".join(names[s] for s in range(len(names))
                              if session.game.side_of(s, len(names), session.options) == owner)
        return seat_name(names, owner)

    def my_owner(self, session, view: dict) -> int | None:
        if session.seat is None:
            return None
        if self.pair_melds(session, view):
            return session.game.side_of(session.seat, len(session.names), session.options)
        return session.seat

    def draw(self, p, session, view):
        p.label(_("Stock:") + " ").text(str(view.get("stock_count", 0)))
        pile = view.get("pile") or []
        p.label("   " + _("Pile:") + " ").text(cards_count(len(pile)))
        if pile:
            # Translators: after the pile's size: "Pile: 5 cards, top 7H".
            p.label(", " + pgettext("pile", "top") + " ").card(pile[-1])
        if view.get("frozen"):
            p.text("  " + _("FROZEN (take only with two naturals of its rank)"), "class:error")
        if view.get("stopped"):
            p.text("  " + _("STOP card: the pile may not be taken now"), "class:warn")
        p.nl()
        melds = view.get("melds") or []
        owners: dict[int, list[int]] = {}
        for i, m in enumerate(melds):
            owners.setdefault(m["owner"], []).append(i)
        if not melds:
            p.label(_("Melds: none yet")).nl()
        mine = self.my_owner(session, view)
        for owner in sorted(owners, key=lambda o: (o != mine, o)):
            # Melds flow side by side after their owner's name as far as the
            # width allows: small terminals must still show every meld.
            # The running total of the cards melded (canasta bonuses come at the deal's end).
            worth = sum(session.game.value(c) for i in owners[owner] for c in melds[i]["cards"] if not is_unknown(c))
            # Translators: a player's (or pair's) melds follow: "Ada (120 pts): 1) KH KS KD ...".
            label = "  " + _("{owner} ({points} pts):").format(owner=self.owner_name(session, view, owner),
                                                              points=worth) + " "
            p.text(label, "class:me" if owner == mine else "")
            boxes = [self._meld_box(p, i, melds[i], session.game) for i in owners[owner]]
            p.flow(boxes, indent=" " * len(label), gap="   ", used=len(label))
        red3s = view.get("red3s") or []
        if any(red3s):
            p.label(_("Red 3s:") + " ")
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
                p.label(_("Your first meld must be worth at least {points}").format(points=minimum[mine]))
                if view.get("turn_value") and view.get("to_act") == session.seat:
                    p.label(" " + _("(melded this turn: {points})").format(points=view["turn_value"]))
                p.nl()
        if view.get("to_act") == session.seat and session.seat is not None:
            can_take = any(a.get("type") == "take_pile" for a in session.legal_actions())
            p.text(self._turn_help(view, can_take), "class:hint").nl()
        if view.get("went_out") is not None:
            p.text(canasta_went_out(seat_name(session.names, view["went_out"]), view.get("concealed")),
                   "class:warn").nl()
        elif view.get("deal_over"):
            p.text(_("The stock ran out: nobody went out."), "class:warn").nl()

    @staticmethod
    def _meld_box(p: Painter, i: int, meld: dict, game) -> Fragments:
        box = Painter(p.ascii)
        box.text(f"{i + 1}) ", "class:label").cards(meld["cards"])
        n = len(meld["cards"])
        missing = game.canasta_size - n
        if meld.get("canasta"):
            box.text(f" ({n}, {canasta_word(game.id, meld['canasta'])})", "class:ok")
        elif missing <= 2:
            # Translators: a meld of {n} cards that lacks {missing} to be a canasta.
            box.text(" " + _("({n}, {missing} to a canasta)").format(n=n, missing=missing), "class:label")
        else:
            box.text(f" ({n})", "class:label")
        return box.out

    @staticmethod
    def _turn_help(view: dict, can_take: bool) -> str:
        """What to do now; ``can_take``: taking the pile is among the legal moves."""
        phase = view.get("phase")
        if phase == "setup":
            return _("Lay your red 3s: r3 CARDS (r3 alone if you have none).")
        if phase == "draw":
            if can_take:
                return _("Draw (dr) or take the pile (t ...).")
            return _("Draw a card: dr.")
        if can_take:
            return _("Take the pile (t ...), meld (m), add (a N ...), or discard (d CARD) to end your turn.")
        return _("Meld (m), add (a N ...), or discard (d CARD) to end your turn.")


# Each ``Game.layout`` drawn its own way.
_AREAS: dict[str, Area] = {"melds": CanastaArea(), "row": WarkoczArea(), "tricks": BuraArea()}
