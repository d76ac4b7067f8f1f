"""An engine's refusal is worded for the player to act ("you hold 8H and must
play it"); the audit tells it of that player by name in the third person
("bot1 held 8♥ and had to play it"), in every language, from the form the
engine gives beside it (``N_(..., about=N_(...))``)."""

import ast
import string
from pathlib import Path

import pytest

from p2pcards import i18n
from p2pcards.audit import hidden_rule
from p2pcards.games import IllegalAction, get_game
from p2pcards.i18n import N_

ROOT = Path(__file__).resolve().parent.parent / "p2pcards"


def _fields(message: str) -> set[str]:
    return {name for _text, name, _spec, _conv in string.Formatter().parse(message) if name}


def _told_forms():
    """Every ``N_("...", about=N_("..."), ...)`` of the package: (file, message, about)."""
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_":
                about = next((k.value for k in node.keywords if k.arg == "about"), None)
                if about is not None:
                    yield path.name, node.args[0].value, about.args[0].value


def test_every_third_person_form_has_the_fields_of_its_refusal_and_a_name():
    forms = list(_told_forms())
    assert len(forms) >= 5
    for where, message, about in forms:
        assert "{name}" in about and not about.lower().startswith(("you", "your")), (where, about)
        assert _fields(about) <= _fields(message) | {"name"}, (where, message, about)


@pytest.mark.parametrize("language", ["en", "pl", "hu"])
def test_a_false_pass_is_told_of_the_player(language):
    game = get_game("warkocz")
    # seat 1 passes holding the 8 the row needs (seat 0 led a 7 and could not go on)
    state = game.start(3, seed=3)
    state.hands = [["7H", "KD"], ["8H", "2D"], ["3H", "4D"]]
    state.to_act, state.need = 0, -1
    state = game.apply(state, {"type": "play", "cards": ["7H"]})
    state = game.apply(state, {"type": "pass"})  # seat 0 has no 8
    assert game.to_act(state) == 1
    with pytest.raises(IllegalAction) as refused:
        game.apply(state, {"type": "pass"})
    i18n.set_language(language)
    detail = hidden_rule(refused.value, "bot1")
    assert str(detail) == ("with every card known, this move is illegal: bot1 held 8H and had to play it: "
                           "the row needed an 8")  # the JSON's English
    shown = detail.translated()
    assert "bot1" in shown and "8H" in shown
    words = set(shown.replace(":", " ").split())
    assert not words & {"you", "masz", "musisz", "nálad", "kell"}, shown  # no second person, no English
    if language != "en":
        assert not words & {"held", "had", "the", "row"}, shown


def test_a_refusal_without_a_third_person_form_is_kept_as_it_is():
    detail = hidden_rule(IllegalAction(N_("the row needs {need}, not {played}", need="8", played="9")), "bot1")
    assert str(detail) == "with every card known, this move is illegal: the row needs 8, not 9"
