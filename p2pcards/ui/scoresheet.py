"""The score sheet at the end of a deal and of the match: every hand shown,
the engine's own breakdown of the deal (``game.deal_scores``), the match
totals, and at the end the winner, the standings and where the log is kept.

Text lines with card codes in them (``7S``): the screen draws those as cards,
the shell gets the table's own notation (``7♠``) from ``shell_text``."""

from __future__ import annotations

from p2pcards.cards import display
from p2pcards.i18n import N_, _, ngettext
from p2pcards.ui.commands import split_cards
from p2pcards.ui.render import canasta_went_out, declaration_text, warkocz_went_out
from p2pcards.ui.wording import is_you
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


# A title starting with "+" marks a row of gains (shown +12, -3).
_CANASTA_ROWS = (("melds", N_("Melds")), ("canastas", N_("Canastas")), ("red3s", N_("Red 3s")),
                 ("going_out", N_("Going out")), ("hand", N_("Cards in hand")))


def _points(n: int) -> str:
    return ngettext("{n} point", "{n} points", abs(n)).format(n=n)


def _points_target(target) -> str:
    n = target if isinstance(target, int) else 0
    return ngettext("The match is played to {n} point.", "The match is played to {n} points.", n).format(n=target)


def _canasta_rows(scores: dict) -> list[tuple[str, list]]:
    return [(_(title), scores[key]) for key, title in _CANASTA_ROWS if scores.get(key) is not None]


def _gains(title: str) -> str:
    return "+" + title


def _warkocz_rows(scores: dict, names: list[str]) -> list[tuple[str, list]]:
    rows = [(_("Cards left"), scores.get("cards_left") or [])]
    if scores.get("chips") is not None:
        rows.append((_gains(_("Chips this deal")), scores["chips"]))
    return rows


def deal_sheet(game, names: list[str], options: dict, deal: FinishedDeal) -> list[str]:
    """The lines of one deal's score sheet."""
    s = deal.scores
    lines = [_("Deal {number}: score sheet").format(number=deal.number), ""]
    if deal.hands is not None:
        lines.append(_("Hands at the end:"))
        width = max(len(n) for n in names) + 1
        for seat, hand in enumerate(deal.hands):
            shown = " ".join(game.hand_order(hand, s.get("trump_suit")))
            lines.append(f"  {names[seat] + ':':<{width}} " + (shown or _("(no cards)")))
        lines.append("")
    sides = _sides(game, names, options)
    # The lines below the hands, as the game's table is laid out (``Game.layout``).
    if game.layout == "melds":
        rows = _canasta_rows(s) + [(_gains(_("This deal")), s.get("sides") or []),
                                   (_("Match total"), deal.match_scores)]
        lines += _grid(sides, rows)
        went = s.get("went_out")
        if went is not None:
            lines.append(canasta_went_out(names[went], s.get("concealed")))
        else:
            lines.append(_("Nobody went out."))
        target = options.get("target")
        if target:
            lines.append(_("The match is played to {target}.").format(target=target))
    elif game.layout == "row":
        rows = _warkocz_rows(s, names) + [(_gains(_("Points this deal")), s.get("seats") or []),
                                          (_("Match points"), deal.match_scores)]
        if deal.match_chips is not None:
            rows.append((_("Chips"), deal.match_chips))
        lines += _grid(sides, rows)
        if s.get("winner") is not None:
            lines.append(warkocz_went_out(names[s["winner"]]))
        multiplier = s.get("multiplier") or 1
        if s.get("aria"):
            lines.append(_("An aria: points x{multiplier}.").format(multiplier=multiplier))
        elif multiplier != 1:
            lines.append(_("Points doubled: x{multiplier}.").format(multiplier=multiplier))
        if s.get("warkocz_holder") is not None:
            holder = names[s["warkocz_holder"]]
            lines.append(_("You were left holding the warkocz (9\u2663).") if is_you(holder) else
                         _("{name} was left holding the warkocz (9\u2663).").format(name=holder))
        lines.append(_("Bank: {bank}.").format(bank=s.get("bank", deal.bank)) + " " + _points_target(options.get("target")))
    elif game.layout == "tricks":
        rows = [(_gains(_("Chips this deal")), s.get("seats") or [])]
        if deal.match_chips is not None:
            rows.append((_("Chips"), deal.match_chips))
        lines += _grid(sides, rows)
        decl = s.get("declaration")
        if decl:
            lines.append(declaration_text(names[decl["seat"]], decl) + " " + " ".join(decl.get("cards") or []))
        for bessa in s.get("bessas") or []:
            who = names[bessa["seat"]]
            shown = _("You showed a bessa:") if is_you(who) else _("{name} showed a bessa:").format(name=who)
            lines.append(shown + " " + " ".join(bessa["cards"]))
        end = {"exhausted": N_("All cards were played without a declaration: the bank doubles."),
               "failed_declaration": N_("The declaration failed: the bank grows and the cards are dealt again."),
               "unpayable": N_("Somebody could not pay: the bank was shared out.")}.get(s.get("end"))
        if end:
            lines.append(_(end))
        lines.append(_("Bank now: {bank}.").format(bank=s.get("bank", deal.bank)))
    else:
        lines += _grid(sides, [(_gains(_("This deal")), s.get("sides") or []), (_("Match total"), deal.match_scores)])
    return lines


def match_sheet(game, names: list[str], options: dict, result: dict, verdict: str,
                log_path: str | None = None) -> list[str]:
    """The end of the match: the winner, the final standings, the log."""
    lines = [_("The match is over: {verdict}").format(verdict=verdict), "", _("Final standings:")]
    sides = _sides(game, names, options)
    scores = result.get("scores") or []
    chips = result.get("chips")
    if chips is not None:
        order = sorted(range(len(names)), key=lambda s: -chips[s])
        for place, seat in enumerate(order, 1):
            counts = [ngettext("{n} chip", "{n} chips", chips[seat]).format(n=chips[seat])]
            if game.match_points and seat < len(scores):
                counts.append(_points(scores[seat]))
            lines.append(f"  {place}. {names[seat]}: " + ", ".join(counts))
    else:
        order = sorted(range(len(scores)), key=lambda side: -scores[side])
        for place, side in enumerate(order, 1):
            lines.append(f"  {place}. {sides[side]}: " + _points(scores[side]))
    if log_path:
        lines += ["", _("The signed log is kept in {path}").format(path=log_path),
                  # Translators: keep the command as it is; the spaces line up the two commands.
                  _("Check it with:  p2pcards audit {path}").format(path=log_path),
                  _("Replay it with: p2pcards replay {path}").format(path=log_path)]
    return lines


def shell_text(lines: list[str], ascii: bool = False) -> str:
    """The sheet for the shell, cards as the table shows them."""
    return "\n".join("".join(display(piece, ascii) if card else piece for piece, card in split_cards(line))
                     for line in lines)
