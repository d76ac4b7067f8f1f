"""``Game.views`` is the engine's ``view`` of every seat and of nobody, as the
table reads them after each entry: on every state of real matches, equal
field for field and in the same order to the views asked one at a time."""

from pathlib import Path

import pytest

from p2pcards.audit import CLEAN, audit_path

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


@pytest.mark.parametrize("name", ["kanasta-4p", "kanaszta-4p", "warkocz-3p", "bura-3p"])
def test_views_are_the_views_one_at_a_time(name):
    checked = []

    def observe(entry, machine, deal_before, state_before, refused):
        state = machine.state
        if state is None or len(checked) > 400 and entry.seq % 7:
            return
        game, players = machine.game, machine.players
        together = game.views(state, players)
        alone = [game.view(state, None), *(game.view(state, seat) for seat in range(players))]
        assert together == alone
        assert [list(v) for v in together] == [list(v) for v in alone]  # the fields in the same order
        checked.append(entry.seq)

    _, report = audit_path(REPLAYS / f"{name}.p2plog", observe=observe, workers=0)
    assert report.exit_code == CLEAN and checked
