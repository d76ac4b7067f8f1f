"""Moves, engine errors and card letters in the player's language.

Each engine words its own moves (``Game.describe_action``); the narration
picks the person. English stays as it was (the log, JSON and the other tests
read it); Polish and Hungarian must leave no English verb behind, get the
plurals right, and read the local rank letters back to the same move.
"""

from __future__ import annotations

import dataclasses
import random
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from p2pcards import cards, i18n
from p2pcards.cli import build_parser
from p2pcards.games import IllegalAction, get_game
from p2pcards.games.canasta import Meld
from p2pcards.protocol import narration
from p2pcards.protocol.machine import ABORT
from p2pcards.ui import commands as C
from p2pcards.ui.render import Painter

NAMES = ["Ada", "Bea", "Cyd", "Dan"]

# English words of the move lines; none may be left in a Polish or Hungarian one
# ("pas", "gag" and "bessa" are the players' own words in every language).
# (Words that are Polish or Hungarian too, such as "do", "a", "to", "as", are left out.)
ENGLISH = set("""draw draws meld melds take takes pile top card cards discard discards crosswise frozen
add adds swap swaps for the and lay lays red has have play plays pass passes lead leads beat beats
with throw throws face down declare declares does not show shows an onto its you""".split())
_CODE = re.compile(r"^(10|[2-9JQKA])[CDHS]$|^JK$")


@pytest.fixture
def lang():
    """Set the language for one test; English again afterwards."""
    yield i18n.set_language
    i18n.set_language("en")
    cards.set_rank_style("local")


def english_left(line: str) -> set[str]:
    words = re.findall(r"[^\W\d]+", " ".join(w for w in line.split() if not _CODE.match(w.strip("():,"))))
    return {w for w in words if w.lower() in ENGLISH and w not in NAMES}


def with_pile(game_id: str, size: int):
    """A deal whose discard pile holds ``size`` cards, KS on top."""
    state = get_game(game_id).start(players=2, seed=3)
    return dataclasses.replace(state, pile=["5H"] * (size - 1) + ["KS"])


def cases():
    """(game, state, action) for every branch of every engine's wording."""
    kanasta, kanaszta, warkocz, bura = (get_game(g) for g in ("kanasta", "kanaszta", "warkocz", "bura"))
    pile = with_pile("kanasta", 6)
    out = []
    for game in (kanasta, kanaszta):
        out += [(game, None, {"type": "draw"}),
                (game, None, {"type": "meld", "cards": ["KH", "KS", "JK"]}),
                (game, None, {"type": "add", "meld": 1, "cards": ["7C"]}),
                (game, None, {"type": "add", "cards": ["7C"]}),
                (game, None, {"type": "discard", "cards": ["4C"]}),
                (game, None, {"type": "red3", "cards": ["3H"]}),
                (game, None, {"type": "red3", "cards": ["3H", "3D"]}),
                (game, None, {"type": "red3", "cards": []})]
        for state in (None, pile):
            out += [(game, state, {"type": "take_pile"}),
                    (game, state, {"type": "take_pile", "cards": ["KH", "KD"]}),
                    (game, state, {"type": "take_pile", "meld": 0}),
                    (game, state, {"type": "take_pile", "meld": 0, "cards": ["KH"]})]
    out += [(kanaszta, None, {"type": "discard", "cards": ["JK"], "freeze": True}),
            (kanasta, None, {"type": "swap", "meld": 0, "wild": "JK", "cards": ["KH"]}),
            (kanasta, None, {"type": "swap", "meld": 2, "wild": "2C", "cards": ["KH", "5H", "5S"]}),
            (warkocz, None, {"type": "play", "cards": ["7H"]}),
            (warkocz, None, {"type": "play", "cards": ["KH"]}),
            (warkocz, None, {"type": "play", "cards": ["9C"], "as": "7"}),
            (warkocz, None, {"type": "play", "cards": ["9C"], "as": "K"}),
            (warkocz, None, {"type": "pass"}),
            (bura, None, {"type": "lead", "cards": ["7C", "9C"]}),
            (bura, None, {"type": "beat", "cards": ["QS"]}),
            (bura, None, {"type": "throw", "cards": ["?3", "?7"]}),
            (bura, None, {"type": "throw", "cards": ["?3"]}),
            (bura, None, {"type": "declare"}),
            (bura, None, {"type": "pass"}),
            (bura, dataclasses.replace(bura.start(players=3, seed=1), phase="bessa"), {"type": "pass"}),
            (bura, None, {"type": "bessa", "cards": ["AS", "AH", "AD"]})]
    return out


def test_the_english_words_are_those_the_table_always_said():
    kanasta, warkocz, bura = get_game("kanasta"), get_game("warkocz"), get_game("bura")
    pile = with_pile("kanasta", 6)
    say = narration.describe
    assert say(kanasta, pile, 0, {"type": "take_pile", "cards": ["KH", "KD"]}, NAMES) == \
        "Ada takes the pile (6 cards) and melds its top KS with KH KD"
    assert say(kanasta, None, 1, {"type": "take_pile", "meld": 0}, NAMES) == \
        "Bea takes the pile and melds its top card onto meld 1"
    assert say(kanasta, None, 0, {"type": "swap", "meld": 0, "wild": "JK", "cards": ["KH"]}, ["You"]) == \
        "You swap KH for the JK in meld 1 and meld JK"
    assert say(kanasta, None, 0, {"type": "red3", "cards": []}, ["You"]) == "You have no red 3 to lay"
    assert say(get_game("kanaszta"), None, 0, {"type": "discard", "cards": ["JK"], "freeze": True}, NAMES) == \
        "Ada discards JK crosswise (pile frozen)"
    assert say(warkocz, None, 0, {"type": "play", "cards": ["KH"]}, ["You"]) == "You play KH (gag)"
    assert say(bura, None, 2, {"type": "throw", "cards": ["?1"]}, NAMES) == "Cyd throws 1 card face down"
    assert say(bura, None, 0, {"type": "pass"}, ["You"]) == "You do not declare (pas)"
    # The reader's own seat reads in the second person, whatever its name.
    assert say(bura, None, 1, {"type": "declare"}, NAMES, me=1) == "You declare"


@pytest.mark.parametrize("language", ["pl", "hu"])
def test_every_move_of_every_engine_is_worded_without_english(lang, language):
    english = [(narration.describe(g, s, 0, a, NAMES), narration.describe(g, s, 0, a, ["You"])) for g, s, a in cases()]
    lang(language)
    for (game, state, action), (theirs_en, yours_en) in zip(cases(), english):
        theirs = narration.describe(game, state, 0, action, NAMES)
        yours = narration.describe(game, state, 0, action, ["You"])
        for line, en in ((theirs, theirs_en), (yours, yours_en)):
            assert line != en and not english_left(line), (game.id, action, line)
            # the cards named stay codes (every screen shows them as cards); hidden ones are never named
            for c in action.get("cards") or []:
                assert (c in line) == cards.is_code(c), (line, c)
        assert "Ada" in theirs and "Ada" not in yours
        assert theirs != yours


@pytest.mark.parametrize("size, words", [(1, "(1 karta)"), (3, "(3 karty)"), (5, "(5 kart)"), (12, "(12 kart)"),
                                         (22, "(22 karty)")])
def test_polish_counts_take_the_plural_a_pole_would_use(lang, size, words):
    lang("pl")
    line = narration.describe(get_game("kanaszta"), with_pile("kanaszta", size), 1, {"type": "take_pile"}, NAMES)
    assert line == f"Bea bierze stos {words} i wykłada jego górną kartę KS"


def test_face_down_cards_are_counted_in_each_language(lang):
    bura = get_game("bura")
    throw = {"type": "throw", "cards": ["?1", "?2", "?3"]}
    lang("pl")
    assert narration.describe(bura, None, 0, throw, NAMES) == "Ada zrzuca 3 karty zakryte"
    assert narration.describe(bura, None, 0, {"type": "throw", "cards": ["?1"]}, ["You"]) == "Zrzucasz 1 kartę zakrytą"
    lang("hu")
    assert narration.describe(bura, None, 0, throw, NAMES) == "Ada lefordítva dob 3 lapot"
    assert narration.describe(bura, None, 0, throw, ["You"]) == "Lefordítva dobsz 3 lapot"


@pytest.mark.parametrize("language", ["pl", "hu"])
@pytest.mark.parametrize("game_id, players", [("kanasta", 4), ("kanaszta", 2), ("warkocz", 3), ("bura", 3)])
def test_a_whole_random_deal_is_narrated_without_an_english_verb(lang, language, game_id, players):
    game = get_game(game_id)
    lang(language)
    rng = random.Random(7)
    state = game.start_deal(game.new_match(players, seed=7))
    kinds = set()
    for _ in range(400):
        if game.deal_over(state):
            break
        action = rng.choice(game.legal_actions(state))
        seat = game.to_act(state)
        line = narration.describe(game, state, seat, action, NAMES, me=0)
        assert not english_left(line), line
        kinds.add(action["type"])
        state = game.apply(state, action)
    assert len(kinds) >= 2


def test_the_engines_messages_stay_english_and_are_shown_translated(lang):
    game = get_game("kanasta")
    state = game.start(players=2, seed=1)
    with pytest.raises(IllegalAction) as refused:
        game.apply(state, {"type": "discard", "cards": ["KH"]})
    english = str(refused.value)
    assert english.startswith("draw first")
    lang("pl")
    assert str(refused.value) == english  # what a log or a JSON output keeps
    assert i18n.shown(refused.value).startswith("najpierw dobierz")
    with pytest.raises(IllegalAction) as unknown:
        game.options(2, {"colour": 1})
    assert i18n.shown(unknown.value).startswith("nieznana opcja 'colour' gry kanasta")
    lang("hu")
    assert i18n.shown(refused.value).startswith("előbb húzz")


def test_warkocz_says_which_rank_is_needed_in_the_readers_words(lang):
    game = get_game("warkocz")
    state = game.start(players=2, seed=2)
    lead = next(a for a in game.legal_actions(state) if a["type"] == "play" and len(a["cards"]) == 1
                and a["cards"][0][:-1] in ("4", "5", "6"))
    state = game.apply(state, lead)
    wrong = next(c for c in game.hand(state, game.to_act(state))
                 if c != "9C" and c[:-1] not in (cards.rank(lead["cards"][0]),))
    try:
        game.apply(state, {"type": "play", "cards": [wrong]})
    except IllegalAction as exc:
        refused = exc
    else:  # the card happened to be the next rank: nothing to say
        pytest.skip("the next rank came up")
    assert re.search(r"the row needs an? \w+, not an? \w+", str(refused))
    lang("pl")
    assert re.fullmatch(r"rządek potrzebuje \w+, nie \w+", i18n.shown(refused))


def test_an_abort_read_from_the_log_is_put_into_the_readers_language(lang):
    payload = {"culprit": 1, "kind": "illegal-move", "detail": "you don't hold 7H"}
    english = narration.entry_line(ABORT, 0, payload, NAMES, 0)
    assert english == "GAME STOPPED by Ada: illegal-move by Bea: you don't hold 7H"
    lang("pl")
    assert narration.entry_line(ABORT, 0, payload, NAMES, 0) == \
        "GRA PRZERWANA (Ada): niedozwolony ruch, winny: Bea: nie masz 7H"
    # a peer's own words and an unknown kind are shown as written
    free = {"kind": "grumpy", "detail": "I do not like this table"}
    assert narration.entry_line(ABORT, 2, free, NAMES, 0) == \
        "GRA PRZERWANA (Cyd): grumpy: I do not like this table"
    assert i18n.known("the deal is over") == "rozdanie się skończyło"


def test_a_crafted_reason_costs_no_more_than_a_plain_one(lang):
    lang("hu")
    i18n.known("warm-up")
    # the opening of a known message, then its middle over and over: a backtracking
    # match would try every way of cutting it
    crafted = ("it is seat " + "1's turn, not seat " * 30)[:511] + "x"
    start = time.perf_counter()
    for _ in range(20):
        assert i18n.known(crafted) == crafted
    assert time.perf_counter() - start < 2.0


# ----- rank letters ------------------------------------------------------------------------

def local_line(line: str, language: str, rng: random.Random) -> str:
    """A typed move with every card in the local letters, in mixed case."""
    out = []
    for word in line.split():
        if _CODE.match(word):
            word = cards.display(word, ascii_only=True, lang=language)
            word = word.lower() if rng.random() < 0.5 else word
        out.append(word)
    return " ".join(out)


def legal_samples():
    for game_id, players in (("kanasta", 2), ("kanaszta", 2), ("warkocz", 3), ("bura", 3)):
        game = get_game(game_id)
        rng = random.Random(11)
        state = game.start_deal(game.new_match(players, seed=11))
        for _ in range(60):
            if game.deal_over(state):
                break
            legal = game.legal_actions(state)
            yield game_id, state, legal
            state = game.apply(state, rng.choice(legal))


SAMPLES = list(legal_samples())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(SAMPLES), st.sampled_from(["pl", "hu"]), st.randoms(use_true_random=False), st.data())
def test_a_move_typed_in_local_letters_is_the_same_move(sample, language, rng, data):
    game_id, _state, legal = sample
    action = data.draw(st.sampled_from(legal))
    typed = local_line(C.format_action(game_id, action), language, rng)
    # read in every language: the letters are unambiguous
    assert C.parse(game_id, typed, legal) == action, typed


@pytest.mark.parametrize("typed, code", [("DH", "QH"), ("dd", "QD"), ("WS", "JS"), ("BS", "JS"), ("\u00c1S", "AS"),
                                         ("\u00e1h", "AH"), ("10D", "10D"), ("KH", "KH"), ("JK", "JK"),
                                         ("D\u2665", "QH")])
def test_local_rank_letters_are_read_with_the_suit_last(typed, code):
    assert C.parse_card(typed) == code


@pytest.mark.parametrize("typed", ["WK", "BK", "D", "DX"])
def test_a_local_letter_with_no_suit_is_no_card(typed):
    with pytest.raises(C.CommandError):
        C.parse_card(typed)


def test_the_warkocz_rank_may_be_named_in_local_letters():
    legal = [{"type": "play", "cards": ["9C"], "as": "Q"}, {"type": "play", "cards": ["9C"], "as": "J"}]
    assert C.parse("warkocz", "pl 9C as D", legal) == legal[0]
    assert C.parse("warkocz", "9c=w", legal) == legal[1]


def test_ranks_local_shows_the_cards_in_the_players_letters(lang):
    build_parser().parse_args(["play", "warkocz", "--ranks", "local"])
    lang("pl")
    assert [cards.display(c) for c in ("JH", "QD", "KH", "AS", "10H", "JK")] == \
        ["W\u2665", "D\u2666", "K\u2665", "A\u2660", "10\u2665", "JK"]
    assert Painter().card("JH").out[-1][1] == "W\u2665"
    lang("hu")
    assert [cards.display(c) for c in ("JH", "QD", "AS")] == ["B\u2665", "D\u2666", "\u00c1\u2660"]
    assert cards.display("JH", ascii_only=True) == "BH"
    lang("en")
    assert cards.display("JH") == "J\u2665"  # English letters are the codes'
    lang("pl")
    line = narration.describe(get_game("warkocz"), None, 0, {"type": "play", "cards": ["9C"], "as": "Q"}, NAMES)
    assert line == "Ada wykłada 9C jako D"


def test_local_letters_by_default_and_the_english_ones_with_ranks_en(lang):
    lang("pl")
    assert cards.display("JH") == "W\u2665"
    assert build_parser().parse_args(["play", "warkocz"]).ranks == "local"
    for word in ("en", "english", "EN", "codes"):  # "codes": the name it had when it was the default
        args = build_parser().parse_args(["play", "warkocz", "--ranks", word])
        assert args.ranks == "en" and cards.display("QS") == "Q\u2660" and cards.display("JH") == "J\u2665"
        cards.set_rank_style("local")
    lang("hu")
    assert cards.display("QS") == "D\u2660"


def test_each_run_of_the_command_draws_as_it_asks(lang, monkeypatch, capsys):
    """One process, two runs (the tests run many): --ranks en in the first
    does not stay for the second."""
    from p2pcards import cli

    shown = []
    monkeypatch.setattr("p2pcards.cli.subcommands.cmd_play", lambda args: shown.append(cards.display("QH")))
    for argv in (["play", "bura", "--lang", "pl", "--ranks", "en"], ["play", "bura", "--lang", "pl"],
                 ["play", "bura", "--lang", "hu"], ["play", "bura", "--lang", "en"]):
        cli.main(argv)
    assert shown == ["Q\u2665", "D\u2665", "D\u2665", "Q\u2665"]


def test_what_the_log_keeps_holds_rank_codes_even_under_local_letters(lang):
    cards.set_rank_style("local")
    lang("pl")
    move = narration.narrate(get_game("warkocz"), None, 0, {"type": "play", "cards": ["9C"], "as": "Q"}, NAMES)
    assert str(move) == "Ada plays 9C as Q" and i18n.shown(move) == "Ada wykłada 9C jako D"
    kings = Meld(owner=0, by=0, rank="K", cards=["KH", "KS", "KD"], naturals=3, wilds=0)
    error = get_game("kanasta")._add_error(kings, "Q", 1, 0)
    assert str(error) == "Qs don't go into a meld of Ks"
    assert i18n.shown(error) == "D nie pasuje do kombinacji: K"


def test_a_reason_inside_a_reason_is_translated_and_a_huge_one_left_alone(lang):
    lang("pl")
    # the audit's words around an engine's: both known
    outer = "GAME STOPPED by {who}: {kind}: {detail}"
    assert i18n.known(outer.format(who="Ada", kind="x", detail="the deal is over")) == \
        "GRA PRZERWANA (Ada): x: rozdanie się skończyło"
    huge = "you don't hold " + "7H " * 5000
    start = time.perf_counter()
    assert i18n.known(huge) == huge
    assert time.perf_counter() - start < 0.5


@pytest.mark.parametrize("language,beat_queen,warkocz_as_jack", [("en", "b QS", "pl 9C as J"),
                                                                 ("pl", "b DS", "pl 9C as W"),
                                                                 ("hu", "b DS", "pl 9C as B")])
def test_the_moves_offered_name_the_cards_as_they_are_drawn(lang, language, beat_queen, warkocz_as_jack):
    """Tab, hint and moves offer the cards in the letters the hand shows;
    each line is read back as its move, and a player who began typing the
    code is offered the code."""
    from p2pcards.ui import commands as UC

    lang(language)
    beat = [{"type": "beat", "cards": ["QS"]}, {"type": "beat", "cards": ["AH"]}]
    assert UC.completions("bura", "", beat)[0] == beat_queen
    assert UC.parse("bura", beat_queen, beat) == beat[0]
    assert UC.completions("bura", "b q", beat) == ["b QS"]
    braid = [{"type": "play", "cards": ["9C"], "as": "J"}]
    assert UC.format_action("warkocz", braid[0]) == warkocz_as_jack
    assert UC.parse("warkocz", warkocz_as_jack, braid) == braid[0]
    if language == "hu":
        assert UC.format_action("bura", beat[1]) == "b \u00c1H"
    cards.set_rank_style("en")
    assert UC.format_action("bura", beat[0]) == "b QS"
