"""Kanasta (RULES.md section 1): one test per rule and per Decision."""

from __future__ import annotations

from functools import partial

import pytest

from p2pcards.games import IllegalAction, get_game
from tests import helpers
from tests.helpers import build_deck, canasta_deal, listed, meld, places

G = get_game("kanasta")
# Twelve cards of twelve different ranks for seat 1 to hold beside a test's cards.
PLAIN = ["4C", "5D", "6H", "7S", "8C", "9D", "10H", "JS", "QC", "AD"]


def deal(hands, after=("9S",), players=4, **kw):
    """Seat 1 (left of dealer 0) acts first; ``after`` = upcard, then the stock from the top."""
    return canasta_deal(G, build_deck("kanasta", players, hands, after), players, **kw)


act = partial(helpers.act, G)
refused = partial(helpers.refused, G)


DRAW = {"type": "draw"}


def discard(card):
    return {"type": "discard", "cards": [card]}


crafted = partial(helpers.crafted, G, seed=1)


# ----- deck, deal, values -------------------------------------------------------------------
def test_deal_twelve_each_upcard_starts_the_pile():
    deck = build_deck("kanasta", 4, {}, ["9S", "KH"])
    state = G.start(4, deck=deck, dealer=3)
    assert [len(h) for h in state.hands] == [12] * 4
    assert state.hands[0][0] == deck[0]  # left of dealer 3 gets the first card
    assert state.hands[3][0] == deck[3]
    assert state.pile == ["9S"]
    v = G.view(state, 0)
    assert v["stock_count"] == 108 - 48 - 1 and v["pile_top"] == "9S" and v["to_act"] == 0
    assert G.apply(G.apply(state, DRAW), {"type": "discard", "cards": ["KH"]}).pile == ["9S", "KH"]


def test_card_values():
    expected = {"JK": 50, "2C": 20, "3C": 100, "3H": 100, "AS": 20, "KD": 10, "8H": 10, "7S": 5, "4C": 5}
    assert {c: G.value(c) for c in expected} == expected


def test_pairs_and_individuals():
    assert G.default_options(4)["pairs"] and not G.default_options(3)["pairs"]
    assert G.sides(4, G.options(4)) == 2 and G.sides(4, G.options(4, {"pairs": False})) == 4
    state = deal({}, players=2)
    assert G.view(state, 0)["pairs"] is False


# ----- the turn -----------------------------------------------------------------------------------
def test_draw_is_mandatory_and_first():
    state = deal({1: ["KH", "KS", "KD"] + PLAIN[:9]})
    assert G.legal_actions(state) == [DRAW]
    refused(state, meld("KH", "KS", "KD"), "draw first")
    refused(state, discard("KH"), "draw first")
    state = act(state, DRAW)
    refused(state, DRAW, "already drawn")
    assert len(state.hands[1]) == 13


def test_discard_ends_the_turn():
    state = act(deal({}), DRAW)
    card = state.hands[1][0]
    after = act(state, discard(card))
    assert after.turn == 2 and after.pile[-1] == card and G.legal_actions(after) == [DRAW]


# ----- melds --------------------------------------------------------------------------------------
def test_meld_shapes():
    state = act(deal({1: ["KH", "KS", "KD", "QH", "2C", "JK", "JK", "3C", "3S", "3C", "5H", "6D"]}), DRAW)
    G.apply(state, meld("KH", "KS", "KD"))  # three of a rank
    G.apply(state, meld("KH", "2C", "JK"))  # any number of wilds
    G.apply(state, meld("JK", "JK", "2C"))  # all wild
    refused(state, meld("KH", "KS"), "at least 3 cards")
    refused(state, meld("KH", "KS", "QH"), "one rank")
    refused(state, meld("3C", "3S", "3C"), "never melded")
    refused(state, meld("3C", "3S", "JK"), "never melded")
    legal = G.legal_actions(state)
    assert meld("KD", "KH", "KS") in legal and listed(meld("KH", "2C", "JK"), legal)
    # Listed once up to suits: one meld of two Ks, a 2 and a joker, whichever Ks.
    assert sum(a["type"] == "meld" and sorted(c[:-1] for c in a["cards"]) == ["2", "K", "K"] for a in legal) == 1
    assert not any(a["type"] == "meld" and "3C" in a["cards"] for a in legal)


def test_first_meld_must_be_worth_30():
    state = act(deal({1: ["5H", "5S", "5D", "KH", "KS", "KD"] + PLAIN[:6]}), DRAW)
    refused(state, meld("5H", "5S", "5D"), "first meld must be worth 30, this one is worth 15")
    assert meld("5D", "5H", "5S") not in G.legal_actions(state)
    state = act(state, meld("KH", "KS", "KD"))
    state = act(state, meld("5H", "5S", "5D"))  # later melds have no minimum
    assert len(state.melds) == 2 and state.opened[1]


def test_red3_laid_apart_is_no_first_meld():
    state = act(deal({1: ["3H", "5H", "5S", "5D"] + PLAIN[:8]}, after=("9S", "QD")), DRAW)
    state = act(state, {"type": "red3", "cards": ["3H"]})
    assert not state.opened[1]
    refused(state, meld("5H", "5S", "5D"), "worth 30")


# ----- the pile ------------------------------------------------------------------------------------
def test_take_pile_melding_the_top_card_at_once():
    state = deal({1: ["KH", "KS"] + PLAIN, 0: ["9C"]}, after=("KC",))
    refused(state, {"type": "take_pile", "cards": ["KH", "KS"]}, "draw first")
    state = act(state, DRAW)
    take = {"type": "take_pile", "cards": ["KH", "KS"]}
    assert take in G.legal_actions(state)
    after = G.apply(state, take)
    assert after.pile == [] and after.melds[0].cards == ["KC", "KH", "KS"]
    assert len(after.hands[1]) == 13 - 2


def test_take_pile_brings_the_whole_pile():
    state = deal({1: ["KH", "KS"] + PLAIN, 2: ["QS"], 0: ["KC"]}, after=("4H",))
    state = act(state, DRAW, discard("4C"), DRAW, discard("QS"), DRAW)
    state = act(state, discard(state.hands[3][-1]), DRAW, discard("KC"), DRAW)
    below = state.pile[:-1]
    after = act(state, {"type": "take_pile", "cards": ["KH", "KS"]})
    assert after.pile == [] and len(after.hands[1]) == 13 - 2 + len(below)
    for c in below:
        assert c in after.hands[1]


def test_take_pile_refused_when_the_top_card_is_not_melded():
    state = act(deal({1: ["KH", "QS"] + PLAIN}, after=("KC",)), DRAW)
    refused(state, {"type": "take_pile", "cards": ["KH"]}, "at least 3 cards")
    refused(state, {"type": "take_pile", "cards": ["KH", "QS"]}, "one rank")
    assert not any(a["type"] == "take_pile" for a in G.legal_actions(state))


def test_take_pile_first_meld_needs_30_with_the_top_card():
    state = act(deal({1: ["5H", "5S"] + PLAIN}, after=("5C",)), DRAW)
    refused(state, {"type": "take_pile", "cards": ["5H", "5S"]}, "worth 30, this one is worth 15")


def test_take_pile_at_any_point_after_the_draw():
    """Seed: „Gracz, po dobraniu karty z zakrytej talii, może również dobrać
    górną kartę z talii odkrytej pod warunkiem, że od razu wyłoży ją w
    kombinacji" — after drawing from the stock, not only as the next action."""
    state = deal({1: ["KH", "KS", "QH", "QS", "QD"] + PLAIN[:7]}, after=("KC", "5C"))
    refused(state, {"type": "take_pile", "cards": ["KH", "KS"]}, "draw first")
    state = act(state, DRAW, meld("QH", "QS", "QD"))
    take = {"type": "take_pile", "cards": ["KH", "KS"]}
    assert take in G.legal_actions(state)
    after = G.apply(state, take)
    assert after.melds[-1].cards == ["KC", "KH", "KS"] and after.pile == []


def test_laying_a_red_3_first_does_not_give_the_pile_up():
    """Seed: the pile is taken „po dobraniu karty z zakrytej talii" (after
    the draw): a red 3 laid apart, with its replacement, is no obstacle."""
    state = deal({1: ["KH", "KS", "3H"] + PLAIN[:9]}, after=("KC", "5C", "6C"))
    state = act(state, DRAW, {"type": "red3", "cards": ["3H"]})
    take = {"type": "take_pile", "cards": ["KH", "KS"]}
    assert take in G.legal_actions(state)
    assert G.apply(state, take).melds[-1].cards == ["KC", "KH", "KS"]


def test_take_pile_top_into_an_existing_meld():
    state = deal({1: ["QH", "QS", "QD"] + PLAIN[:9], 0: ["QC"]})
    state = act(state, DRAW, meld("QH", "QS", "QD"))
    state = act(state, discard(state.hands[1][0]))
    for _ in range(2):
        state = act(state, DRAW, discard(state.hands[state.turn][-1]))
    state = act(state, DRAW, discard("QC"), DRAW)
    take = {"type": "take_pile", "cards": [], "meld": 0}
    assert take in G.legal_actions(state)
    after = G.apply(state, take)
    assert after.melds[0].cards[-1] == "QC" and after.pile == []
    refused(state, {"type": "take_pile", "cards": state.hands[1][:1], "meld": 0}, "take it alone")


# ----- adding and the first-meld Decision ----------------------------------------------------------
def opened_table(options=None):
    """Seat 1 melds Ks; seat 2 holds Ks and Qs of its own."""
    state = deal({1: ["KH", "KS", "KD"] + PLAIN[:9], 2: ["KC", "QH", "QS", "QD"] + PLAIN[:8]},
                 options=options)
    state = act(state, DRAW, meld("KH", "KS", "KD"))
    return act(state, discard(state.hands[1][0]), DRAW)


def test_no_adding_to_others_melds_before_ones_own_first_meld():
    state = opened_table()
    refused(state, {"type": "add", "meld": 0, "cards": ["KC"]}, "first meld before adding")
    assert not any(a["type"] == "add" for a in G.legal_actions(state))
    state = act(state, meld("QH", "QS", "QD"))
    state = act(state, {"type": "add", "meld": 0, "cards": ["KC"]})  # anyone's meld after that
    assert state.melds[0].owner == 1 and "KC" in state.melds[0].cards


def test_option_play_before_first_meld():
    state = opened_table({"play_before_first_meld": True})
    assert {"type": "add", "meld": 0, "cards": ["KC"]} in G.legal_actions(state)


def test_add_must_fit_the_meld():
    state = opened_table()
    state = act(state, meld("QH", "QS", "QD"))
    refused(state, {"type": "add", "meld": 1, "cards": ["KC"]}, "Ks don't go into a meld of Qs")
    refused(state, {"type": "add", "meld": 5, "cards": ["KC"]}, "no meld 5")


# ----- swaps ---------------------------------------------------------------------------------------------
def swap_table(extra, options=None, wild="JK"):
    state = deal({1: ["KH", "KS", wild, "KD"] + extra + PLAIN[: 8 - len(extra)]}, options=options)
    return act(state, DRAW, meld("KH", "KS", wild))


def test_swap_frees_a_wild_into_a_new_meld():
    state = swap_table(["5H", "5S"])
    swap = {"type": "swap", "meld": 0, "wild": "JK", "cards": ["KD"]}
    assert swap in G.legal_actions(state)
    state = act(state, swap)
    assert state.melds[0].cards == ["KH", "KS", "KD"] and state.pending == "JK"
    legal = G.legal_actions(state)
    assert legal and all(a["type"] == "meld" and "JK" in a["cards"] for a in legal)
    refused(state, discard("5H"), "freed JK")
    refused(state, {"type": "add", "meld": 0, "cards": ["5H"]}, "freed JK")
    state = act(state, meld("5H", "5S", "JK"))
    assert state.pending is None and state.melds[1].cards == ["5H", "5S", "JK"]


def test_swap_refused_when_the_wild_cannot_be_melded():
    state = swap_table([])
    refused(state, {"type": "swap", "meld": 0, "wild": "JK", "cards": ["KD"]}, "could not go into a new meld")
    assert not any(a["type"] == "swap" for a in G.legal_actions(state))


def test_swap_needs_a_natural_of_the_meld_rank():
    state = swap_table(["5H", "5S"])
    refused(state, {"type": "swap", "meld": 0, "wild": "JK", "cards": ["5H"]}, "must be a K")
    refused(state, {"type": "swap", "meld": 0, "wild": "2C", "cards": ["KD"]}, "has no 2C")


def test_decision_twos_swap_like_jokers():
    state = swap_table(["5H", "5S"], wild="2C")
    assert {"type": "swap", "meld": 0, "wild": "2C", "cards": ["KD"]} in G.legal_actions(state)
    state = swap_table(["5H", "5S"], {"swap_twos": False}, wild="2C")
    refused(state, {"type": "swap", "meld": 0, "wild": "2C", "cards": ["KD"]}, "only a joker")


def test_no_swap_out_of_all_wild_melds():
    state = deal({1: ["JK", "JK", "2C", "KH", "KS", "KD", "5H", "5S"] + PLAIN[:4]})
    state = act(state, DRAW, meld("KH", "KS", "KD"), meld("JK", "JK", "2C"))
    refused(state, {"type": "swap", "meld": 1, "wild": "JK", "cards": ["5H"]}, "all-wild")


def test_no_swap_before_ones_own_first_meld():
    state = deal({1: ["KH", "KS", "JK"] + PLAIN[:9], 2: ["KD", "5H", "5S"] + PLAIN[:9]})
    state = act(state, DRAW, meld("KH", "KS", "JK"))
    state = act(state, discard(state.hands[1][0]), DRAW)
    refused(state, {"type": "swap", "meld": 0, "wild": "JK", "cards": ["KD"]}, "first meld before swapping")


# ----- threes -------------------------------------------------------------------------------------------
def test_red3_laid_apart_draws_a_replacement():
    state = act(deal({1: ["3H"] + PLAIN + ["KS"]}, after=("9S", "QD", "QH")), DRAW)
    assert "QD" in state.hands[1]
    state = act(state, {"type": "red3", "cards": ["3H"]})
    assert state.red3s[1] == ["3H"] and "QH" in state.hands[1] and "3H" not in state.hands[1]
    refused(state, {"type": "red3", "cards": ["3C"]}, "one red 3")


def test_red3_laid_apart_only_while_the_stock_holds_a_replacement():
    state = act(deal({1: ["3H"] + PLAIN + ["KS"]}), DRAW).evolve()
    state.stock = []  # set directly: the stock ran out with this draw
    assert not any(a["type"] == "red3" for a in G.legal_actions(state))
    refused(state, {"type": "red3", "cards": ["3H"]}, "no replacement")
    assert discard("3H") in G.legal_actions(state)


def test_red3_may_be_discarded_black3_only_discarded():
    state = act(deal({1: ["3H", "3C", "3S", "3S"] + PLAIN[:8]}), DRAW)
    assert discard("3H") in G.legal_actions(state) and discard("3C") in G.legal_actions(state)
    refused(state, meld("3C", "3S", "3S"), "never melded")
    assert act(state, discard("3C")).pile[-1] == "3C"


# ----- going out --------------------------------------------------------------------------------------------
def test_no_going_out_in_the_first_turn():
    state = act(deal({1: ["KH", "KS", "KD", "QH", "QS", "QD", "JH", "JS", "JD", "AH", "AS", "AD"]},
                     after=("9S", "4C")), DRAW)
    state = act(state, meld("KH", "KS", "KD"), meld("QH", "QS", "QD"), meld("JH", "JS", "JD"))
    refused(state, meld("AH", "AS", "AD"), "first turn")  # would leave one card
    assert meld("AD", "AH", "AS") not in G.legal_actions(state)


def go_out_table(last, options=None):
    """Seat 1 melds Ks and Qs in its first turn; in its second it draws ``last``
    and holds JH JS JD 4C 4D 2C and it."""
    hands = {1: ["KH", "KS", "KD", "QH", "QS", "QD", "JH", "JS", "JD", "4C", "4D", "2C"]}
    state = deal(hands, after=("9S", "5C", "6C", "7C", "8C", last), options=options)
    state = act(state, DRAW, meld("KH", "KS", "KD"), meld("QH", "QS", "QD"), discard("5C"))
    for _ in range(3):
        state = act(state, DRAW, discard(state.hands[state.turn][-1]))
    return act(state, DRAW)


def test_going_out_by_melding_everything():
    state = act(go_out_table("KC"), meld("JH", "JS", "JD"), meld("4C", "4D", "2C"))
    assert not G.deal_over(state)
    state = act(state, {"type": "add", "meld": 0, "cards": ["KC"]})
    assert G.deal_over(state) and state.went_out == 1 and G.to_act(state) == -1
    scores = G.deal_scores(state)
    assert scores["going_out"] == [0, 100, 0, 0]
    assert scores["melds"][1] == -(40 + 30 + 30 + 30)  # no canasta: melds count minus
    assert scores["seats"][1] == 100 - 130


def test_going_out_by_the_final_discard():
    state = act(go_out_table("9H"), meld("JH", "JS", "JD"), meld("4C", "4D", "2C"))
    assert state.hands[1] == ["9H"]
    state = act(state, discard("9H"))
    assert G.deal_over(state) and state.went_out == 1 and state.pile[-1] == "9H"


def test_decision_no_canasta_needed_to_go_out_unless_option():
    state = act(go_out_table("KC", {"go_out_canasta": True}), meld("JH", "JS", "JD"))
    refused(state, meld("4C", "4D", "2C"), "canasta to go out")  # would leave one card
    assert meld("4C", "4D", "2C") not in G.legal_actions(state)


def test_empty_stock_ends_the_deal_with_nobody_out():
    state = deal({})
    draws = 0
    while not G.deal_over(state):
        state = act(state, DRAW)
        draws += 1
        state = act(state, discard(state.hands[state.turn][-1]))
    assert draws == 108 - 48 - 1 and state.went_out == -1 and state.stock == []
    assert G.deal_scores(state)["going_out"] == [0, 0, 0, 0]


# ----- scoring --------------------------------------------------------------------------------------------
def test_seed_example_660():
    s = crafted([(0, ["KH", "KH", "KS", "KS", "KD", "KD", "KC", "2C", "2D", "JK"])])
    scores = G.deal_scores(s)
    assert scores["canastas"][0] == 500 and scores["melds"][0] == 160
    assert scores["seats"][0] == 660


def test_canasta_kinds():
    s = crafted([(0, ["KH"] * 2 + ["KS"] * 2 + ["KD"] * 2 + ["KC"]),
                 (1, "Q", ["QH", "QS", "QD", "QC", "JK", "2C", "2D"]),
                 (2, "W", ["JK", "JK", "JK", "2C", "2D", "2H", "2S"])])
    v = G.view(s, None)["melds"]
    assert [m["canasta"] for m in v] == ["clean", "mixed", "joker"]
    scores = G.deal_scores(s)
    assert scores["canastas"][:3] == [500, 300, 1000]


def test_melds_and_red3s_count_minus_without_a_canasta():
    s = crafted([(0, ["KH", "KS", "KD"]), (1, ["KH"] * 2 + ["KS"] * 2 + ["KD"] * 2 + ["KC"])],
                hands=[["5H", "3C"], ["JK"], [], []], red3s=[["3H"], ["3D"], [], []], went_out=2)
    sc = G.deal_scores(s)
    assert sc["melds"][0] == -30 and sc["red3s"][0] == -100 and sc["hand"][0] == -105 and sc["seats"][0] == -235
    assert sc["melds"][1] == 70 and sc["red3s"][1] == 100 and sc["hand"][1] == -50
    assert sc["seats"][1] == 500 + 170 - 50
    assert sc["seats"][2] == 100
    assert sc["sides"] == [sc["seats"][0] + sc["seats"][2], sc["seats"][1] + sc["seats"][3]]


def ended(state):
    """The deal stopped where it stands, for scoring what was laid."""
    s = state.evolve()
    s.phase = "over"
    return s


def laid_onto_anothers_meld(options=None):
    """Seat 1 melds three Ks; seat 0 opens with a clean canasta of seven Qs
    and lays its KC onto seat 1's meld. Two players, no pairs."""
    queens = ["QH", "QH", "QS", "QS", "QD", "QD", "QC"]
    state = deal({1: ["KH", "KS", "KD"] + PLAIN[:9], 0: queens + ["KC"] + PLAIN[:4]}, players=2,
                 options=options)
    state = act(state, DRAW, meld("KH", "KS", "KD"), discard("4C"))
    state = act(state, DRAW, meld(*queens), {"type": "add", "meld": 0, "cards": ["KC"]})
    return ended(state)


def test_a_card_laid_onto_anothers_meld_scores_for_its_layer():
    """Seed: „wszystkie oczka na pozostałych wyłożonych kartach liczą się
    dodatnio graczowi" — the points of the cards the player laid out: KC laid
    by seat 0 onto seat 1's Ks is seat 0's, plus with seat 0's canasta."""
    sc = G.deal_scores(laid_onto_anothers_meld())
    assert sc["canastas"] == [500, 0]
    assert sc["melds"] == [70 + 10, -30]


def test_owner_takes_all_cards_of_a_meld_with_the_option():
    assert G.default_options(2)["cards_score_to_layer"] is True
    sc = G.deal_scores(laid_onto_anothers_meld({"cards_score_to_layer": False}))
    assert sc["canastas"] == [500, 0]
    assert sc["melds"] == [70, -(30 + 10)]


def test_a_swapped_wild_scores_once_for_the_player_who_lays_it_again():
    """The wild leaves the meld it was swapped out of: it is no longer the
    card its first layer laid out, and scores for whoever melds it anew."""
    state = deal({1: ["KH", "KS", "JK"] + PLAIN[:9], 0: ["QH", "QS", "QD", "KC", "AH", "AS"] + PLAIN[:6]},
                 players=2)
    state = act(state, DRAW, meld("KH", "KS", "JK"), discard("4C"))
    state = act(state, DRAW, meld("QH", "QS", "QD"),
                {"type": "swap", "meld": 0, "wild": "JK", "cards": ["KC"]}, meld("JK", "AH", "AS"))
    sc = G.deal_scores(ended(state))
    assert sc["melds"] == [-(30 + 10 + 90), -20]


def test_individual_scores_when_not_in_pairs():
    s = crafted([(0, ["KH", "KS", "KD"])], hands=[[], ["4C"], ["5C"]], went_out=0, players=3)
    sc = G.deal_scores(s)
    assert sc["sides"] == sc["seats"] == [100 - 30, -5, -5]


# ----- the match ----------------------------------------------------------------------------------------------
def test_match_to_target_dealer_passes_left():
    match = G.new_match(4, {"target": 500}, seed=1)
    assert match.options["target"] == 500 and G.default_options(4)["target"] == 10000
    s = crafted([(0, ["KH"] * 2 + ["KS"] * 2 + ["KD"] * 2 + ["KC"])], went_out=0)
    m1 = G.end_deal(match, s)
    assert m1.dealer == 1 and m1.deal_index == 1 and m1.scores == [670, 0] and m1.over
    assert G.match_result(m1)["winner"] == 0
    small = crafted([(0, ["KH", "KS", "KD"])], went_out=0)
    m2 = G.end_deal(G.new_match(4, seed=1), small)
    assert not m2.over and m2.scores == [-30 + 100, 0]


# ----- bad input ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad,words", [
    (None, "must be a dict"), ("draw", "must be a dict"), ({}, "unknown action type"),
    ({"type": "pass"}, "unknown action type"), ({"type": "discard"}, "needs \"cards\""),
    ({"type": "discard", "cards": "KH"}, "needs \"cards\""), ({"type": "discard", "cards": ["ZZ"]}, "not a card code"),
    ({"type": "discard", "cards": [7]}, "not a card code"), ({"type": "discard", "cards": ["?3"]}, "not a card code"),
    ({"type": "discard", "cards": ["KH", "KS"]}, "exactly one"), ({"type": "discard", "cards": []}, "at least one"),
    ({"type": "add", "meld": "0", "cards": ["KH"]}, "number of a meld"), ({"type": "add", "cards": ["KH"]}, "number"),
    ({"type": "draw", "seat": 2}, "seat 1's turn, not seat 2's"), ({"type": "draw", "seat": True}, "must be a number"),
    ({"type": "draw", "x": 1}, "unexpected field"), ({"type": "discard", "cards": ["KH"], "freeze": True}, "freez"),
])
def test_bad_input_is_refused_clearly(bad, words):
    state = act(deal({1: ["KH", "KS"] + PLAIN}), DRAW) if isinstance(bad, dict) and bad.get("type") != "draw" \
        else deal({1: ["KH", "KS"] + PLAIN})
    before = state.evolve()
    with pytest.raises(IllegalAction, match=words):
        G.apply(state, bad)
    assert state == before


def test_cards_not_held_are_refused():
    state = act(deal({1: ["KH", "KS"] + PLAIN}), DRAW)
    refused(state, discard("KD"), "you don't hold KD")
    refused(state, meld("KH", "KS", "KS"), "you don't hold KS")


def test_over_deal_refuses_everything():
    s = crafted([], went_out=0)
    assert G.to_act(s) == -1 and G.legal_actions(s) == []
    refused(s, DRAW, "deal is over")


def test_card_count_is_kept():
    state = act(deal({}), DRAW)
    total = sum(places(G, state).values())
    assert total == 108


def test_option_first_meld():
    state = act(deal({1: ["5H", "5S", "5D"] + PLAIN[:9]}, options={"first_meld": 15}), DRAW)
    assert act(state, meld("5H", "5S", "5D")).opened[1]


def test_option_one_meld_per_rank():
    hand = ["KH", "KS", "KD", "KC", "KH", "KS"] + PLAIN[:6]
    state = act(deal({1: hand}), DRAW, meld("KH", "KS", "KD"))
    assert len(act(state, meld("KC", "KH", "KS")).melds) == 2  # default: a second meld of Ks is fine
    state = act(deal({1: hand}, options={"one_meld_per_rank": True}), DRAW, meld("KH", "KS", "KD"))
    refused(state, meld("KC", "KH", "KS"), "already have a meld of Ks")
    assert {"type": "add", "meld": 0, "cards": ["KC", "KH", "KS"]} in G.legal_actions(state)


def test_take_pile_with_a_wild_on_top():
    state = deal({1: ["KH", "KS", "JK", "2C"] + PLAIN[:8]}, after=("2D",))
    state = act(state, DRAW)
    legal = [a for a in G.legal_actions(state) if a["type"] == "take_pile"]
    assert listed({"type": "take_pile", "cards": ["KH", "KS"]}, legal)  # K K + the 2 on top
    assert {"type": "take_pile", "cards": ["2C", "JK"]} in legal  # an all-wild meld of three
