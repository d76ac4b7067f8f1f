"""The log people read: one line per entry, showing only what everybody may
see, in the reader's language. The table, the spectator and the replay all
narrate with these functions.

- Moves: each engine words its own (``Game.describe_action``, as OpenSpiel's
  ``action_to_string``); ``describe`` picks the mover's name, or the second
  person for the reader's own move.
- The other entries (the dealing, the reveal, an abort, the end): ``entry_line``.
- Any entry, from the table as it stood before it (a ``walk.Step``):
  ``narrate_entry``; the table's history has lines for ``told_at_table``'s.
- What the log keeps in English (an abort's kind and reason) is put into the
  reader's language when shown: ``i18n.known``; free text a peer wrote
  stays as it is.
"""

from __future__ import annotations

from p2pcards.i18n import N_, Text, _, known, shown


def _mover(names: list[str], seat: int, me: int | None) -> str | None:
    """The mover's name, or None when the reader made the move (``me``, or
    the name "You" a local table gives its player)."""
    if seat == me:
        return None
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else None
    if who is None:
        return _("seat {seat}").format(seat=seat)
    return None if who in ("You", _("You")) else who


def narrate(game, state, seat: int, action: dict, names: list[str], me: int | None = None) -> Text:
    """A move in words as a :class:`~p2pcards.i18n.Text`: English as a str,
    the reader's language through ``i18n.shown``. ``state`` is the state
    before the move (None if unknown): it tells how big a pile taken was."""
    return game.describe_action(state, seat, action, _mover(names, seat, me))


def describe(game, state, seat: int, action: dict, names: list[str], me: int | None = None) -> str:
    """One log line for a move in the reader's language, showing only what
    everybody may see: face-down cards as a count, a drawn card not at all.
    ``me`` is the reader's seat (their own moves read "You draw")."""
    return shown(narrate(game, state, seat, action, names, me))


def narrate_entry(game, entry, deal: int, state, names: list[str], me: int | None = None) -> str:
    """Entry ``entry`` of a log in words, as read from the table before it:
    ``deal`` the deal it belongs to and ``state`` the public deal state it
    applies to (a ``walk.Step``'s). Never what the table became later: a
    move's words may count the pile it takes or number the meld it adds to.
    ``me``: the reader's seat, whose own moves read in the second person."""
    from p2pcards.protocol.machine import ACTION, END

    payload = entry.payload if isinstance(entry.payload, dict) else {}
    if entry.kind != ACTION:
        signers = [s for s, sig in enumerate(entry.signatures) if sig is not None] if entry.kind == END else None
        return entry_line(entry.kind, entry.author, payload, names, deal, signers)
    try:
        line = describe(game, state, entry.author, payload.get("action"), names, me)
    except Exception:  # a line of history must never stop the screen or the replay
        line = _("{name} played").format(name=_name(names, entry.author))
    if payload.get("auto") is True:
        line += " " + _("(played automatically for {name})").format(name=_name(names, entry.author))
    return line


def told_at_table(entry) -> bool:
    """Whether the table's history has a line for ``entry``: moves, pauses,
    an abort, the end, and the dealing and the final reveal once per deal
    (each seat's own share of them is no news to the players)."""
    from p2pcards.protocol.machine import ABORT, ACTION, END, PAUSE, REVEAL, SHUFFLE

    return entry.kind in (ACTION, PAUSE, ABORT, END) or (entry.kind in (SHUFFLE, REVEAL) and entry.author == 0)


def _name(names: list[str], seat) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else _("somebody")


def entry_line(kind: str, author: int, payload: dict, names: list[str], deal: int,
               signers: list[int] | None = None) -> str:
    """A protocol entry that is not a move, in words: the table's log and the
    replay say the same thing. The dealing is one line per deal (its first
    shuffle); the other dealing entries read as what they do for the players."""
    from p2pcards.protocol.machine import ABORT, END, KEYS, PAUSE, REKEY, REVEAL, SHUFFLE

    payload = payload if isinstance(payload, dict) else {}
    number = deal + 1
    if kind == SHUFFLE:
        if author == 0:
            return _("deal {deal}: shuffling (every player in turn, with proofs)").format(deal=number)
        return _("deal {deal}: {who} shuffled in turn (with proof)").format(deal=number, who=_name(names, author))
    if kind == REKEY:
        return _("deal {deal}: {who} locked the cards for dealing").format(deal=number, who=_name(names, author))
    if kind == KEYS:
        return _("{who} unlocked the cards others may now see").format(who=_name(names, author))
    if kind == REVEAL:
        if author == 0:
            return _("the deal is over: every player reveals its keys")
        return _("{who} revealed the deal's keys").format(who=_name(names, author))
    if kind == ABORT:
        culprit = payload.get("culprit")
        fields = {"who": _name(names, author), "kind": abort_kind(payload.get("kind")),
                  "detail": known(payload.get("detail"))}
        if isinstance(culprit, int):
            # Translators: {kind} is what went wrong (e.g. "illegal move"), {detail} the reason given.
            return _("GAME STOPPED by {who}: {kind} by {culprit}: {detail}").format(
                culprit=_name(names, culprit), **fields)
        return _("GAME STOPPED by {who}: {kind}: {detail}").format(**fields)
    if kind == END:
        return _("the match is over; the log is signed by {names}").format(
            names=", ".join(_name(names, s) for s in signers or []))
    if kind == PAUSE:
        return _pause_line(payload, _name(names, author))
    return _("{who}: {kind}").format(who=_name(names, author), kind=kind)


def _pause_line(payload: dict, who: str) -> str:
    from p2pcards.protocol.machine import PAUSE_ASK, PAUSE_CONTINUE, PAUSE_NO, PAUSE_YES

    auto = payload.get("auto") is True
    op = payload.get("pause")
    you = _mover([who], 0, None) is None  # the reader's own entry: "You ask", not "You asks"
    if op == PAUSE_ASK:
        return _("You ask the table for a pause") if you else _("{who} asks the table for a pause").format(who=who)
    if op == PAUSE_YES:
        if you:
            return _("You agree to the pause (automatically)") if auto else _("You agree to the pause")
        return (_("{who} agrees to the pause (automatically)") if auto else _("{who} agrees to the pause")).format(who=who)
    if op == PAUSE_NO:
        return _("You refuse the pause; play goes on") if you else _("{who} refuses the pause; play goes on").format(who=who)
    if op == PAUSE_CONTINUE:
        if auto:
            return _("the pause is over (its time ran out)")
        return _("the pause is over: you play on") if you else _("the pause is over: {who} plays on").format(who=who)
    return _("{who}: pause").format(who=who)


def pause_status(machine, names: list[str], me: int | None) -> str | None:
    """The table's top line while a pause is asked for or holds; None otherwise."""
    pause = getattr(machine, "pause", None)
    if pause is None or machine.finished or machine.aborted:
        return None
    mine = pause.asker == me
    asker = _name(names, pause.asker)
    if pause.held:
        if me is None:  # a spectator cannot end it
            return _("paused by {who}").format(who=asker)
        return (_("paused by you — type continue when you are back") if mine
                else _("paused by {who} — type continue to play on").format(who=asker))
    due = machine.expect().author
    if due == me:
        return _("{who} asks for a pause — type yes or no").format(who=asker)
    if mine:
        return _("You ask for a pause — waiting for {who}").format(who=_name(names, due))
    return _("{asker} asks for a pause — waiting for {who}").format(asker=asker, who=_name(names, due))


# ----- what the log keeps in English, in the reader's language --------------------

# The kinds of abort and violation the log and the audit name (short codes).
ABORT_KINDS = {
    "bad-end": N_("bad-end"), "bad-entry": N_("bad-entry"), "bad-rekey": N_("bad-rekey"),
    "bad-reveal": N_("bad-reveal"), "bad-shuffle": N_("bad-shuffle"), "bad-deal": N_("bad-deal"),
    "bad-score": N_("bad-score"), "equivocate": N_("equivocate"), "finished": N_("finished"),
    "hidden-rule": N_("hidden-rule"), "illegal-move": N_("illegal-move"), "no-card": N_("no-card"),
    "out-of-turn": N_("out-of-turn"), "phantom-card": N_("phantom-card"), "timeout": N_("timeout"),
    "silent": N_("silent"), "left": N_("left"), "wrong-key": N_("wrong-key"), "bad-pause": N_("bad-pause"),
    "misplaced": N_("misplaced"),
}


def abort_kind(kind) -> str:
    """An abort's kind as the log names it, in the reader's language if it
    is one of the known kinds (else as written)."""
    words = ABORT_KINDS.get(kind) if isinstance(kind, str) else None
    return _(words) if words is not None else str(kind)
