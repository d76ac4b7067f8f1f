"""The suite runs in parallel (pytest-xdist, the README's test command):
the longest tests are handed out first, so that no worker starts one of them
while the others have run dry (longest processing time first).

The tests read English whatever the machine's locale: P2PCARDS_LANG=en for
this process and every p2pcards process it starts (a test of the language
choice sets or removes it), and the language is English again after each
test (``p2pcards.cli.main`` sets it for the whole process)."""

import os

import pytest

os.environ["P2PCARDS_LANG"] = "en"


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
