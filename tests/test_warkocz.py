"""Warkocz: one test per rule and per Decision of RULES.md section 3, set up
with ``deck=`` so every situation is exact."""

from __future__ import annotations

from functools import partial
import random

import pytest

from p2pcards.cards import rank, unknown, warkocz_deck
from p2pcards.games import IllegalAction, NeedReveal, get_game, substitute
from p2pcards.games.base import shuffled_deck
from p2pcards.games.warkocz import WarkoczState
from p2pcards.bots.greedy import warkocz as greedy
from tests import helpers

G = get_game("warkocz")


def deck_with(hands, dealer=None):
    """A full deck that deals ``hands`` (seat -> cards); the rest in canonical
    order. The dealer defaults to the last seat, so seat 0 leads."""
    n, size = len(hands), len(hands[0])
    dealer = n - 1 if dealer is None else dealer
    assert all(len(h) == size for h in hands)
    rest = warkocz_deck()
    for h in hands:
        for c in h:
            rest.remove(c)
    dealt = [hands[(dealer + 1 + i) % n][i // n] for i in range(n * size)]
    return dealt + rest


def deal(hands, dealer=None, hidden=(), **options):
    """A deal with these hands (seat 0 leads unless ``dealer`` is given);
    seats in ``hidden`` get unknown tokens instead."""
    n = len(hands)
    dealer = n - 1 if dealer is None else dealer
    deck = deck_with(hands, dealer)
    for i in range(n * len(hands[0])):
        if (dealer + 1 + i) % n in hidden:
            deck[i] = unknown(i)
    opts = {"hand_size": len(hands[0]), **options}
    return G.start(n, deck=deck, dealer=dealer, options=opts)


def play(*cards, as_=None):
    action = {"type": "play", "cards": list(cards)}
    if as_ is not None:
        action["as"] = as_
    return action


PASS = {"type": "pass"}


run = partial(helpers.act, G)
refused = partial(helpers.refused, G)


# ----- deck and deal ------------------------------------------------------


def test_deck_is_48_red_cards_without_aces_plus_the_warkocz():
    deck = warkocz_deck()
    assert len(deck) == 49 == G.deck_size()
    assert deck.count("9C") == 1
    for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
        assert sorted(c for c in deck if c[:-1] == rank and c != "9C") == [rank + "D"] * 2 + [rank + "H"] * 2
    assert not [c for c in deck if c.startswith("A")]


@pytest.mark.parametrize("players,size,aside", [(2, 18, 13), (3, 16, 1), (4, 12, 1)])
def test_deal_sizes(players, size, aside):
    state = G.start(players, seed=5)
    view = G.view(state, 0)
    assert view["hand_counts"] == [size] * players
    assert view["aside_count"] == aside
    assert G.default_options(players)["hand_size"] == size


def test_dealing_one_at_a_time_from_left_of_dealer_rest_set_aside():
    deck = warkocz_deck()
    state = G.start(3, deck=deck, dealer=1)
    assert G.hand(state, 2)[:2] == [deck[0], deck[3]]
    assert G.hand(state, 0)[:2] == [deck[1], deck[4]]
    assert G.hand(state, 1)[:2] == [deck[2], deck[5]]
    assert state.aside == [deck[48]]


def test_player_left_of_dealer_leads():
    assert G.to_act(G.start(4, seed=1, dealer=3)) == 0
    assert G.to_act(G.start(4, seed=1, dealer=1)) == 2


def test_seed_gives_the_seeded_deck():
    assert G.start(2, seed=9) == G.start(2, deck=shuffled_deck("warkocz", 9, 0))


# ----- the row ----------------------------------------------------------


def test_row_goes_up_one_rank_suits_ignored_and_the_same_player_goes_on():
    s = deal([["5H", "6D", "8H"], ["2D", "3D", "4D"]])
    s = G.apply(s, play("5H"))
    assert G.to_act(s) == 0
    assert G.view(s, 0)["needed"] == "6"
    refused(s, play("8H"), "the row needs a 6, not an 8")
    s = G.apply(s, play("6D"))
    assert G.view(s, 0)["needed"] == "7"
    assert [st["cards"] for st in G.view(s, 1)["row"]] == [["5H"], ["6D"]]


def test_three_or_four_of_a_rank_together():
    s = deal([["7D", "7D", "7H", "8D", "8D", "8H", "8H"], ["2D"] * 2 + ["3D"] * 2 + ["4D"] * 2 + ["5D"]])
    s = G.apply(s, play("7D", "7D", "7H"))
    assert G.view(s, 0)["needed"] == "8"
    s = G.apply(s, play("8D", "8D", "8H", "8H"))
    assert G.view(s, 0)["played"]["8"] == 4


def test_never_exactly_two_unless_the_option_allows():
    hands = [["7D", "7H", "9D"], ["2D", "3D", "4D"]]
    refused(deal(hands), play("7D", "7H"), "never exactly 2")
    assert play("7D", "7H") not in G.legal_actions(deal(hands))
    s = deal(hands, two_of_a_kind=True)
    assert play("7D", "7H") in G.legal_actions(s)
    assert G.view(G.apply(s, play("7D", "7H")), 0)["needed"] == "8"


def test_cards_laid_together_must_share_a_rank():
    refused(deal([["7D", "7H", "8D"], ["2D", "3D", "4D"]]), play("7D", "7H", "8D"), "one rank")


def test_king_is_a_gag_the_row_is_set_aside_and_the_same_player_leads():
    s = deal([["QD", "KH", "3D"], ["2D", "4D", "5D"]])
    s = run(s, play("QD"), play("KH"))
    view = G.view(s, 1)
    assert view["row"] == [] and view["needed"] is None and G.to_act(s) == 0
    assert view["rows_done"] == [[{"seat": 0, "cards": ["QD"], "as": "Q"}, {"seat": 0, "cards": ["KH"], "as": "K"}]]
    refused(s, PASS, "you lead")


def test_leading_a_king_is_a_gag_at_once():
    s = G.apply(deal([["KD", "3D"], ["2D", "4D"]]), play("KD"))
    assert G.to_act(s) == 0 and G.view(s, 0)["needed"] is None


def test_a_card_whose_next_rank_is_exhausted_is_a_gag():
    s = deal([["8D", "8D", "8H", "8H", "7D", "2D"], ["3D", "3D", "4D", "4D", "5D", "5D"]])
    s = run(s, play("8D", "8D", "8H", "8H"), PASS, PASS)  # nobody has a 9: seat 0 leads again
    assert G.view(s, 0)["exhausted"] == ["8"]
    s = G.apply(s, play("7D"))  # the next rank, 8, is exhausted: gag
    assert G.to_act(s) == 0 and G.view(s, 0)["needed"] is None
    assert len(G.view(s, 0)["rows_done"]) == 2

    assert G.gag_ranks(G.view(s, 0)["exhausted"]) == ["7", "K"]


def test_the_gags_a_table_shows_are_the_plays_that_end_the_row():
    """``gag_ranks`` (what the table lists as gags now) agrees with the rule
    the engine plays by, on every single natural card played in random deals."""
    checked = 0
    for seed in range(6):
        state, rng = G.start(players=3, seed=seed), random.Random(seed)
        while not G.deal_over(state):
            gags = G.gag_ranks(G.view(state, None)["exhausted"])
            for action in G.legal_actions(state):
                cards = action.get("cards") or []
                if action["type"] == "play" and len(cards) == 1 and cards[0] != G.wild_card:
                    assert G.ends_row(state, action) == (rank(cards[0]) in gags), (action, gags)
                    checked += 1
            state = G.apply(state, rng.choice(G.legal_actions(state)))
    assert checked > 100


def test_pass_hands_the_row_to_the_next_player():
    s = deal([["5D", "JD", "QD"], ["6D", "6H", "2D"], ["3D", "4D", "10D"]])
    s = run(s, play("5D"), PASS)
    assert G.to_act(s) == 1
    assert G.view(s, 1)["needed"] == "6"
    assert G.legal_actions(s) == [play("6D"), play("6H")]


def test_all_others_pass_the_row_is_set_aside_and_the_last_layer_leads():
    s = deal([["5D", "JD", "QD"], ["6D", "2D", "2H"], ["3D", "4D", "10D"]])
    s = run(s, play("5D"), PASS, play("6D"), PASS, PASS)
    assert G.to_act(s) == 0 and G.view(s, 0)["passes"] == 2
    s = G.apply(s, PASS)
    view = G.view(s, 1)
    assert G.to_act(s) == 1 and view["row"] == [] and view["needed"] is None
    assert [[st["cards"] for st in row] for row in view["rows_done"]] == [[["5D"], ["6D"]]]


def test_a_pass_is_refused_to_the_leader():
    refused(deal([["5D"], ["6D"]]), PASS, "you lead")


# ----- Decision: must play a natural card of the needed rank ----------------


def test_holding_a_natural_card_of_the_needed_rank_forbids_passing():
    s = run(deal([["5D", "6H", "9D"], ["2D", "3D", "4D"]]), play("5D"))
    refused(s, PASS, "you hold 6H and must play it")
    assert PASS not in G.legal_actions(s)


def test_must_play_option_off_allows_passing():
    s = run(deal([["5D", "6H", "9D"], ["2D", "3D", "4D"]], must_play=False), play("5D"))
    assert PASS in G.legal_actions(s)
    assert G.to_act(G.apply(s, PASS)) == 1


def test_the_warkocz_is_never_forced():
    s = run(deal([["5D", "9C", "9D"], ["2D", "3D", "4D"]]), play("5D"))
    legal = G.legal_actions(s)
    assert PASS in legal and play("9C", as_="6") in legal
    assert G.to_act(G.apply(s, PASS)) == 1


def test_a_hidden_hand_passes_unchecked_the_full_state_refuses():
    hands = [["5D", "JD", "QD"], ["6D", "2D", "2H"]]
    full = run(deal(hands), play("5D"), PASS)
    partial = run(deal(hands, hidden=(1,)), play("5D"), PASS)
    refused(full, PASS, "must play")
    after = G.apply(partial, PASS)  # seat 0 cannot see seat 1's 6D
    assert G.to_act(after) == 0 and G.view(after, 0)["needed"] is None
    assert PASS in G.legal_actions(partial)


# ----- the warkocz ------------------------------------------------------------


def test_warkocz_leads_as_any_rank():
    s = deal([["9C", "2D"], ["3D", "4D"]])
    legal = G.legal_actions(s)
    for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
        assert play("9C", as_=rank) in legal
    s = G.apply(s, play("9C", as_="J"))
    view = G.view(s, 1)
    assert view["needed"] == "Q" and view["row"][0]["as"] == "J" and view["warkocz_by"] == 0


def test_warkocz_on_an_open_row_stands_for_the_needed_rank():
    s = run(deal([["5D", "9C", "3D"], ["2D", "3H", "4D"]]), play("5D"))
    refused(s, play("9C", as_="7"), "the row needs a 6, not a 7")
    s = G.apply(s, play("9C", as_="6"))
    assert G.view(s, 0)["needed"] == "7"


def test_warkocz_needs_a_valid_as():
    s = deal([["9C", "2D"], ["3D", "4D"]])
    refused(s, play("9C"), "say which rank")
    refused(s, play("9C", as_="A"), "rank 2..K")
    refused(s, {"type": "play", "cards": ["9C"], "as": 7}, "rank 2..K")


def test_as_is_only_for_the_warkocz():
    refused(deal([["5D", "2D"], ["3D", "4D"]]), play("5D", as_="5"), "only for the warkocz")


def test_nines_laid_with_the_warkocz_do_not_move_the_row_but_count_as_played():
    s = deal([["9C", "9D", "9H", "2D"], ["3D", "4D", "5D", "6D"]])
    legal = G.legal_actions(s)
    assert play("9C", "9D", "9H", as_="4") in legal and play("9C", "9D", as_="4") in legal
    s = G.apply(s, play("9C", "9D", "9H", as_="4"))
    view = G.view(s, 0)
    assert view["needed"] == "5" and view["played"]["9"] == 2 and view["hand"] == ["2D"]


def test_a_step_is_recorded_in_one_card_order():
    s = G.apply(deal([["9H", "9C", "9D", "2D"], ["3D", "4D", "5D", "6D"]]), play("9H", "9D", "9C", as_="Q"))
    assert G.view(s, 1)["row"] == [{"seat": 0, "cards": ["9C", "9D", "9H"], "as": "Q"}]


def test_only_nines_may_go_with_the_warkocz():
    refused(deal([["9C", "5D", "5H", "5D"], ["3D", "4D", "6D", "6H"]]), play("5D", "5H", "9C", as_="5"), "only 9s")


def test_nines_with_the_warkocz_can_exhaust_the_next_rank_making_a_gag():
    s = deal([["9C", "9D", "9D", "9H", "9H", "2D"], ["3D", "4D", "5D", "6D", "7D", "10D"]])
    s = G.apply(s, play("9C", "9D", "9D", "9H", "9H", as_="8"))
    assert G.to_act(s) == 0 and G.view(s, 0)["needed"] is None


def test_every_other_player_pays_the_warkocz_fee():
    s = deal([["9C", "2D"], ["3D", "4D"], ["5D", "6D"]])
    before = list(s.chips)
    s = G.apply(s, play("9C", as_="K"))
    assert s.chips == [before[0] + 4, before[1] - 2, before[2] - 2]
    assert sum(s.chips) + s.bank == sum(before) + s.bank


# ----- end of deal and scoring ------------------------------------------------


def test_first_out_wins_and_scores_the_cards_left_in_the_other_hands():
    s = deal([["2D", "4D", "6D"], ["3D", "10D", "JD"], ["7H", "7H", "QD"]])
    s = run(s, play("2D"), PASS, play("3D"), PASS, PASS, play("4D"), PASS, PASS, PASS, play("6D"))
    assert G.deal_over(s) and G.to_act(s) == -1 and G.legal_actions(s) == []
    sc = G.deal_scores(s)
    assert sc["seats"] == [5, 0, 0] == sc["sides"]
    assert sc["winner"] == 0 and sc["aria"] is False and sc["multiplier"] == 1
    assert sc["cards_left"] == [0, 2, 3]
    refused(s, play("10D"), "the deal is over")


def test_a_losers_hand_holding_the_warkocz_counts_double():
    s = deal([["2D", "4D", "6D"], ["3D", "9C", "JD"]])
    s = run(s, play("2D"), PASS, play("3D"), PASS, play("4D"), PASS, PASS, play("6D"))
    sc = G.deal_scores(s)
    assert sc["warkocz_holder"] == 1 and sc["seats"] == [4, 0]


def test_aria_doubles():
    s = run(deal([["2D", "3D", "4D"], ["5D", "6D", "7D"]]), play("2D"), play("3D"), play("4D"))
    sc = G.deal_scores(s)
    assert sc["aria"] and sc["multiplier"] == 2 and sc["seats"] == [6, 0]


def test_aria_ending_with_the_warkocz_quadruples():
    s = run(deal([["2D", "3D", "9C"], ["5D", "6D", "7D"]]), play("2D"), play("3D"), play("9C", as_="4"))
    sc = G.deal_scores(s)
    assert sc["multiplier"] == 4 and sc["seats"] == [12, 0]


def test_a_pass_ends_the_move_so_no_aria_after_it():
    """Seed: „Gracz, który wyłożył wszystkie karty za jednym ruchem, tj.
    „zagrał arię"" — all cards in one move; and after „bez dziewiątki"
    „kolejny ruch należy do następnego gracza": a pass ends the move. So even
    when every other player passes too and the row comes back, it is no aria."""
    s = deal([["2D", "3D", "6D"], ["10D", "JD", "QD"]])
    s = run(s, play("2D"), play("3D"), PASS, PASS)
    assert G.to_act(s) == 0 and G.view(s, 1)["aria_open"] == [False, True]
    s = G.apply(s, play("6D"))
    assert G.deal_scores(s)["multiplier"] == 1 and not G.deal_scores(s)["aria"]


def test_passing_before_laying_any_card_leaves_the_aria_open():
    s = deal([["2D", "KD", "KH"], ["4D", "5D", "6D"], ["3D", "QD", "QH"]])
    s = run(s, play("2D"), PASS, PASS)  # seat 1 passes before laying anything: it has no 3
    s = run(s, play("3D"), PASS, PASS)  # seat 2 lays the 3; seat 0 has no 4
    assert G.view(s, None)["aria_open"] == [False, True, False]
    s = run(s, play("4D"), play("5D"), play("6D"))  # seat 1 lays its whole hand in one move
    assert G.deal_scores(s)["aria"] and G.deal_scores(s)["multiplier"] == 2


def test_a_card_laid_by_another_player_in_between_spoils_the_aria():
    s = deal([["2D", "4D", "5D"], ["3D", "10D", "JD"]])
    s = run(s, play("2D"), PASS, play("3D"))
    assert G.view(s, 0)["aria_open"] == [False, True]
    s = run(s, PASS, play("4D"), play("5D"))
    assert G.deal_scores(s)["multiplier"] == 1


def test_scoring_hidden_hands_needs_a_reveal_unless_the_warkocz_was_played():
    hands = [["2D", "4D", "6D"], ["3D", "10D", "JD"]]
    moves = (play("2D"), PASS, play("3D"), PASS, play("4D"), PASS, PASS, play("6D"))
    full = run(deal(hands), *moves)
    partial = deal(hands, hidden=(1,))
    partial = run(substitute(partial, {unknown(1): "3D"}), *moves)  # 3D was shown when played
    with pytest.raises(NeedReveal) as need:
        G.deal_scores(partial)
    assert sorted(need.value.tokens) == [unknown(3), unknown(5)]
    revealed = substitute(partial, {unknown(3): "10D", unknown(5): "JD"})
    assert G.deal_scores(revealed) == G.deal_scores(full)
    # once the warkocz is out nobody needs to see the losers' cards
    played_w = run(deal([["9C", "2D"], ["3D", "4D"]], hidden=(1,)), play("9C", as_="5"), PASS, PASS, play("2D"))
    assert G.deal_scores(played_w)["seats"] == [2, 0]  # no aria: seat 0 passed in between


def test_deal_scores_before_the_end_is_refused():
    with pytest.raises(IllegalAction, match="not over"):
        G.deal_scores(G.start(2, seed=1))


# ----- bank, chips and the match -------------------------------------------------


def test_ante_at_match_start_and_deal_fee_by_the_dealer():
    m = G.new_match(3, seed=4)
    assert m.chips == [90, 90, 90] and m.bank == 30
    s = G.start_deal(m)
    assert s.chips == [89, 90, 90] and s.bank == 31
    # a lone deal is a match's first: the same stacks
    alone = G.start(3, seed=4)
    assert alone.chips == s.chips and alone.bank == s.bank


def _play_out(state, rng):
    while not G.deal_over(state):
        state = G.apply(state, rng.choice(G.legal_actions(state)))
    return state


def test_dealer_passes_left_and_scores_accumulate():
    m = G.new_match(3, seed=2)
    rng = random.Random(2)
    for i in range(3):
        assert m.dealer == i % 3 and m.deal_index == i
        s = _play_out(G.start_deal(m), rng)
        sc = G.deal_scores(s)
        before = list(m.scores)
        m = G.end_deal(m, s)
        assert m.scores == [a + b for a, b in zip(before, sc["seats"])]
        assert m.history[-1]["seats"] == sc["seats"]
        if m.over:
            break


def test_first_to_target_ends_the_match_and_takes_the_bank():
    m = G.new_match(2, {"target": 3, "hand_size": 3}, seed=0)
    # dealer 0 pays the deal fee, seat 1 leads and plays an aria
    s = G.start(2, deck=deck_with([["5D", "6D", "8D"], ["2D", "3D", "4D"]], 0), options=m.options, **G.deal_context(m))
    s = run(s, play("2D"), play("3D"), play("4D"))
    total = sum(s.chips) + s.bank
    m = G.end_deal(m, s)
    assert m.over and m.scores == [0, 6] and m.bank == 0
    assert m.chips == [89, 90 + 21] and sum(m.chips) == total
    assert m.history[-1]["bank_won"] == 21
    assert G.match_result(m)["winner"] == 1
    with pytest.raises(IllegalAction, match="match is over"):
        G.start_deal(m)


def test_a_match_below_target_goes_on():
    m = G.new_match(2, {"hand_size": 3}, seed=0)
    s = G.start(2, deck=deck_with([["5D", "6D", "8D"], ["2D", "3D", "4D"]], 0), options=m.options, **G.deal_context(m))
    m = G.end_deal(m, run(s, play("2D"), play("3D"), play("4D")))
    assert not m.over and m.bank == 21 and m.dealer == 1


def test_short_stacks_go_into_debt_by_default():
    s = G.start(2, seed=1, options={"chips": 5})
    assert s.chips == [-6, -5] and s.bank == 21


def test_without_debt_a_short_stack_pays_what_it_has():
    s = G.start(2, seed=1, options={"chips": 5, "debt": False})
    assert s.chips == [0, 0] and s.bank == 10
    s = deal([["9C", "2D"], ["3D", "4D"]], chips=11, debt=False)
    s = G.apply(s, play("9C", as_="5"))  # seat 1 has 1 chip left to pay the fee of 2
    assert s.chips == [1, 0] and s.bank == 21


# ----- view ------------------------------------------------------------------


def test_view_shows_own_hand_sorted_and_nothing_hidden():
    s = deal([["KD", "2H", "9C", "2D", "10H"], ["3D", "4D", "5D", "6D", "7D"]], hidden=(1,))
    view = G.view(s, 0)
    assert view["hand"] == ["2D", "2H", "9C", "10H", "KD"]
    assert view["hand_counts"] == [5, 5]
    for key in ("game", "seat", "players", "dealer", "to_act", "deal_over", "row", "needed", "chips", "bank"):
        assert key in view
    assert "?" not in repr(view)
    spectator = G.view(s, None)
    assert spectator["hand"] is None and "?" not in repr(spectator)
    with pytest.raises(IllegalAction, match="no seat"):
        G.view(s, 2)


def test_view_is_a_copy():
    s = run(deal([["5D", "6D", "8D"], ["2D", "3D", "4D"]]), play("5D"))
    view = G.view(s, 0)
    view["row"][0]["cards"].append("XX")
    view["hand"].clear()
    assert G.view(s, 0)["row"][0]["cards"] == ["5D"] and G.hand(s, 0) == ["6D", "8D"]


# ----- bad input ------------------------------------------------------------------


@pytest.mark.parametrize(
    "action,message",
    [
        (None, "an action is a dict"),
        ("play", "an action is a dict"),
        ([{"type": "pass"}], "an action is a dict"),
        ({}, "unknown action type"),
        ({"type": "draw"}, "unknown action type"),
        ({"type": 5}, "unknown action type"),
        ({"type": "play"}, "non-empty list"),
        ({"type": "play", "cards": "5D"}, "non-empty list"),
        ({"type": "play", "cards": []}, "non-empty list"),
        ({"type": "play", "cards": [5]}, "not a card code"),
        ({"type": "play", "cards": [["5D"]]}, "not a card code"),
        ({"type": "play", "cards": ["XX"]}, "not a card code"),
        ({"type": "play", "cards": ["AH"]}, "no AH in the warkocz deck"),
        ({"type": "play", "cards": ["5C"]}, "no 5C in the warkocz deck"),
        ({"type": "play", "cards": ["?3"]}, "hidden card"),
        ({"type": "play", "cards": ["7D"]}, "you don't hold 7D"),
        ({"type": "play", "cards": ["5D", "5D", "5D"]}, "you hold only 2 5D"),
        ({"type": "play", "cards": ["5D"], "seat": 1}, "it is seat 0's turn, not seat 1's"),
        ({"type": "play", "cards": ["5D"], "seat": "0"}, "seat number"),
        ({"type": "play", "cards": ["5D"], "seat": True}, "seat number"),
        ({"type": "play", "cards": ["5D"], "extra": 1}, "unexpected: 'extra'"),
        ({"type": "pass", "cards": []}, "unexpected: 'cards'"),
    ],
)
def test_bad_actions_are_refused_and_change_nothing(action, message):
    s = deal([["5D", "5D", "6H"], ["2D", "3D", "4D"]])
    refused(s, action, message)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"deck": ["5D"] * 49}, "5D appears more often"),
        ({"deck": [["5D"]] * 49}, "not a card of the warkocz deck"),
        ({"deck": warkocz_deck()[:-1]}, "49 cards"),
        ({"deck": warkocz_deck()[:-1] + ["AH"]}, "AH is not a card of the warkocz deck"),
        ({"deck": "5D"}, "49 cards"),
        ({"dealer": 2}, "dealer must be a seat"),
        ({"scores": [1]}, "scores must be a list of 2"),
        ({"chips": [1, 2], "bank": "x"}, "bank must be"),
        ({"chips": [1], "bank": 0}, "chips must be a list of 2"),
        ({"pot": 3}, "unknown arguments: pot"),
        ({"options": {"colour": 1}}, "unknown option 'colour'"),
        ({"options": {"target": "24"}}, "whole number"),
        ({"options": {"must_play": 1}}, "true or false"),
        ({"options": {"target": 0}}, "at least 1"),
        ({"options": {"ante": -1}}, "may not be negative"),
        ({"options": {"hand_size": 25}}, "hand_size must be 1..24"),
        ({"options": [1]}, "options must be a dict"),
    ],
)
def test_bad_start_arguments_are_refused(kwargs, message):
    kwargs.setdefault("seed", 1)
    with pytest.raises(IllegalAction, match=message):
        G.start(2, **kwargs)


def test_ending_a_match_needs_a_finished_deal_of_that_match():
    m = G.new_match(2, seed=1)
    with pytest.raises(IllegalAction, match="not over"):
        G.end_deal(m, G.start_deal(m))
    with pytest.raises(IllegalAction, match="3 players"):
        G.end_deal(m, G.start(3, seed=1))
    with pytest.raises(IllegalAction, match="no seat 2"):
        G.hand(G.start_deal(m), 2)


def test_bad_player_counts_are_refused():
    for n in (1, 5, "2"):
        with pytest.raises(IllegalAction, match="2 to 4 players"):
            G.start(n, seed=1)


def test_state_is_a_plain_dataclass_for_substitute():
    s = deal([["5D", "6D"], ["2D", "3D"]], hidden=(1,))
    assert isinstance(s, WarkoczState)
    t = substitute(s, {unknown(1): "2D"})
    assert G.hand(t, 1)[0] == "2D" and G.hand(s, 1)[0] == unknown(1)


# ----- the greedy player ---------------------------------------------------------


def _greedy_move(state):
    """Let the greedy player act until its move ends; returns the state."""
    seat = G.to_act(state)
    rng = random.Random(0)
    while G.to_act(state) == seat:
        action = greedy.choose(G, state, rng)
        assert action in G.legal_actions(state)
        state = G.apply(state, action)
    return state


def test_greedy_goes_out_through_a_gag_when_it_can():
    s = deal([["3D", "QD", "KD", "JH", "4D"], ["2D", "5D", "6D", "7D", "8D"]])
    s = _greedy_move(s)
    assert G.deal_over(s) and G.deal_scores(s)["multiplier"] == 2


def test_greedy_finishes_an_aria_with_the_warkocz():
    s = deal([["2D", "3D", "9C", "4D"], ["6D", "7D", "8D", "10D"]])
    s = _greedy_move(s)
    assert G.deal_scores(s)["multiplier"] == 4


def test_greedy_keeps_the_warkocz_when_it_gains_nothing_by_it():
    s = deal([["2D", "3D", "9C", "7D", "7H", "JD", "10H"], ["5D", "6D", "8D", "10D", "QD", "QH", "4H"]])
    s = _greedy_move(s)
    assert "9C" in G.hand(s, 0)


def test_greedy_plays_from_a_state_with_hidden_cards():
    s = deal([["5D", "6H", "9D", "KD"], ["2D", "3D", "4D", "7D"]], hidden=(1,))
    action = greedy.choose(G, s, random.Random(1))
    assert action in G.legal_actions(s)


def test_greedy_gets_rid_of_the_warkocz_when_an_opponent_is_about_to_go_out():
    # seat 1 leads (dealer 0) and comes down to 2 cards; seat 0 may pass or lay the warkocz as 9
    s = deal([["2D", "3D", "9C", "7D", "JD", "5H"], ["JH", "QD", "KD", "8H", "4H", "10D"]], dealer=0)
    s = run(s, play("JH"), play("QD"), play("KD"), play("8H"), PASS)
    assert G.to_act(s) == 0 and G.view(s, 0)["needed"] == "9" and PASS in G.legal_actions(s)
    s = _greedy_move(s)
    assert "9C" not in G.hand(s, 0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_answers_from_solved_positions_as_a_fresh_search_does(players):
    """The greedy player reuses positions an earlier search valued to the end:
    at every decision of seeded deals (every option that changes its search,
    short hands too), that answer is the one a search of its own gives, and
    the reuse happens (most decisions are steps of a move already planned)."""
    from p2pcards.games.warkocz import RANK_INDEX

    reused = decisions = 0
    for two, must, hand_size in ((False, True, None), (True, True, None), (False, False, None), (True, False, 5)):
        options = dict(G.default_options(players), two_of_a_kind=two, must_play=must)
        if hand_size:
            options["hand_size"] = hand_size
        for seed in range(2):
            rng = random.Random(seed)
            state = G.start(players=players, seed=seed, options=options)
            while not G.deal_over(state):
                seat = G.to_act(state)
                view = G.view(state, seat)
                need = RANK_INDEX[view["needed"]] if view["needed"] is not None else -1
                fresh = greedy._Planner(view, seat)
                expected = fresh.value(fresh.root, fresh.has_w, need)
                planner = greedy._Planner(view, seat)
                reused += (planner.root, planner.has_w, need) in greedy._solved.get(planner.situation, ())
                assert planner.plan(need) == expected
                decisions += 1
                # mostly the greedy move, sometimes another: situations it would not reach itself
                legal = G.legal_actions(state)
                action = greedy.choose(G, state, rng) if rng.random() < 0.8 else rng.choice(legal)
                state = G.apply(state, action)
    assert reused > decisions // 3
