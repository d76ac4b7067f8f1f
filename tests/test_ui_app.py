"""The full-screen table driven through its command line: prompt-toolkit reads
a pipe and draws to a terminal emulation in memory, trio runs in guest mode,
the other seats are bots of a LocalSession."""

import io
import random

import pytest
import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from p2pcards.cards import deck_for
from p2pcards.ui import commands as C
from p2pcards.ui.app import MoveCompleter, run_app
from p2pcards.ui.render import render_header, render_log, render_table
from p2pcards.ui.session import PHASE_DEALING, PHASE_PLAYING, LocalSession
from tests.helpers import until



class Player:
    """Types at the table like a person and watches what it shows."""

    def __init__(self, ui, session, pipe, output):
        self.ui, self.session, self.pipe, self.output = ui, session, pipe, output

    async def type(self, line: str) -> str:
        """Enter ``line``; returns the message shown once it has been dealt with."""
        handled = self.ui.lines_handled
        self.pipe.send_text(line + "\r")
        await until(lambda: self.ui.lines_handled > handled)
        await until(lambda: self.ui.jobs_done == self.ui.jobs_submitted)
        return self.message()

    def message(self) -> str:
        return "".join(text for _, text in self.ui.message)

    def table(self) -> str:
        return fragment_list_to_text(render_table(self.session, self.ui.ascii))

    def my_turn(self) -> bool:
        return self.session.to_act() == self.session.seat

    async def next_turn(self) -> bool:
        """Wait for my turn; False once the deal is over."""
        playing = lambda: self.session.match_info()["phase"] == PHASE_PLAYING  # noqa: E731
        await until(lambda: not playing() or self.my_turn())
        return playing()


def at_table(game_id, players, script, *, seed=1, columns=120, ascii=False, **session_args):
    """Run the app with a LocalSession until ``script(player)`` returns."""
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=40, columns=columns), term="xterm-256color")
    with create_pipe_input() as pipe:

        async def main(ui):
            session = LocalSession(
                game_id, players, bots="random", seed=seed, bot_delay=0, pause=None, max_deals=1,
                history=100_000, **session_args
            )
            ui.show(session)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(session.run)
                # Past the dealing, not "playing": an all-bot deal may already be over.
                await until(lambda: session.match_info()["phase"] != PHASE_DEALING)
                await script(Player(ui, session, pipe, screen))
                nursery.cancel_scope.cancel()
            ui.app.exit()

        run_app(main, input=pipe, output=output, ascii=ascii)
    return screen.getvalue()


async def play_deal(player, rng, check_every_turn=None):
    """Play my seat to the end of the deal by typing random legal moves."""
    typed = 0
    while await player.next_turn():
        legal = player.session.legal_actions()
        if check_every_turn:
            await check_every_turn(player, legal)
        action = rng.choice(legal)
        line = C.format_action(player.session.game.id, action)
        before = len(player.session.last_moves())
        said = await player.type(line)
        assert "internal error" not in said
        assert not said.startswith(line + ":"), said  # a legal move is never refused
        assert len(player.session.last_moves()) > before or player.session.match_info()["phase"] != PHASE_PLAYING
        typed += 1
    return typed


def test_a_bura_deal_played_through_the_command_line():
    rng = random.Random(7)
    seen = {"refused": 0}

    async def check(player, legal):
        view = player.session.view()
        table = player.table()
        assert "Trump:" in table and "Your hand" in table
        # a card I do not hold: the engine says why not, and nothing changes
        missing = next(c for c in deck_for("bura") if c not in view["hand"])
        verb = "l" if legal[0]["type"] in ("lead", "bessa") else "b"
        said = await player.type(f"{verb} {missing}")
        assert said.startswith(f"{verb} {missing}: ") and len(said) > len(f"{verb} {missing}: ") + 5
        assert player.session.view() == view
        seen["refused"] += 1

    async def script(player):
        assert "unknown command 'xyzzy'" in await player.type("xyzzy")
        assert "is not a card" in await player.type("b QQ")
        for line in ["decl", "bessa", "th", "l", "p", "9C=7", "a 1 KH", "??", "b 6C 6C 6C 6C", "help b", "moves"]:
            said = await player.type(line)
            assert (said or player.ui.pager is not None) and "internal error" not in said, (line, said)
            await player.type("")  # closes the pager if the line opened it
        typed = await play_deal(player, rng, check)
        assert typed > 0
        log = fragment_list_to_text(render_log(player.session))
        assert "You " in log and "deal over" in log

    screen = at_table("bura", 3, script, seed=3)
    assert seen["refused"] > 0
    assert "Trump" in screen  # it was really drawn on the terminal


def test_a_kanasta_deal_played_through_the_command_line():
    rng = random.Random(2)
    seen = {"completed": 0}

    async def check(player, legal):
        # Tab offers exactly the legal moves
        completer = MoveCompleter(player.ui)
        offered = {c.text for c in completer.get_completions(Document(""), None)}
        moves = {C.format_action("kanasta", a) for a in legal}
        assert moves <= offered and offered - moves <= {w[0] for w, _, _ in C.UI_COMMANDS}
        for verb in ("m ", "d ", "a "):
            got = {c.text for c in completer.get_completions(Document(verb), None)}
            assert got == {m for m in moves if m.startswith(verb)}
        seen["completed"] += 1

    async def script(player):
        table = player.table()
        assert "Stock:" in table and "Pile:" in table and ("Melds: none yet" in table or "1) " in table)
        assert await player.next_turn()
        said = await player.type("d 4C")  # before drawing: the engine says what comes first
        assert said.startswith("d 4C: ") and "draw" in said, said
        assert await play_deal(player, rng, check) > 10
        assert "deal over" in player.session.last_moves()[-1]
        assert "Last deal:" in player.table()

    at_table("kanasta", 4, script, seed=9)
    assert seen["completed"] > 3


@pytest.mark.parametrize("game_id, players", [("warkocz", 2), ("kanaszta", 2)])
def test_the_other_games_play_through_the_command_line_too(game_id, players):
    async def script(player):
        await play_deal(player, random.Random(4))

    at_table(game_id, players, script, seed=6, columns=80, ascii=True)


def test_hint_fills_in_the_greedy_move_and_enter_plays_it():
    async def script(player):
        assert await player.next_turn()
        said = await player.type("hint")
        line = player.ui.input.text
        assert said == f"hint: {line}  (Enter plays it)"
        assert C.parse("warkocz", line, player.session.legal_actions()) in player.session.legal_actions()
        before = len(player.session.last_moves())
        await player.type("")  # Enter: the hint is in the input line already
        assert len(player.session.last_moves()) > before

    at_table("warkocz", 2, script, seed=2)


def test_what_is_typed_after_a_hint_replaces_it():
    """The hint stands in the input line; typing anything else starts afresh
    (it was appended to the hint: "unknown command 'r3hint'")."""
    async def script(player):
        assert await player.next_turn()
        await player.type("hint")
        hinted = player.ui.input.text
        assert hinted
        assert "unknown command 'xyzzy'" in await player.type("xyzzy")
        await player.type("hint")
        said = await player.type("hint")  # asked again: the same hint, not "w 5Hhint"
        assert said == f"hint: {hinted}  (Enter plays it)" and player.ui.input.text == hinted
        player.pipe.send_text("\x7f")  # a backspace edits the hint instead
        await until(lambda: player.ui.input.text == hinted[:-1])
        assert "unknown command" not in await player.type("")

    at_table("warkocz", 2, script, seed=2)


def test_help_rules_moves_and_chat():
    async def script(player):
        await player.type("rules")
        assert player.ui.pager_title == "rules: bura"
        assert any("bessa" in line for line in player.ui.pager)
        await player.type("")  # Enter closes the pager
        assert player.ui.pager is None
        await player.type("help")
        assert any("decl/declare" in line for line in player.ui.pager)
        assert "three trumps or three aces" in await player.type("help bessa")
        assert "no command or word" in await player.type("help nonsense")
        await player.type("chat dzie\u0144 dobry")
        assert player.session.last_moves()[-1] == "You: dzie\u0144 dobry"
        assert "chat what" in await player.type("chat")
        assert "still being played" in await player.type("next")
        if await player.next_turn():
            said = await player.type("moves")
            listed = player.ui.pager if player.ui.pager is not None else said.splitlines()
            assert any(C.format_action("bura", a) in line for a in player.session.legal_actions() for line in listed)

    at_table("bura", 2, script)


def test_help_wraps_each_explanation_under_its_own_column():
    """At 80 columns a long explanation goes on under where it began, not
    under the command (Polish runs longer than English)."""
    from p2pcards import i18n

    async def script(player):
        await player.type("help")
        rows = fragment_list_to_text(player.ui._pager_text()).splitlines()
        start = next(r for r in rows if r.startswith("  l/lead ")).index("zagraj")
        after = rows[next(i for i, r in enumerate(rows) if r.startswith("  l/lead ")) + 1]
        assert after.startswith(" " * start) and not after[start].isspace(), rows
        assert all(len(r) <= 80 for r in rows), rows

    i18n.set_language("pl")
    try:
        at_table("bura", 2, script, columns=80)
    finally:
        i18n.set_language("en")


def test_quit_asks_first_during_a_game():
    state = {}

    async def script(player):
        await player.type("quit")
        assert player.ui.confirm_quit
        assert "Leave the game?" in fragment_list_to_text(player.ui._prompt())
        assert "Staying" in await player.type("n")
        assert not player.ui.confirm_quit
        state["asked"] = True
        player.pipe.send_text("quit\ry\r")
        await trio.sleep_forever()  # only the player's quit ends the app, and run_app then cancels us

    at_table("warkocz", 2, script)
    assert state == {"asked": True}


def test_the_header_counts_down_the_turn_and_resizing_rearranges_the_table():
    async def script(player):
        assert await player.next_turn()
        await until(lambda: player.ui.remaining is not None)
        header = fragment_list_to_text(render_header(player.session, False, player.ui.remaining))
        assert "your turn" in header and "\u23f1 0:" in header
        wide = player.ui._columns()
        assert wide == 120

    at_table("bura", 2, script, turn_time=45)

    async def narrow(player):
        assert player.ui._columns() == 60
        table = fragment_list_to_text(render_table(player.session, True, 60)).splitlines()
        hand = table[table.index(next(l for l in table if l.startswith("Your hand"))) + 1:]
        assert len(hand) > 1 and all(len(line) <= 60 for line in hand)  # the hand wraps, never a card cut

    at_table("warkocz", 2, narrow, columns=60)


def test_trio_main_failing_ends_the_screen_with_its_error():
    async def main(ui):
        ui.set_status("connecting\u2026")
        await trio.sleep(0)
        raise RuntimeError("peer refused the table")

    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=20, columns=80), term="xterm")
        with pytest.raises(RuntimeError, match="peer refused"):
            run_app(main, input=pipe, output=output)


def test_the_lobby_shows_until_a_session_is_there():
    async def main(ui):
        ui.set_status("Waiting for players: 1 of 3")
        assert fragment_list_to_text(ui._lobby_text()).count("Waiting for players: 1 of 3") == 1
        assert "not ready yet" in await Player(ui, None, pipe, None).type("m KH")
        ui.app.exit()

    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=20, columns=80), term="xterm")
        run_app(main, input=pipe, output=output)


def test_ask_waits_for_yes_or_no_in_any_of_our_languages():
    answers = []

    async def main(ui):
        player = Player(ui, None, pipe, None)
        async with trio.open_nursery() as nursery:

            async def answer():
                await until(lambda: ui._question is not None)
                assert "yes or no" in await player.type("maybe")
                await player.type("tak")

            nursery.start_soon(answer)
            answers.append(await ui.ask(["Table: bura for 2", "Accept this table? (yes/no)"]))
            assert "Accept this table? (yes/no)" in ui.status
            nursery.start_soon(player.type, "nem")
            answers.append(await ui.ask(["Again?"]))
        ui.app.exit()

    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=20, columns=80), term="xterm")
        run_app(main, input=pipe, output=output)
    assert answers == [True, False]


def test_leaving_the_table_shows_the_waiting_screen_again():
    async def script(player):
        player.ui.leave_table("The game could not go on: peer left", "Type quit to leave.")
        assert player.ui.session is None
        assert "peer left" in fragment_list_to_text(player.ui._lobby_text())
        assert "not ready" in await player.type("d 7C")

    at_table("warkocz", 2, script)


def test_a_session_that_fails_to_draw_costs_a_message_not_the_game():
    async def script(player):
        session = player.session
        real_view = session.view

        def broken_view():
            raise RuntimeError("state nobody foresaw")

        session.view = broken_view
        player.ui.invalidate()
        table = fragment_list_to_text(player.ui._table_text())
        assert "cannot draw this part: RuntimeError: state nobody foresaw" in table
        said = await player.type("help")  # the input line still works
        assert player.ui.pager is not None or said
        session.view = real_view
        await player.type("")
        assert "Trump:" in fragment_list_to_text(player.ui._table_text())

    at_table("bura", 2, script)


def test_a_spectator_watches_and_is_told_moves_are_not_theirs():
    async def script(player):
        assert " watching" in fragment_list_to_text(render_header(player.session))
        assert "Your hand" not in player.table()
        assert "spectators do not play" in await player.type("pl 7H")

    at_table("warkocz", 3, script, seat=None)


def test_the_cards_that_fit_a_move_are_marked_in_the_hand():
    from p2pcards.ui.render import playable_cards, render_hand

    async def script(player):
        assert await player.next_turn()
        legal = player.session.legal_actions()
        marked = playable_cards(player.session)
        assert marked == {c for a in legal if a["type"] == "play" for c in a["cards"]}
        fragments = render_hand(player.session, ascii=True)  # ascii: a card is drawn as its code
        assert {text for style, text in fragments if "underline" in style} == marked
        assert "dealer" in player.table()

    at_table("warkocz", 2, script, ascii=True)


class MovesInFlight(LocalSession):
    """A seat whose moves, like a network seat's, are handed over at once and
    taken into the table only later (when its entry is in the log): meanwhile
    the table still says it is this seat's turn and asks for nothing."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.held: list[dict] = []

    def legal_actions(self):
        return [] if self.held else super().legal_actions()

    async def act(self, action):
        await trio.lowlevel.checkpoint()
        self.held.append(action)
        self._notifier.notify()  # a redraw with my move handed over, as a network seat's decide() gives

    async def take_in(self):
        await LocalSession.act(self, self.held.pop())


def test_the_prompt_stops_saying_your_move_once_the_move_is_sent():
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=40, columns=120), term="xterm-256color")
    prompt = lambda ui: fragment_list_to_text(ui._prompt())  # noqa: E731
    with create_pipe_input() as pipe:

        async def main(ui):
            session = MovesInFlight("bura", 2, bots="random", seed=3, bot_delay=0, pause=None, max_deals=1)
            ui.show(session)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(session.run)
                player = Player(ui, session, pipe, screen)
                await until(lambda: session.match_info()["phase"] != PHASE_DEALING)
                assert await player.next_turn()
                assert prompt(ui) == "your move> "
                move = C.format_action("bura", session.legal_actions()[0])
                await player.type(move)
                assert session.held and session.to_act() == session.seat  # sent, not yet taken in
                assert prompt(ui) == "> "
                said = await player.type("hint")
                assert "Enter plays it" not in said  # no hint for a move already made
                await session.take_in()
                await until(lambda: session.to_act() != session.seat or session.legal_actions())
                await player.next_turn()
                if session.match_info()["phase"] == PHASE_PLAYING:
                    assert prompt(ui) == "your move> "  # my next turn invites a move again
                nursery.cancel_scope.cancel()
            ui.app.exit()

        run_app(main, input=pipe, output=output)


def test_chat_in_the_lobby_goes_to_the_table_while_it_fills_and_at_the_question():
    """Before any table is on the screen (the lobby, the question whether to
    accept the table), chat TEXT is said to the table; anything else waits
    or asks for yes or no as before."""
    said, shown = [], {}
    with create_pipe_input() as pipe:

        async def main(ui):
            ui.lobby_chat = said.append

            async def type_(line):
                handled = ui.lines_handled
                pipe.send_text(line + "\r")
                await until(lambda: ui.lines_handled > handled)
                await trio.sleep(0)  # the line said runs on trio's side
                return "".join(text for _, text in ui.message)

            await type_("chat is everybody here?")
            shown["empty"] = await type_("chat")
            shown["other"] = await type_("hello")
            async with trio.open_nursery() as nursery:
                answers = []

                async def ask():
                    answers.append(await ui.ask(["Accept this table? (yes/no)"]))

                nursery.start_soon(ask)
                await until(lambda: ui._question is not None)
                await type_("chat one moment, reading the rules")
                shown["not yet"] = await type_("perhaps")
                await type_("yes")
            shown["answer"] = answers
            ui.app.exit()

        run_app(main, input=pipe, output=Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm"))
    assert said == ["is everybody here?", "one moment, reading the rules"]
    assert "chat what" in shown["empty"] and "not ready yet" in shown["other"]
    assert shown["not yet"] == "Please answer yes or no." and shown["answer"] == [True]
