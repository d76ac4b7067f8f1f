"""Protocol version 2 of the dealing at the table: a version-1 log is refused
with a message saying so, and the removed proof-rounds setting is refused."""

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2pcards import PROTOCOL_VERSION
from p2pcards.audit import UNVERIFIABLE, audit_file
from p2pcards.games import IllegalAction
from p2pcards.protocol.log import HEADER, NO_SEAT, TABLE, ZERO_HASH, assemble, encode_body
from p2pcards.peer.seating import split_options
from tests.helpers import public_bytes, run_match


def test_this_is_version_4():
    """3: the wire changed (signed, relayed acknowledgements; table.md §5);
    4: acknowledgements are handed on only when asked (`have`); the log did
    not change, so logs of versions 2 and 3 are still read."""
    assert PROTOCOL_VERSION == 4


def test_a_version_1_log_is_refused_as_such(tmp_path):
    signers = [Ed25519PrivateKey.generate() for _ in range(2)]
    payload = {"protocol": 1, "game": "bura", "session": b"s" * 16, "options": {},
               "players": [{"name": f"p{i}", "key": public_bytes(k), "nonce": b"n" * 32}
                           for i, k in enumerate(signers)], "extra": {"rounds": 40}}
    body = encode_body(0, ZERO_HASH, NO_SEAT, TABLE, payload)
    raw = assemble(body, [k.sign(body) for k in signers]).raw
    path = tmp_path / "v1.p2plog"
    path.write_bytes(HEADER + len(raw).to_bytes(4, "big") + raw)
    report = audit_file(path)
    assert report.exit_code == UNVERIFIABLE
    assert "protocol version 1" in report.error and "no longer accepted" in report.error


@pytest.mark.parametrize("rounds", [8, 40, 128])
def test_proof_rounds_can_no_longer_be_set(rounds):
    with pytest.raises(IllegalAction, match="table.proof_rounds' was removed.*full strength"):
        split_options({"table.proof_rounds": rounds})


def test_an_audit_of_a_clean_match_checks_out_without_proofs_and_with_them():
    # The audit's fast pass (recompute from seeds) and its full pass agree on a clean log.
    from p2pcards.audit import _audit_log

    drivers = run_match("bura", 2, {"rounds": 1}, seed=5)
    log = drivers[0].log
    fast, full = _audit_log(log, verify_proofs=False), _audit_log(log, verify_proofs=True)
    assert fast.exit_code == full.exit_code == 0
    assert fast.as_json() == full.as_json()


def _forged(tmp_path, change, kind):
    """bura3 with seat 1's first ``kind`` entry changed by ``change`` and
    everything after it re-signed and re-chained (as colluders would)."""
    from fuzz import kit
    from tests.helpers import rebuild

    m = kit.match("bura3")
    entries = [kit.fields(e) for e in m.entries]
    k = next(i for i, f in enumerate(entries) if f[3] == kind and f[2] == 1)
    change(entries[k][4])
    path = tmp_path / f"forged-{kind}.p2plog"
    path.write_bytes(rebuild(m, entries, k))
    return k, audit_file(path)


def test_a_forged_wrong_key_is_pinned_on_its_publisher(tmp_path):
    from p2pcards.mental.group import N, scalar_to_bytes

    def wrong(payload):
        key = int.from_bytes(payload["keys"][0][1], "big")
        payload["keys"][0][1] = scalar_to_bytes(key % (N - 1) + 1)
    k, report = _forged(tmp_path, wrong, "keys")
    assert report.exit_code == 1
    assert {(v["seat"], v["kind"]) for v in report.violations} == {(1, "wrong-key")}, report.violations
    assert report.violations[0]["entry"] == k


def test_a_forged_rekey_is_pinned_on_its_author(tmp_path):
    def swap(payload):
        deck = payload["rekey"]["deck"]
        payload["rekey"]["deck"] = deck[33:66] + deck[:33] + deck[66:]
    k, report = _forged(tmp_path, swap, "rekey")
    assert report.exit_code == 1
    assert {(v["seat"], v["kind"]) for v in report.violations} == {(1, "bad-rekey")}, report.violations
    assert report.violations[0]["entry"] == k


def test_the_peer_never_imports_the_test_simulation():
    import subprocess
    import sys

    # The command line plugs cheats and faults in (p2pcards.testing); the peer, its
    # seat runner and the audit never load any of it, the dealing simulation included.
    code = ("import sys, p2pcards.peer, p2pcards.peer.seating, p2pcards.audit, p2pcards.ui.network_session; "
            "print([m for m in sys.modules if m.startswith('p2pcards.testing')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("version", [2, 3])
def test_logs_of_versions_2_and_3_are_still_read_and_audited(version, tmp_path, monkeypatch):
    """Versions 3 and 4 changed the wire only: a whole match whose entry 0
    says version 2 or 3 audits clean, as it did."""
    import p2pcards.protocol.log as L

    monkeypatch.setattr(L, "PROTOCOL_VERSION", version)  # entry 0 is written with it
    drivers = run_match("bura", 2, {"rounds": 1}, seed=7)
    monkeypatch.undo()
    assert drivers[0].log[0].payload["protocol"] == version
    path = tmp_path / f"v{version}.p2plog"
    path.write_bytes(drivers[0].log.to_bytes())
    report = audit_file(path)
    assert report.exit_code == 0 and not report.violations, report.as_json()
