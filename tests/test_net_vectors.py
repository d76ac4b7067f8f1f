"""The test vectors printed in protocol/wire.md, checked against the code."""

from __future__ import annotations

import re
from pathlib import Path

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from p2pcards.net.framing import FrameCipher, encode_frame
from p2pcards.net.handshake import (TAG_INITIATOR, TAG_RESPONDER, Identity, frame_keys, make_hello, parse_hello,
                                    transcript, verify)
from p2pcards.net.messages import encode_options, fingerprint
from p2pcards.net.agreement import SeatInfo, commit_of, compute_session_id

WIRE = (Path(__file__).resolve().parent.parent / "protocol" / "wire.md").read_text()


def hexblock(label: str) -> bytes:
    """The hex following ``label`` in wire.md, possibly wrapped over several lines."""
    m = re.search(re.escape(label) + r"\s+((?:[0-9a-f]{16,}\s*)+)", WIRE)
    assert m, label
    return bytes.fromhex("".join(m.group(1).split()))


ALA = Identity(Ed25519PrivateKey.from_private_bytes(b"\x01" * 32), "Ala")
BOLEK = Identity(Ed25519PrivateKey.from_private_bytes(b"\x02" * 32), "Bolek")
EPH_ALA = X25519PrivateKey.from_private_bytes(b"\x03" * 32)
EPH_BOLEK = X25519PrivateKey.from_private_bytes(b"\x04" * 32)


def raw(k) -> bytes:
    return k.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def test_handshake_vector():
    assert hexblock("key_Ala") == ALA.public_key and hexblock("key_Bolek") == BOLEK.public_key
    assert hexblock("kx_Ala") == raw(EPH_ALA) and hexblock("kx_Bolek") == raw(EPH_BOLEK)
    hi = make_hello(ALA, "mesh", b"\x33" * 32, b"\xaa" * 32, raw(EPH_ALA))
    hr = make_hello(BOLEK, "mesh", b"\x33" * 32, b"\xbb" * 32, raw(EPH_BOLEK))
    assert hi == hexblock("HI") and hr == hexblock("HR")
    assert parse_hello(hi).name == "Ala"
    ti = transcript(TAG_INITIATOR, hi, hr)
    assert ti == hexblock('T("initiator")')
    assert ALA.private_key.sign(ti) == hexblock("sig_I")
    assert verify(BOLEK.public_key, hexblock("sig_R"), transcript(TAG_RESPONDER, hi, hr))
    assert not verify(BOLEK.public_key, hexblock("sig_R"), ti)  # the tag matters
    assert fingerprint(ALA.public_key) in WIRE
    keys = frame_keys(EPH_ALA, raw(EPH_BOLEK), hi, hr)
    assert keys == frame_keys(EPH_BOLEK, raw(EPH_ALA), hi, hr) == (hexblock("k_IR"), hexblock("k_RI"))
    seal, unseal = FrameCipher(keys[0]), FrameCipher(keys[0])
    ping = msgpack.packb({"t": "ping"})
    for label in ("ping0", "ping1"):
        frame = encode_frame(seal.seal(ping))
        assert frame == hexblock(label)
        assert unseal.open(frame[4:]) == ping


def test_session_vector():
    opts = {"target": 5000, "pairs": True, "variant": "classic"}
    assert encode_options(opts).hex() in WIRE
    c0 = b"\x10" * 32
    assert f"commit(32×0x10) = {commit_of(c0).hex()}" in WIRE
    seats = [SeatInfo(0, "Ala", ALA.public_key), SeatInfo(1, "Bolek", BOLEK.public_key)]
    session = compute_session_id(b"\x77" * 16, 1, "kanasta", opts, seats, [b"\x10" * 32, b"\x20" * 32])
    assert f"session = {session.hex()}" in WIRE


def test_internet_vectors():
    from p2pcards.net.relay import envelope_keys, pair_psk, pair_token
    from p2pcards.net.rendezvous import phase_key

    text = (Path(__file__).resolve().parent.parent / "protocol" / "internet.md").read_text()

    def value(label: str) -> bytes:
        m = re.search(r"^\s+" + re.escape(label) + r"\s+([0-9a-f]{64})$", text, re.M)
        assert m, label
        return bytes.fromhex(m.group(1))

    secret, a, b = b"\x55" * 32, ALA.public_key, BOLEK.public_key
    assert pair_token(secret, a, b) == pair_token(secret, b, a) == value("token(A, B)")
    psk = pair_psk(secret, a, b)
    assert psk == value("psk(A, B)")
    assert envelope_keys(psk, b"\xaa" * 32, b"\xbb" * 32) == (value("k_IR"), value("k_RI"))
    assert phase_key(b"\x66" * 32, "0123456789abcdef", "0") == value("phase_key")
