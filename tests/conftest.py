"""Every test runs in a home of its own and in the same neutral environment,
whatever the caller's holds (the README tells people to set P2PCARDS_HOME:
the suite must neither read nor write their data folder). This module clears
or pins, before anything runs, every variable the program or the libraries it
drives read (``_NEUTRAL``, ``_CLEARED``): P2PCARDS_HOME and XDG_DATA_HOME
are unset, so the data folder is HOME's, and each test gets a fresh HOME
(``_a_home_of_its_own``); a test that plays two people in two processes gives
each a HOME of its own, as two people have. Whatever runs before the tests (a
module's fixture) has a home of this process's, removed at its end.

The suite runs in parallel (pytest-xdist, the README's test command):
the longest tests are handed out first, so that no worker starts one of them
while the others have run dry (longest processing time first).

The tests read English whatever the machine's locale: P2PCARDS_LANG=en for
this process and every p2pcards process it starts (a test of the language
choice sets or removes it), and the language is English again after each
test (``p2pcards.cli.main`` sets it for the whole process).

Where bytecode may not be written beside the sources (PYTHONDONTWRITEBYTECODE),
every p2pcards process the tests start would compile the package again (a
tenth of a second of CPU each, a few hundred processes): they share a
bytecode folder of this run instead, removed at its end."""

import atexit
import compileall
import os
import shutil
import sys
import tempfile

import pytest

# Variables the program reads, set to what the tests expect: English, UTF-8
# text, a plain terminal (the tests that need another set it themselves). The
# login name (LOGNAME, USER) is left alone: pytest names its temporary folder
# by it, and the tests of the default name set it.
_NEUTRAL = {"P2PCARDS_LANG": "en", "LANG": "C.UTF-8", "TERM": "xterm", "TZ": "UTC"}
# Variables the program (or the libraries it drives) reads, and that must not
# be set: whole families by their prefix, and single names.
_CLEARED_PREFIXES = ("P2PCARDS_", "XDG_", "LC_", "PROMPT_TOOLKIT_")
_CLEARED = {"LANGUAGE", "PAGER", "LESS", "NO_COLOR", "COLUMNS", "LINES", "PYTHONIOENCODING"}


def _neutral_environment(home: str) -> None:
    for name in list(os.environ):
        if name in _CLEARED or name.startswith(_CLEARED_PREFIXES):
            del os.environ[name]
    os.environ.update(_NEUTRAL, HOME=home)


_process_home = tempfile.mkdtemp(prefix="p2pcards-tests-home-")
atexit.register(shutil.rmtree, _process_home, ignore_errors=True)
_neutral_environment(_process_home)

if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    # set once, by the process that starts the others (the xdist workers inherit
    # it), which compiles the package and the tests there before they start
    _bytecode = tempfile.mkdtemp(prefix="p2pcards-tests-bytecode-")
    atexit.register(shutil.rmtree, _bytecode, ignore_errors=True)
    os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix = _bytecode
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    sys.dont_write_bytecode = False
    _repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for _folder in ("p2pcards", "tests"):
        compileall.compile_dir(os.path.join(_repo, _folder), quiet=2)


@pytest.fixture(autouse=True)
def _a_home_of_its_own(monkeypatch, tmp_path_factory):
    """HOME in a fresh folder, and with it the data folder: no key, game or
    setting of another test (or of the person running the suite) is seen."""
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))


@pytest.fixture(autouse=True)
def _english_after_each_test():
    yield
    from p2pcards import i18n

    i18n.set_language("en")


# Node ids (or prefixes) of the tests that take longest, longest first; the
# rest keep their order.
LONGEST = (
    "tests/test_netns.py::",
    "tests/test_strong_bot.py::test_strong_beats_greedy_at_warkocz",
    "tests/test_checkpoint.py::test_a_peer_that_crashed",
    "tests/test_ui_tmux.py::",
    "tests/test_isolation.py::test_the_suite_under_a_hostile_environment",
    "tests/test_pause.py::test_a_pause_that_is_never_ended",
    "tests/test_reliability.py::",
    "tests/test_people_come_back.py::",
    "tests/test_net_discovery.py::",
    "tests/test_faults.py::",
    "tests/test_cli_language.py::test_the_audit_in_polish",
    "tests/test_cheats.py::",
    "tests/test_net_lobby.py::test_slow_acceptor",
    "tests/test_pause.py::",
    "tests/test_fuzz_entries.py::test_entry_campaign",
    "tests/test_hidden_cards.py::",
    "tests/test_replays.py::",
    "tests/test_network_matches.py::",
    "tests/test_spectator.py::",
)


def _rank(item) -> int:
    for i, prefix in enumerate(LONGEST):
        if item.nodeid.startswith(prefix):
            return i
    return len(LONGEST)


def pytest_collection_modifyitems(items):
    items.sort(key=_rank)
