"""What players read: one fingerprint everywhere, grammar for "You",
plurals, their own cards named, options in words, the command line's
manners (game ids without case, keygen on an existing key, --help)."""

import json
import re
from pathlib import Path

import pytest
import trio
from prompt_toolkit.formatted_text import fragment_list_to_text

from p2pcards import cli, identity
from p2pcards.net.messages import fingerprint as wire_fingerprint
from p2pcards.ui.lobby import option_words, options_lines
from p2pcards.ui.render import render_table
from p2pcards.ui.session import PHASE_BETWEEN, PHASE_OVER, PHASE_PLAYING, LocalSession

REPO = Path(__file__).resolve().parent.parent
CARD = r"(?:10|[2-9JQKA])[CDHS]|JK"


async def play_my_moves(session, until, choose=lambda legal: legal[0], max_moves=400):
    """Play the human seat (first legal move, or ``choose``) until ``until()``."""
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        for _ in range(max_moves):
            with trio.fail_after(30):
                while not (until() or session.legal_actions()
                           or session.match_info()["phase"] in (PHASE_BETWEEN, PHASE_OVER)):
                    await trio.sleep(0.001)
            phase = session.match_info()["phase"]
            if until() or phase == PHASE_OVER:
                break
            if phase == PHASE_BETWEEN:
                await session.ready()
                await trio.sleep(0.01)
                continue
            if phase == PHASE_PLAYING:
                await session.act(choose(session.legal_actions()))
        nursery.cancel_scope.cancel()


# ----- fingerprints ------------------------------------------------------------

def test_one_fingerprint_format_from_keygen_to_audit(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    assert cli.main(["keygen"]) == 0
    shown = re.search(r"fingerprint: (\S+)", capsys.readouterr().out).group(1)
    mine = identity.load()
    assert shown == mine.fingerprint == wire_fingerprint(mine.public_bytes)
    assert re.fullmatch(r"[A-Z2-7]{4}(-[A-Z2-7]{4}){6}", shown)
    # keygen again shows the same key and is no error
    assert cli.main(["keygen"]) == 0
    again = capsys.readouterr().out
    assert shown in again and "--force" in again
    # the audit, as text and as JSON, names keys the same way
    log = REPO / "replays" / "bura-3p.p2plog"
    assert cli.main(["audit", str(log), "--json"]) == 0
    players = json.loads(capsys.readouterr().out)["players"]
    assert all(p["fingerprint"] == identity.fingerprint(bytes.fromhex(p["key"])) for p in players)
    assert cli.main(["audit", str(log)]) == 0
    text = capsys.readouterr().out
    assert all(f"key {p['fingerprint']}\n" in text + "\n" for p in players)
    # and the spec gives the same format
    assert re.search(r"seven groups of four", (REPO / "protocol" / "wire.md").read_text())


def test_a_key_of_the_wrong_size_from_a_peer_is_named_not_crashed_on():
    assert wire_fingerprint(b"\x00" * 5) == "(not a key)"


def test_the_lobby_shows_whole_fingerprints_and_options_in_words():
    from p2pcards.net.agreement import LobbyView, SeatInfo
    from p2pcards.cli.play import _lobby_lines

    key = identity.Identity.from_seed(b"\x07" * 32).public_bytes
    view = LobbyView(b"\x00" * 16, "bura", {"bessa": True, "table.deals": 0}, 3,
                     (SeatInfo(0, "Host", key),), None)
    text = "\n".join(_lobby_lines(view))
    assert identity.fingerprint(key) in text
    assert "bessas are played" in text and "no deal limit" in text
    assert "=True" not in text and "deals=0" not in text
    assert option_words("swap_twos", False, "kanasta") == "only jokers are swapped out"
    assert option_words("no_such_rule", False, "kanasta") == "no such rule: off"
    assert options_lines({}, {"deals": 3}) == ["Table: 3 deals at most"]


# ----- grammar ------------------------------------------------------------------

async def test_you_lead_and_you_deal_in_the_second_person():
    session = LocalSession("bura", 2, bots="random", seed=2, bot_delay=0, pause=None, max_deals=3)
    said = []

    def you_lead():
        table = fragment_list_to_text(render_table(session))
        if "Trick: You" in table:
            said.append(table)
        return bool(said)

    await play_my_moves(session, you_lead)
    assert said and "Trick: You lead (" in said[0]
    assert not any(re.match(r"You (leads|deals|shuffles|wins|throws|draws)\b", line) for line in session.last_moves())


async def test_your_own_draw_and_face_down_throw_name_the_cards():
    session = LocalSession("kanasta", 2, bots="random", seed=4, bot_delay=0, pause=None, max_deals=1)
    await play_my_moves(session, lambda: any(line.startswith("You draw") for line in session.last_moves()))
    draws = [line for line in session.last_moves() if line.startswith("You draw")]
    assert draws and re.fullmatch(rf"You draw( (?:{CARD}))+", draws[0]), draws
    assert all(not re.match(rf"Ada draws (?:{CARD})", line) for line in session.last_moves())  # not theirs

    bura = LocalSession("bura", 2, bots="random", seed=1, bot_delay=0, pause=None, max_deals=3)

    def throw(legal):
        throws = [a for a in legal if a["type"] == "throw"]
        return throws[0] if throws else legal[0]

    await play_my_moves(bura, lambda: any("You throw" in line for line in bura.last_moves()), choose=throw)
    mine = [line for line in bura.last_moves() if line.startswith("You throw")]
    assert mine and re.fullmatch(rf"You throw \d cards? face down: (?:{CARD})( (?:{CARD}))*", mine[0]), mine
    theirs = [line for line in bura.last_moves() if line.startswith("Ada throws")]
    assert all(line.endswith("face down") for line in theirs)  # never the others' cards


# ----- the command line ----------------------------------------------------------

def test_game_ids_are_taken_without_case():
    assert cli.build_parser().parse_args(["rules", "Kanasta"]).game == "kanasta"
    assert cli.build_parser().parse_args(["play", "BURA"]).game == "bura"
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["play", "poker"])


def test_help_lists_the_games_and_explains_players(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for game in ("kanasta", "kanaszta", "warkocz", "bura"):
        assert re.search(rf"^\s+{game}\s+\d", out, re.M), out
    with pytest.raises(SystemExit):
        cli.main(["host", "--help"])
    host = capsys.readouterr().out
    assert re.search(r"--players N\s+how many", host), host


def test_the_readme_links_only_inside_the_repository():
    text = (REPO / "README.md").read_text()
    for target in re.findall(r"\]\(([^)]+)\)", text):
        assert not target.startswith(("../", "/")), target
        if not target.startswith(("http:", "https:", "#")):
            assert (REPO / target.split("#")[0]).exists(), target


# Each language's words for kanaszta's options with two of them set the other way.
KANASZTA_WORDS = {
    "en": ["four players in two pairs", "with the stock empty, whoever can take the pile must",
           "a frozen pile binds every side", "going out needs a kanaszta", "the match ends at 15000 points"],
    "pl": ["we czwórkę w parach", "przy pustej talii kto może zabrać stos, musi to zrobić",
           "zamrożony stos wiąże wszystkich", "do zejścia potrzebna jest kanaszta", "gra toczy się do 15000 oczek"],
    "hu": ["négyen párban", "üres talonnál aki fel tudja venni a nyitott talont, annak fel kell vennie",
           "a fagyasztott talon mindenkit köt", "a kimenéshez kanaszta kell", "15000 pontnál ér véget a parti"],
}


@pytest.mark.parametrize("lang", ["en", "pl", "hu"])
def test_the_table_to_accept_words_every_rule_in_the_players_language(lang):
    """The screen where every player accepts the table: each rules option in
    words of the player's language, never its key (it showed "empty stock
    ends: be, freeze binds own side: ki" in Hungarian)."""
    from p2pcards import i18n
    from p2pcards.cli.play import _proposal_lines
    from p2pcards.games import GAME_IDS, get_game
    from p2pcards.net.agreement import Proposal, SeatInfo

    key = identity.Identity.from_seed(b"\x07" * 32).public_bytes
    seats = tuple(SeatInfo(i, name, key) for i, name in enumerate(["Ala", "Bolek", "Cili", "Dorka"]))
    i18n.set_language(lang)
    try:
        options = {"empty_stock_ends": False, "freeze_binds_own_side": True, "table.turn_timeout": 60}
        text = "\n".join(_proposal_lines(Proposal(1, b"\x00" * 16, "kanaszta", options, seats, 0)))
        for words in KANASZTA_WORDS[lang]:
            assert words in text, words
        assert "empty stock ends" not in text and "freeze binds" not in text
        for game_id in GAME_IDS:  # every option of every game, either way, has its words (no "key: value")
            game = get_game(game_id)
            for players in range(game.min_players, game.max_players + 1):
                for option, value in game.options(players, {}).items():
                    other = (not value) if isinstance(value, bool) else value + 1
                    for v in (value, other):
                        assert ":" not in option_words(option, v, game_id), (game_id, option, v)
    finally:
        i18n.set_language("en")
