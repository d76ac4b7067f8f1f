"""The score sheet at the end of a deal and of the match: every hand shown,
the engine's own breakdown of the deal (``game.deal_scores``), the match
totals, and at the end the winner, the standings and where the log is kept.

Text lines with card codes in them (``7S``): the screen draws those as cards,
the shell gets the table's own notation (``7♠``) from ``shell_text``."""

from __future__ import annotations

from p2pcards.cards import display
from p2pcards.ui.commands import split_cards
from p2pcards.ui.render import sort_hand
from p2pcards.ui.session import FinishedDeal


def _sides(game, names: list[str], options: dict) -> list[str]:
    """The name of each scoring side: a player, or a pair's two names."""
    players = len(names)
    count = game.sides(players, options)
    if count == players:
        return list(names)
    return [" + ".join(names[s] for s in range(players) if game.side_of(s, players, options) == side)
            for side in range(count)]


def _grid(heads: list[str], rows: list[tuple[str, list]]) -> list[str]:
    label = max([len(r[0]) for r in rows] + [10]) + 2
    widths = [max(len(h), 7) for h in heads]
    lines = [" " * label + "  ".join(f"{h:>{w}}" for h, w in zip(heads, widths))]
    for title, values in rows:
        cells = ["" if v is None else (f"{v:+d}" if isinstance(v, int) and title.startswith("+") else str(v))
                 for v in values]
        lines.append(f"{title.lstrip('+'):<{label}}" + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths)))
    return lines


def _canasta_rows(scores: dict) -> list[tuple[str, list]]:
    rows = []
    for key, title in (("melds", "Melds"), ("canastas", "Canastas"), ("red3s", "Red 3s"),
                       ("going_out", "Going out"), ("hand", "Cards in hand")):
        if scores.get(key) is not None:
            rows.append((title, scores[key]))
    return rows


def _warkocz_rows(scores: dict, names: list[str]) -> list[tuple[str, list]]:
    rows = [("Cards left", scores.get("cards_left") or [])]
    if scores.get("chips") is not None:
        rows.append(("+Chips this deal", scores["chips"]))
    return rows


def deal_sheet(game, names: list[str], options: dict, deal: FinishedDeal) -> list[str]:
    """The lines of one deal's score sheet."""
    s = deal.scores
    lines = [f"Deal {deal.number}: score sheet", ""]
    if deal.hands is not None:
        lines.append("Hands at the end:")
        width = max(len(n) for n in names) + 1
        for seat, hand in enumerate(deal.hands):
            shown = " ".join(sort_hand(game.id, hand, s.get("trump_suit")))
            lines.append(f"  {names[seat] + ':':<{width}} " + (shown or "(no cards)"))
        lines.append("")
    sides = _sides(game, names, options)
    if game.id in ("kanasta", "kanaszta"):
        rows = _canasta_rows(s) + [("+This deal", s.get("sides") or []), ("Match total", deal.match_scores)]
        lines += _grid(sides, rows)
        went = s.get("went_out")
        if went is not None:
            how = " concealed (from hand)" if s.get("concealed") else ""
            lines.append(f"{names[went]} went out{how}.")
        else:
            lines.append("Nobody went out.")
        target = options.get("target")
        if target:
            lines.append(f"The match is played to {target}.")
    elif game.id == "warkocz":
        rows = _warkocz_rows(s, names) + [("+Points this deal", s.get("seats") or []),
                                          ("Match points", deal.match_scores)]
        if deal.match_chips is not None:
            rows.append(("Chips", deal.match_chips))
        lines += _grid(sides, rows)
        if s.get("winner") is not None:
            lines.append(f"{names[s['winner']]} went out.")
        multiplier = s.get("multiplier") or 1
        if s.get("aria"):
            lines.append(f"An aria: points x{multiplier}.")
        elif multiplier != 1:
            lines.append(f"Points doubled: x{multiplier}.")
        if s.get("warkocz_holder") is not None:
            lines.append(f"{names[s['warkocz_holder']]} was left holding the warkocz (9♣).")
        lines.append(f"Bank: {s.get('bank', deal.bank)}. The match is played to {options.get('target')} points.")
    elif game.id == "bura":
        rows = [("+Chips this deal", s.get("seats") or [])]
        if deal.match_chips is not None:
            rows.append(("Chips", deal.match_chips))
        lines += _grid(sides, rows)
        decl = s.get("declaration")
        if decl:
            verdict = "and won the bank" if decl.get("won") else f"and failed (paid {decl.get('paid', 0)})"
            lines.append(f"{names[decl['seat']]} declared {decl.get('points')} points {verdict}: "
                         + " ".join(decl.get("cards") or []))
        for bessa in s.get("bessas") or []:
            lines.append(f"{names[bessa['seat']]} showed a bessa: " + " ".join(bessa["cards"]))
        end = {"exhausted": "All cards were played without a declaration: the bank doubles.",
               "failed_declaration": "The declaration failed: the bank grows and the cards are dealt again.",
               "unpayable": "Somebody could not pay: the bank was shared out."}.get(s.get("end"))
        if end:
            lines.append(end)
        lines.append(f"Bank now: {s.get('bank', deal.bank)}.")
    else:
        lines += _grid(sides, [("+This deal", s.get("sides") or []), ("Match total", deal.match_scores)])
    return _you(lines, names)


def match_sheet(game, names: list[str], options: dict, result: dict, verdict: str,
                log_path: str | None = None) -> list[str]:
    """The end of the match: the winner, the final standings, the log."""
    lines = [f"The match is over: {verdict}", "", "Final standings:"]
    sides = _sides(game, names, options)
    scores = result.get("scores") or []
    chips = result.get("chips")
    if chips is not None:
        order = sorted(range(len(names)), key=lambda s: -chips[s])
        for place, seat in enumerate(order, 1):
            points = f", {scores[seat]} points" if game.id != "bura" and seat < len(scores) else ""
            lines.append(f"  {place}. {names[seat]}: {chips[seat]} chips{points}")
    else:
        order = sorted(range(len(scores)), key=lambda side: -scores[side])
        for place, side in enumerate(order, 1):
            lines.append(f"  {place}. {sides[side]}: {scores[side]} points")
    if log_path:
        lines += ["", f"The signed log is kept in {log_path}",
                  f"Check it with:  p2pcards audit {log_path}", f"Replay it with: p2pcards replay {log_path}"]
    return _you(lines, names)


def _you(lines: list[str], names: list[str]) -> list[str]:
    """Grammar for a player called You: "You went out", not "You wents"; the
    sentences above already use the plain past tense, so only "You was" needs care."""
    return [line.replace("You was ", "You were ") for line in lines]


def shell_text(lines: list[str], ascii: bool = False) -> str:
    """The sheet for the shell, cards as the table shows them."""
    return "\n".join("".join(display(piece, ascii) if card else piece for piece, card in split_cards(line))
                     for line in lines)
