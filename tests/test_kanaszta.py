"""Kanaszta (RULES.md section 2): one test per rule and per Decision."""

from __future__ import annotations

from functools import partial

import pytest

from p2pcards.cards import unknown
from p2pcards.games import NeedReveal, get_game, substitute
from tests import helpers
from tests.helpers import build_deck, canasta_deal, listed, meld

G = get_game("kanaszta")
# Plain cards of different ranks to fill a hand beside a test's cards.
PLAIN = ["4C", "5D", "6H", "7S", "8C", "9D", "10H", "JS", "QC", "AD", "4H", "5S", "6D"]
DRAW = {"type": "draw"}


def deal(hands, after=("9S",), players=2, **kw):
    """Seat 1 (left of dealer 0) acts first; red 3 setup done; ``after`` =
    upcard(s), then the stock from the top."""
    return canasta_deal(G, build_deck("kanaszta", players, hands, after), players, **kw)


act = partial(helpers.act, G)
refused = partial(helpers.refused, G)
setup = partial(helpers.finish_setup, G)


def add(i, *cards):
    return {"type": "add", "meld": i, "cards": list(cards)}


def discard(card, freeze=False):
    a = {"type": "discard", "cards": [card]}
    if freeze:
        a["freeze"] = True
    return a


def take(*cards, meld=None):
    a = {"type": "take_pile", "cards": list(cards)}
    if meld is not None:
        a["meld"] = meld
    return a


crafted = partial(helpers.crafted, G, seed=3)


# ----- deal -------------------------------------------------------------------------------------
def test_deal_fifteen_each_for_every_table():
    for players in (2, 3, 4):
        state = deal({}, players=players)
        assert [len(h) for h in state.hands] == [15] * players
        assert G.view(state, 0)["stock_count"] == 108 - 15 * players - 1


def test_upcard_is_covered_while_not_natural():
    state = G.start(2, deck=build_deck("kanaszta", 2, {}, ["2C", "3S", "JK", "3H", "KH"]))
    assert state.pile == ["2C", "3S", "JK", "3H", "KH"]
    assert len(state.stock) == 108 - 30 - 5


def test_upcard_token_needs_a_reveal():
    deck = build_deck("kanaszta", 2, {}, ["2C", "KH"])
    public = [unknown(p) if p >= 30 else c for p, c in enumerate(deck)]
    with pytest.raises(NeedReveal) as need:
        G.start(2, deck=public)
    assert need.value.tokens == ["?30"]
    public = substitute(public, {"?30": "2C"})
    with pytest.raises(NeedReveal) as need:
        G.start(2, deck=public)
    assert need.value.tokens == ["?31"]
    state = G.start(2, deck=substitute(public, {"?31": "KH"}))
    assert state.pile == ["2C", "KH"]


# ----- red 3s ------------------------------------------------------------------------------------
def test_setup_every_player_lays_all_red3s_and_draws_replacements():
    deck = build_deck("kanaszta", 2, {1: ["3H", "3D"]}, ["9S", "3H", "KC", "QC"])
    state = G.start(2, deck=deck)
    assert state.phase == "setup" and G.to_act(state) == 1
    assert G.legal_actions(state) == [{"type": "red3", "cards": ["3D", "3H"]}]
    refused(state, {"type": "red3", "cards": ["3H"]}, "lay all your red 3s")
    refused(state, DRAW, "red 3s")
    state = act(state, {"type": "red3", "cards": ["3D", "3H"]})
    # replacements 3H (another red 3!) and KC: seat 1 acts again
    assert G.to_act(state) == 1 and "KC" in state.hands[1] and "3H" in state.hands[1]
    state = act(state, {"type": "red3", "cards": ["3H"]})
    assert "QC" in state.hands[1] and G.to_act(state) == 1
    state = act(state, {"type": "red3", "cards": []})
    assert G.to_act(state) == 0 and state.phase == "setup"
    state = act(state, {"type": "red3", "cards": []})
    assert state.phase == "draw" and G.to_act(state) == 1
    assert state.red3s[1] == ["3D", "3H", "3H"] and len(state.hands[1]) == 15


def test_decision_red3_replacement_option():
    deck = build_deck("kanaszta", 2, {1: ["3H"]}, ["9S", "KC"])
    state = G.start(2, deck=deck, options={"red3_replacement": False})
    state = act(state, {"type": "red3", "cards": ["3H"]})
    assert len(state.hands[1]) == 14 and G.to_act(state) == 0


def test_red3_drawn_later_is_laid_at_once():
    state = act(deal({}, after=("9S", "3D", "KC")), DRAW)
    assert G.legal_actions(state) == [{"type": "red3", "cards": ["3D"]}]
    refused(state, discard(state.hands[1][0]), "lay your red 3 first")
    state = act(state, {"type": "red3", "cards": ["3D"]})
    assert state.red3s[1] == ["3D"] and "KC" in state.hands[1] and len(state.hands[1]) == 16


def test_red3_with_the_pile_gets_no_replacement():
    state = deal({1: ["KH", "KS", "AH", "AS", "AC"] + PLAIN[:10]}, after=("3H", "KC"))
    assert state.pile == ["3H", "KC"]
    stock = len(state.stock)
    state = act(state, take("KH", "KS"))
    assert state.red3s[1] == ["3H"] and "3H" not in state.hands[1] and len(state.stock) == stock
    assert len(state.hands[1]) == 13


# ----- melds ----------------------------------------------------------------------------------------
def test_meld_shapes():
    hand = ["KH", "KS", "KD", "KC", "JK", "2C", "2D", "2H", "AH", "AS", "AD", "AC", "AH", "3C", "3S"]
    state = act(deal({1: hand}, after=("9S", "QD")), DRAW)
    G.apply(state, meld("KH", "KS", "JK"))  # more naturals than wilds
    G.apply(state, meld("KH", "KS", "KD", "KC", "JK", "2C", "2D"))  # at most three wilds
    refused(state, meld("KH", "JK", "2C"), "more natural cards than wild")
    refused(state, meld("KH", "KS", "JK", "2C"), "more natural cards than wild")
    refused(state, meld("AH", "AS", "AD", "AC", "AH", "JK", "2C", "2D", "2H"), "at most 3 wild")
    refused(state, meld("JK", "2C", "2D"), "more natural cards")
    refused(state, meld("KH", "KS"), "at least 3")


def test_black3s_melded_only_when_going_out():
    state = act(deal({1: ["3C", "3S", "3C", "KH", "KS", "KD", "AH", "AS", "AD"] + PLAIN[:6]}), DRAW)
    refused(state, meld("3C", "3S", "3C"), "only as you go out")
    assert not any("3C" in a.get("cards", []) and a["type"] == "meld" for a in G.legal_actions(state))


def test_melds_belong_to_the_side_and_partners_add():
    hands = {1: ["KH", "KS", "KD", "AH", "AS", "AD"] + PLAIN[:9], 3: ["KC", "5H", "5S", "5C"],
             2: ["KC"]}
    state = deal(hands, players=4)
    state = act(state, DRAW, meld("KH", "KS", "KD"), meld("AH", "AS", "AD"))
    state = act(state, discard(state.hands[1][0]), DRAW)
    refused(state, add(0, "KC"), "own side's melds")  # seat 2, the other side
    state = act(state, discard(state.hands[2][0]), DRAW)
    assert state.melds[0].owner == 1
    state = act(state, add(0, "KC"), meld("5H", "5S", "5C"))  # side opened: no minimum for seat 3
    assert state.melds[0].cards[-1] == "KC" and state.melds[1].owner == 1


def test_decision_one_meld_per_rank():
    state = act(deal({1: ["KH", "KS", "KD", "KC", "KH", "KS", "AH", "AS", "AD"] + PLAIN[:6]}), DRAW)
    state = act(state, meld("KH", "KS", "KD"), meld("AH", "AS", "AD"))
    refused(state, meld("KC", "KH", "KS"), "already have a meld of Ks")
    state2 = act(deal({1: ["KH", "KS", "KD", "KC", "KH", "KS", "AH", "AS", "AD"] + PLAIN[:6]},
                      options={"one_meld_per_rank": False}), DRAW)
    state2 = act(state2, meld("KH", "KS", "KD"), meld("AH", "AS", "AD"), meld("KC", "KH", "KS"))
    assert len(state2.melds) == 3


# ----- first meld minimum ------------------------------------------------------------------------------
def test_minimum_by_the_sides_score():
    assert G.minimums(G.options(4), [-10, 0, 1495, 1500, 2995, 3000, 14995], 7) == [15, 50, 50, 90, 90, 120, 120]
    state = deal({}, scores=[1600, -20])
    assert G.view(state, 0)["minimum"] == [90, 15]
    assert G.view(deal({}), 0)["minimum"] == [50, 50]


def test_first_melds_of_the_turn_together_reach_the_minimum():
    state = act(deal({1: ["KH", "KS", "KD", "QH", "QS", "QD"] + PLAIN[:9]}), DRAW)
    state = act(state, meld("KH", "KS", "KD"))
    refused(state, discard("QH"), "worth 30; they must reach 50")
    state = act(state, meld("QH", "QS", "QD"), discard("4C"))
    assert state.opened[1] and G.to_act(state) == 0


def test_a_first_meld_that_cannot_reach_the_minimum_is_refused():
    state = act(deal({1: ["KH", "KS", "KD"] + PLAIN[:12]}), DRAW)
    refused(state, meld("KH", "KS", "KD"), "the most you can meld this turn is 30")
    assert not any(a["type"] == "meld" for a in G.legal_actions(state))
    # with the score below 0 the minimum is 15
    state = act(deal({1: ["KH", "KS", "KD"] + PLAIN[:12]}, scores=[0, -5]), DRAW)
    assert meld("KD", "KH", "KS") in G.legal_actions(state)


# ----- the pile ----------------------------------------------------------------------------------------
def test_draw_or_take_the_pile_not_both():
    state = deal({1: ["KH", "KS", "AH", "AS", "AC"] + PLAIN[:10]}, after=("KC",))
    assert take("KH", "KS") in G.legal_actions(state)
    after_draw = act(state, DRAW)
    refused(after_draw, take("KH", "KS"), "instead of drawing")


NO_NINES = [c for c in PLAIN if c[:-1] != "9"]


def test_pile_before_first_meld_is_used_by_any_meld_reaching_the_minimum():
    """Seed: „Az első lerakás előtt felhasználhatjuk a nyitott talont,
    amennyiben annak felhasználásával lerakást tudunk teljesíteni" — before the
    first meld the pile may be used if with it a meld can be completed: 9S on
    the pile with 9H + JK in hand is a take (9S 9H JK, more naturals than wilds)."""
    state = deal({1: ["9H", "JK"] + NO_NINES}, after=("9S",))
    assert sum(c[:-1] == "9" for c in state.hands[1]) == 1
    assert take("9H", "JK") in G.legal_actions(state)
    after = act(state, take("9H", "JK"))
    assert after.melds[0].cards == ["9S", "9H", "JK"] and after.turn_value == 70 and after.pile == []
    refused(state, take("9H"), "at least 3 cards")


def test_pile_before_first_meld_keeps_the_shape_rules():
    state = deal({1: ["9H", "JK", "2C"] + NO_NINES[:12]}, after=("9S",))
    refused(state, take("9H", "JK", "2C"), "more natural cards than wild cards")
    assert not listed(take("9H", "JK", "2C"), G.legal_actions(state))


def test_pile_before_first_meld_needs_the_minimum():
    state = deal({1: ["KH", "KS", "JK", "AH", "AS", "AC"] + PLAIN[:9]}, after=("KC",))
    state2 = deal({1: ["KH", "KS"] + PLAIN[:13]}, after=("KC",))
    refused(state2, take("KH", "KS"), "the most you can meld this turn")
    state = act(state, take("KH", "KS"))
    assert state.melds[0].cards == ["KC", "KH", "KS"] and state.turn_value == 30
    refused(state, discard("JK"), "must reach 50")
    state = act(state, meld("AH", "AS", "AC"), discard("JK"))


def test_pile_after_first_meld_only_if_the_top_fits_a_side_meld():
    state = act(deal({1: ["KH", "KS", "KD", "AH", "AS", "AC", "QH", "QS"] + PLAIN[:7], 0: ["KC", "QD"]}), DRAW)
    state = act(state, meld("KH", "KS", "KD"), meld("AH", "AS", "AC"), discard(state.hands[1][-1]))
    state = act(state, DRAW, discard("KC"))
    assert take(meld=0) in G.legal_actions(state)
    refused(state, take("QH", "QS"), "taken alone into one of its melds")
    after = act(state, take(meld=0))
    assert after.melds[0].cards[-1] == "KC"
    # a Q on top fits no meld of the side
    s2 = act(deal({1: ["KH", "KS", "KD", "AH", "AS", "AC", "QH", "QS"] + PLAIN[:7], 0: ["KC", "QD"]}), DRAW)
    s2 = act(s2, meld("KH", "KS", "KD"), meld("AH", "AS", "AC"), discard(s2.hands[1][-1]))
    s2 = act(s2, DRAW, discard("QD"))
    refused(s2, take(meld=0), "Qs don't go into a meld of Ks")
    assert not any(a["type"] == "take_pile" for a in G.legal_actions(s2))


def test_nobody_takes_the_pile_holding_one_card():
    state = deal({1: ["KH", "KS"] + PLAIN[:13]}, after=("KC",)).evolve()
    state.hands[1] = ["KH"]  # set directly: a hand of one at the start of a turn
    refused(state, take("KH"), "holding only one card")
    assert G.legal_actions(state) == [DRAW]


def test_stop_cards():
    """Seed: „stoplappal (fekete 3-ast vagy dzsókert simán dobunk, ennek
    hatására a következő játékos nem húzhat a nyitott talonból)" — a black 3
    or a joker discarded plainly; with ``plain_two_stops`` a 2 too."""
    for stop, options in (("3C", {}), ("JK", {}), ("2C", {"plain_two_stops": True})):
        state = act(deal({1: [stop] + PLAIN[:14], 0: ["KH", "KS", "AH", "AS", "AC"]}, options=options),
                    DRAW, discard(stop))
        assert state.stopped
        assert G.legal_actions(state) == [DRAW]
        refused(state, take("KH", "KS"), "stop card")


def test_a_two_discarded_plainly_is_no_stop_card_by_default():
    """The seed's stop cards are the black 3 and the „dzsóker"; a 2 („kis
    dzsóker") is named only for freezing, crosswise."""
    assert G.default_options(2)["plain_two_stops"] is False
    state = act(deal({1: ["2C"] + PLAIN[:14], 0: ["KH", "KS", "AH", "AS", "AC"]}), DRAW, discard("2C"))
    assert not state.stopped and not state.frozen
    assert take("KH", "KS") in G.legal_actions(state)  # K K + the 2 on top, then the aces reach 50
    assert act(state, take("KH", "KS")).melds[0].cards == ["2C", "KH", "KS"]


def frozen_by_seat_1(options=None):
    """Seat 1 freezes the pile with a 2 crosswise; seat 0 covers it with 9S;
    seat 1 holds 9H and a joker, no second 9."""
    state = deal({1: ["2C", "9H", "JK"] + NO_NINES[:12], 0: ["9S"] + NO_NINES[:14]}, options=options)
    state = act(state, DRAW, discard("2C", freeze=True), DRAW, discard("9S"))
    assert state.frozen and state.turn == 1 and state.pile[-1] == "9S"
    return state


def test_the_freeze_does_not_bind_the_side_that_froze_by_default():
    """Seed: the crosswise wild is one „amelyet így csak akkor tudnak használni
    ellenfeleink, ha azt legalább két azonos lappal fel tudják venni" — it is
    our opponents who need two identical cards; the freezer's side takes the
    pile by the ordinary rules (here: before its first meld, 9S 9H JK)."""
    state = frozen_by_seat_1()
    assert take("9H", "JK") in G.legal_actions(state)
    after = act(state, take("9H", "JK"))
    assert not after.frozen and after.melds[0].cards == ["9S", "9H", "JK"]


def test_in_pairs_the_freezers_partner_is_not_bound_but_the_opponents_are():
    state = deal({1: ["2C"], 2: ["9S"], 3: ["9H", "JK"] + NO_NINES}, players=4)
    state = act(state, DRAW, discard("2C", freeze=True))
    assert not any(a["type"] == "take_pile" for a in G.legal_actions(state))  # seat 2, an opponent
    state = act(state, DRAW, discard("9S"))
    assert state.turn == 3 and sum(c[:-1] == "9" for c in state.hands[3]) == 1
    assert take("9H", "JK") in G.legal_actions(state)  # seat 3, seat 1's partner
    assert act(state, take("9H", "JK")).melds[0].cards == ["9S", "9H", "JK"]


def test_the_freeze_binds_the_side_that_froze_with_the_option():
    state = frozen_by_seat_1({"freeze_binds_own_side": True})
    refused(state, take("9H", "JK"), "frozen")
    assert not any(a["type"] == "take_pile" for a in G.legal_actions(state))


def test_freeze_with_a_wild_crosswise():
    hand0 = ["KH", "KS", "KD", "AH", "AS", "AC", "QH", "QS"] + PLAIN[:7]
    state = act(deal({0: hand0, 1: ["JK", "KC"] + PLAIN[:13]}), DRAW)
    refused(state, discard("KC", freeze=True), "only a wild")
    state = act(state, discard("JK", freeze=True))
    assert state.frozen and not state.stopped and G.view(state, None)["frozen"]
    assert not any(a["type"] == "take_pile" for a in G.legal_actions(state))  # a wild on top: no rank
    state = act(state, DRAW, meld("KH", "KS", "KD"), meld("AH", "AS", "AC"), discard(state.hands[0][-1]))
    state = act(state, DRAW, discard("KC"))
    # seat 0 has opened; the frozen pile needs two natural Ks from hand, not the meld alone
    assert state.frozen
    refused(state, take(meld=0), "frozen")
    state = state.evolve()
    state.hands[0] += ["KH", "KS"]  # give seat 0 two more kings
    assert take("KH", "KS", meld=0) in G.legal_actions(state)
    after = act(state, take("KH", "KS", meld=0))
    assert not after.frozen and after.melds[0].cards[-3:] == ["KC", "KH", "KS"]


# ----- going out --------------------------------------------------------------------------------------------
def test_concealed_going_out_scores_200():
    hand = ["KH", "KH", "KS", "KS", "KD", "KD", "KC", "QH", "QH", "QS", "QD", "JK", "AH", "AS", "AD"]
    state = act(deal({1: hand}, after=("9S", "2C")), DRAW)
    state = act(state, meld("KH", "KH", "KS", "KS", "KD", "KD", "KC"), meld("QH", "QH", "QS", "QD", "JK"))
    state = act(state, meld("AH", "AS", "AD", "2C"))
    assert G.deal_over(state) and state.went_out == 1 and state.concealed
    sc = G.deal_scores(state)
    assert sc["going_out"] == [0, 200] and sc["canastas"] == [0, 500]
    assert sc["sides"][1] == 200 + 500 + 70 + 90 + 80


def test_decision_going_out_needs_a_canasta():
    hand = ["KH", "KS", "KD", "QH", "QS", "QD", "AH", "AS", "AD", "JH", "JS", "JD", "10H", "10S", "10D"]
    state = act(deal({1: hand}, after=("9S", "2C")), DRAW)
    state = act(state, meld("KH", "KS", "KD"), meld("QH", "QS", "QD"), meld("AH", "AS", "AD"))
    state = act(state, meld("JH", "JS", "JD"))
    refused(state, meld("10H", "10S", "10D"), "canasta to go out")  # would leave only 2C
    state = act(deal({1: hand}, after=("9S", "2C"), options={"go_out_canasta": False}), DRAW)
    for m in (["KH", "KS", "KD"], ["QH", "QS", "QD"], ["AH", "AS", "AD"], ["JH", "JS", "JD"], ["10H", "10S", "10D"]):
        state = act(state, meld(*m))
    state = act(state, discard("2C"))
    assert G.deal_over(state) and state.went_out == 1


def test_empty_stock_ends_the_deal_when_the_player_does_not_take_the_pile():
    state = deal({})
    while not G.deal_over(state):
        legal = G.legal_actions(state)
        kinds = [a["type"] for a in legal]
        if "red3" in kinds:
            state = act(state, legal[kinds.index("red3")])
        elif "draw" in kinds:
            state = act(state, DRAW)
        else:
            state = act(state, next(a for a in legal if a["type"] == "discard" and "freeze" not in a))
    assert state.stock == [] and state.went_out == -1


# ----- scoring ---------------------------------------------------------------------------------------------------
def test_red3s_100_each_800_for_all_four():
    s = crafted([(0, ["KH", "KS", "KD"]), (1, ["QH", "QS", "QD"])], red3s=[["3H", "3D"], [], ["3H", "3D"], []])
    sc = G.deal_scores(s)
    assert sc["red3s"] == [800, 0] and sc["seats"][0] == 400 + 30
    s = crafted([(0, ["KH", "KS", "KD"]), (1, ["QH", "QS", "QD"])], red3s=[["3H"], ["3H"], ["3D"], ["3D"]])
    assert G.deal_scores(s)["red3s"] == [200, 200]


def test_side_without_a_meld_counts_red3s_and_hand_minus():
    s = crafted([(1, ["QH", "QS", "QD"])], hands=[["KH"], ["5H"], ["AH"], []], red3s=[["3H"], [], [], []])
    sc = G.deal_scores(s)
    assert sc["sides"][0] == -100 - 10 - 20
    assert sc["sides"][1] == 30 - 5


def test_the_side_that_went_out_adds_its_melds_others_subtract_hands():
    s = crafted([(0, ["KH"] * 2 + ["KS"] * 2 + ["KD"] * 2 + ["KC"]), (1, ["QH", "QS", "QD", "JK"])],
                hands=[[], ["5H"], ["AH"], ["4C"]], went_out=0)
    sc = G.deal_scores(s)
    assert sc["canastas"] == [500, 0] and sc["going_out"] == [100, 0]
    # Seed: „A vesztes a kezében maradt lapok értékét a lerakottakból [levonja]":
    # everyone who did not go out subtracts their hand, the partner's AH included.
    assert sc["sides"] == [500 + 100 + 70 - 20, 80 - 5 - 5]
    assert sc["seats"][0] + sc["seats"][2] == sc["sides"][0]
    s.options = G.options(4, {"partner_hand_counts": False})
    assert G.deal_scores(s)["sides"] == [500 + 100 + 70, 80 - 5 - 5]


def test_mixed_canasta_300():
    s = crafted([(0, ["KH", "KS", "KD", "KC", "JK", "2C", "2D"])], players=2)
    assert G.view(s, None)["melds"][0]["canasta"] == "mixed" and G.deal_scores(s)["canastas"][0] == 300


# ----- the match ------------------------------------------------------------------------------------------------------
def test_match_to_15000_and_the_minimum_follows_the_score():
    assert G.default_options(2)["target"] == 15000
    match = G.new_match(2, seed=4)
    match.scores = [1600, 3200]
    state = setup(G.start_deal(match))
    assert state.minimum == [90, 120]
    done = crafted([(0, ["KH", "KS", "KD"])], hands=[[], ["4C"]], went_out=0, players=2)
    m = G.end_deal(G.new_match(2, {"target": 100}, seed=4), done)
    assert m.over and m.dealer == 1 and m.scores == [130, -5]


# ----- bad input ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad,words", [
    (7, "must be a dict"), ({"type": "swap"}, "unknown action type"), ({"type": "meld", "cards": None}, "cards"),
    ({"type": "discard", "cards": ["KH"], "freeze": "yes"}, "true or false"),
    ({"type": "take_pile", "cards": ["KH"], "meld": -1}, "no meld -1"),
    ({"type": "red3", "cards": ["KH"]}, "only red 3s"), ({"type": "draw", "seat": 0}, "seat 1's turn"),
])
def test_bad_input_is_refused_clearly(bad, words):
    state = act(deal({1: ["KH", "KS"] + PLAIN[:13]}), DRAW)
    if isinstance(bad, dict) and bad.get("type") in ("take_pile", "draw"):
        state = deal({1: ["KH", "KS"] + PLAIN[:13]})
    refused(state, bad, words)


def test_card_values():
    expected = {"JK": 50, "2C": 20, "AS": 20, "KD": 10, "8H": 10, "7S": 5, "4C": 5, "3C": 5, "3S": 5, "3H": 100}
    assert {c: G.value(c) for c in expected} == expected


def test_black3s_meld_as_the_player_goes_out():
    hand = ["KH", "KH", "KS", "KS", "KD", "KD", "KC", "QH", "QS", "QD", "AH", "AS", "AD", "3C", "3S"]
    state = act(deal({1: hand}, after=("9S", "3C")), DRAW)
    state = act(state, meld("KH", "KH", "KS", "KS", "KD", "KD", "KC"), meld("QH", "QS", "QD"))
    assert meld("3C", "3C", "3S") not in G.legal_actions(state)  # more melds to come first
    state = act(state, meld("AH", "AS", "AD"))
    assert meld("3C", "3C", "3S") in G.legal_actions(state)
    refused(state, meld("3C", "3S"), "3 or 4 together")
    state = act(state, meld("3C", "3C", "3S"))
    assert G.deal_over(state) and state.melds[-1].rank == "3" and state.went_out == 1


def test_decision_black3s_never_melded_with_black3_meld_going_out_false():
    """The seed values black 3s at 5 and says nothing of melding them: by
    default they meld as in classic canasta (as one goes out); the option
    false keeps them out of melds altogether, as in kanasta."""
    assert G.default_options(2)["black3_meld_going_out"] is True
    hand = ["KH", "KH", "KS", "KS", "KD", "KD", "KC", "QH", "QS", "QD", "AH", "AS", "AD", "3C", "3S"]
    state = act(deal({1: hand}, after=("9S", "3C"), options={"black3_meld_going_out": False}), DRAW)
    state = act(state, meld("KH", "KH", "KS", "KS", "KD", "KD", "KC"), meld("QH", "QS", "QD"),
                meld("AH", "AS", "AD"))
    assert not any(a["type"] == "meld" and "3C" in a["cards"] for a in G.legal_actions(state))
    refused(state, meld("3C", "3C", "3S"), "never melded")
    state = act(state, discard("3S"))  # the black 3s are shed one by one
    assert not G.deal_over(state) and state.hands[1] == ["3C", "3C"]


def test_decision_empty_stock_ends_the_deal_unless_the_pile_must_be_taken():
    def facing_empty_stock(options=None):
        state = deal({1: ["KH", "KS", "AH", "AS", "AC"] + PLAIN[:10], 0: ["KC"]}, options=options)
        state = act(state, DRAW, discard("4C"), DRAW, discard("KC")).evolve()
        state.stock = []  # set directly: the stock ran out
        return state
    state = facing_empty_stock()
    assert DRAW in G.legal_actions(state) and take("KH", "KS") in G.legal_actions(state)
    assert G.deal_over(act(state, DRAW))
    state = facing_empty_stock({"empty_stock_ends": False})
    assert DRAW not in G.legal_actions(state) and take("KH", "KS") in G.legal_actions(state)
    refused(state, DRAW, "must take it")
