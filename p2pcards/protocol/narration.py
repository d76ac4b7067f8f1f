"""A move put into words for the log people read: one line per action, showing
only what everybody may see. The table, the spectator and the replay all
narrate with ``describe``."""

from __future__ import annotations

from p2pcards.cards import RANKS, rank

_PAST = {
    "draw": "draws",
    "take_pile": "takes the pile",
    "meld": "melds",
    "add": "adds",
    "swap": "swaps in",
    "red3": "lays a red 3",
    "discard": "discards",
    "play": "plays",
    "pass": "passes (pas)",
    "lead": "leads",
    "beat": "beats with",
    "throw": "throws",
    "declare": "declares",
    "bessa": "shows a bessa",
}


# Face-down moves even where an engine does not list them in face_down_actions.
_FACE_DOWN = {"bura": ("throw",)}


def describe(game, state, seat: int, action: dict, names: list[str]) -> str:
    """One log line for a move, showing only what everybody may see: face-down
    cards as a count, a drawn card not at all. ``state`` is the state before
    the move (None if unknown); it tells how big a pile taken was."""
    who = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
    line = _describe(game, state, who, action)
    if who == "You":  # "You beat with J♦", not "You beats"
        verb, _, rest = line[len(who) + 1:].partition(" ")
        line = f"{who} {_SECOND_PERSON.get(verb, verb)} {rest}".rstrip()
    return line


_SECOND_PERSON = {"draws": "draw", "takes": "take", "melds": "meld", "adds": "add", "swaps": "swap",
                  "lays": "lay", "discards": "discard", "plays": "play", "passes": "pass", "leads": "lead",
                  "beats": "beat", "throws": "throw", "declares": "declare", "shows": "show", "does": "do",
                  "has": "have"}


def _describe(game, state, who: str, action: dict) -> str:
    kind = action.get("type", "?")
    cards = " ".join(action.get("cards") or [])
    n = len(action.get("cards") or [])
    meld = action.get("meld")
    if kind in getattr(game, "face_down_actions", ()) or kind in _FACE_DOWN.get(game.id, ()):
        return f"{who} {_PAST.get(kind, kind)} {n} card{'s' if n != 1 else ''} face down"
    if kind == "draw":
        return f"{who} draws"
    if kind == "pass":
        return f"{who} does not declare (pas)" if game.id == "bura" else f"{who} passes (pas)"
    if kind == "take_pile":
        pile = _public_pile(game, state)
        size = f" ({len(pile)} cards)" if pile else ""
        top = f" and melds its top {pile[-1]}" if pile else " and melds its top card"
        where = f" onto meld {meld + 1}" if meld is not None else ""
        return f"{who} takes the pile{size}{top}{' with ' + cards if cards else ''}{where}"
    if kind == "swap":
        natural, rest = (action.get("cards") or ["?"])[0], " ".join((action.get("cards") or [])[1:])
        return f"{who} swaps {natural} for the {action.get('wild')} in meld {(meld or 0) + 1} and melds {action.get('wild')} {rest}".rstrip()
    if kind == "red3":
        return f"{who} lays red 3s: {cards}" if n > 1 else f"{who} lays a red 3: {cards}" if n else f"{who} has no red 3 to lay"
    text = f"{who} {_PAST.get(kind, kind)}"
    if kind == "add" and meld is not None:
        text += f" to meld {meld + 1}"
    if cards:
        text += " " + cards
    if action.get("as"):
        text += f" as {action['as']}"
    if game.id == "warkocz" and _warkocz_gag(game, state, action):
        text += " (gag)"
    if action.get("freeze"):
        text += " crosswise (pile frozen)"
    return text


def _warkocz_gag(game, state, action: dict) -> bool:
    """Whether a warkocz play ends the row: a K, or its next rank used up."""
    cards = action.get("cards") or []
    if action.get("type") != "play" or not cards:
        return False
    r = action.get("as") or rank(cards[0])
    if r == "K":
        return True
    if state is None or r not in RANKS[:-2]:
        return False
    following = RANKS[RANKS.index(r) + 1]
    try:
        played = game.view(state, None).get("played") or {}
    except Exception:  # a log line is not worth failing a move for
        return False
    laid_now = sum(1 for c in cards if c != "9C" and rank(c) == following)
    return played.get(following, 0) + laid_now >= 4


def _public_pile(game, state) -> list[str]:
    if state is None:
        return []
    try:
        return list(game.view(state, None).get("pile") or [])
    except Exception:  # a log line is not worth failing a move for
        return []


def _name(names: list[str], seat) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "somebody"


def entry_line(kind: str, author: int, payload: dict, names: list[str], deal: int,
               signers: list[int] | None = None) -> str:
    """A protocol entry that is not a move, in words: the table's log and the
    replay say the same thing. The dealing is one line per deal (its first
    shuffle); the other dealing entries read as what they do for the players."""
    from p2pcards.protocol.machine import ABORT, END, KEYS, PAUSE, REKEY, REVEAL, SHUFFLE

    payload = payload if isinstance(payload, dict) else {}
    if kind == SHUFFLE:
        if author == 0:
            return f"deal {deal + 1}: shuffling (every player in turn, with proofs)"
        return f"deal {deal + 1}: {_name(names, author)} shuffled in turn (with proof)"
    if kind == REKEY:
        return f"deal {deal + 1}: {_name(names, author)} locked the cards for dealing"
    if kind == KEYS:
        return f"{_name(names, author)} unlocked the cards others may now see"
    if kind == REVEAL:
        if author == 0:
            return "the deal is over: every player reveals its keys"
        return f"{_name(names, author)} revealed the deal's keys"
    if kind == ABORT:
        culprit = payload.get("culprit")
        return (f"GAME STOPPED by {_name(names, author)}: {payload.get('kind')}"
                + (f" by {_name(names, culprit)}" if isinstance(culprit, int) else "")
                + f": {payload.get('detail')}")
    if kind == END:
        return "the match is over; the log is signed by " + ", ".join(_name(names, s) for s in signers or [])
    if kind == PAUSE:
        return _pause_line(payload, _name(names, author))
    return f"{_name(names, author)}: {kind}"


def _pause_line(payload: dict, who: str) -> str:
    from p2pcards.protocol.machine import PAUSE_ASK, PAUSE_CONTINUE, PAUSE_NO, PAUSE_YES

    auto = payload.get("auto") is True
    op = payload.get("pause")
    if op == PAUSE_ASK:
        return f"{who} asks the table for a pause"
    if op == PAUSE_YES:
        return f"{who} agrees to the pause" + (" (automatically)" if auto else "")
    if op == PAUSE_NO:
        return f"{who} refuses the pause; play goes on"
    if op == PAUSE_CONTINUE:
        return "the pause is over" + (" (its time ran out)" if auto else f": {who} plays on")
    return f"{who}: pause"


def pause_status(machine, names: list[str], me: int | None) -> str | None:
    """The table's top line while a pause is asked for or holds; None otherwise."""
    pause = getattr(machine, "pause", None)
    if pause is None or machine.finished or machine.aborted:
        return None
    asker = "you" if pause.asker == me else _name(names, pause.asker)
    if pause.held:
        return (f"paused by {asker} — type continue to play on"
                if pause.asker != me else "paused by you — type continue when you are back")
    due = machine.expect().author
    if due == me:
        return f"{asker} asks for a pause — type yes or no"
    return f"{'You ask' if pause.asker == me else asker + ' asks'} for a pause — waiting for {_name(names, due)}"
