"""The score sheet at the end of a deal and of the match: every hand shown,
the engine's own breakdown of the deal (``game.deal_scores``), the match
totals, and at the end the winner, the standings and where the log is kept.

Text lines with card codes in them (``7S``): the screen draws those as cards,
the shell gets the table's own notation (``7♠``) from ``shell_text``."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from p2pcards.cards import display
from p2pcards.i18n import N_, _, language, ngettext
from p2pcards.ui.commands import split_cards
from p2pcards.ui.wording import is_you

if TYPE_CHECKING:  # the table's screen (render, the session) is not needed for the audit's words
    from p2pcards.ui.session import FinishedDeal


def _sides(game, names: list[str], options: dict) -> list[str]:
    """The name of each scoring side: a player, or a pair's two names."""
    players = len(names)
    count = game.sides(players, options)
    if count == players:
        return list(names)
    return [" + ".join(names[s] for s in range(players) if game.side_of(s, players, options) == side)
            for side in range(count)]


@dataclasses.dataclass
class Row:
    """One line of a sheet's grid: a value (or None: an empty cell) per column."""

    title: str
    values: list
    signed: bool = False  # a row of gains, shown +12 / -3


def _grid(heads: list[str], rows: list[Row]) -> list[str]:
    label = max([len(r.title) for r in rows] + [10]) + 2
    widths = [max([len(h), 5] + [len(str(v)) + 1 for r in rows for v in r.values[i:i + 1]])
              for i, h in enumerate(heads)]
    lines = [" " * label + "  ".join(f"{h:>{w}}" for h, w in zip(heads, widths))]
    for row in rows:
        cells = ["" if v is None else f"{v:+d}" if row.signed and v else str(v) for v in row.values]
        lines.append((f"{row.title:<{label}}" + "  ".join(f"{c:>{w}}" for c, w in zip(cells, widths))).rstrip())
    return lines


def _by_side(game, values: list, players: int, options: dict) -> list[int]:
    """A part of the score per side: a per-seat part (kanasta scores each
    player) summed over each side's players; a per-side part as it is."""
    return list(values) if len(values) == game.sides(players, options) else game.by_side(values, options)


_CANASTA_ROWS = (("melds", N_("Melds")), ("canastas", N_("Canastas")), ("red3s", N_("Red 3s")),
                 ("going_out", N_("Going out")), ("hand", N_("Cards in hand")))


def _points(n: int) -> str:
    return ngettext("{n} point", "{n} points", abs(n)).format(n=number(n))


def _points_target(target) -> str:
    n = target if isinstance(target, int) else 0
    return ngettext("The match is played to {n} point.", "The match is played to {n} points.", n).format(n=target)


def _canasta_grid(game, names: list[str], options: dict, s: dict, deal: FinishedDeal) -> list[str]:
    """Each part of the score per side, which add up to the deal; in pairs
    each player's share of it under the pair's total; the match total."""
    players = len(names)
    rows = [Row(_(title), _by_side(game, s[key], players, options))
            for key, title in _CANASTA_ROWS if s.get(key) is not None]
    rows.append(Row(_("This deal"), list(s.get("sides") or []), signed=True))
    count = game.sides(players, options)
    if count != players:
        seats = s.get("seats") or []
        for side in range(count):
            for seat, points in enumerate(seats):
                if game.side_of(seat, players, options) == side:
                    rows.append(Row("  " + names[seat], [points if i == side else None for i in range(count)],
                                    signed=True))
    rows.append(Row(_("Match total"), list(deal.match_scores)))
    return _grid(_sides(game, names, options), rows)


def _chip_rows(s: dict, deal: FinishedDeal, parts: list[Row], change: list[int], bank_change: int) -> list[Row]:
    """The chips' rows, the bank a column of its own: the deal's parts, the
    bank taken as the match ended, the deal's change and the stacks after it.
    Chips only move between stacks and the bank: every row sums to zero."""
    rows = list(parts)
    change = list(change) + [bank_change]
    if deal.bank_won:
        won = [deal.bank_won if seat == s.get("winner") else 0 for seat in range(len(change) - 1)]
        rows.append(Row(_("Bank won"), won + [-deal.bank_won], signed=True))
        change = [a + b for a, b in zip(change, won + [-deal.bank_won])]
    rows.append(Row(_("Chips this deal"), change, signed=True))
    if deal.match_chips is not None:
        rows.append(Row(_("Chips"), list(deal.match_chips) + [deal.bank]))
    return rows


# The row of what a bura deal's end moved, by how it ended.
_BURA_ENDS = {"declared": N_("Declaration"), "failed_declaration": N_("Declaration"), "bessa": N_("Bessa"),
              "exhausted": N_("Bank doubled"), "unpayable": N_("Bank shared out")}
_BURA_END = N_("The deal's end")  # a deal not over yet


def _warkocz_score(names: list[str], s: dict) -> str | None:
    """How the winner's points are counted: "Ada scores 3 (Bolek) + 2 x 2 (Cyryl: the warkocz) = 7"."""
    winner, left = s.get("winner"), s.get("cards_left") or []
    if winner is None or not left:
        return None
    terms = []
    for seat, count in enumerate(left):
        if seat == winner:
            continue
        if seat == s.get("warkocz_holder"):
            # Translators: the cards left in the hand holding the warkocz count double.
            terms.append(_("{n} x 2 ({name}: the warkocz)").format(n=count, name=names[seat]))
        else:
            terms.append(_("{n} ({name})").format(n=count, name=names[seat]))
    points = (s.get("seats") or [0] * len(names))[winner]
    multiplier = s.get("multiplier") or 1
    you = is_you(names[winner])
    if multiplier != 1:
        text = (_("You score ({terms}) x{multiplier} = {points}.") if you else
                _("{name} scores ({terms}) x{multiplier} = {points}."))
    else:
        text = _("You score {terms} = {points}.") if you else _("{name} scores {terms} = {points}.")
    return text.format(name=names[winner], terms=" + ".join(terms), multiplier=multiplier, points=points)


def deal_sheet(game, names: list[str], options: dict, deal: FinishedDeal) -> list[str]:
    """The lines of one deal's score sheet. Every grid adds up: its parts to
    the deal's total, a pair's players to the pair's, chips with the bank to
    nothing."""
    from p2pcards.ui.render import canasta_went_out, declaration_text, warkocz_went_out

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
        lines += _canasta_grid(game, names, options, s, deal)
        went = s.get("went_out")
        if went is not None:
            lines.append(canasta_went_out(names[went], s.get("concealed")))
        else:
            lines.append(_("Nobody went out."))
        target = options.get("target")
        if target:
            lines.append(_("The match is played to {target}.").format(target=target))
    elif game.layout == "row":
        no_bank = [None]  # points are the players' only
        rows = [Row(_("Cards left"), list(s.get("cards_left") or []) + no_bank),
                Row(_("Points this deal"), list(s.get("seats") or []) + no_bank, signed=True),
                Row(_("Match points"), list(deal.match_scores) + no_bank)]
        parts = [Row(_("Dealer's fee"), list(s["dealer_fee"]) + [s.get("bank", 0)], signed=True)]
        if any(s.get("warkocz_fees") or []):
            parts.append(Row(_("Warkocz fees"), list(s["warkocz_fees"]) + [0], signed=True))
        rows += _chip_rows(s, deal, parts, s.get("chips") or [], s.get("bank", 0))
        lines += _grid(sides + [_("Bank")], rows)
        if s.get("winner") is not None:
            lines.append(warkocz_went_out(names[s["winner"]], bool(s.get("aria")), s.get("multiplier") == 4))
        score = _warkocz_score(names, s)
        if score:
            lines.append(score)
        if s.get("warkocz_holder") is not None:
            holder = names[s["warkocz_holder"]]
            lines.append(_("You were left holding the warkocz (9\u2663).") if is_you(holder) else
                         _("{name} was left holding the warkocz (9\u2663).").format(name=holder))
        lines.append(_points_target(options.get("target")))
    elif game.layout == "tricks":
        seats, ante = s.get("seats") or [], s.get("ante") or []
        parts = []
        if any(ante):
            parts.append(Row(_("Ante"), list(ante) + [-sum(ante)], signed=True))
        end = [a - b for a, b in zip(seats, ante)] if ante else list(seats)
        title = _(_BURA_ENDS.get(s.get("end"), _BURA_END))
        parts.append(Row(title, end + [s.get("bank_change", 0) + sum(ante)], signed=True))
        lines += _grid(sides + [_("Bank")], _chip_rows(s, deal, parts, seats, s.get("bank_change", 0)))
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
    else:
        lines += _grid(sides, [Row(_("This deal"), list(s.get("sides") or []), signed=True),
                               Row(_("Match total"), list(deal.match_scores))])
    return lines


# Each language's digit group separator (babel's, CLDR's: en 11,200; pl and hu 11 200, a no-break
# space there, a plain one here: every terminal shows it); tests/test_scoresheets.py checks it against babel.
GROUP_SEPARATORS = {"en": ",", "pl": " ", "hu": " "}


def number(n: int) -> str:
    """A score as the reader's language writes it (11,200; 11 200)."""
    separator = GROUP_SEPARATORS.get(language())
    if separator is not None and type(n) is int:  # a table: babel takes 0.13 s to import
        return f"{n:,}".replace(",", separator)
    from babel.numbers import format_decimal

    return format_decimal(n, locale=language()).replace("\u00a0", " ").replace("\u202f", " ")


def result_line(game, names: list[str], options: dict, result: dict) -> str:
    """The match's result in one line, the winner's score first: "bot1 + bot3
    win 11,200 : 9,345"; chip games by their stacks; no single winner: the scores."""
    sides = _sides(game, names, options)
    chips = result.get("chips")
    by_chips = chips is not None and not game.match_points
    totals = list(chips) if by_chips else list(result.get("scores") or [])
    heads = list(names) if by_chips else sides
    if not totals:
        return ""
    winner = result.get("winner")
    if by_chips and winner is None and totals.count(max(totals)) == 1:
        winner = totals.index(max(totals))
    order = sorted(range(len(totals)), key=lambda i: (i != winner, -totals[i]))
    scores = " : ".join(number(totals[i]) for i in order)
    if winner is None or winner >= len(heads):
        shown = ", ".join(f"{heads[i]} {number(totals[i])}" for i in order)
        return _("No winner: {scores}").format(scores=shown)
    who = heads[winner]
    if by_chips:
        return (_("You win with {chips} chips ({scores})") if is_you(who) else
                _("{name} wins with {chips} chips ({scores})")).format(name=who, chips=number(totals[winner]),
                                                                       scores=scores)
    if len(sides) != len(names):
        # Translators: the winning pair and the final scores, the winners' first: "Ada + Bolek win 11,200 : 9,345".
        return _("{pair} win {scores}").format(pair=who, scores=scores)
    return (_("You win {scores}") if is_you(who) else _("{name} wins {scores}")).format(name=who, scores=scores)


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
            counts = [ngettext("{n} chip", "{n} chips", chips[seat]).format(n=number(chips[seat]))]
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
