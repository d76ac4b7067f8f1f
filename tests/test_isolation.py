"""The suite runs in homes of its own, whatever the caller's environment
holds (tests/conftest.py): it neither reads nor writes the data folder of the
person who runs it, and their language, pager or terminal settings change no
test's outcome."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from p2pcards import identity
from tests.helpers import REPO

# Everything a person may have set that the program reads, each pointing at
# something a test must not touch or be swayed by.
HOSTILE = {
    "P2PCARDS_LANG": "hu", "LANGUAGE": "pl", "LC_ALL": "hu_HU.UTF-8", "LC_MESSAGES": "hu_HU.UTF-8",
    "LANG": "pl_PL.UTF-8", "P2PCARDS_LOG": "debug", "P2PCARDS_CRASH": "0:5", "P2PCARDS_DROP": "1:4:60",
    "P2PCARDS_PARENT": "1", "PAGER": "false", "LESS": "-X", "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "33",
    "LINES": "7", "PROMPT_TOOLKIT_COLOR_DEPTH": "DEPTH_1_BIT", "PYTHONIOENCODING": "latin-1",
}


def test_a_test_has_a_fresh_home_and_nothing_of_the_callers():
    home = Path(os.environ["HOME"])
    assert identity.data_dir() == home / ".local" / "share" / "p2pcards"
    assert not identity.data_dir().exists()
    assert os.environ["P2PCARDS_LANG"] == "en"
    for name in HOSTILE:
        if name != "P2PCARDS_LANG":
            assert os.environ.get(name) in (None, "C.UTF-8", "xterm"), name


def test_the_suite_under_a_hostile_environment(tmp_path):
    """Tests that write keys, read the language or page the rules pass under
    an environment that sets everything, and leave the caller's folders as
    they were. The tmux test plays two people (host and bot) told apart by
    HOME only: with the caller's P2PCARDS_HOME they shared one key ("peer
    presents our own key")."""
    theirs = {name: tmp_path / name for name in ("home", "data", "xdg", "trace")}
    for folder in theirs.values():
        folder.mkdir()
    env = dict(os.environ, **HOSTILE, HOME=str(theirs["home"]), P2PCARDS_HOME=str(theirs["data"]),
               XDG_DATA_HOME=str(theirs["xdg"]), P2PCARDS_TRACE=str(theirs["trace"]), PYTHONPATH=REPO)
    tests = ["tests/test_isolation.py::test_a_test_has_a_fresh_home_and_nothing_of_the_callers",
             "tests/test_identity.py", "tests/test_cli_names.py", "tests/test_rules_text.py",
             "tests/test_ui_tmux.py::test_the_host_sees_the_address_to_join_and_keeps_it_in_the_lobby"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                          *tests], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout
    for name, folder in theirs.items():
        assert not any(folder.iterdir()), f"the caller's {name} folder was written: {list(folder.iterdir())}"
