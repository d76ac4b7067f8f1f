"""Bura: one test per rule and per Decision (RULES.md section 4 and the
Decisions in ``p2pcards/games/bura.py``), each set up with ``deck=``."""

from __future__ import annotations

import dataclasses

import pytest

from p2pcards.cards import bura_deck, unknown
from p2pcards.games import IllegalAction, NeedReveal, get_game, substitute
from p2pcards.games.bura import POINTS, RANK_STRENGTH, beats, play_beats

G = get_game("bura")


def make_deck(n, hands, trump, stock=(), dealer=0):
    """The deck that deals ``hands`` (by seat) with ``trump`` turned and
    ``stock`` on top of the stock; the other cards follow in a fixed order."""
    deck = [None] * (3 * n)
    for r in range(3):
        for j in range(n):
            deck[r * n + j] = hands[(dealer + 1 + j) % n][r]
    used = set(deck) | {trump} | set(stock)
    assert len(used) == 3 * n + 1 + len(stock), "a card is used twice"
    rest = [c for c in bura_deck() if c not in used]
    return deck + [trump] + list(stock) + rest


def start(n, hands, trump, stock=(), dealer=None, **kw):
    """A deal of ``hands``; the dealer defaults to the last seat, so seat 0 leads."""
    dealer = n - 1 if dealer is None else dealer
    return G.start(n, deck=make_deck(n, hands, trump, stock, dealer), dealer=dealer, **kw)


def play(state, *actions):
    for a in actions:
        state = G.apply(state, a)
    return state


def lead(*cards):
    return {"type": "lead", "cards": list(cards)}


def beat(*cards):
    return {"type": "beat", "cards": list(cards)}


def throw(*cards):
    return {"type": "throw", "cards": list(cards)}


PASS = {"type": "pass"}
DECLARE = {"type": "declare"}

# Three hands for two players, spades trump (the turned 6S).
H2 = [["9H", "KH", "7C"], ["10H", "AH", "8C"]]
# With 8S turned: WEAK led, STRONG beats it; the trick holds 9 + 32 = 41 points.
WEAK = ["QH", "JH", "KH"]
STRONG = ["AH", "10H", "AS"]


# ----- deck, ranks, points ------------------------------------------------------
def test_deck_is_36_cards_six_to_ace_with_120_points():
    deck = bura_deck()
    assert len(deck) == len(set(deck)) == 36
    assert {c[:-1] for c in deck} == set(RANK_STRENGTH)
    assert sum(POINTS.get(c[:-1], 0) for c in deck) == 120


def test_rank_order_is_a_10_k_q_j_9_8_7_6():
    order = sorted(RANK_STRENGTH, key=RANK_STRENGTH.get, reverse=True)
    assert order == ["A", "10", "K", "Q", "J", "9", "8", "7", "6"]
    assert beats("10H", "KH", "S") and not beats("KH", "10H", "S")


def test_players_two_to_six():
    for n in range(2, 7):
        assert len(G.hand(G.start(n, seed=1), 0)) == 3
    for n in (1, 7):
        with pytest.raises(IllegalAction, match="2 to 6 players"):
            G.start(n, seed=1)


# ----- the deal --------------------------------------------------------------
def test_deal_three_each_one_at_a_time_from_left_of_dealer_then_trump_under_stock():
    deck = bura_deck()
    s = G.start(3, deck=deck, dealer=1)
    # seat 2 (left of dealer 1) gets deck[0], deck[3], deck[6]
    assert G.hand(s, 2) == [deck[0], deck[3], deck[6]]
    assert G.hand(s, 0) == [deck[1], deck[4], deck[7]]
    assert G.hand(s, 1) == [deck[2], deck[5], deck[8]]
    v = G.view(s, 0)
    assert v["trump"] == deck[9] and v["trump_suit"] == deck[9][-1]
    assert v["stock"] == 36 - 9  # the trump card is part of what is drawn
    assert s.stock[0] == deck[10] and s.stock[-1] == deck[9]
    assert G.to_act(s) == 2 and v["leader"] == 2


def test_trump_card_is_drawn_last():
    # 2 players: 6 dealt, the trump, 29 in the stock; draw them all with
    # one-card tricks and check the last card drawn is the trump.
    s = G.start(2, deck=bura_deck(), options={"target": 120, "bessa": False})
    trump = G.view(s, None)["trump"]
    while G.view(s, None)["stock"] > 0:
        acts = G.legal_actions(s)
        a = next(a for a in acts if a["type"] == "pass" or a["type"] in ("lead", "throw") and len(a["cards"]) == 1)
        before = G.view(s, None)["stock"]
        s = G.apply(s, a)
        if G.view(s, None)["stock"] == 0 and before > 0:
            assert any(trump in G.hand(s, p) for p in range(2))
            assert G.view(s, None)["trump_drawn"]
    assert G.view(s, None)["trump"] == trump


def test_antes_paid_into_bank_at_round_start():
    s = G.start(4, seed=3, options={"ante": 7, "chips": 100})
    v = G.view(s, None)
    assert v["bank"] == 28 and v["chips"] == [93] * 4
    assert G.deal_scores(s)["seats"] == [-7] * 4
    s2 = G.start(4, seed=3, chips=[50, 60, 70, 80], bank=40, antes=False)
    assert G.view(s2, None)["bank"] == 40 and G.view(s2, None)["chips"] == [50, 60, 70, 80]


# ----- leading ------------------------------------------------------------------
def test_lead_one_to_three_cards_of_one_suit():
    s = start(2, [["9H", "KH", "AH"], ["10C", "AC", "8C"]], "6S")
    leads = [a["cards"] for a in G.legal_actions(s) if a["type"] == "lead"]
    assert sorted(map(sorted, leads)) == sorted(
        map(sorted, [["9H"], ["KH"], ["AH"], ["9H", "KH"], ["9H", "AH"], ["KH", "AH"], ["9H", "KH", "AH"]])
    )
    after = G.apply(s, lead("9H", "KH", "AH"))
    assert G.view(after, None)["lead_size"] == 3


def test_lead_of_two_suits_refused():
    s = start(2, H2, "6S")
    with pytest.raises(IllegalAction, match="one suit"):
        G.apply(s, lead("9H", "7C"))


def test_leader_must_lead_not_beat_or_throw():
    s = start(2, H2, "6S")
    with pytest.raises(IllegalAction, match="leads this trick"):
        G.apply(s, throw("9H"))


def test_first_lead_left_of_dealer_then_the_taker():
    s = start(3, [["9H", "KH", "7C"], ["10H", "AH", "8C"], ["6H", "7H", "8H"]], "6S", dealer=2)
    assert G.to_act(s) == 0
    s = play(s, lead("9H"), beat("10H"), throw("6H"))  # seat 1 beat: takes
    assert G.view(s, None)["last_trick"]["taker"] == 1
    assert G.to_act(s) == 1 and G.view(s, None)["phase"] == "play"


# ----- beating -----------------------------------------------------------------
def test_beat_higher_same_suit():
    s = start(2, H2, "6S")
    s = G.apply(s, lead("KH"))
    assert beat("AH") in G.legal_actions(s) and beat("10H") in G.legal_actions(s)
    s = G.apply(s, beat("10H"))
    assert G.view(s, None)["last_trick"]["taker"] == 1


def test_lower_card_does_not_beat():
    s = start(2, [["KS", "9H", "7C"], ["QS", "AH", "8C"]], "6D")
    s = G.apply(s, lead("KS"))
    assert beat("QS") not in G.legal_actions(s)
    with pytest.raises(IllegalAction, match="QS does not beat KS"):
        G.apply(s, beat("QS"))


def test_other_suit_non_trump_does_not_beat():
    s = start(2, H2, "6S")
    s = G.apply(s, lead("7C"))
    with pytest.raises(IllegalAction, match="does not beat"):
        G.apply(s, beat("10H"))


def test_any_trump_beats_a_non_trump_even_holding_the_suit():
    s = start(2, [["KH", "9C", "7C"], ["6D", "AH", "8C"]], "7D")
    s = G.apply(s, lead("KH"))
    acts = G.legal_actions(s)
    assert beat("6D") in acts and beat("AH") in acts  # trumping while holding the suit
    s = G.apply(s, beat("6D"))
    assert G.view(s, None)["last_trick"]["taker"] == 1


def test_trump_beats_trump_by_rank_only():
    assert beats("10D", "KD", "D") and not beats("6D", "7D", "D")
    s = start(2, [["KD", "9C", "7C"], ["QD", "AD", "8C"]], "7D")
    s = G.apply(s, lead("KD"))
    assert beat("AD") in G.legal_actions(s) and beat("QD") not in G.legal_actions(s)


def test_multi_card_beat_needs_a_distinct_beater_for_each_card():
    assert play_beats(["AH", "6S"], ["9H", "10H"], "S")
    assert not play_beats(["KH", "QH"], ["9H", "10H"], "S")  # neither beats 10H
    assert not play_beats(["AH"], ["9H", "10H"], "S")  # one card cannot cover two
    s = start(2, [["9H", "10H", "7C"], ["AH", "6S", "QC"]], "7S")
    s = G.apply(s, lead("9H", "10H"))
    beats_listed = [sorted(a["cards"]) for a in G.legal_actions(s) if a["type"] == "beat"]
    assert beats_listed == [sorted(["AH", "6S"])]
    with pytest.raises(IllegalAction, match="does not beat"):
        G.apply(s, beat("QC", "AH"))
    s = G.apply(s, beat("6S", "AH"))  # matched either way round
    assert G.view(s, None)["last_trick"]["taker"] == 1


def test_response_must_have_as_many_cards_as_the_lead():
    s = start(2, [["9H", "10H", "7C"], ["AH", "6S", "KH"]], "7S")
    s = G.apply(s, lead("9H", "10H"))
    with pytest.raises(IllegalAction, match="played with 2 card"):
        G.apply(s, beat("AH"))
    with pytest.raises(IllegalAction, match="played with 2 card"):
        G.apply(s, throw("KH"))


def test_next_player_must_beat_the_beater_not_the_lead():
    hands = [["9H", "7C", "8C"], ["JH", "6C", "6D"], ["10H", "QH", "7D"]]
    s = start(3, hands, "8S", dealer=2)
    s = play(s, lead("9H"), beat("JH"))
    acts = G.legal_actions(s)
    assert beat("10H") in acts and beat("QH") in acts
    s2 = start(3, [["9H", "7C", "8C"], ["KH", "6C", "6D"], ["10H", "QH", "7D"]], "8S", dealer=2)
    s2 = play(s2, lead("9H"), beat("KH"))
    assert beat("QH") not in G.legal_actions(s2)  # QH beats the lead, not KH
    with pytest.raises(IllegalAction, match="QH does not beat KH"):
        G.apply(s2, beat("QH"))


# ----- face down ---------------------------------------------------------------
def test_throw_face_down_allowed_even_when_able_to_beat():
    s = start(2, H2, "6S")
    s = G.apply(s, lead("9H"))
    acts = G.legal_actions(s)
    assert beat("AH") in acts and throw("AH") in acts
    s = G.apply(s, throw("AH"))
    # a face-down play does not take: the leader takes the trick
    assert G.view(s, None)["last_trick"]["taker"] == 0


def test_face_down_cards_unseen_by_others_seen_by_owner():
    hands = [["9H", "7C", "8C"], ["JH", "6C", "6D"], ["10H", "QH", "7D"]]
    s = start(3, hands, "8S", dealer=2)
    s = play(s, lead("9H"), throw("6C"))
    assert G.view(s, 1)["trick"][1] == {"seat": 1, "down": True, "count": 1, "cards": ["6C"]}
    for who in (0, 2, None):
        assert G.view(s, who)["trick"][1] == {"seat": 1, "down": True, "count": 1, "cards": []}
        assert "6C" not in repr(G.view(s, who))
    s = G.apply(s, throw("7D"))
    # still hidden inside the taken trick
    assert "6C" not in repr(G.view(s, 0)) and "6C" in repr(G.view(s, 1))


def test_throw_accepts_unknown_tokens():
    s = start(2, H2, "6S")
    s = G.apply(s, lead("9H"))
    # seat 0's engine does not know seat 1's cards: they are tokens there
    tok = {c: unknown(i) for i, c in enumerate(make_deck(2, H2, "6S")) if c in G.hand(s, 1)}
    partial = substitute(s, tok)
    after = G.apply(partial, throw(tok["AH"]))
    assert G.view(after, 0)["last_trick"]["taker"] == 0
    with pytest.raises(IllegalAction, match="by its code"):
        G.apply(partial, beat(tok["AH"]))


def test_throw_of_card_not_held_refused():
    s = start(2, H2, "6S")
    s = G.apply(s, lead("9H"))
    with pytest.raises(IllegalAction, match="you don't hold 7H"):
        G.apply(s, throw("7H"))


# ----- taking the trick -----------------------------------------------------------
def test_last_beater_takes_leader_if_nobody_beat():
    hands = [["9H", "7C", "8C"], ["JH", "6C", "6D"], ["10H", "QH", "7D"], ["6H", "AC", "AD"]]
    s = start(4, hands, "8S", dealer=3)
    s = play(s, lead("9H"), beat("JH"), throw("7D"), throw("6H"))
    assert G.view(s, None)["last_trick"]["taker"] == 1
    assert G.view(s, None)["tricks_taken"] == [0, 1, 0, 0]
    s = start(4, hands, "8S", dealer=3)
    s = play(s, lead("9H"), throw("6C"), throw("7D"), throw("6H"))
    assert G.view(s, None)["last_trick"]["taker"] == 0
    assert G.to_act(s) == 0


# ----- refill -------------------------------------------------------------------
def test_refill_from_the_taker_up_to_three_each():
    hands = [["9H", "7C", "8C"], ["JH", "6C", "6D"], ["10H", "QH", "7D"]]
    s = start(3, hands, "8S", stock=["AS", "KS", "QS"], dealer=2)
    s = play(s, lead("9H"), beat("JH"), throw("7D"))
    # seat 1 took: draws first (AS), then seat 2 (KS), then seat 0 (QS)
    assert "AS" in G.hand(s, 1) and "KS" in G.hand(s, 2) and "QS" in G.hand(s, 0)
    assert G.view(s, None)["hand_counts"] == [3, 3, 3]


def test_refill_stops_when_stock_runs_out_and_leads_are_capped():
    hands = [["9H", "7C", "8C"], ["JH", "6C", "6D"]]
    s = start(2, hands, "8S", options={"target": 120})
    # leave exactly one card to draw (the trump card)
    s = dataclasses.replace(s, stock_pos=len(s.stock) - 1)
    s = play(s, lead("7C", "8C"), throw("6C", "6D"))  # seat 0 takes, draws the trump card
    assert G.view(s, None)["hand_counts"] == [2, 1]
    assert G.view(s, None)["stock"] == 0 and G.view(s, None)["max_lead"] == 1
    with pytest.raises(IllegalAction, match="at most 1 card"):
        G.apply(s, lead("9H", "8S"))


def test_empty_hands_sit_out_and_lead_passes_on():
    hands = [["9H", "7C", "8C"], ["JH", "6C", "6D"], ["10H", "QH", "7D"]]
    s = start(3, hands, "8S", dealer=2, options={"target": 120})
    s = dataclasses.replace(
        s, stock_pos=len(s.stock), hands=(("9H",), (), ("10H", "QH"))
    )
    s = play(s, lead("9H"))
    assert G.to_act(s) == 2  # seat 1 has no cards: skipped
    s = G.apply(s, beat("10H"))
    assert G.to_act(s) == 2 and G.view(s, None)["leader"] == 2
    s = G.apply(s, lead("QH"))
    # nobody else holds cards: seat 2 takes its own lead, then all is played
    assert G.deal_over(s) and G.deal_scores(s)["end"] == "exhausted"


# ----- declaring ---------------------------------------------------------------
def _declare_ready():
    """Seat 0 leads WEAK, seat 1 will beat it with STRONG: a 41-point trick."""
    return start(2, [WEAK, STRONG], "8S", stock=["6C", "7C", "6D", "7D", "6H", "7H"])


def test_declare_offered_right_after_taking_when_it_could_reach_31():
    s = _declare_ready()
    s = play(s, lead(*WEAK), beat(*STRONG))
    v = G.view(s, None)
    assert v["phase"] == "declare" and G.to_act(s) == 1
    assert G.legal_actions(s) == [DECLARE, PASS]
    assert G.view(s, None)["hand_counts"] == [0, 0]  # before the refill


def test_declare_31_or_more_wins_the_bank():
    s = _declare_ready()
    s = play(s, lead(*WEAK), beat(*STRONG), DECLARE)
    sc = G.deal_scores(s)
    assert G.deal_over(s) and sc["end"] == "declared" and sc["winner"] == 1
    assert sc["declaration"]["points"] == 41
    assert sc["seats"] == [-10, 10] and sc["bank"] == 0
    assert sc["round_over"] and sc["next_dealer"] == 1


def test_declare_not_offered_when_it_cannot_reach_the_target():
    # all face up: exactly 41 points are known to everybody
    for target, phase in ((42, "play"), (41, "declare")):
        s = start(2, [WEAK, STRONG], "8S", options={"target": target})
        s = play(s, lead(*WEAK), beat(*STRONG))
        assert G.view(s, None)["phase"] == phase


def test_failed_declaration_pays_what_the_bank_holds():
    # seat 1 takes a face-down-heavy trick: bound says it could reach 31, real points do not
    hands = [["9H", "7C", "8C"], ["10H", "6C", "6D"], ["AC", "AD", "7D"]]
    s = start(3, hands, "8S", dealer=2, chips=[100, 100, 100])
    s = play(s, lead("9H"), beat("10H"), throw("7D"))  # 10 face up + 11 bound + 0 = 21 < 31
    assert G.view(s, None)["phase"] == "play"  # not offered
    s = start(3, hands, "8S", dealer=2, chips=[100, 100, 100], options={"target": 21})
    s = play(s, lead("9H"), beat("10H"), throw("7D"))
    assert G.view(s, None)["phase"] == "declare"
    s = G.apply(s, DECLARE)  # 10 points < 21
    sc = G.deal_scores(s)
    assert sc["end"] == "failed_declaration" and sc["declaration"]["points"] == 10
    assert sc["declaration"]["paid"] == 30
    assert sc["seats"] == [-10, -40, -10] and sc["bank"] == 60
    assert sc["next_dealer"] == 1 and not sc["round_over"]


def test_declaration_shows_face_down_cards_and_needs_them_revealed():
    hands = [["9H", "7C", "8C"], ["10H", "6C", "6D"], ["AC", "AD", "7D"]]
    s = start(3, hands, "8S", dealer=2, options={"target": 21})
    s = play(s, lead("9H"), beat("10H"))
    s = G.apply(s, throw("AD"))  # face down: 10 + 11 = 21
    partial = substitute(s, {"AD": "?7"})  # another seat's state: the throw is a token
    with pytest.raises(NeedReveal) as e:
        G.apply(partial, DECLARE)
    assert e.value.tokens == ["?7"]
    assert G.view(partial, 0) == G.view(s, 0)  # unchanged
    revealed = G.apply(substitute(partial, {"?7": "AD"}), DECLARE)
    assert G.deal_scores(revealed)["end"] == "declared"
    assert G.view(revealed, 0)["declaration"]["cards"] == ["AD", "9H", "10H"]


def test_a_declaration_that_cannot_fail_is_offered_whatever_the_stack():
    """Seed: „Gracz, który pobrał wziątkę ma prawo „ujawnić się"" — every
    taker has the right; 41 face-up points cannot fall short of 31, so a stack
    below the bank is no reason to refuse."""
    s = _declare_ready()
    s = dataclasses.replace(s, chips=(100, 15))  # bank holds 20
    s = play(s, lead(*WEAK), beat(*STRONG))
    assert G.view(s, None)["phase"] == "declare"
    sc = G.deal_scores(G.apply(s, DECLARE))
    assert sc["end"] == "declared" and sc["winner"] == 1


def test_a_declaration_that_could_fail_and_not_be_paid_is_refused():
    hands = [["9H", "7C", "8C"], ["10H", "6C", "6D"], ["AC", "AD", "7D"]]
    s = start(3, hands, "8S", dealer=2, chips=[100, 15, 100], options={"target": 21})
    s = play(s, lead("9H"), beat("10H"), throw("7D"))  # 10 sure + a face-down card: may reach 21, may not
    assert G.view(s, None)["bank"] == 30 and G.view(s, None)["chips"][1] == 5
    assert G.view(s, None)["phase"] == "play"
    with pytest.raises(IllegalAction, match="nothing to declare"):
        G.apply(s, DECLARE)
    # with the stack to pay for a failure the same declaration is offered
    s = start(3, hands, "8S", dealer=2, chips=[100, 40, 100], options={"target": 21})
    s = play(s, lead("9H"), beat("10H"), throw("7D"))
    assert G.view(s, None)["phase"] == "declare"


def test_pass_goes_on_to_the_refill_and_taker_leads():
    s = _declare_ready()
    s = play(s, lead(*WEAK), beat(*STRONG), PASS)
    assert G.view(s, None)["hand_counts"] == [3, 3] and G.to_act(s) == 1
    # the taker fills up first, then the next player
    assert G.hand(s, 1) == ["6C", "7C", "6D"] and G.hand(s, 0) == ["7D", "6H", "7H"]


# ----- bessa -------------------------------------------------------------------------
def test_bessa_three_trumps_takes_the_bank():
    s = start(3, [["9H", "7C", "8C"], ["6S", "9S", "JS"], ["AC", "AD", "7D"]], "8S", dealer=2)
    s = G.apply(s, lead("9H"))
    acts = G.legal_actions(s)
    assert {"type": "bessa", "cards": ["6S", "9S", "JS"]} in acts
    s = G.apply(s, {"type": "bessa", "cards": ["JS", "6S", "9S"]})
    # seat 2 holds three cards and has not played: it gets the window
    assert G.view(s, None)["phase"] == "bessa" and G.to_act(s) == 2
    assert G.legal_actions(s) == [PASS]
    s = G.apply(s, PASS)
    sc = G.deal_scores(s)
    assert sc["end"] == "bessa" and sc["winner"] == 1 and sc["seats"] == [-10, 20, -10]
    assert G.view(s, 0)["bessas"] == [{"seat": 1, "cards": ["JS", "6S", "9S"]}]


def test_bessa_three_aces():
    s = start(2, [["AH", "AC", "AD"], ["9H", "7C", "8C"]], "8S", dealer=1)
    assert {"type": "bessa", "cards": ["AC", "AD", "AH"]} in G.legal_actions(s)
    s = G.apply(s, {"type": "bessa", "cards": ["AC", "AD", "AH"]})
    # seat 1 has three cards and may answer; it has no bessa
    assert G.legal_actions(s) == [PASS]
    s = G.apply(s, PASS)
    assert G.deal_scores(s)["winner"] == 0


def test_not_a_bessa_refused():
    s = start(2, [["AH", "AC", "KD"], ["9H", "7C", "8C"]], "8S", dealer=1)
    with pytest.raises(IllegalAction, match="no bessa"):
        G.apply(s, {"type": "bessa", "cards": ["AH", "AC", "KD"]})
    with pytest.raises(IllegalAction, match="you don't hold AS"):
        G.apply(s, {"type": "bessa", "cards": ["AH", "AC", "AS"]})


def test_bessa_only_with_three_cards_after_deal_or_refill():
    s = start(2, [["6S", "9S", "JS"], ["9H", "7C", "8C"]], "8S", dealer=0, options={"target": 120})
    s = dataclasses.replace(s, stock_pos=len(s.stock))  # no refill will come
    s = play(s, lead("9H"), throw("JS"), lead("7C"))
    assert G.hand(s, 0) == ["6S", "9S"] and G.to_act(s) == 0
    assert all(a["type"] != "bessa" for a in G.legal_actions(s))
    with pytest.raises(IllegalAction, match="three cards in hand"):
        G.apply(s, {"type": "bessa", "cards": ["6S", "9S", "JS"]})


def test_several_bessas_earliest_wins_unless_a_later_one_beats_it():
    # seat 1 leads-left: seat 1 shows three small trumps; seat 2 holds three higher trumps
    hands = [["AH", "AC", "AD"], ["6S", "7S", "9S"], ["KS", "10S", "AS"]]
    s = start(3, hands, "8S", dealer=0)
    s = G.apply(s, {"type": "bessa", "cards": ["6S", "7S", "9S"]})
    assert G.to_act(s) == 2
    acts = G.legal_actions(s)
    assert {"type": "bessa", "cards": ["KS", "10S", "AS"]} in acts and PASS in acts
    s2 = G.apply(s, {"type": "bessa", "cards": ["KS", "10S", "AS"]})
    assert G.to_act(s2) == 0  # seat 0 still to answer: three aces do not beat trumps
    assert G.legal_actions(s2) == [PASS]
    with pytest.raises(IllegalAction, match="does not beat seat 2's bessa"):
        G.apply(s2, {"type": "bessa", "cards": ["AH", "AC", "AD"]})
    s2 = G.apply(s2, PASS)
    assert G.deal_scores(s2)["winner"] == 2
    # if the later holder declines, the earliest wins
    s3 = play(s, PASS, PASS)
    assert G.deal_scores(s3)["winner"] == 1


def test_earlier_bessa_wins_when_later_does_not_beat_it():
    hands = [["9H", "7C", "8C"], ["KS", "10S", "AS"], ["6S", "7S", "9S"]]
    s = start(3, hands, "8S", dealer=0)
    s = G.apply(s, {"type": "bessa", "cards": ["KS", "10S", "AS"]})
    with pytest.raises(IllegalAction, match="does not beat"):
        G.apply(s, {"type": "bessa", "cards": ["6S", "7S", "9S"]})
    s = play(s, PASS, PASS)
    assert G.deal_scores(s)["winner"] == 1


def test_players_who_already_played_get_no_bessa_window():
    hands = [["9H", "7C", "8C"], ["JH", "6C", "6D"], ["6S", "7S", "9S"]]
    s = start(3, hands, "8S", dealer=2)
    s = play(s, lead("9H"), throw("6C"), {"type": "bessa", "cards": ["6S", "7S", "9S"]})
    assert G.deal_over(s) and G.deal_scores(s)["winner"] == 2


def test_bessa_option_off():
    s = start(2, [["6S", "9S", "JS"], ["9H", "7C", "8C"]], "8S", dealer=1, options={"bessa": False})
    assert all(a["type"] != "bessa" for a in G.legal_actions(s))
    with pytest.raises(IllegalAction, match="bessa=false"):
        G.apply(s, {"type": "bessa", "cards": ["6S", "9S", "JS"]})


# ----- exhaustion, cannot pay ---------------------------------------------------------
def _play_out(s):
    """Play to the end never declaring, never showing a bessa."""
    while not G.deal_over(s):
        acts = [a for a in G.legal_actions(s) if a["type"] not in ("declare", "bessa")]
        s = G.apply(s, acts[0])
    return s


def test_exhaustion_doubles_the_bank_and_deal_passes_left():
    s = G.start(3, seed=5, dealer=1, options={"target": 120, "bessa": False}, chips=[100] * 3, bank=5)
    s = _play_out(s)
    sc = G.deal_scores(s)
    assert sc["end"] == "exhausted" and sc["next_dealer"] == 2 and not sc["round_over"]
    # bank 5 + 30 antes = 35; share ceil(35/3) = 12 each -> 71
    assert sc["bank"] == 71 and sc["seats"] == [-22, -22, -22]
    assert sum(G.view(s, None)["hand_counts"]) == 0 and G.view(s, None)["stock"] == 0


def test_exhaustion_unpayable_ends_match_and_returns_the_bank():
    s = G.start(3, seed=5, dealer=1, options={"target": 120, "bessa": False}, chips=[100, 15, 100], bank=5)
    s = _play_out(s)
    sc = G.deal_scores(s)
    # bank 35 split 12 / 12 / 11, odd chips from the left of dealer 1: seats 2, 0
    assert sc["end"] == "unpayable" and sc["match_over"] and sc["bank"] == 0
    assert G.view(s, None)["chips"] == [90 + 12, 5 + 11, 90 + 12]
    assert sum(G.view(s, None)["chips"]) == 100 + 15 + 100 + 5


def test_ante_unpayable_refused_at_start():
    with pytest.raises(IllegalAction, match="seat 1 cannot pay the ante"):
        G.start(2, seed=1, chips=[100, 5])


# ----- the match --------------------------------------------------------------------
def test_match_winner_deals_next_round_and_antes_only_at_round_start():
    m = G.new_match(2, seed=1)
    s = G.start_deal(m, deck=make_deck(2, [STRONG, WEAK], "8S"))  # dealer 0: seat 1 leads
    s = play(s, lead(*WEAK), beat(*STRONG), DECLARE)
    m = G.end_deal(m, s)
    assert m.dealer == 0 and m.chips == [510, 490] and m.bank == 0 and m.extra["rounds_played"] == 1
    assert G.deal_context(m)["antes"] is True
    assert m.scores == [10, -10] and len(m.history) == 1 and m.deal_index == 1


def test_failed_declarer_deals_next_deal_same_round_no_antes():
    m = G.new_match(3, seed=1, options={"target": 21})
    deck = make_deck(3, [["9H", "7C", "8C"], ["10H", "6C", "6D"], ["AC", "AD", "7D"]], "8S", dealer=0)
    s = G.start_deal(m, deck=deck)
    s = play(s, lead("10H"), throw("7D"), throw("7C"))  # seat 1 leads (left of dealer 0)
    s = G.apply(s, DECLARE)
    m = G.end_deal(m, s)
    assert m.dealer == 1 and m.bank == 60 and m.extra["rounds_played"] == 0
    assert G.deal_context(m)["antes"] is False
    s2 = G.start_deal(m)
    assert G.view(s2, None)["bank"] == 60 and G.view(s2, None)["chips"] == m.chips


def test_match_ends_after_rounds_and_chips_are_conserved():
    import random

    m = G.new_match(4, seed=2, options={"rounds": 2})
    rng = random.Random(2)
    while not m.over:
        s = G.start_deal(m)
        while not G.deal_over(s):
            s = G.apply(s, rng.choice(G.legal_actions(s)))
        m = G.end_deal(m, s)
        assert sum(m.chips) + m.bank == 2000
    res = G.match_result(m)
    assert res["chips"] == m.chips and (m.extra["rounds_played"] == 2 or m.history[-1]["match_over"]
                                        or min(m.chips) < 10)
    if res["winner"] is not None:
        assert m.chips[res["winner"]] == max(m.chips)
    with pytest.raises(IllegalAction, match="match is over"):
        G.start_deal(m)


def test_match_ends_when_a_player_cannot_pay_the_next_ante():
    m = G.new_match(2, seed=1, options={"chips": 30, "ante": 10})
    stacks = []
    while not m.over:
        assert m.dealer == 0  # seat 0 keeps winning, so keeps dealing; seat 1 leads
        s = G.start_deal(m, deck=make_deck(2, [STRONG, WEAK], "8S"))
        s = play(s, lead(*WEAK), beat(*STRONG), DECLARE)
        m = G.end_deal(m, s)
        stacks.append(m.chips)
    assert stacks == [[40, 20], [50, 10], [60, 0]]
    assert m.extra["rounds_played"] == 3 and G.match_result(m)["winner"] == 0


# ----- options ---------------------------------------------------------------------
def test_options_defaults_and_checks():
    assert G.default_options(4) == {"ante": 10, "rounds": 5, "chips": 500, "target": 31, "bessa": True}
    with pytest.raises(IllegalAction, match="unknown option"):
        G.options(2, {"pairs": True})
    with pytest.raises(IllegalAction, match="ante must be at least 1"):
        G.options(2, {"ante": 0})
    with pytest.raises(IllegalAction, match="must cover the ante"):
        G.options(2, {"chips": 5})
    with pytest.raises(IllegalAction, match="target"):
        G.options(2, {"target": 121})


# ----- bad input -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "action, message",
    [
        ("lead 9H", "is a dict"),
        ({"type": "drop"}, "unknown action type"),
        ({}, "unknown action type"),
        ({"type": "lead"}, "must name its cards"),
        ({"type": "lead", "cards": "9H"}, "must be a list"),
        ({"type": "lead", "cards": ["ZZ"]}, "not a bura card"),
        ({"type": "lead", "cards": ["2H"]}, "not a bura card"),
        ({"type": "lead", "cards": [9]}, "not a bura card"),
        ({"type": "lead", "cards": []}, "at least one card"),
        ({"type": "lead", "cards": ["9H", "9H"]}, "named twice"),
        ({"type": "lead", "cards": ["9H"], "seat": 1}, "seat 0's turn, not seat 1's"),
        ({"type": "lead", "cards": ["9H"], "seat": True}, "seat must be"),
        ({"type": "lead", "cards": ["9H"], "meld": 1}, "no field 'meld'"),
        ({"type": "pass", "cards": []}, "no field 'cards'"),
        ({"type": "lead", "cards": ["AS"]}, "you don't hold AS"),
        ({"type": "lead", "cards": ["9H", "KH", "7C"]}, "one suit"),
        ({"type": "declare"}, "nothing to declare"),
        ({"type": "pass"}, "nothing to pass"),
    ],
)
def test_bad_actions_refused_and_state_unchanged(action, message):
    s = start(2, H2, "6S", dealer=1)
    before = G.view(s, 0), G.hand(s, 0), G.hand(s, 1)
    with pytest.raises(IllegalAction, match=message):
        G.apply(s, action)
    assert (G.view(s, 0), G.hand(s, 0), G.hand(s, 1)) == before


def test_action_after_deal_over_refused():
    s = _declare_ready()
    s = play(s, lead(*WEAK), beat(*STRONG), DECLARE)
    assert G.to_act(s) == -1 and G.legal_actions(s) == []
    with pytest.raises(IllegalAction, match="deal is over"):
        G.apply(s, PASS)


def test_bad_decks_and_seats_refused():
    with pytest.raises(IllegalAction, match="36 cards"):
        G.start(2, deck=bura_deck()[:-1])
    with pytest.raises(IllegalAction, match="twice"):
        G.start(2, deck=bura_deck()[:-1] + ["6C"])
    with pytest.raises(IllegalAction, match="not a bura card"):
        G.start(2, deck=["2C"] + bura_deck()[1:])
    with pytest.raises(IllegalAction, match="dealer"):
        G.start(2, seed=1, dealer=2)
    with pytest.raises(IllegalAction, match="no seat"):
        G.view(G.start(2, seed=1), 5)


def test_hidden_trump_needs_reveal():
    deck = bura_deck()
    deck[6] = unknown(6)
    with pytest.raises(NeedReveal) as e:
        G.start(2, deck=deck)
    assert e.value.tokens == ["?6"]


# ----- views -------------------------------------------------------------------------
def test_view_shows_own_hand_only_and_public_information():
    s = start(3, [["9H", "7C", "8C"], ["JH", "6C", "6D"], ["10H", "QH", "7D"]], "8S", dealer=2)
    v = G.view(s, 0)
    for key in ("game", "seat", "players", "dealer", "to_act", "hand", "hand_counts", "deal_over",
                "trump", "stock", "trick", "tricks_taken", "bank", "chips", "phase"):
        assert key in v
    assert v["hand"] == ["7C", "8C", "9H"] and v["hand_counts"] == [3, 3, 3]
    text = repr(v)
    assert not any(c in text for c in ("JH", "6C", "6D", "10H", "QH", "7D"))
    spectator = G.view(s, None)
    assert spectator["hand"] == [] and "9H" not in repr(spectator) and spectator["trump"] == "8S"


# ----- the greedy player --------------------------------------------------------------
def _greedy(state):
    import random

    from p2pcards.bots.greedy import bura as greedy

    return greedy.choose(G, state, random.Random(0))


def test_greedy_shows_a_bessa():
    s = start(2, [["6S", "9S", "JS"], ["9H", "7C", "8C"]], "8S")
    assert _greedy(s) == {"type": "bessa", "cards": ["6S", "9S", "JS"]}


def test_greedy_declares_only_when_sure():
    s = play(_declare_ready(), lead(*WEAK), beat(*STRONG))
    assert _greedy(s) == DECLARE  # 41 face up
    # 10 face up + an unseen face-down card: could be 21, but not sure of 21
    hands = [["9H", "7C", "8C"], ["10H", "6C", "6D"], ["AC", "AD", "7D"]]
    s = start(3, hands, "8S", options={"target": 21})
    s = play(s, lead("9H"), beat("10H"), throw("AD"))
    assert G.view(s, None)["phase"] == "declare" and _greedy(s) == PASS


def test_greedy_beats_cheaply_and_throws_low_when_it_cannot_beat():
    s = start(2, [["9H", "KC", "7C"], ["10H", "JH", "6S"]], "8S")
    s = G.apply(s, lead("9H"))
    assert _greedy(s) == beat("JH")  # the cheapest beater, no trump spent
    s = start(2, [["AH", "KC", "7C"], ["KD", "7D", "QD"]], "8S")
    s = G.apply(s, lead("AH"))
    assert _greedy(s) == throw("7D")  # cannot beat: the lowest card goes face down


def test_greedy_leads_an_unbeatable_scoring_card():
    # the only higher spade (the trump suit) is the turned AS, under the stock: nobody holds it
    s = start(2, [["10S", "7C", "8C"], ["9H", "6C", "6D"]], "AS")
    assert _greedy(s) == lead("10S")
