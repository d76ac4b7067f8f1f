"""Every score sheet adds up, as a card player checks it on the screen: the
rendered text is read back, column by column, over many seeded random
matches of every game and player count, in English, Polish and Hungarian.

- a canasta's parts (melds, canastas, red 3s, going out, cards in hand) add
  up to the deal's total under each heading, a pair's players to the pair's
  total, and the match total grows by the deal;
- a chip game's rows add up with the bank as a column of its own (chips only
  move between stacks and the bank), the stacks grow by the deal's change,
  and the bank column is what the bank holds;
- warkocz: the winner's points are the cards left in the other hands (the
  warkocz holder's twice) times the aria's multiplier, as its line says.

The totals are the engines' (the rules'); the sheet must show them adding up."""

import random
import re
from collections import Counter

import pytest

from p2pcards import i18n
from p2pcards.games import get_game
from p2pcards.i18n import _
from p2pcards.ui.scoresheet import deal_sheet
from p2pcards.ui.session import FinishedDeal, final_hands

NAMES = ["root", "Bolek", "Ala", "Cezary", "Dorota", "Eryk"]

# (game, players, options): every player count, pairs and not; small targets
# so that matches end (and a warkocz winner takes the bank).
CONFIGS = [
    ("kanasta", 2, {"target": 800}), ("kanasta", 3, {"target": 800}),
    ("kanasta", 4, {"target": 800}), ("kanasta", 4, {"pairs": False, "target": 800}),
    ("kanaszta", 2, {"target": 1500}), ("kanaszta", 3, {"target": 1500}),
    ("kanaszta", 4, {"target": 1500}), ("kanaszta", 4, {"pairs": False, "target": 1500}),
    ("warkocz", 2, {"target": 8}), ("warkocz", 3, {"target": 8}), ("warkocz", 4, {"target": 8}),
    ("bura", 2, {"rounds": 2}), ("bura", 3, {"rounds": 2}), ("bura", 4, {"rounds": 2}),
    ("bura", 6, {"rounds": 2}),
]
SEEDS = range(12)
MAX_DEALS = 6


def _move(game, state, rng):
    """A random legal move, leaning away from the discard (else the canastas
    would hardly ever meld) and from passing."""
    actions = game.legal_actions(state)
    busy = [a for a in actions if a["type"] not in ("discard", "pass")]
    return rng.choice(busy if busy and rng.random() < 0.85 else actions)


def random_match(game_id, players, options, seed):
    """Each finished deal as a session keeps it (``FinishedDeal``), and the match."""
    game = get_game(game_id)
    rng = random.Random(f"{game_id}{players}{options}{seed}")
    match = game.new_match(players, options, seed=seed)
    start = match
    deals = []
    while not game.match_over(match) and len(deals) < MAX_DEALS:
        state = game.start_deal(match)
        for _ in range(3000):
            if game.deal_over(state):
                break
            state = game.apply(state, _move(game, state, rng))
        assert game.deal_over(state)
        scores = game.deal_scores(state)
        match = game.end_deal(match, state)
        deals.append(FinishedDeal(len(deals) + 1, scores, final_hands(game, state), list(match.scores),
                                  list(match.chips) if match.chips is not None else None, match.bank,
                                  match.bank_won()))
    return game, start, deals, match


def read_grid(lines: list[str], heads: list[str]) -> dict[str, list]:
    """The sheet's grid as the screen shows it: row title -> the cell under
    each heading (an int, or None where empty). Headings are right-aligned
    over their cells."""
    top = next(i for i, line in enumerate(lines)
               if line.startswith(" ") and all(h in line for h in heads) and not line.strip().endswith(":"))
    header, ends, at = lines[top], [], 0
    for head in heads:
        at = header.index(head, at) + len(head)
        ends.append(at)
    grid = {}
    for line in lines[top + 1:]:
        # the first cell shares its span with the row's title (which never ends in a number)
        title, first = re.fullmatch(r"(.*?)(?:\s+([+-]?\d+))?\s*", line[:ends[0]]).groups()
        cells = [first or ""] + [line[a:b].strip() for a, b in zip(ends, ends[1:])]
        if not title.strip() or line[ends[-1]:].strip() or not any(cells):
            break
        title = title.strip()
        try:
            grid[title] = [int(c) if c else None for c in cells]
        except ValueError:
            break  # the lines under the grid
    return grid


def sides_heads(game, players, options):
    opts = game.options(players, options)
    count = game.sides(players, opts)
    return [" + ".join(NAMES[s] for s in range(players) if game.side_of(s, players, opts) == side)
            for side in range(count)], opts


def check_canasta(game, players, options, deals):
    heads, opts = sides_heads(game, players, options)
    parts = [_("Melds"), _("Canastas"), _("Red 3s"), _("Going out"), _("Cards in hand")]
    before = [0] * len(heads)
    for deal in deals:
        lines = deal_sheet(game, NAMES[:players], opts, deal)
        grid = read_grid(lines, heads)
        total = grid[_("This deal")]
        assert total == deal.scores["sides"], lines
        assert [sum(grid[p][i] for p in parts) for i in range(len(heads))] == total, lines
        if len(heads) != players:  # pairs: each player's share under the pair, adding up to it
            for side, head in enumerate(heads):
                shares = [grid[name][side] for name in head.split(" + ")]
                assert sum(shares) == total[side], lines
                assert all(grid[name][1 - side] is None for name in head.split(" + ")), lines
        assert grid[_("Match total")] == [b + t for b, t in zip(before, total)], lines
        before = grid[_("Match total")]
    return Counter(k for d in deals for k in ("canasta", "red3", "out")
                   if {"canasta": any(d.scores["canastas"]), "red3": any(d.scores["red3s"]),
                       "out": d.scores["went_out"] is not None}[k])


def check_chips(game, players, options, start, deals):
    heads = NAMES[:players] + [_("Bank")]
    opts = game.options(players, options)
    stacks = list(start.chips) + [start.bank]
    seen = Counter()
    points_before = [0] * players
    for deal in deals:
        lines = deal_sheet(game, NAMES[:players], opts, deal)
        grid = read_grid(lines, heads)
        change = grid[_("Chips this deal")]
        titles = list(grid)
        points = {_("Cards left"), _("Points this deal"), _("Match points")}
        parts = [t for t in titles[:titles.index(_("Chips this deal"))] if t not in points]
        assert parts, lines
        for title in parts + [_("Chips this deal")]:
            assert sum(grid[title]) == 0, (title, lines)  # chips only move between stacks and the bank
        assert [sum(grid[t][i] for t in parts) for i in range(len(heads))] == change, lines
        seen.update(parts)
        assert grid[_("Chips")] == [a + b for a, b in zip(stacks, change)], lines
        assert grid[_("Chips")][-1] == deal.bank, lines  # the bank column holds the bank
        stacks = grid[_("Chips")]
        if game.id == "warkocz":
            s = deal.scores
            left = grid[_("Cards left")][:players]
            points = sum(n * (2 if seat == s["warkocz_holder"] else 1) for seat, n in enumerate(left))
            won = grid[_("Points this deal")][:players]
            assert won[s["winner"]] == points * s["multiplier"] and sum(won) == won[s["winner"]], lines
            assert f"= {won[s['winner']]}." in "\n".join(lines), lines
            assert grid[_("Match points")][:players] == [a + b for a, b in zip(points_before, won)], lines
            points_before = grid[_("Match points")][:players]
    return seen


@pytest.mark.parametrize("language", ["en", "pl", "hu"])
@pytest.mark.parametrize("game_id,players,options", CONFIGS, ids=lambda c: str(c))
def test_every_score_sheet_adds_up(game_id, players, options, language):
    i18n.set_language(language)
    seen = Counter()
    for seed in SEEDS:
        game, start, deals, match = random_match(game_id, players, options, seed)
        if game.layout == "melds":
            seen += check_canasta(game, players, options, deals)
        else:
            seen += check_chips(game, players, options, start, deals)
    # The random matches reach what the sheet must add up (else the test proves little).
    if game_id == "kanasta" or game_id == "kanaszta":
        assert seen["canasta"] and seen["red3"] and seen["out"], seen
    if game_id == "warkocz":
        assert seen[_("Warkocz fees")] and seen[_("Bank won")], seen
    if game_id == "bura":
        assert seen[_("Ante")] and seen[_("Declaration")], seen


def test_warkocz_sheet_says_what_the_bank_holds():
    """Item 9: the bank is what it holds (antes and every dealer's fee), not the deal's fee."""
    game, start, deals, match = random_match("warkocz", 3, {"target": 40}, 1)
    deal = deals[0]
    lines = deal_sheet(game, NAMES[:3], game.options(3, {"target": 40}), deal)
    grid = read_grid(lines, NAMES[:3] + ["Bank"])
    assert grid["Chips"][-1] == 3 * 10 + 1 == deal.bank
    assert grid["Dealer's fee"][-1] == 1


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_numbers_grouped_as_babel_groups_them(lang):
    """The score sheets group digits from a small table (babel takes 0.13 s to
    import); it must say what babel (CLDR) says, no-break spaces made plain."""
    from babel.numbers import format_decimal

    from p2pcards.ui.scoresheet import GROUP_SEPARATORS, number

    assert set(GROUP_SEPARATORS) == set(i18n.LANGUAGES)
    i18n.set_language(lang)
    try:
        rng = random.Random(lang)
        values = [0, 1, -1, 999, 1000, -1000, 1234, 9999, 10000, 12345, 123456, 1234567, -12345678, 10 ** 12]
        values += [rng.randrange(-10 ** 9, 10 ** 9) for _ in range(300)]
        for n in values:
            assert number(n) == format_decimal(n, locale=lang).replace("\u00a0", " ").replace("\u202f", " ")
    finally:
        i18n.set_language("en")
