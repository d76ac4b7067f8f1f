"""Words a player reads, as a player would say them: the Hungarian article
agrees with the word it stands before, a tie for first is named as such,
English mode speaks English, and a wrong file name or option is one plain
line with the right usage, in every language."""

from __future__ import annotations

import re
import string
import subprocess
import sys
from types import SimpleNamespace

import pytest

from p2pcards import i18n
from p2pcards.games import get_game
from p2pcards.i18n import N_, _, hungarian_article, shown
from p2pcards.ui.render import match_verdict
from tests.helpers import REPO, environment


@pytest.fixture
def hungarian():
    i18n.set_language("hu")
    yield
    i18n.set_language("en")


@pytest.mark.parametrize("word,article", [
    ("kanaszta", "a"), ("bura", "a"), ("warkocz", "a"), ("Ada", "az"), ("example.org", "az"), ("Éva", "az"),
    ("0", "a"), ("1", "az"), ("2", "a"), ("5", "az"), ("10", "a"), ("15", "a"), ("50", "az"), ("78", "a"),
    ("100", "a"), ("127.0.0.1", "a"), ("500", "az"), ("1000", "az"), ("1500", "az"), ("5000", "az"),
    ("10000", "a"), ("1000000", "az"), ("KH", "a"), ("AS", "az"), ("R3", "az"), ("", "a"),
])
def test_the_hungarian_article_as_it_is_spoken(word, article):
    assert hungarian_article(word) == article


def test_a_hungarian_message_writes_the_article_its_value_needs(hungarian):
    assert _("deal {number} is over").format(number=78) == "a 78. osztás véget ért"
    assert _("deal {number} is over").format(number=5) == "az 5. osztás véget ért"
    assert shown(N_("deal {number} is over", number=1)) == "az 1. osztás véget ért"
    assert shown(N_("{game} has no freezing discards", game="kanaszta")) == "a kanaszta játékban nincs befagyasztás"
    assert _("this log is of game {game}, not {expected}").format(game="bura", expected="warkocz") == \
        "ez a napló a bura játéké, nem a warkocz játéké"
    # English read back from a log or a peer, then said in Hungarian
    assert i18n.known("deal 50 is over") == "az 50. osztás véget ért"


def test_no_hungarian_message_keeps_the_mechanical_article(hungarian):
    """Every message of the catalog written with "a(z)" before a value,
    filled in with a word and with a number: the article is decided."""
    catalog = i18n.translations("hu")._catalog
    checked = 0
    for msgid, msgstr in catalog.items():
        if not isinstance(msgid, str) or "a(z) {" not in msgstr:
            continue
        names = {name for _l, name, _s, _c in string.Formatter().parse(msgstr) if name}
        for value in ("Ada", 78):
            text = _(msgid).format(**{name: value for name in names})
            assert "a(z)" not in text.lower(), (msgid, text)
        checked += 1
    assert checked > 50


def _session(game_id: str, names: list[str], options: dict) -> SimpleNamespace:
    game = get_game(game_id)
    return SimpleNamespace(names=names, game=game, options=game.options(len(names), options))


@pytest.mark.parametrize("lang,said", [
    ("en", "a tie for first place: Ada, Bolek."), ("pl", "remis na pierwszym miejscu: Ada, Bolek."),
    ("hu", "holtverseny az első helyen: Ada, Bolek."),
])
def test_a_tie_for_first_names_who_share_it(lang, said):
    i18n.set_language(lang)
    try:
        chips = _session("bura", ["Ada", "Bolek", "Cyryl"], {})
        assert match_verdict(chips, {"winner": None, "chips": [540, 540, 420], "scores": [0, 0, 0]}) == said
        pairs = _session("kanasta", ["Ada", "Bolek", "Cyryl", "Dorota"], {"pairs": True})
        verdict = match_verdict(pairs, {"winner": None, "chips": None, "scores": [5000, 5000]})
        assert "Ada + Cyryl, Bolek + Dorota" in verdict
        assert "draw" not in verdict and "remis." != verdict
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("lang,said", [
    ("en", "A bessa was shown: you may beat it (bessa CARDS) or pass (pas)"),
    ("pl", "Pokazano bessę: możesz ją przebić (bessa KARTY) albo pas"),
    ("hu", "Bessát mutattak: felülütheted (bessa LAPOK) vagy passz (pas)"),
])
def test_the_bessa_window_says_pass_in_the_players_language(lang, said):
    """The table after a bessa, for the player who may answer it: English
    says "pass", with the word typed after it."""
    from prompt_toolkit.formatted_text import fragment_list_to_text

    from p2pcards.ui.render import _AREAS, Painter
    from tests.test_bura import G, lead, start

    state = start(3, [["9H", "7C", "8C"], ["6S", "9S", "JS"], ["AC", "AD", "7D"]], "8S", dealer=2)
    state = G.apply(G.apply(state, lead("9H")), {"type": "bessa", "cards": ["JS", "6S", "9S"]})
    session = SimpleNamespace(names=["Ada", "Bolek", "You"], game=G, options=state.options)
    i18n.set_language(lang)
    try:
        painter = Painter(False, 100)
        _AREAS["tricks"].draw(painter, session, G.view(state, 2))
        table = fragment_list_to_text(painter.out)
    finally:
        i18n.set_language("en")
    assert said in table, table


def test_the_polish_hint_says_what_enter_does():
    i18n.set_language("pl")
    try:
        said = _("hint: {move}  (Enter plays it)").format(move="DH")
    finally:
        i18n.set_language("en")
    assert said == "podpowiedź: DH  (Enter: zagraj)" and "Enter go zagra" not in said


def _run(args, home, lang):
    env = dict(environment(home), P2PCARDS_LANG=lang)
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize("lang,cannot_read,missing", [
    ("en", "cannot read", "No such file or directory"),
    ("pl", "nie można odczytać", "nie ma takiego pliku ani katalogu"),
    ("hu", "nem olvasható:", "nincs ilyen fájl vagy könyvtár"),
])
def test_a_missing_file_is_one_plain_line_for_audit_and_replay(tmp_path, lang, cannot_read, missing):
    nope = tmp_path / "nope.log"
    for command in ("audit", "replay"):
        run = _run([command, str(nope)], tmp_path, lang)
        lines = run.stderr.splitlines()
        assert run.returncode == 2 and not run.stdout, (command, run.stdout)
        assert lines == [f"p2pcards: {cannot_read} {nope}: {missing}"], (command, lines)
        assert run.stderr.count(str(nope)) == 1 and "VERIFIABLE" not in run.stderr
    # tools still get their JSON, with the reason
    run = _run(["audit", str(nope), "--json"], tmp_path, lang)
    assert run.returncode == 2 and '"error": "cannot read' in run.stdout


@pytest.mark.parametrize("lang,usage", [("en", "usage: p2pcards play"), ("pl", "użycie: p2pcards play"),
                                        ("hu", "használat: p2pcards play")])
def test_an_unknown_option_of_a_command_shows_that_commands_usage(tmp_path, lang, usage):
    run = _run(["play", "bura", "--bogus"], tmp_path, lang)
    assert run.returncode == 2 and run.stderr.startswith(usage), run.stderr
    assert re.search(r"^p2pcards play: .*--bogus$", run.stderr, re.M), run.stderr
