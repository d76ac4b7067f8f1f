"""A person's name at the table when ``--name`` gives none: ``play``,
``host`` and ``join`` all seat them under their login name."""

from __future__ import annotations

import pytest

from p2pcards import cli
from p2pcards.cli.args import default_name
from p2pcards.peer import seating


class Seated(BaseException):
    """Raised where the command makes the seat: nothing runs after it."""


@pytest.fixture
def seat_named(monkeypatch, tmp_path):
    """Runs a command up to the seat it makes; returns the seat's name."""
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))

    def made(**config):
        raise Seated(config["name"])

    monkeypatch.setattr(seating, "SeatConfig", made)

    def run(*argv) -> str:
        with pytest.raises(Seated) as seated:
            cli.main(list(argv))
        return seated.value.args[0]
    return run


@pytest.mark.parametrize("argv", [("host", "bura", "--players", "2", "--port", "0"),
                                  ("join", "127.0.0.1:7531"),
                                  ("play", "bura")])
def test_without_a_name_a_person_sits_under_their_login_name(seat_named, monkeypatch, argv):
    monkeypatch.setenv("LOGNAME", "ada")
    assert seat_named(*argv) == "ada"
    assert seat_named(*argv, "--name", "Bolek") == "Bolek"


def test_a_login_name_the_table_would_refuse_is_cleaned_and_none_at_all_reads_player(monkeypatch):
    monkeypatch.setenv("LOGNAME", " ad\x1ba \x07")
    assert default_name() == "ada"
    monkeypatch.setattr("getpass.getuser", lambda: (_ for _ in ()).throw(OSError("no login name")))
    assert default_name() == "player"


def test_the_help_says_so(capsys):
    for command in ("host", "join", "play"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        assert "default: your login name" in " ".join(capsys.readouterr().out.split())
