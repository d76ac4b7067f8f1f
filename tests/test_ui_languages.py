"""The table in English, Polish and Hungarian: every game drawn at 80 columns
fits and speaks the player's language (Polish plurals right), a whole match
played through the command line in Polish, and ``p2pcards play`` in a real
terminal following P2PCARDS_LANG."""

import io
import os
import random
import re
import shutil
import sys

import pytest
import trio
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from p2pcards import i18n
from p2pcards.ui import commands as C
from p2pcards.ui.app import run_app
from p2pcards.ui.render import cards_count, render_hand, render_header, render_table
from p2pcards.ui.session import PHASE_BETWEEN, PHASE_DEALING, PHASE_OVER, PHASE_PLAYING, LocalSession
from tests.helpers import REPO, Terminal, until

GAMES = [("bura", 3), ("kanasta", 4), ("kanaszta", 4), ("warkocz", 3)]

# Words the table shows in each language, per game (its own area, the hand).
SAYS = {
    "en": {"bura": ["Trump:", "Bank:"], "warkocz": ["Row:", "Gag now:"], "kanasta": ["Stock:", "Pile:"],
           "kanaszta": ["Stock:", "Pile:"], "hand": "Your hand"},
    "pl": {"bura": ["Atut:", "Bank:"], "warkocz": ["Rządek:", "Gag teraz:"], "kanasta": ["Talia:", "Stos:"],
           "kanaszta": ["Talia:", "Stos:"], "hand": "Twoja ręka"},
    "hu": {"bura": ["Adu:", "Bank:"], "warkocz": ["Sor:", "Most gag:"], "kanasta": ["Talon:", "Nyitott talon:"],
           "kanaszta": ["Talon:", "Nyitott talon:"], "hand": "A kezed"},
}
# English labels that must not stand on a translated table.
ENGLISH = ["Trump:", "Stock:", "Pile:", "Row:", "Trick:", "Your hand", " cards", " card ", "Melds", "Played:",
           "underlined", "dealer", "your turn", " to play", " pts", "Points:", "Set aside"]


@pytest.fixture
def language(request):
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language("en")


def _lines(fragments) -> list[str]:
    return fragment_list_to_text(fragments).splitlines()


def _screen_text(session, width: int = 80) -> tuple[list[str], str]:
    """Every line the table's own windows get at ``width``: header, table, hand."""
    header = _lines(render_header(session, False, 25.0))
    table = _lines(render_table(session, False, width, with_hand=False))
    hand = _lines(render_hand(session, False, width))
    return header + table + hand, "\n".join(table + hand)


async def _play_and_look(session, look, moves: int = 600) -> None:
    """Play the human seat with the first legal move, calling ``look()`` at every turn."""
    rng = random.Random(3)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        for _ in range(moves):
            await until(lambda: session.legal_actions() or session.match_info()["phase"] not in
                        (PHASE_PLAYING, PHASE_DEALING))
            if session.match_info()["phase"] != PHASE_PLAYING:
                break
            look()
            await session.act(rng.choice(session.legal_actions()))
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("language", ["en", "pl", "hu"], indirect=True)
@pytest.mark.parametrize("game_id,players", GAMES)
async def test_every_table_fits_80_columns_in_the_players_language(language, game_id, players):
    session = LocalSession(game_id, players, bots="random", seed=11, bot_delay=0, pause=None, max_deals=1)
    seen: list[str] = []

    def look() -> None:
        lines, table = _screen_text(session)
        too_wide = [line for line in lines if len(line) > 80]
        assert not too_wide, (language, game_id, too_wide)
        seen.append(table)

    await _play_and_look(session, look)
    assert seen
    # the deal is over: its end, the countdown to the next one, fit too
    assert session.match_info()["phase"] == PHASE_BETWEEN
    look()
    header = fragment_list_to_text(render_header(session, False, 8.0))
    assert len(header) <= 80 and len(session.finished_deals()) == 1, header
    everything = "\n".join(seen)
    for word in SAYS[language][game_id] + [SAYS[language]["hand"]]:
        assert word in everything, (language, game_id, word, seen[-1])
    # the face cards in the letters of the player's language (--ranks local, the default)
    letters = {"en": "JQKA", "pl": "WDKA", "hu": "BDK\u00c1"}[language]
    ranks = set(re.findall(r"(?<![0-9A-Z\u00c1])([A-Z\u00c1])[\u2660\u2665\u2666\u2663]", everything))
    assert ranks and ranks <= set(letters), (language, game_id, ranks)
    assert len(ranks) >= 2, (language, game_id, ranks)  # a whole deal shows more than kings
    if language != "en":
        leaked = [w for w in ENGLISH if w in everything]
        assert not leaked, (language, game_id, leaked, seen[-1])
        assert i18n.pgettext("usage", "CARD") in C.help_text(game_id)  # help speaks it too
        assert "Moves in" not in C.help_text(game_id)


def test_polish_counts_take_their_three_forms_and_hungarian_stays_singular():
    i18n.set_language("pl")
    assert [cards_count(n) for n in (1, 2, 4, 5, 12, 22, 25)] == \
        ["1 karta", "2 karty", "4 karty", "5 kart", "12 kart", "22 karty", "25 kart"]
    i18n.set_language("hu")
    assert [cards_count(n) for n in (1, 5)] == ["1 lap", "5 lap"]
    i18n.set_language("en")
    assert [cards_count(n) for n in (1, 5)] == ["1 card", "5 cards"]


@pytest.mark.parametrize("language", ["pl"], indirect=True)
async def test_polish_plurals_stand_on_the_table(language):
    """Beside each player the cards in hand: bura deals 3 (karty), warkocz 16 (kart)."""
    for game_id, players, shown in (("bura", 3, "3 karty"), ("warkocz", 3, "16 kart")):
        session = LocalSession(game_id, players, bots="random", seed=2, bot_delay=0, pause=None, max_deals=1)
        tables: list[str] = []
        await _play_and_look(session, lambda: tables.append(_screen_text(session)[1]), moves=1)
        assert shown in tables[0], tables[0]
        assert session.names[0] == "Ty"  # "You" at a table of bots


@pytest.mark.parametrize("language", ["pl"], indirect=True)
async def test_the_players_columns_line_up_whatever_the_plural_forms(language):
    """"12 kart" and "4 karty" differ in length: the points after them still
    stand in one column."""
    import re

    session = LocalSession("kanasta", 4, bots="random", seed=5, bot_delay=0, pause=None, max_deals=1)
    mixed = []

    def look() -> None:
        rows = [line for line in _screen_text(session)[1].splitlines() if " pkt (para " in line]
        assert len(rows) == 4 and len({row.index(" pkt (para ") for row in rows}) == 1, rows
        forms = {re.search(r"\d+ (kart[ay]?)", row).group(1) for row in rows}
        if len(forms) > 1:
            mixed.append(rows)

    await _play_and_look(session, look)
    assert mixed  # the deal did show two forms at once


def _polish_form(n: int) -> int:
    """The Polish plural form of ``n``: 0 one, 1 few (2-4, 22-24...), 2 many."""
    return 0 if n == 1 else 1 if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else 2


def test_a_whole_match_played_through_the_command_line_in_polish():
    """Typed at the table as a person would: Polish words back, English verbs
    and card codes still what one types, to the match's score sheet."""
    i18n.set_language("pl")
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=30, columns=80), term="xterm-256color")
    rng = random.Random(5)
    said: dict[str, str] = {}
    with create_pipe_input() as pipe:

        async def main(ui):
            session = LocalSession("warkocz", 2, bots="random", seed=4, bot_delay=0, pause=None,
                                   options={"target": 8}, history=100_000)
            ui.show(session)
            said["welcome"] = "".join(t for _, t in ui.message)

            async def type_(line: str) -> str:
                handled = ui.lines_handled
                pipe.send_text(line + "\r")
                await until(lambda: ui.lines_handled > handled)
                await until(lambda: ui.jobs_done == ui.jobs_submitted)
                return "".join(t for _, t in ui.message)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(session.run)
                await until(lambda: session.match_info()["phase"] != PHASE_DEALING)
                said["unknown"] = await type_("xyzzy")
                await type_("pomoc")  # the Polish word for help opens the help, in Polish
                said["help"] = "\n".join(ui.pager or [])
                await type_("")
                deals = 0
                while True:
                    await until(lambda: session.legal_actions() or session.match_info()["phase"] in
                                (PHASE_BETWEEN, PHASE_OVER))
                    phase = session.match_info()["phase"]
                    if phase == PHASE_OVER:
                        break
                    if phase == PHASE_BETWEEN:
                        deals += 1
                        said["between"] = fragment_list_to_text(render_header(session, False, 8.0))
                        assert len(said["between"]) <= 80, said["between"]
                        await type_("")  # the score sheet closes
                        said["next"] = await type_("następne")  # the Polish word for next
                        await until(lambda: session.match_info()["phase"] != PHASE_BETWEEN)
                        continue
                    line = C.format_action("warkocz", rng.choice(session.legal_actions()))
                    answer = await type_(line)
                    assert not answer.startswith(line + ":"), answer  # a legal move is never refused
                said["sheet"] = "\n".join(ui.score_sheet())
                said["summary"] = ui.closing_summary() or ""
                said["moves"] = await type_("moves")
                nursery.cancel_scope.cancel()
            ui.app.exit()

        run_app(main, input=pipe, output=output)
    assert said["welcome"].startswith("Witaj w grze warkocz.")
    assert "pomoc (help) objaśnia polecenia; klucze (keys) pokazuje" in said["welcome"]  # the Polish word first
    assert said["unknown"] == "nieznane polecenie 'xyzzy'; pomoc (help) wymienia polecenia"
    assert "  pomoc (help) [POLECENIE] " in said["help"] and "  koniec (quit) " in said["help"]
    assert "Ruchy w grze warkocz:" in said["help"] and "Słowa:" in said["help"]
    assert "pl/play KARTA... [as FIGURA]" in said["help"]
    assert "po rozdaniu — wpisz następne" in said["between"] and said["next"] == "Zgłoszono gotowość do następnego rozdania."
    print(said["sheet"])
    assert re.search(r"^Rozdanie \d+: tabela wyników$", said["sheet"], re.M) and "Koniec gry: " in said["sheet"]
    # the standings count chips and points in Polish: 1 oczko, 2-4 oczka, 5 oczek; 22 żetony, 88 żetonów
    standings = re.findall(r"^  \d\. .+: (\d+) (\w+), (\d+) (\w+)$", said["sheet"], re.M)
    assert len(standings) == 2, said["sheet"]
    for chips, chip_word, points, point_word in standings:
        assert chip_word == {0: "żeton", 1: "żetony"}.get(_polish_form(int(chips)), "żetonów"), standings
        assert point_word == ["oczko", "oczka", "oczek"][_polish_form(int(points))], standings
    assert "Koniec gry" in said["summary"]
    assert said["moves"] == "Nie masz teraz ruchu."


pytestmark_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


@pytestmark_tmux
def test_play_in_a_real_terminal_speaks_hungarian_when_asked(tmp_path):
    """``P2PCARDS_LANG=hu p2pcards play bura`` at 80 columns: the table, its
    refusal of nonsense and the question on quitting, in Hungarian."""
    name = f"p2pcards-lang-test-{os.getpid()}"
    command = (f"cd {tmp_path} && HOME={tmp_path} PYTHONPATH={REPO} P2PCARDS_LANG=hu {sys.executable} "
               f"-m p2pcards play bura --bots 1 --seed 3 --name Teszt; echo EXITED $?; sleep 30")
    term = Terminal(name, command, columns=80, rows=30)
    try:
        screen = term.wait_for(lambda s: "Adu:" in s, "the bura table in Hungarian")
        assert "A kezed" in screen and "kapcsolódva" in screen
        assert all(len(line) <= 80 for line in screen.splitlines())
        screen = term.wait_for(lambda s: "te lépsz>" in s, "my turn")
        assert "a súgó (help) elmagyarázza a parancsokat" in " ".join(screen.split())  # the welcome line
        term.keys("frobnicate", "Enter")
        term.wait_for(lambda s: "ismeretlen parancs: 'frobnicate'" in s, "the refusal in Hungarian")
        term.keys("quit", "Enter")
        screen = term.wait_for(lambda s: "Kilépsz a játékból?" in s or "EXITED" in s, "the question")
        if "EXITED" not in screen:
            term.keys("i", "Enter")
        screen = term.wait_for(lambda s: "EXITED" in s, "the program to end")
        assert "EXITED 0" in screen
    finally:
        term.close()
