"""The table's command line, without a terminal: text → action for every game."""

import random
import re

import pytest

from p2pcards.games import GAME_IDS, get_game
from p2pcards.ui import commands as C


def engine(game_id):
    try:
        return get_game(game_id)
    except ModuleNotFoundError:  # engines land one by one
        pytest.skip(f"no {game_id} engine yet")


@pytest.mark.parametrize(
    "typed, code",
    [("KH", "KH"), ("kh", "KH"), ("K\u2665", "KH"), ("10s", "10S"), ("TD", "10D"), ("td", "10D"),
     ("jk", "JK"), ("Joker", "JK"), ("a\u2660", "AS"), ("9c", "9C")],
)
def test_cards_are_read_in_every_usual_spelling(typed, code):
    assert C.parse_card(typed) == code


@pytest.mark.parametrize("typed", ["KX", "1", "11H", "ZZ", "H", ""])
def test_a_non_card_says_how_to_write_one(typed):
    with pytest.raises(C.CommandError, match="is not a card: write a card as rank and suit"):
        C.parse_card(typed)


def reachable_states(game_id, players, seed, steps=300):
    """States of one random deal, each with its legal actions."""
    game = engine(game_id)
    rng = random.Random(seed)
    state = game.start_deal(game.new_match(players, seed=seed))
    for _ in range(steps):
        if game.deal_over(state):
            return
        legal = game.legal_actions(state)
        yield state, legal
        state = game.apply(state, rng.choice(legal))


@pytest.mark.parametrize("game_id, players", [("kanasta", 4), ("kanaszta", 2), ("warkocz", 3), ("bura", 4)])
@pytest.mark.parametrize("seed", [1, 2])
def test_every_legal_action_round_trips_through_its_short_form(game_id, players, seed):
    checked = 0
    for state, legal in reachable_states(game_id, players, seed):
        # a canasta hand after taking the pile has hundreds of melds: a sample is enough
        for action in random.Random(seed).sample(legal, min(len(legal), 25)):
            line = C.format_action(game_id, action)
            assert C.parse(game_id, line, legal) == action, line
            # what Tab offers for the whole line is that move
            assert line in C.completions(game_id, line, legal)
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("game_id, players", [("kanasta", 4), ("kanaszta", 3), ("warkocz", 2), ("bura", 3)])
def test_completion_offers_exactly_the_legal_moves(game_id, players):
    for state, legal in reachable_states(game_id, players, 5, steps=60):
        offered = C.completions(game_id, "", legal)
        moves = [line for line in offered if C.parse(game_id, line, legal) in legal]
        table = [line for line in offered if line not in moves]
        assert sorted(moves) == sorted({C.format_action(game_id, a) for a in legal})
        assert set(table) <= {words[0] for words, _, _ in C.UI_COMMANDS}
        # a typed prefix narrows the offer to moves that start with it
        for line in moves[:5]:
            verb = line.split()[0]
            assert all(o.startswith(verb) for o in C.completions(game_id, verb + " ", legal))


def test_long_verbs_and_short_forms_make_the_same_action():
    legal = [{"type": "meld", "cards": ["KH", "KS", "KD"]}, {"type": "draw"}]
    for text in ("m KH KS KD", "meld kd ks kh", "M K\u2665 K\u2660 K\u2666"):
        assert C.parse("kanasta", text, legal) == legal[0]
    assert C.parse("kanasta", "dr", legal) == {"type": "draw"}
    assert C.parse("kanasta", "draw", legal) == {"type": "draw"}


def test_canasta_cards_alone_discard_one_or_meld_several():
    legal = [{"type": "meld", "cards": ["KH", "KS", "KD"]}, {"type": "discard", "cards": ["7C"]}]
    assert C.parse("kanasta", "kh ks kd", legal) == legal[0]
    assert C.parse("kanaszta", "7c", legal) == legal[1]


def test_meld_numbers_on_the_screen_start_at_one():
    legal = [{"type": "add", "meld": 1, "cards": ["KH"]}]
    assert C.parse("kanasta", "a 2 KH", legal) == legal[0]
    assert C.format_action("kanasta", legal[0]) == "a 2 KH"
    with pytest.raises(C.CommandError, match="which meld"):
        C.parse("kanasta", "a KH", legal)
    with pytest.raises(C.CommandError, match="numbered from 1"):
        C.parse("kanasta", "a 0 KH", legal)


def test_a_meld_number_is_checked_against_the_table_the_player_sees():
    view = {"melds": [{"cards": ["KH", "KS", "KD"]}, {"cards": ["7C", "7D", "7H"]}]}
    with pytest.raises(C.CommandError, match="no meld 3 on the table: they are numbered 1 to 2"):
        C.parse("kanasta", "a 3 KH", [], view)
    with pytest.raises(C.CommandError, match="no meld 1 on the table: there are none yet"):
        C.parse("kanaszta", "t 1", [], {"melds": []})
    assert C.parse("kanasta", "a 2 7S", [], view) == {"type": "add", "meld": 1, "cards": ["7S"]}


def test_kanaszta_discards_plainly_unless_told_crosswise():
    legal = [{"type": "discard", "cards": ["JK"]}, {"type": "discard", "cards": ["JK"], "freeze": True}]
    assert C.parse("kanaszta", "d JK", legal) == legal[0]
    assert C.parse("kanaszta", "d JK x", legal) == legal[1]
    assert C.parse("kanaszta", "x JK", legal) == legal[1]
    assert C.format_action("kanaszta", legal[1]) == "x JK"


def test_warkocz_plays_with_or_without_a_verb_and_names_the_rank_of_the_warkocz():
    legal = [{"type": "play", "cards": ["7H"]}, {"type": "play", "cards": ["9C"], "as": "7"}, {"type": "pass"}]
    assert C.parse("warkocz", "7h", legal) == legal[0]
    assert C.parse("warkocz", "pl 9C as 7", legal) == legal[1]
    assert C.parse("warkocz", "9C=7", legal) == legal[1]
    for word in ("p", "pas", "pass"):
        assert C.parse("warkocz", word, legal) == {"type": "pass"}
    with pytest.raises(C.CommandError, match="not a rank"):
        C.parse("warkocz", "pl 9C as Z", legal)


def test_bura_cards_alone_lead_or_beat_whichever_is_possible():
    assert C.parse("bura", "7c 9c", [{"type": "lead", "cards": ["7C", "9C"]}]) == {"type": "lead", "cards": ["7C", "9C"]}
    beat = [{"type": "beat", "cards": ["QS"]}, {"type": "throw", "cards": ["QS"]}]
    assert C.parse("bura", "qs", beat) == beat[0]
    assert C.parse("bura", "th qs", beat) == beat[1]
    assert C.parse("bura", "decl", [{"type": "declare"}, {"type": "pass"}]) == {"type": "declare"}
    assert C.parse("bura", "bessa AS AH AC", []) == {"type": "bessa", "cards": ["AS", "AH", "AC"]}


def test_a_move_that_is_not_legal_is_still_built_so_the_engine_can_say_why():
    assert C.parse("bura", "b AS", []) == {"type": "beat", "cards": ["AS"]}
    assert C.parse("kanaszta", "x JK", []) == {"type": "discard", "cards": ["JK"], "freeze": True}
    assert C.parse("kanaszta", "d 7C", []) == {"type": "discard", "cards": ["7C"]}


@pytest.mark.parametrize(
    "game_id, text, message",
    [
        ("bura", "zz", "unknown command 'zz'"),
        ("bura", "   ", "type a move or a command"),
        ("kanasta", "m", "which cards?"),
        ("kanasta", "d KH KS", "one card only"),
        ("warkocz", "p KH", "takes no cards"),
        ("kanaszta", "t KH QQ", "'QQ' is not a card"),
        ("warkocz", "pl 9C as", "as which rank"),
    ],
)
def test_nonsense_gets_an_explanation(game_id, text, message):
    with pytest.raises(C.CommandError, match=message):
        C.parse(game_id, text, [])


def test_two_matching_moves_are_not_guessed_between():
    legal = [{"type": "take_pile", "cards": ["KH", "KS"]}, {"type": "take_pile", "cards": [], "meld": 0}]
    with pytest.raises(C.CommandError, match=r"which one\? t 1 \| t KH KS"):
        C.parse("kanasta", "t", legal)
    assert C.parse("kanasta", "t 1", legal) == legal[1]
    # the same move listed twice is no question
    assert C.parse("kanasta", "t ks kh", legal + [{"type": "take_pile", "cards": ["KS", "KH"]}]) == legal[0]


def test_table_commands_are_recognised_before_moves():
    assert C.parse("bura", "help b", []) == C.UiCommand("help", "b")
    assert C.parse("bura", "chat dzie\u0144 dobry", []) == C.UiCommand("chat", "dzie\u0144 dobry")
    assert C.parse("warkocz", "rules", []) == C.UiCommand("rules")
    assert C.parse("kanasta", "Quit", []) == C.UiCommand("quit")
    assert C.parse("kanaszta", "hint", []) == C.UiCommand("hint")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_help_explains_every_command_and_game_word(game_id):
    full = C.help_text(game_id)
    for verb in C.verbs(game_id):
        assert verb.usage() in full
        for word in verb.words:
            assert verb.help in C.help_text(game_id, word)
    for word, text in get_game(game_id).glossary:
        assert text in C.help_text(game_id, word)
    with pytest.raises(C.CommandError, match="no command or word"):
        C.help_text(game_id, "frobnicate")


def test_game_words_are_explained_in_english():
    assert "pass" in C.help_text("warkocz", "pas")
    assert "row" in C.help_text("warkocz", "gag")
    assert "one move" in C.help_text("warkocz", "aria")
    assert "three trumps or three aces" in C.help_text("bura", "bessa")
    assert "7 or more" in C.help_text("kanaszta", "kanaszta")


def test_the_log_never_shows_a_hidden_card():
    game = engine("bura")
    names = ["Ann", "Bob"]
    assert C.describe(game, None, 0, {"type": "throw", "cards": ["AS", "KS"]}, names) == "Ann throws 2 cards face down"
    assert C.describe(game, None, 1, {"type": "beat", "cards": ["QS"]}, names) == "Bob beats with QS"
    assert C.describe(game, None, 1, {"type": "pass"}, names) == "Bob does not declare (pas)"
    w = engine("warkocz")
    assert C.describe(w, None, 0, {"type": "play", "cards": ["9C"], "as": "7"}, names) == "Ann plays 9C as 7"


def test_card_codes_in_free_text_are_found():
    parts = C.split_cards("Ann melds KH 10S JK; say OK 2H?")
    assert [p for p, card in parts if card] == ["KH", "10S", "JK", "2H"]
    assert "".join(p for p, _ in parts) == "Ann melds KH 10S JK; say OK 2H?"


def test_the_log_marks_a_warkocz_gag_exactly_when_the_row_ends():
    game = engine("warkocz")
    plays = gags = 0
    for seed in range(8):
        state, rng = game.start(players=3, seed=seed), random.Random(seed)
        while not game.deal_over(state):
            action = rng.choice(game.legal_actions(state))
            line = C.describe(game, state, game.to_act(state), action, ["A", "B", "C"])
            after = game.apply(state, action)
            if action["type"] == "play" and not game.deal_over(after):
                plays += 1
                gags += line.endswith("(gag)")
                assert line.endswith("(gag)") == (not game.view(after, None)["row"]), line
            state = after
    assert plays > 100 and 0 < gags < plays


def test_canastas_are_named_in_english_and_in_the_players_words():
    assert C.canasta_word("kanasta", "mixed") == "mixed canasta (brudna)"
    assert C.canasta_word("kanasta", "clean") == "clean canasta (czysta)"
    assert C.canasta_word("kanasta", "joker") == "joker canasta"
    assert C.canasta_word("kanaszta", "mixed") == "mixed canasta (kevert)"
    assert C.canasta_word("kanaszta", "natural") == "natural canasta (tiszta)"


from hypothesis import given, settings, strategies as st  # noqa: E402

_WORDS = st.sampled_from(["m", "d", "a", "t", "sw", "x", "r3", "pl", "p", "l", "b", "th", "decl", "bessa", "as", "=",
                          "KH", "10s", "9C=7", "JK", "2", "0", "-1", "99999999999999999999", "\u2665", "k\u2665",
                          "help", "chat", "x", "freeze", "", " ", "\t", "\u00e9", "??", "?3"])


@settings(max_examples=300, deadline=None)
@given(game_id=st.sampled_from(GAME_IDS), words=st.lists(st.one_of(_WORDS, st.text(max_size=6)), max_size=6))
def test_any_input_is_a_command_a_move_or_an_explanation(game_id, words):
    text = " ".join(words)
    try:
        result = C.parse(game_id, text, [], {"melds": []})
    except C.CommandError as exc:
        assert str(exc)
    else:
        assert isinstance(result, C.UiCommand) or result["type"] in {v.type for v in C.verbs(game_id)}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_cards_typed_alone_make_a_move_the_game_has_a_verb_for(game_id):
    game = engine(game_id)
    types = {verb.type for verb in game.verbs}
    for count in (1, 2, 3):
        meant = game.card_moves(count)
        assert set(meant) <= types, (count, meant)


@pytest.mark.parametrize("lang", ["en", "pl", "hu"])
def test_the_table_commands_are_taught_in_the_players_words_first(lang):
    """help names each table command by the player's word, the English one
    after it; Tab offers the player's word; every word, of any language, is
    understood in every language."""
    from p2pcards import i18n

    i18n.set_language(lang)
    try:
        text = C.help_text("kanasta")
        for words, _usage, _help in C.UI_COMMANDS:
            name = words[0]
            local = C.LOCAL_WORDS[name].get(lang, (name,))[0]
            shown = name if lang == "en" else f"{local} ({name})"
            assert re.search(rf"^  {re.escape(shown)}( |$)", text, re.M), (lang, shown)
            assert C.help_text("kanasta", local).startswith(shown)
            assert local in C.completions("kanasta", "", [])
            for typed in {name, local, *(w for ws in C.LOCAL_WORDS[name].values() for w in ws)}:
                assert C.parse("kanasta", typed.upper() if typed == local else typed, []) == C.UiCommand(name)
    finally:
        i18n.set_language("en")


def test_no_local_command_word_is_a_move_or_a_card():
    from p2pcards.games import GAME_IDS

    moves = {w for game in GAME_IDS for verb in C.verbs(game) for w in verb.words}
    for name, by_language in C.LOCAL_WORDS.items():
        assert name in {words[0] for words, _u, _h in C.UI_COMMANDS}
        for words in by_language.values():
            for word in words:
                assert word not in moves and word == word.lower(), word
                with pytest.raises(C.CommandError):
                    C.parse_card(word)
