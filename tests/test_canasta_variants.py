"""The two canastas as one core: each game's actions reach their handlers
through a table, its differences are class data and public hooks declared
once in the core, and the core names no game."""

from __future__ import annotations

import inspect
import random
import pathlib

import pytest

from p2pcards.games import IllegalAction, get_game
from p2pcards.games import canasta
from p2pcards.games.base import State
from p2pcards.games.canasta import CanastaGame

ORDERS = {
    "kanasta": ("draw", "take_pile", "meld", "add", "swap", "red3", "discard"),
    "kanaszta": ("draw", "take_pile", "meld", "add", "red3", "discard"),
}


@pytest.mark.parametrize("game_id", sorted(ORDERS))
def test_each_action_type_has_a_handler_and_others_are_refused_by_name(game_id):
    game = get_game(game_id)
    assert tuple(game.handlers) == game.action_types == ORDERS[game_id]
    state = game.start(2, seed=1)
    other = "swap" if game_id == "kanaszta" else "pass"
    with pytest.raises(IllegalAction) as refused:
        game.apply(state, {"type": other})
    assert str(refused.value) == (f"unknown action type {other} (allowed: {', '.join(ORDERS[game_id])})")


@pytest.mark.parametrize("game_id", sorted(ORDERS))
def test_a_variant_answers_only_hooks_the_core_declares(game_id):
    """Every public method a canasta defines is a hook of the core, which
    says (in its docstring) what a variant answers."""
    cls = type(get_game(game_id))
    own = [name for name, value in vars(cls).items() if inspect.isfunction(value) and not name.startswith("_")]
    assert own
    for name in own:
        assert hasattr(CanastaGame, name), f"{game_id}.{name} is no hook of the core"
        if name in vars(CanastaGame):
            assert vars(CanastaGame)[name].__doc__, f"the hook {name} says nothing of what a variant answers"


def test_the_core_names_no_game():
    source = pathlib.Path(canasta.__file__).read_text(encoding="utf-8")
    code = "\n".join(line.split("#")[0] for line in source.splitlines())
    for name in ('"kanasta"', '"kanaszta"', "self.id ==", "self.id !=", "getattr(self"):
        assert name not in code


@pytest.mark.parametrize("game_id", ["kanasta", "kanaszta", "bura", "warkocz"])
def test_every_state_copies_one_way_and_the_copy_is_its_own(game_id):
    game = get_game(game_id)
    state = game.start(3, seed=2)
    assert isinstance(state, State)
    copy = state.evolve()
    assert copy == state and copy is not state
    assert type(copy) is type(state)


@pytest.mark.parametrize("game_id,players,options", [
    ("kanasta", 2, {}), ("kanasta", 4, {"play_before_first_meld": True}),
    ("kanaszta", 2, {}), ("kanaszta", 4, {"freeze_binds_own_side": True}),
    ("kanaszta", 3, {"one_meld_per_rank": False}),
])
def test_the_ways_of_taking_the_pile_a_game_names_leave_out_no_legal_take(game_id, players, options):
    """``pile_take_ways`` only prunes the listing: every take the rules
    accept in any way is listed, once."""
    game = get_game(game_id)
    rng = random.Random(game_id)
    checked = 0
    for seed in range(12):
        state = game.start(players, seed=seed, options=options)
        while not game.deal_over(state):
            seat = state.turn
            if state.pile and state.phase != "setup":
                listed = game.pile_actions(state, seat)
                assert len({repr(a) for a in listed}) == len(listed)
                tried = game._pile_take_candidates(state, seat, state.pile[-1], canasta.EVERY_WAY)
                assert {repr(a) for a in listed} == {repr(a) for a in game.possible_takes(state, seat, tried)}
                checked += bool(listed)
            legal = game.legal_actions(state)
            takes = [a for a in legal if a["type"] in ("take_pile", "meld", "add")]
            state = game.apply(state, rng.choice(takes if takes and rng.random() < 0.7 else legal))
    assert checked > 20
