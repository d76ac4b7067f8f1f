"""A replay as a game record (``replay --text``) and as JSON lines for tools
(``replay --json``, described in protocol/replay-json.md).

The record reads like the table: the options in words as the lobby shows
them, each move as the table's log says it (cards as ``8♠``), each deal's
result and score sheet, the match's standings and the audit's verdict. Every
string that comes from the file (names, chat, an abort's detail) is shown
without its control characters: a log is anybody's file.
"""

from __future__ import annotations

import json
from typing import Iterator

from p2pcards.audit.replay import DEAL_OVER, DEALT, MOVE, STOP, THE_END, Replay
from p2pcards.i18n import _, ngettext, printable, worded
from p2pcards.ui.lobby import options_lines
from p2pcards.ui.render import match_verdict
from p2pcards.ui.scoresheet import match_sheet, shell_text
from p2pcards.ui.replay_viewer import ReplaySession

MAX_LINE = 2000


def _clean(text: str) -> str:
    return printable(str(text), MAX_LINE)


def _cards(codes, ascii_only: bool) -> str:
    return shell_text([" ".join(codes)], ascii_only)


def game_record(replay: Replay, seat: int | None = None, show_all: bool = False,
                ascii_only: bool = False) -> Iterator[str]:
    """The game move by move; with ``seat`` that seat's hand after each move,
    with ``show_all`` every hand."""
    table = replay.log.table
    extra = table.extra if isinstance(table.extra, dict) else {}
    # Translators: the record's first line: "bura for 3: Ada (seat 0), Bolek (seat 1), ...".
    seats = ", ".join(_("{name} (seat {seat})").format(name=name, seat=i) for i, name in enumerate(replay.names))
    yield _clean(_("{game} for {players}: {seats}").format(game=replay.game.id, players=replay.players, seats=seats))
    for line in options_lines(dict(table.options or {}), dict(extra), replay.game.id):
        yield _clean(line)
    session = ReplaySession(replay, seat)
    for i, move in enumerate(replay.moves):
        session.go(i)
        frame = replay.frame_of(move)
        if move.kind == DEALT:
            view = replay.view(frame, None) or {}
            dealer = view.get("dealer")
            yield ""
            if isinstance(dealer, int) and 0 <= dealer < replay.players:
                yield _clean(_("Deal {number}, dealt by {name}").format(number=move.deal + 1, name=replay.names[dealer]))
            else:
                yield _clean(_("Deal {number}").format(number=move.deal + 1))
            if show_all:
                yield from _all_hands(replay, session, frame, ascii_only)
            continue
        if move.kind == MOVE:
            yield _clean(shell_text([f"{session.move_number(i):>4}. {session.move_text(i)}"], ascii_only))
        elif move.kind == DEAL_OVER:
            yield ""
            for line in session.sheet() or [_("Deal {number} is over.").format(number=move.deal + 1)]:
                yield _clean(shell_text([line], ascii_only))
            continue
        elif move.kind in (STOP, THE_END):
            yield ""
            yield _clean(move.text)
        for f in replay.frames[move.first: move.last + 1]:
            for text in f.chat:
                if 0 <= f.author < replay.players:
                    # Translators: a chat line in the game record.
                    yield _clean("      " + _("chat {name}: {text}").format(name=replay.names[f.author], text=text))
            for v in replay.findings.get(f.index, []):
                who = replay.names[v["seat"]] if isinstance(v.get("seat"), int) and 0 <= v["seat"] < replay.players \
                    else _("nobody identified")
                yield _clean("      !! " + _("entry {index}: {kind} by {name}: {detail}").format(
                    index=f.index, kind=v["kind"], name=who, detail=worded(v["detail"])))
        if move.kind != MOVE:
            continue
        if show_all:
            yield from _all_hands(replay, session, frame, ascii_only)
        elif seat is not None:
            view = replay.view(frame, seat)
            if view is not None:
                hand = replay.game.hand_order(list(view.get("hand") or []), view.get("trump_suit"))
                yield "      " + _("your hand: {cards}").format(cards=_cards(hand, ascii_only))
    yield ""
    yield from _ending(replay, session, ascii_only)


def _all_hands(replay, session, frame, ascii_only) -> Iterator[str]:
    hands = replay.hands(frame)
    if hands is None:
        return
    trump = (replay.view(frame, None) or {}).get("trump_suit")
    width = max(len(n) for n in replay.names) + 1
    for s, hand in enumerate(hands):
        yield _clean(f"      {replay.names[s] + ':':<{width}} " + _cards(replay.game.hand_order(hand, trump), ascii_only))


def _ending(replay, session, ascii_only) -> Iterator[str]:
    report = replay.report
    if replay.error:
        yield _clean(replay.error)
        return
    if replay.complete and replay.match_result is not None:
        result = replay.match_result
        yield _clean(session.result_line() or "")
        yield ""
        for line in match_sheet(replay.game, replay.names, session.options, result, match_verdict(session, result)):
            yield _clean(shell_text([line], ascii_only))
        yield ""
    else:
        yield _("The game did not finish: the log stops at entry {index}, before its end.").format(
            index=replay.frames[-1].index)
    if report.exit_code == 1:
        count = len(report.violations)
        yield ngettext("Audit: {n} violation (p2pcards audit names it).",
                       "Audit: {n} violations (p2pcards audit names them).", count).format(n=count)
    elif replay.complete:
        yield _("Audit: clean.")
    else:
        yield _("Audit: no fault found as far as the log goes.")


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    return str(value)


def json_moves(replay: Replay) -> Iterator[str]:
    """One JSON object a line: the table, then each move (protocol/replay-json.md)."""
    table = replay.log.table
    yield json.dumps({"kind": "table", "game": replay.game.id, "players": list(replay.names),
                      "options": dict(table.options or {}),
                      "settings": dict(table.extra) if isinstance(table.extra, dict) else {}},
                     ensure_ascii=False, default=_jsonable)
    before: dict = {}
    for i, move in enumerate(replay.moves[1:], 1):
        frame = replay.frame_of(move)
        view = replay.view(frame, None) or {}
        if move.kind == DEALT:
            before = {}
        out = {"move": i, "kind": move.kind, "deal": move.deal + 1,
               "entries": [replay.frames[move.first].index, frame.index],
               "seat": move.seat if move.seat >= 0 else None,
               "player": replay.names[move.seat] if 0 <= move.seat < replay.players else None,
               "text": move.text}
        if move.kind == MOVE:
            action = replay.public_action(replay.frames[move.first]) or {}
            out["action"] = action.get("type")
            out["cards"] = list(action.get("cards") or [])
            out["details"] = {k: v for k, v in action.items() if k not in ("type", "cards")}
        if move.kind == DEAL_OVER and move.deal in replay.results:
            result = replay.results[move.deal]
            out["scores"] = result.scores
            out["match_scores"] = result.match_scores
            out["match_chips"] = result.match_chips
        if move.kind == THE_END and replay.match_result is not None:
            out["result"] = replay.match_result
        out["changed"] = {k: v for k, v in view.items() if before.get(k) != v}
        before = view
        yield json.dumps(out, ensure_ascii=False, default=_jsonable)
    yield json.dumps({"kind": "audit", "complete": replay.complete,
                      "violations": replay.result.get("violations", []), "error": replay.error},
                     ensure_ascii=False, default=_jsonable)
