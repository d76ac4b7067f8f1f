"""Issue 16 for the command line: ``--help``, argparse's own words, the errors
of the command, the network and the files, and the audit's text in the
player's language; chosen by --lang (before or after the subcommand), else
P2PCARDS_LANG, else the locale. JSON and what travels between peers stay
English."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from babel.messages.extract import extract_python

from p2pcards import cli, i18n
from p2pcards.cli import argparse_words
from tests.helpers import environment, run_cli

REPO = Path(__file__).resolve().parent.parent
LOCAL = "127.0.0.1"
LOCALE_VARIABLES = ("P2PCARDS_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def locale(monkeypatch):
    """Set the environment's language variables as a player's shell would (the
    others unset); returns the setter."""
    def set_(**variables):
        for name in LOCALE_VARIABLES:
            monkeypatch.delenv(name, raising=False)
        for name, value in variables.items():
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("COLUMNS", "80")
    return set_


def help_of(capsys, *argv) -> str:
    with pytest.raises(SystemExit) as done:
        cli.main([*argv, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80, out
    return out


POLISH = ("użycie: p2pcards", "opcje:", "pokaż tę pomoc i zakończ")
HUNGARIAN = ("használat: p2pcards", "kapcsolók:", "megjeleníti ezt a súgót, majd kilép")


@pytest.mark.parametrize("lang, words", [("pl", POLISH), ("hu", HUNGARIAN)])
def test_the_help_and_argparse_words_in_polish_and_hungarian(capsys, locale, lang, words):
    locale(LANG="en_US.UTF-8")
    top = help_of(capsys, "--lang", lang)
    assert all(w in top for w in words), top
    assert {"pl": "dla 2-4 graczy", "hu": "2-4 játékos"}[lang] in top
    play = help_of(capsys, "play", "--lang", lang)  # after the subcommand too
    assert all(w in play for w in words), play
    assert {"pl": "ziarno losowości botów", "hu": "a botok véletlenmagja"}[lang] in play
    assert {"pl": "[--strategy STRATEGIA]", "hu": "[--strategy STRATÉGIA]"}[lang] in play
    assert "usage:" not in top + play and "show this help" not in top + play


def test_english_help_is_unchanged_by_the_machinery(capsys, locale):
    locale(LANG="C")
    out = help_of(capsys)
    assert out.startswith("usage: p2pcards") and "show this help message and exit" in out
    assert "positional arguments:" in out and "options:" in out


@pytest.mark.parametrize("variables, flag, expected", [
    ({"LANG": "hu_HU.UTF-8"}, None, "használat:"),
    ({"LANG": "hu_HU.UTF-8", "P2PCARDS_LANG": "pl"}, None, "użycie:"),
    ({"LANG": "hu_HU.UTF-8", "P2PCARDS_LANG": "pl"}, "en", "usage:"),
    ({"LC_ALL": "pl_PL.UTF-8"}, "hu", "használat:"),
])
def test_locale_then_p2pcards_lang_then_the_flag(capsys, locale, variables, flag, expected):
    locale(**variables)
    out = help_of(capsys, "audit", *(["--lang", flag] if flag else []))
    assert out.startswith(expected), out


def test_argparse_errors_are_translated_and_keep_their_exit_code(capsys, locale):
    locale(LANG="pl_PL.UTF-8")
    for argv, words in ((["play"], "wymagane są argumenty: GRA"),
                        (["chess"], "nieprawidłowy wybór: 'chess'"),
                        (["play", "szachy"], "nieznana gra 'szachy'"),
                        (["replay", "x", "--as", "1", "--all"], "nie może wystąpić razem z argumentem --as")):
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        assert done.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("użycie: ") and "błąd: " in err and words in err, err


def test_an_unknown_language_is_refused_by_argparse_in_the_locales_language(capsys, locale):
    locale(LANG="hu_HU.UTF-8")
    with pytest.raises(SystemExit) as done:
        cli.main(["--lang", "de", "tables"])
    assert done.value.code == 2
    assert "érvénytelen választás: 'de'" in capsys.readouterr().err


def test_the_copies_of_argparse_words_are_this_pythons():
    """A copy that is not argparse's exact text is never looked up: name it."""
    with open(argparse.__file__, "rb") as f:
        theirs = {m for _l, _f, m, _c in extract_python(f, {"_": None}, [], {}) if isinstance(m, str)}
    assert set(argparse_words.WORDS) <= theirs, set(argparse_words.WORDS) - theirs


def test_rules_takes_the_common_language_option(capsys, locale):
    locale(LANG="C")
    assert cli.main(["--lang", "pl", "rules", "bura"]) == 0
    before = capsys.readouterr().out
    assert cli.main(["rules", "bura", "--lang", "pl"]) == 0
    assert capsys.readouterr().out == before
    assert cli.main(["rules", "bura"]) == 0
    assert capsys.readouterr().out != before


# ----- errors: one line in the player's language, the same exit code ---------------------

def closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((LOCAL, 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("lang, words", [("pl", "nie można połączyć się z {address}: połączenie odrzucone"),
                                         ("hu", "nem sikerült kapcsolódni a {address} címhez: a kapcsolatot "
                                                "elutasították")])
def test_join_to_a_closed_port_is_one_translated_line(tmp_path, monkeypatch, lang, words):
    address = f"{LOCAL}:{closed_port()}"
    english = run_cli(["join", address], tmp_path, tty=True)
    monkeypatch.setenv("P2PCARDS_LANG", lang)
    translated = run_cli(["join", address], tmp_path, tty=True)
    assert translated.one_clear_line() == "p2pcards: " + words.format(address=address)
    assert translated.code == english.code == 2
    assert "Connection refused" in english.one_clear_line()


def test_file_errors_name_the_fix_in_polish(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    assert cli.main(["--lang", "pl", "keygen"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("twój klucz: ") and "\nodcisk: " in out and "(nowy klucz)" in out
    from p2pcards.identity import default_key_path

    key = default_key_path()
    assert key.exists()
    key.chmod(0o644)
    assert cli.main(["--lang", "pl", "keygen"]) == 2
    err = capsys.readouterr().err
    assert err == (f"p2pcards: inni użytkownicy mogą czytać plik klucza {key} (uprawnienia 644); "
                   f"wykonaj: chmod 600 {key}\n")
    assert cli.main(["--lang", "hu", "resume", str(tmp_path / "gone.state")]) == 2
    assert capsys.readouterr().err == f"p2pcards: nincs állapotfájl itt: {tmp_path / 'gone.state'}\n"


def test_a_refused_rules_option_or_table_size_is_said_in_the_players_language(capsys):
    """The rules engine's own reasons (an option's value, the players it
    takes) reach the command line's one line of error translated; --bots
    says how many bots the game takes, not how many players it saw."""
    assert cli.main(["play", "kanasta", "-o", "target=abc", "--lang", "pl"]) == 2
    assert capsys.readouterr().err == "p2pcards: opcja target musi być liczbą całkowitą, nie 'abc'\n"
    assert cli.main(["host", "bura", "--players", "9", "--lang", "hu"]) == 2
    assert capsys.readouterr().err == "p2pcards: a bura játékot 2–6 játékos játssza, nem 9\n"
    assert cli.main(["play", "bura", "--bots", "9"]) == 2
    assert capsys.readouterr().err == "p2pcards: bura is played by 2 to 6 players: --bots takes 1 to 5 (the bots besides you)\n"
    assert cli.main(["play", "kanasta", "--bots", "0", "--lang", "pl"]) == 2
    assert "--bots przyjmuje od 1 do 3" in capsys.readouterr().err


async def test_what_the_host_says_over_the_network_is_worded_by_the_one_who_reads_it(tmp_path, monkeypatch):
    """A Polish host refuses a Hungarian joiner: the refusal travels in
    English and the joiner reads it in Hungarian."""
    from tests.test_reliability import bot_host, seated_intruder

    monkeypatch.setenv("P2PCARDS_LANG", "pl")
    async with bot_host(tmp_path, options=("table.turn_timeout=60",)) as host:
        async with seated_intruder(host.port) as _:  # the table is full and in play
            monkeypatch.setenv("P2PCARDS_LANG", "hu")
            outcome = await trio.to_thread.run_sync(
                lambda: run_cli(["bot", f"{LOCAL}:{host.port}"], tmp_path / "joiner"))
            assert outcome.one_clear_line() == ("p2pcards: a másik fél elutasított: itt egy asztal sem vár "
                                                "játékosokra (lehet, hogy a játszma már elkezdődött)")


# ----- the audit's text ---------------------------------------------------------------

def audit(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pcards", "audit", *argv], capture_output=True, text=True,
                          env=environment(REPO / "no-home"), timeout=120)


@pytest.mark.parametrize("log, code", [("warkocz-3p-false-pass.p2plog", 1), ("bura-3p.p2plog", 0)])
def test_the_audit_in_polish_keeps_its_exit_code_and_json(log, code):
    path = str(REPO / "replays" / log)
    english, polish = audit(path), audit(path, "--lang", "pl")
    assert english.returncode == polish.returncode == code
    text = polish.stdout
    assert "gracze" in text and "wpisów" in text and "rozdań" in text and "wyniki: " in text
    if code == 1:
        # The cheater by name, in the third person, cards as the table shows them; no English in Polish.
        assert "1 NARUSZENIE:" in text
        assert ("wpis 11: ruch niedozwolony, gdy znane są wszystkie karty (hidden-rule), winny: bot1: przy "
                "znanych wszystkich kartach ten ruch jest niedozwolony: bot1 – w ręce 8♥, a trzeba było ją "
                "wyłożyć: rządek potrzebował 8") in text
        assert ("entry 11: a move illegal with every card known (hidden-rule) by bot1: with every card "
                "known, this move is illegal: bot1 held 8♥ and had to play it: the row needed an 8") in english.stdout
        hungarian = audit(path, "--lang", "hu").stdout
        assert "bot1 kezében volt 8♥, és ki kellett volna játszania: a sorba 8 kellett" in hungarian
        for other in (text, hungarian):
            assert not {"you", "hold", "must", "the row", "8H"} & set(other.replace(":", " ").split()), other
        # the scores and chips name the players
        assert "wyniki: seat-host: 14, bot1: 24, bot2: 12" in text
        assert "chips: seat-host: 85, bot1: 123, bot2: 92, bank: 0" in english.stdout
    else:
        assert "CZYSTO: każdy podpis, tasowanie, klucz, ruch i wynik się zgadza." in text
    assert json.loads(audit(path, "--json", "--lang", "pl").stdout) == json.loads(audit(path, "--json").stdout)


def test_a_truncated_log_is_told_in_the_readers_language(tmp_path):
    data = (REPO / "replays" / "bura-3p.p2plog").read_bytes()
    cut = tmp_path / "cut.p2plog"
    cut.write_bytes(data[:3000])
    english, polish, hungarian = audit(str(cut)), audit(str(cut), "--lang", "pl"), audit(str(cut), "--lang", "hu")
    assert english.returncode == polish.returncode == hungarian.returncode == 2
    assert "entry 1: truncated: the file ends" in english.stdout
    assert "wpis 1: plik ucięty: kończy się po " in polish.stdout and "truncated" not in polish.stdout
    assert "1. bejegyzés: csonka fájl: egy " in hungarian.stdout and "truncated" not in hungarian.stdout
    assert json.loads(audit(str(cut), "--json", "--lang", "pl").stdout)["error"].startswith(
        "entry 1: truncated: the file ends ")


def test_the_audits_unfinished_note_is_translated_and_stays_english_in_json(tmp_path, capsys):
    from p2pcards.protocol.log import HEADER, read_log

    log = read_log(REPO / "replays" / "warkocz-3p.p2plog", strict=True)
    cut = tmp_path / "cut.p2plog"  # the end entry lost: a player left before it
    cut.write_bytes(HEADER + b"".join(len(e.raw).to_bytes(4, "big") + e.raw for e in log.entries[:-1]))
    assert cli.main(["audit", str(cut), "--json"]) == 3
    notes = json.loads(capsys.readouterr().out)["notes"]
    last = len(log) - 2
    assert notes == [f"the log stops after entry {last}, before its end"]
    assert cli.main(["audit", str(cut), "--lang", "pl"]) == 3
    polish = capsys.readouterr().out
    assert (f"NIEDOKOŃCZONA: gra się nie skończyła (zapis gry urywa się po wpisie {last}, przed "
            "zakończeniem). Jak daleko sięga zapis, nie ma w nim błędu.") in polish
    # Its scores and chips are those of the finished deals only: it says so.
    assert "wyniki po zakończonych rozdaniach: " in polish and "żetony po zakończonych rozdaniach: " in polish
    assert cli.main(["audit", str(cut)]) == 3
    english = capsys.readouterr().out
    assert "scores after the finished deals: " in english and "\nscores: " not in english
    assert cli.main(["audit", str(REPO / "replays" / "warkocz-3p.p2plog")]) == 0
    whole = capsys.readouterr().out
    assert "\nscores: " in whole and "\nchips: " in whole and "finished deals" not in whole


# ----- i18n.known: English from elsewhere, in the reader's language ---------------------

def test_known_words_from_a_peer_are_translated_and_free_text_is_left_alone():
    from p2pcards.net import WORDS

    i18n.set_language("pl")
    assert i18n.known("peer rejected us: the table is full", WORDS) == \
        "druga strona odmówiła: przy stole nie ma wolnego miejsca"
    # names are inserted as they came, never looked up again nor formatted
    assert i18n.known("the table is full joined", WORDS) == "the table is full dołącza"
    assert i18n.known("{0} {x!r:>99999} joined", WORDS) == "{0} {x!r:>99999} dołącza"
    assert i18n.known("the host closed the table: we are going home", WORDS) == \
        "gospodarz zamknął stół: we are going home"
    assert i18n.known("nonsense from a peer", WORDS) == "nonsense from a peer"
    long = "x" * 10_000 + " joined"
    assert i18n.known(long, WORDS) == long  # no template work on texts no fixed reason can be
    i18n.set_language("en")
    assert i18n.known("peer rejected us: the table is full", WORDS) == "peer rejected us: the table is full"


def test_a_reason_nested_in_a_hostile_peers_reason_stays_bounded():
    from p2pcards.net import WORDS

    i18n.set_language("hu")
    text = "peer rejected us: " * 20 + "the table is full"
    assert i18n.known(text, WORDS).count("a másik fél elutasított") == 3  # a few levels, then as it came
    assert text.endswith(i18n.known(text, WORDS).rsplit("elutasított: ", 1)[1])


def test_no_function_hides_the_translation_function():
    """``rules, _ = ...`` in a function that also calls ``_()`` makes ``_`` a
    local there (and in the functions nested in it): the call then fails."""
    import ast

    found = []
    for path in (REPO / "p2pcards").rglob("*.py"):
        for fn in ast.walk(ast.parse(path.read_text())):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            nodes = list(ast.walk(fn))
            binds = any(isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store)
                        or isinstance(n, ast.arg) and n.arg == "_" for n in nodes)
            calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_" for n in nodes)
            if binds and calls:
                found.append(f"{path.relative_to(REPO)}:{fn.lineno} {fn.name}")
    assert not found, found


@pytest.mark.parametrize("lang, yes, no", [("en", "Yes", "n"), ("pl", "tak", "NIE"), ("hu", "igen", "nem")])
def test_yes_and_no_in_the_players_language_and_always_in_english(lang, yes, no):
    i18n.set_language(lang)
    assert i18n.answer(yes) is True and i18n.answer(f" {no} ") is False
    assert i18n.answer("yes") is True and i18n.answer("no") is False
    assert i18n.answer("maybe") is None and i18n.answer("") is None


def test_every_kind_of_fault_the_code_can_name_has_words():
    """The audit's text explains each kind; a kind added without words would
    show only its identifier."""
    import ast

    from p2pcards.cli.subcommands import KIND_WORDS
    from p2pcards.protocol import machine
    from p2pcards.protocol.silence import SILENCE_KINDS

    kinds = set(SILENCE_KINDS) | {machine.EQUIVOCATE, machine.FALSE_ACCUSATION}
    for path in (REPO / "p2pcards").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Violation" and len(node.args) > 1
                    and isinstance(node.args[1], ast.Constant)):
                kinds.add(node.args[1].value)
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values):
                    if (isinstance(key, ast.Constant) and key.value == "kind" and isinstance(value, ast.Constant)
                            and "-" in str(value.value)):
                        kinds.add(value.value)
    assert kinds - set(KIND_WORDS) == set(), kinds - set(KIND_WORDS)
    from p2pcards.protocol.narration import ABORT_KINDS  # the kind's short name at the table
    assert kinds - {'false-accusation'} - set(ABORT_KINDS) == set(), kinds - set(ABORT_KINDS)
    assert {"bad-shuffle", "phantom-card", "hidden-rule"} <= kinds  # the scan finds them
