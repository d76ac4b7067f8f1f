"""The audit: clean logs pass, tampered logs are refused (exit 2) and never
crash it, and violations are blamed on whoever committed them."""

import json
import random
import subprocess
import sys

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings, strategies as st

from p2pcards.audit import CLEAN, UNFINISHED, UNVERIFIABLE, VIOLATIONS, audit_file
from p2pcards.mental import DealSecrets
from p2pcards.mental.group import N
from p2pcards.protocol.seat import Seat
from p2pcards.protocol.log import HEADER, write_log
from tests.helpers import frames, run_match


@pytest.fixture(scope="module")
def clean_log(tmp_path_factory):
    drivers = run_match("bura", 3, {"rounds": 1}, seed=3)
    path = tmp_path_factory.mktemp("audit") / "clean.p2plog"
    write_log(path, drivers[0].log)
    return path


def test_clean_log_passes_with_the_contract_json(clean_log):
    report = audit_file(clean_log)
    assert report.exit_code == CLEAN
    out = report.as_json()
    assert set(out) == {"ok", "game", "players", "entries", "deals", "violations", "scores", "chips", "silences",
                        "complete"}
    assert out["silences"] == [] and out["complete"] is True
    assert out["ok"] is True and out["game"] == "bura" and out["violations"] == []
    assert [p["seat"] for p in out["players"]] == [0, 1, 2]
    assert all(len(p["key"]) == 64 for p in out["players"])
    assert out["chips"] is not None and "bank" in out["chips"]


def test_cli_exit_codes_and_json(clean_log, tmp_path):
    run = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(clean_log), "--json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["ok"] is True
    broken = tmp_path / "broken.p2plog"
    broken.write_bytes(clean_log.read_bytes()[:-10])
    run = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(broken)], capture_output=True, text=True)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr and "NOT A VERIFIABLE LOG" in run.stdout


def _mutate(data: bytes, how: str, rnd: random.Random) -> bytes:
    parts = frames(data)
    if how == "flip":
        i = rnd.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rnd.randrange(8))]) + data[i + 1:]
    if how == "truncate":
        return data[: rnd.randrange(len(data))]
    if how == "drop":
        i = rnd.randrange(1, len(parts))
        return HEADER + b"".join(parts[:i] + parts[i + 1:])
    if how == "duplicate":
        i = rnd.randrange(1, len(parts))
        return HEADER + b"".join(parts[:i + 1] + parts[i:])
    if how == "swap":
        i = rnd.randrange(1, len(parts) - 1)
        parts[i], parts[i + 1] = parts[i + 1], parts[i]
        return HEADER + b"".join(parts)
    if how == "resign":
        i = rnd.randrange(1, len(parts) - 1)
        body, _sig = msgpack.unpackb(parts[i][4:], raw=False)
        raw = msgpack.packb([body, Ed25519PrivateKey.generate().sign(body)], use_bin_type=True)
        parts[i] = len(raw).to_bytes(4, "big") + raw
        return HEADER + b"".join(parts)
    raise AssertionError(how)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from(["flip", "truncate", "drop", "duplicate", "swap", "resign"]), seed=st.integers(0, 2**32))
def test_tampering_is_refused_never_passed_never_a_crash(clean_log, tmp_path, how, seed):
    data = clean_log.read_bytes()
    bad = _mutate(data, how, random.Random(seed))
    if bad == data:
        return
    path = tmp_path / f"t-{how}-{seed}.p2plog"
    path.write_bytes(bad)
    report = audit_file(path)
    parts = frames(data)
    if any(bad == HEADER + b"".join(parts[:j]) for j in range(1, len(parts))):
        # Cut at an entry boundary: verifiable as far as it goes, but the game did not finish.
        assert report.exit_code == UNFINISHED and not report.violations, (how, report.as_json())
        return
    assert report.exit_code == UNVERIFIABLE, (how, report.as_json())
    assert report.error


def test_a_log_cut_at_an_entry_boundary_did_not_finish(clean_log, tmp_path):
    parts = frames(clean_log.read_bytes())
    path = tmp_path / "cut.p2plog"
    path.write_bytes(HEADER + b"".join(parts[:-1]))
    report = audit_file(path)
    assert report.exit_code == UNFINISHED and not report.violations and not report.ok


def test_two_logs_that_part_show_equivocation(tmp_path):
    from p2pcards.protocol.log import GameLog, make_entry

    drivers = run_match("warkocz", 2, {"target": 3}, seed=5)
    log = drivers[0].log
    a = tmp_path / "a.p2plog"
    write_log(a, log)
    # A second log in which the author of entry 5 signed something else there.
    forged = GameLog()
    for e in log[:5]:
        forged.append(e)
    author = log[5].author
    entry = make_entry(5, forged.head_hash, author, log[5].kind, {"deal": 0, "chat": ["other"]},
                       drivers[author].signer)
    forged.append(entry)
    b = tmp_path / "b.p2plog"
    write_log(b, forged)
    from p2pcards.audit import audit_pair

    report = audit_pair(a, b)
    assert report.exit_code == VIOLATIONS
    assert report.violations[0]["kind"] == "equivocate" and report.violations[0]["seat"] == author


class _StackedSecrets(DealSecrets):
    """A seat's secrets that deal other than its seed says, with valid proofs:
    its shuffle uses another permutation, or its re-key another key for
    position 0 (committed to, so every live check passes)."""

    def __init__(self, seed, how):
        super().__init__(seed)
        self.how = how

    def deck_permutation(self, size):
        perm = super().deck_permutation(size)
        return perm[::-1] if self.how == "shuffle" else perm

    def card_key(self, position):
        key = super().card_key(position)
        return key % (N - 1) + 1 if self.how == "rekey" and position == 0 else key

    def card_keys(self, size):  # the re-key asks for all keys at once
        return [self.card_key(j) for j in range(size)]


@pytest.mark.parametrize("how, kinds", [("shuffle", {"bad-shuffle"}), ("rekey", {"bad-rekey", "wrong-key"})])
def test_a_layer_its_revealed_seed_does_not_make_blames_that_seat_only(monkeypatch, tmp_path, how, kinds):
    """Recomputing a deal from its revealed seeds (the audit's way, no proof
    checked) still catches a layer the seed does not make, and blames its seat."""
    real = Seat.secrets

    def secrets(self, deal_index):
        plain = real(self, deal_index)
        return _StackedSecrets(plain.seed, how) if (self.seat, deal_index) == (1, 0) else plain

    monkeypatch.setattr(Seat, "secrets", secrets)
    drivers = run_match("bura", 3, {"rounds": 1}, seed=3)
    monkeypatch.undo()
    path = tmp_path / "stacked.p2plog"
    write_log(path, drivers[0].log)
    report = audit_file(path)
    assert report.exit_code == VIOLATIONS
    assert {v["seat"] for v in report.violations} == {1}
    assert {v["kind"] for v in report.violations} <= kinds and report.violations


def test_an_abort_of_any_shape_is_judged_without_a_crash(tmp_path):
    """The audit looks at an abort's evidence before the table checks the
    abort: a culprit or kind of the wrong type is refused as the table
    refuses it (the accuser blamed), never a crash."""
    from p2pcards.audit import audit_log
    from p2pcards.protocol.log import GameLog
    from tests.helpers import make_genesis

    genesis, signers = make_genesis("bura", 3, {"rounds": 1})
    for culprit, kind in (([1], "bad-shuffle"), (1, ["silent"]), (1, {"k": 1}), ("1", "bad-shuffle")):
        log = GameLog()
        log.append(genesis)
        log.append(log.make_next(0, "abort", {"culprit": culprit, "kind": kind, "detail": "x",
                                              "evidence": [b"\x00"]}, signers[0]))
        report = audit_log(log)
        assert report.exit_code == VIOLATIONS
        assert [(v["seat"], v["entry"]) for v in report.violations] == [(0, 1)]
