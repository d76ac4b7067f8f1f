"""The suite runs in parallel (pytest-xdist, the README's test command):
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
import os
import shutil
import tempfile

import pytest

os.environ["P2PCARDS_LANG"] = "en"

if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX"):
    # set once, by the process that starts the others (the xdist workers inherit it)
    _bytecode = tempfile.mkdtemp(prefix="p2pcards-tests-bytecode-")
    os.environ["PYTHONPYCACHEPREFIX"] = _bytecode
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    atexit.register(shutil.rmtree, _bytecode, ignore_errors=True)


@pytest.fixture(autouse=True)
def _english_after_each_test():
    yield
    from p2pcards import i18n

    i18n.set_language("en")


# Node ids (or prefixes) of the tests that take longest, longest first; the
# rest keep their order.
LONGEST = (
    "tests/test_strong_bot.py::test_strong_beats_greedy_at_warkocz",
    "tests/test_netns.py::",
    "tests/test_checkpoint.py::test_a_peer_that_crashed",
    "tests/test_people_come_back.py::",
    "tests/test_pause.py::",
    "tests/test_replays.py::",
    "tests/test_fuzz_entries.py::test_entry_campaign",
    "tests/test_reliability.py::",
    "tests/test_faults.py::",
    "tests/test_cheats.py::",
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
