"""Fault details of the protocol: English in the log and the JSON, the
reader's language in the audit's text, the same whether the detail is a live
Text or English read back from the log."""

import json

from p2pcards import cli, i18n
from p2pcards.i18n import N_
from p2pcards.protocol.violation import Violation
from tests.helpers import play_network_match


def _audit(capsys, *argv) -> tuple[int, str]:
    code = cli.main(["audit", *argv])
    return code, capsys.readouterr().out


async def test_a_caught_wrong_key_is_worded_in_polish_and_the_json_stays_english(tmp_path, capsys):
    results = await play_network_match("bura", 3, {"rounds": 1}, tmp_path, cheat="wrong-key", cheater=1,
                                       turn_timeout=3)
    log = str(results[0].log_path)
    before = open(log, "rb").read()
    code_en, english = _audit(capsys, log, "--lang", "en")
    code_pl, polish = _audit(capsys, log, "--lang", "pl")
    assert code_en == code_pl == 1
    assert "seat 1's key for position" in english and "is not the one it committed to" in english
    assert "nie jest tym, do którego się zobowiązało" in polish, polish
    assert "is not the one it committed to" not in polish
    _, json_en = _audit(capsys, log, "--json", "--lang", "en")
    _, json_pl = _audit(capsys, log, "--json", "--lang", "pl")
    assert json_pl == json_en
    details = [v["detail"] for v in json.loads(json_en)["violations"]]
    assert any("is not the one it committed to" in d for d in details), details
    assert cli.main(["replay", log, "--text", "--lang", "pl"]) == 0
    record = capsys.readouterr().out
    assert "nie jest tym, do którego się zobowiązało" in record  # the abort's line, read back from the log
    assert "is not the one it committed to" not in record
    assert open(log, "rb").read() == before


def test_a_detail_is_english_where_kept_and_translated_where_shown():
    import msgpack

    detail = N_("seat {seat}'s key for position {position} is not the one it committed to", seat=2, position=7)
    v = Violation(2, "wrong-key", detail)
    english = "seat 2's key for position 7 is not the one it committed to"
    assert v.detail == english and json.dumps(v.as_dict()) == json.dumps({**v.as_dict(), "detail": english})
    assert msgpack.packb({"detail": v.detail}) == msgpack.packb({"detail": english})
    i18n.set_language("hu")
    live = i18n.worded(v.detail)
    logged = i18n.worded(english)  # another peer's abort, read back from the log
    assert live == logged == "a 2. hely kulcsa a 7. pozícióhoz nem az, amelyre kötelezettséget vállalt"


def test_a_nested_reason_is_translated_recursively():
    from p2pcards.i18n import message_of
    from p2pcards.mental import BadMessage

    inner = BadMessage(N_("no commitment"))
    outer = N_("shuffle of seat {seat}: {reason}", seat=0, reason=message_of(inner))
    assert outer == "shuffle of seat 0: no commitment"
    i18n.set_language("pl")
    assert i18n.shown(outer) == "tasowanie miejsca 0: brak zobowiązania"
    assert i18n.worded(str(outer)) == "tasowanie miejsca 0: brak zobowiązania"


def test_free_text_from_a_peer_is_shown_as_it_came():
    i18n.set_language("pl")
    assert i18n.worded("my own words {seat}") == "my own words {seat}"
    assert i18n.worded(None) == ""


def test_a_file_that_is_no_log_is_worded_in_the_readers_language(tmp_path, capsys):
    bad = tmp_path / "badfile"
    bad.write_bytes(b"not a log at all")
    code_pl, polish = _audit(capsys, str(bad), "--lang", "pl")
    code_hu, hungarian = _audit(capsys, str(bad), "--lang", "hu")
    _, json_pl = _audit(capsys, str(bad), "--json", "--lang", "pl")
    assert code_pl == code_hu == 2
    assert "to nie jest plik zapisu gry p2pcards (złe bajty magiczne)" in polish
    assert "nem p2pcards naplófájl (hibás azonosító bájtok)" in hungarian
    assert json.loads(json_pl)["error"] == "not a p2pcards log file (bad magic bytes)"


def test_a_log_error_of_an_entry_is_translated_piece_by_piece():
    from p2pcards.protocol.log import LogError

    exc = LogError(3, N_("the two entries say the same thing"))
    assert str(exc) == "entry 3: the two entries say the same thing"
    i18n.set_language("pl")
    assert i18n.shown(exc) == "wpis 3: te dwa wpisy mówią to samo"
    assert i18n.worded(str(exc)) == "wpis 3: te dwa wpisy mówią to samo"  # read back as English
