"""The players' rules texts: every game in every language, rendered for a
terminal, consistent with the engines' options, free of engineers' words."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from p2pcards import cli, rules as R
from p2pcards.games import GAME_IDS, IllegalAction, get_game
from p2pcards.games.base import parse_option_value

ANSI = re.compile(r"\x1b\[[0-9;]*m")
OPTION = re.compile(r"`-o ([a-z0-9_]+)=([^`\s]+)`")
# The game each native text must exist for, first of all: the players' own language.
NATIVE = {"kanasta": "pl", "kanaszta": "hu", "warkocz": "pl", "bura": "pl"}
DEVELOPER_WORDS = ("seed", "decision", "issue", "must be a test", ".txt", "todo", "rules.md",
                   "engine", "option_help", "legal_actions")
# Readings corrected from the original texts (the rules in the texts follow
# the originals); each turns into a plain check once the engine has it.
CORRECTED = {("kanasta", "cards_score_to_layer"): True, ("kanaszta", "partner_hand_counts"): True}
SEEDS = Path("/work/shared/rules/seeds")


def available():
    return [(g, lang) for g in GAME_IDS for lang in R.LANGUAGES if R.has_text(g, lang)]


def source(game, lang):
    return resources.files("p2pcards").joinpath(f"rules/{lang}/{game}.md").read_text(encoding="utf-8")


def named_options(text):
    return {name: parse_option_value(value) for name, value in OPTION.findall(text)}


def test_english_for_every_game_and_each_games_own_language():
    for game in GAME_IDS:
        assert R.has_text(game, "en"), game
        assert R.has_text(game, NATIVE[game]), (game, NATIVE[game])


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("styled", [False, True])
def test_every_text_renders_within_the_width(width, styled):
    for game in GAME_IDS:
        for lang in R.LANGUAGES:
            out = R.render(R.player_rules(game, lang), width, styled=styled)
            lines = ANSI.sub("", out).splitlines()
            assert len(lines) > 40, (game, lang)
            wide = [line for line in lines if len(line) > width]
            assert not wide, (game, lang, wide)
            assert not any(ch in ANSI.sub("", out) for ch in "\x01\x02\u00a0"), (game, lang)
            assert "**" not in out and "`" not in out and "\n#" not in out, (game, lang)


@pytest.mark.parametrize("game,lang", available())
def test_no_engineers_words_in_a_players_text(game, lang):
    low = source(game, lang).lower()
    found = [w for w in DEVELOPER_WORDS if w in low]
    assert not found, found


@pytest.mark.parametrize("game,lang", available())
def test_every_option_named_is_accepted_by_the_engine(game, lang):
    engine = get_game(game)
    named = named_options(source(game, lang))
    assert named, "the text names no house rule"
    for name, value in named.items():
        if (game, name) in CORRECTED and name not in engine.default_options(4):
            continue  # checked, strictly, by test_corrected_readings_are_the_engines_defaults
        engine.options(4, {name: value})  # IllegalAction if unknown or of the wrong type


@pytest.mark.parametrize("game,lang", available())
def test_every_engine_option_is_in_the_text_with_its_default(game, lang):
    engine = get_game(game)
    named = named_options(source(game, lang))
    defaults = engine.default_options(4)
    assert set(defaults) <= set(named), set(defaults) - set(named)
    for name, default in defaults.items():
        if (game, name) not in CORRECTED:
            assert named[name] == default, (name, named[name], default)


@pytest.mark.parametrize("game,name", sorted(CORRECTED))
def test_corrected_readings_are_the_engines_defaults(game, name):
    defaults = get_game(game).default_options(4)
    assert defaults.get(name) == CORRECTED[game, name], f"{game}: the engine's {name} default"
    for lang in R.LANGUAGES:
        if R.has_text(game, lang):
            assert named_options(source(game, lang))[name] == CORRECTED[game, name], lang


# Rules the engines hold that a player meets, and the sentence of each text
# that states them (each engine rule has its own test in the game's tests).
STATED = {
    # test_warkocz: test_passing_before_laying_any_card_leaves_the_aria_open,
    # test_a_pass_ends_the_move_so_no_aria_after_it
    "warkocz": {"en": ["A pass made before you laid any card does not spoil it",
                       "once you have passed after laying cards, it is no aria"],
                "pl": ["Pas przed wyłożeniem jakiejkolwiek karty arii nie psuje",
                       "kto spasował po wyłożeniu kart, nie zagra już arii"],
                "hu": ["Az első lap lerakása előtti passz nem rontja el az áriát",
                       "aki lapok lerakása után passzolt, annak már nem lehet áriája"]},
    # test_kanasta: test_red3_laid_apart_only_while_the_stock_holds_a_replacement
    "kanasta": {"en": ["only while the stock still has a card to replace it"],
                "pl": ["tylko wtedy, gdy w zakrytej talii jest jeszcze karta do dobrania"],
                "hu": ["Csak addig teheted le, amíg a talonban van lap"]},
    # test_bura: test_declare_not_offered_when_it_cannot_reach_the_target
    "bura": {"en": ["offered to declare only when your tricks could reach 31"],
             "pl": ["Ujawnić się można tylko wtedy, gdy wziątki mogą dać 31 oczek"],
             "hu": ["Bejelenteni csak akkor lehet, ha az ütéseid elérhetik a 31 pontot"]},
}
# What the texts said before, against the engine (an aria "without passing
# even once"; a first turn's "keep at least one card then", which reads as if
# one card were enough before the discard).
UNSAID = {"warkocz": ["passing even once", "ani razu nie", "egyszer sem passzolva"],
          "kanasta": ["keep at least one card then"]}


@pytest.mark.parametrize("game", sorted(STATED))
def test_the_texts_state_the_rules_the_engine_holds(game):
    for lang in R.LANGUAGES:
        text = " ".join(source(game, lang).split())  # as one line: the sentences wrap anywhere
        for sentence in STATED[game][lang]:
            assert sentence in text, (game, lang, sentence)
        for gone in UNSAID.get(game, ()):
            assert gone not in text, (game, lang, gone)


def test_the_games_own_words_are_explained():
    words = {"kanasta": ["kanasta", "joker"], "kanaszta": ["kanaszta", "dzsóker", "fagyasztás", "stoplap"],
             "warkocz": ["warkocz", "gag", "pas", "aria"], "bura": ["bessa", "atut"]}
    for game, ws in words.items():
        for lang in R.LANGUAGES:
            low = R.player_rules(game, lang).lower()
            assert all(w in low for w in ws), (game, lang, [w for w in ws if w not in low])


def test_suit_symbols_and_their_ascii_letters():
    text = R.render(R.player_rules("warkocz", "en"), 80)
    assert "9♣" in text
    ascii = R.render(R.player_rules("warkocz", "en"), 80, ascii=True)
    assert "9♣" not in ascii and "9C" in ascii


def test_headings_bold_only_when_styled():
    md = "# Title\n\nSome **bold** words and `-o a=b` here.\n"
    plain = R.render(md, 40)
    assert plain == "Title\n=====\n\nSome bold words and -o a=b here.\n"
    styled = R.render(md, 40, styled=True)
    assert styled.startswith("\x1b[1mTitle\x1b[22m\n")
    assert "\x1b[1mbold\x1b[22m" in styled


def test_a_bold_span_broken_over_lines_is_closed_on_each():
    out = R.render("**" + "word " * 30 + "**", 30, styled=True)
    for line in out.splitlines():
        assert line.startswith("\x1b[1m") and line.endswith("\x1b[22m"), line


def test_a_word_longer_than_the_line_is_cut():
    out = R.render("x" * 70 + " end", 30)
    assert all(len(line) <= 30 for line in out.splitlines())
    assert out.replace("\n", "") == "x" * 70 + " end"


def test_items_wrap_under_their_text():
    out = R.render("1. " + "word " * 20, 30)
    lines = out.splitlines()
    assert lines[0].startswith("1. word") and all(line.startswith("   word") for line in lines[1:])


@pytest.mark.parametrize("environ,lang", [
    ({}, "en"),
    ({"LANG": "pl_PL.UTF-8"}, "pl"),
    ({"LANG": "hu_HU.UTF-8"}, "hu"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({"LANG": "pl_PL.UTF-8", "LC_MESSAGES": "hu_HU.UTF-8"}, "hu"),
    ({"LANG": "hu_HU.UTF-8", "LC_ALL": "C"}, "en"),
    ({"LANG": "hu_HU.UTF-8", "P2PCARDS_LANG": "pl"}, "pl"),
    ({"P2PCARDS_LANG": "../../etc"}, "en"),
])
def test_the_language_follows_the_environment(environ, lang):
    assert R.choose_language(None, environ) == lang


def test_the_flag_wins_and_is_checked():
    assert R.choose_language("hu", {"P2PCARDS_LANG": "pl"}) == "hu"
    with pytest.raises(IllegalAction):
        R.choose_language("../en", {})


def test_names_from_outside_never_reach_a_path():
    for game, lang in [("../RULES", "en"), ("kanasta", "../original"), ("kanasta", "en/../pl")]:
        with pytest.raises(IllegalAction):
            R.player_rules(game, lang)
    with pytest.raises(IllegalAction):
        R.original_text("../../pyproject")


def test_a_missing_translation_falls_back_to_english_with_a_note(monkeypatch):
    monkeypatch.setattr(R, "has_text", lambda game, lang: lang == "en")
    text = R.player_rules("bura", "pl")
    first, rest = text.split("\n\n", 1)
    assert first == R.FALLBACK_NOTE["pl"]
    assert rest == source("bura", "en")


def run_cli(capsys, *argv):
    assert cli.main(["rules", *argv]) == 0
    return capsys.readouterr().out


def test_cli_prints_the_players_text_plain_when_piped(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.delenv("P2PCARDS_LANG", raising=False)
    monkeypatch.setenv("LANG", "C")
    out = run_cli(capsys, "bura")
    assert "\x1b" not in out
    assert out.startswith("Bura\n====\n")
    assert max(len(line) for line in out.splitlines()) <= 60


def test_cli_language_flag_and_environment(capsys, monkeypatch):
    monkeypatch.setenv("P2PCARDS_LANG", "pl")
    assert "Warkocz" in run_cli(capsys, "warkocz")
    assert run_cli(capsys, "warkocz") == run_cli(capsys, "warkocz", "--lang", "pl")
    assert run_cli(capsys, "warkocz", "--lang", "en") != run_cli(capsys, "warkocz", "--lang", "pl")


def normalized(text):
    return " ".join(text.split())


@pytest.mark.parametrize("game", GAME_IDS)
def test_cli_original_prints_the_original_text(capsys, monkeypatch, game):
    monkeypatch.setenv("COLUMNS", "70")
    out = run_cli(capsys, game, "--original")
    assert normalized(out) == normalized(R.original_text(game))
    assert max(len(line) for line in out.splitlines()) <= 70
    seed = SEEDS / f"{game}.{R.ORIGINAL_LANGUAGE[game]}.txt"
    if seed.exists():  # the package ships the originals verbatim
        assert R.original_text(game) == seed.read_text(encoding="utf-8")


def test_piped_through_a_real_pipe_no_escape_codes():
    env = dict(os.environ, COLUMNS="80", TERM="xterm-256color")
    out = subprocess.run([sys.executable, "-m", "p2pcards", "rules", "kanaszta", "--lang", "hu"],
                         capture_output=True, env=env, check=True).stdout
    assert b"\x1b" not in out
    assert "Kanaszta" in out.decode("utf-8")


class FakeTerminal(io.StringIO):
    encoding = "utf-8"

    def isatty(self):
        return True


def test_a_long_text_on_a_terminal_goes_through_the_pager(tmp_path, monkeypatch):
    monkeypatch.setenv("LINES", "20")
    monkeypatch.setenv("COLUMNS", "80")
    paged = tmp_path / "paged"
    term = FakeTerminal()
    environ = {"PAGER": f"sh -c 'cat > {paged}'", "PATH": os.environ.get("PATH", "")}
    text = R.render(R.player_rules("kanasta", "pl"), 80, styled=True)
    R.show(text, term, environ)
    assert term.getvalue() == ""
    assert paged.read_text(encoding="utf-8") == text


def test_a_short_text_or_an_empty_pager_is_printed(tmp_path, monkeypatch):
    monkeypatch.setenv("LINES", "50")
    term = FakeTerminal()
    R.show("short\n", term, {"PAGER": "false-pager-that-is-never-run"})
    assert term.getvalue() == "short\n"
    monkeypatch.setenv("LINES", "5")
    term = FakeTerminal()
    R.show("long\n" * 10, term, {"PAGER": ""})
    assert term.getvalue() == "long\n" * 10


def test_a_pager_that_does_not_exist_prints_instead(monkeypatch):
    monkeypatch.setenv("LINES", "5")
    term = FakeTerminal()
    R.show("long\n" * 10, term, {"PAGER": "/nonexistent/pager"})
    assert term.getvalue() == "long\n" * 10


def test_a_c_locale_gets_suit_letters():
    class Latin1(io.StringIO):
        encoding = "ascii"

        def isatty(self):
            return False

    out = Latin1()
    R.show("9♣ i wyłożył\n", out, {})
    assert out.getvalue() == "9C i wy?o?y?\n"


def test_styled_only_on_a_terminal_without_no_color():
    assert R.styled_output(FakeTerminal(), {"TERM": "xterm"})
    assert not R.styled_output(FakeTerminal(), {"TERM": "xterm", "NO_COLOR": "1"})
    assert not R.styled_output(io.StringIO(), {"TERM": "xterm"})


@pytest.mark.parametrize("game", GAME_IDS)
def test_the_table_shows_the_players_text_within_its_width(game):
    for width in (60, 100):
        out = R.table_rules(game, width, lang="en")
        assert "\x1b" not in out
        assert max(len(line) for line in out.splitlines()) <= width
        assert out == R.render(R.player_rules(game, "en"), width)


def test_every_text_is_package_data():
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parent.parent
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["p2pcards"]
    shipped = [p.relative_to(root / "p2pcards").as_posix() for p in (root / "p2pcards" / "rules").rglob("*")
               if p.is_file() and p.suffix in (".md", ".txt")]
    assert len(shipped) == 1 + 4 * len(R.LANGUAGES) + 4
    for path in shipped:
        assert any(Path(path).match(pattern) and path.count("/") == pattern.count("/") for pattern in patterns), path
