"""Hostile bytes on the wire, beyond tests/test_net_framing.py and
tests/test_net_handshake.py (which fuzz the decoder with random bytes, the
hello/auth parsers with random fields, and the responder with random chunks):

* the frame decoder against a reference split of valid streams cut anywhere,
  with damage after the good frames; its buffer bound at every step;
* ``decode_body`` on grammar-built msgpack (declared lengths beyond the data,
  every container header, ext/timestamp types, nested hostile keys), checked
  against msgpack itself: what it returns is exactly what was sent;
* sealed frames (ChaCha20-Poly1305) damaged anywhere;
* the handshake's *initiator* against a hostile responder (valid framing,
  hello fields replaced, signatures over the wrong transcript, reflection,
  low-order key exchange): it ends with a NetError in bounded (virtual) time,
  and never returns a channel to anybody but the holder of the expected key;
* the responder against a valid hello followed by a hostile auth;
* garbage injected into a sealed connection after the handshake.

Nothing but ``ProtocolError``/``NetError`` may come out; nothing may hang.
"""

from __future__ import annotations

import functools
import time

import msgpack
import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards import PROTOCOL_VERSION
from p2pcards.net.errors import NetError, ProtocolError
from p2pcards.net.framing import (HEADER, TAG_LEN, FrameCipher, FrameDecoder, FramedStream, Limits, decode_body,
                                  encode_frame, encode_message)
from p2pcards.net.handshake import (TAG_INITIATOR, TAG_RESPONDER, Channel, Identity, initiate, make_hello,
                                    respond, transcript)

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALICE = Identity(Ed25519PrivateKey.generate(), "Alice")
BOB = Identity(Ed25519PrivateKey.generate(), "Bob")
MALLORY = Identity(Ed25519PrivateKey.generate(), "Mallory")
SESSION = b"S" * 32

scalars = (st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False)
           | st.text(max_size=30) | st.binary(max_size=64))
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=6) | st.dictionaries(st.text(max_size=8), kids,
                                                                                           max_size=6),
                      max_leaves=25)
messages = st.fixed_dictionaries({"t": st.text(min_size=1, max_size=10)},
                                 optional={"m": values, "seq": st.integers(0, 2**32), "raw": st.binary(max_size=300)})


def _all_str_keys(v) -> bool:
    if isinstance(v, dict):
        return all(type(k) is str and _all_str_keys(x) for k, x in v.items())
    if isinstance(v, list):
        return all(_all_str_keys(x) for x in v)
    return True


# ------------------------------------------------------------------ the frame decoder


@SETTINGS
@given(st.lists(messages, min_size=1, max_size=6), st.lists(st.integers(1, 300), min_size=1, max_size=30),
       st.sampled_from(["none", "oversize", "zero", "garbage", "short"]), st.binary(max_size=40))
def test_decoder_splits_valid_streams_exactly_then_refuses_damage(msgs, cuts, damage, junk):
    limits = Limits(max_frame=4096)
    good = [encode_message(m, limits) for m in msgs]
    tail = {"none": b"", "oversize": HEADER.pack(4097) + junk, "zero": HEADER.pack(0) + junk,
            "garbage": HEADER.pack(len(junk) + 1) + b"\xc1" + junk, "short": HEADER.pack(4000) + junk}[damage]
    stream = b"".join(good) + tail
    dec = FrameDecoder(limits)
    got, error = [], None
    pos, i = 0, 0
    while pos < len(stream) and error is None:
        step = cuts[i % len(cuts)]
        chunk = stream[pos:pos + step]
        pos, i = pos + step, i + 1
        try:
            dec.feed(chunk)
            while (body := dec.next_body()) is not None:
                got.append(decode_body(body, limits))
        except ProtocolError as exc:
            error = exc
        assert dec.buffered <= HEADER.size + limits.max_frame + step
    assert got[:len(msgs)] == msgs
    if damage in ("oversize", "zero", "garbage"):
        assert error is not None and len(got) == len(msgs)
    elif damage == "short":
        assert error is None and len(got) == len(msgs) and dec.buffered == len(tail)
    else:
        assert error is None and got == msgs and dec.buffered == 0


def test_a_good_frame_before_a_bad_header_is_delivered():
    dec = FrameDecoder(Limits(max_frame=1000))
    dec.feed(encode_message({"t": "bye", "reason": "done"}) + HEADER.pack(5000))
    assert decode_body(dec.next_body()) == {"t": "bye", "reason": "done"}
    with pytest.raises(ProtocolError, match="exceeds"):
        dec.next_body()


def test_oversize_length_is_refused_at_its_fourth_byte_whatever_came_before():
    limits = Limits(max_frame=1000)
    one = encode_message({"t": "a"}, limits)
    for prefix in (b"", one, one + encode_message({"t": "b", "x": "y" * 900}, limits)):
        dec = FrameDecoder(limits)
        dec.feed(prefix)
        while dec.next_body() is not None:
            pass
        header = HEADER.pack(0xFFFFFFFF)
        for b in header[:-1]:
            dec.feed(bytes([b]))
        with pytest.raises(ProtocolError, match="exceeds"):
            dec.feed(header[-1:])


# ------------------------------------------------------------------ decode_body on grammar-built msgpack

_HUGE = [b"\xdc\xff\xff", b"\xdd\xff\xff\xff\xff", b"\xde\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff",
         b"\xda\xff\xff", b"\xc6\xff\xff\xff\xff", b"\xc5\xff\xff", b"\xc9\xff\xff\xff\xff\x05", b"\xd9\xff"]


@st.composite
def msgpack_tokens(draw):
    """A body: a map header with a "t" key first, then a random token soup of
    msgpack headers, some declaring lengths far beyond the data."""
    parts = [b"\x82\xa1t\xa1x"]
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            parts.append(draw(st.sampled_from(_HUGE)))
        elif kind == 1:
            parts.append(bytes([draw(st.integers(0x80, 0x9F))]))  # fixmap / fixarray
        elif kind == 2:
            parts.append(bytes([draw(st.sampled_from([0xD4, 0xD5, 0xD6, 0xD7, 0xD8])), draw(st.integers(0, 255))])
                         + draw(st.binary(min_size=1, max_size=16)))  # fixext, incl. timestamp -1
        elif kind == 3:
            parts.append(b"\xc7" + bytes([draw(st.integers(0, 12)), 0xFF]) + draw(st.binary(max_size=12)))
        elif kind == 4:
            parts.append(msgpack.packb(draw(values), use_bin_type=True))
        elif kind == 5:
            parts.append(bytes([0xC1]))  # never used
        elif kind == 6:
            parts.append(msgpack.packb(draw(st.integers(-(2**63), 2**64 - 1) | st.floats())))
        elif kind == 7:
            parts.append(b"\xa2" + draw(st.binary(min_size=2, max_size=2)))  # str with arbitrary bytes
        elif kind == 8:
            parts.append(b"\x91" * draw(st.integers(1, 3000)))  # deep nesting
        else:
            parts.append(draw(st.binary(max_size=8)))
    return b"".join(parts)


@settings(SETTINGS, max_examples=200)
@given(msgpack_tokens())
def test_decode_body_on_grammar_built_msgpack(body):
    limits = Limits(max_frame=1 << 16)
    start = time.perf_counter()
    try:
        msg = decode_body(body, limits)
    except ProtocolError:
        pass
    else:
        # What it returns is exactly what msgpack reads, with str keys only.
        assert msg == msgpack.unpackb(body, raw=False, strict_map_key=False)
        assert isinstance(msg["t"], str) and _all_str_keys(msg)
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize("huge", _HUGE)
def test_declared_lengths_beyond_the_data_are_cheap_refusals(huge):
    body = b"\x82\xa1t\xa1x\xa1m" + huge + b"\x00" * 8
    start = time.perf_counter()
    with pytest.raises(ProtocolError):
        decode_body(body)
    assert time.perf_counter() - start < 0.5


@SETTINGS
@given(values, st.sampled_from([1, 2.5, b"k", None, True, -7]), st.integers(0, 5))
def test_a_non_str_key_anywhere_is_refused(value, key, depth):
    inner = {key: value}
    for _ in range(depth):
        inner = {"k": [inner]}
    body = msgpack.packb({"t": "x", "m": inner}, use_bin_type=True)
    with pytest.raises(ProtocolError):
        decode_body(body)


# ------------------------------------------------------------------ sealed frames


@SETTINGS
@given(messages, st.integers(0, 10**6), st.sampled_from(["flip", "cut", "extend", "counter", "swap"]),
       st.binary(min_size=1, max_size=20))
def test_sealed_frames_damaged_anywhere_fail_to_open(msg, where, how, junk):
    key = bytes(range(32))
    seal, open_ = FrameCipher(key), FrameCipher(key)
    body = msgpack.packb(msg, use_bin_type=True)
    sealed = seal.seal(body)
    second = seal.seal(body)
    if how == "flip":
        i = where % len(sealed)
        bad = sealed[:i] + bytes([sealed[i] ^ (1 + where % 255)]) + sealed[i + 1:]
    elif how == "cut":
        bad = sealed[:where % len(sealed)]
    elif how == "extend":
        bad = sealed + junk
    elif how == "counter":
        bad = second  # the frame of counter 1 at counter 0
    else:
        bad = sealed[TAG_LEN:] + sealed[:TAG_LEN]
    if bad == sealed:
        return
    with pytest.raises(ProtocolError, match="authentication"):
        open_.open(bad)


# ------------------------------------------------------------------ the handshake, initiator side


def _x25519_raw(priv: X25519PrivateKey) -> bytes:
    return priv.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


LOW_ORDER_X25519 = [bytes(32), (1).to_bytes(32, "little"),
                    bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")]

hello_fields = {
    "t": st.sampled_from(["hello", "auth", "error", "Hello"]),
    "v": st.sampled_from([PROTOCOL_VERSION, PROTOCOL_VERSION + 1, -1, 2**32, "1", None]),
    "key": st.sampled_from(["bob", "alice", "mallory"]) | st.binary(max_size=33),
    "nonce": st.sampled_from(["alice", "fresh"]) | st.binary(max_size=33),
    "name": st.sampled_from(["Bob", "", " Bob", "B\x00b", "x" * 65]) | st.text(max_size=10),
    "role": st.sampled_from(["mesh", "lobby", "watch", "", "root"]),
    "session": st.sampled_from([SESSION, None, b"", b"T" * 32, b"S" * 33]),
    "kx": st.sampled_from(["fresh", *LOW_ORDER_X25519]) | st.binary(max_size=33),
}


@st.composite
def hostile_responder_scripts(draw):
    overrides = draw(st.fixed_dictionaries({}, optional=hello_fields))
    drop = draw(st.lists(st.sampled_from(sorted(hello_fields)), max_size=2))
    signer = draw(st.sampled_from(["bob", "mallory", "none"]))
    tag = draw(st.sampled_from(["responder", "initiator", "swapped"]))
    sig_junk = draw(st.none() | st.binary(max_size=70))
    extra = draw(st.lists(st.binary(min_size=1, max_size=50), max_size=2))
    return overrides, drop, signer, tag, sig_junk, extra


async def _hostile_responder(framed: FramedStream, script, alice_hello_box: list) -> None:
    overrides, drop, signer, tag, sig_junk, extra = script
    body, _ = await framed.receive_raw()
    alice_hello_box.append(body)
    alice = msgpack.unpackb(body, raw=False)
    eph = X25519PrivateKey.generate()
    msg = {"t": "hello", "v": PROTOCOL_VERSION, "key": BOB.public_key, "nonce": b"n" * 32, "name": "Bob",
           "role": "mesh", "session": SESSION, "kx": _x25519_raw(eph)}
    for k, v in overrides.items():
        msg[k] = {"bob": BOB.public_key, "alice": ALICE.public_key, "mallory": MALLORY.public_key}.get(v, v) \
            if k == "key" else ({"alice": alice["nonce"], "fresh": b"f" * 32}.get(v, v) if k == "nonce" else
                                ({"fresh": _x25519_raw(eph)}.get(v, v) if k == "kx" else v))
    for k in drop:
        msg.pop(k, None)
    own = msgpack.packb(msg, use_bin_type=True)
    await framed.send_body(own)
    t = {"responder": transcript(TAG_RESPONDER, body, own), "initiator": transcript(TAG_INITIATOR, body, own),
         "swapped": transcript(TAG_RESPONDER, own, body)}[tag]
    key = {"bob": BOB.private_key, "mallory": MALLORY.private_key, "none": None}[signer]
    sig = sig_junk if sig_junk is not None or key is None else key.sign(t)
    await framed.send({"t": "auth", "sig": sig} if sig is not None else {"t": "auth"})
    for e in extra:
        await framed.send_frame(e)
    await framed.receive_raw()  # Alice's auth, if it comes


def _bob_holds_it(script) -> bool:
    """Only Bob's key over the right transcript can make Alice accept."""
    overrides, drop, signer, tag, sig_junk, _ = script
    return signer == "bob" and tag == "responder" and sig_junk is None


@settings(SETTINGS, max_examples=120)
@given(hostile_responder_scripts())
def test_initiator_against_a_hostile_responder(script):
    async def main():
        a, b = trio.testing.memory_stream_pair()
        fa, fb = FramedStream(a), FramedStream(b)
        box: list = []
        result: list = []
        async with trio.open_nursery() as nursery:
            async def responder():
                try:
                    await _hostile_responder(fb, script, box)
                except NetError:
                    pass

            nursery.start_soon(responder)
            try:
                result.append(await initiate(fa, ALICE, role="mesh", session=SESSION, expect_key=BOB.public_key,
                                             timeout=5))
            except NetError as exc:
                result.append(exc)
            nursery.cancel_scope.cancel()
        return result[0]

    outcome = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    if isinstance(outcome, Channel):
        assert _bob_holds_it(script), script
        assert outcome.peer_key == BOB.public_key and outcome.session == SESSION and outcome.role == "mesh"
    else:
        assert isinstance(outcome, NetError)


# ------------------------------------------------------------------ the responder after a valid hello


@SETTINGS
@given(st.sampled_from(["random", "wrong-tag", "reflect", "mallory", "junk-frame", "two-auth", "error"]),
       st.binary(max_size=70))
def test_responder_against_a_valid_hello_and_a_hostile_auth(how, junk):
    async def main():
        a, b = trio.testing.memory_stream_pair()
        fa, fb = FramedStream(a), FramedStream(b)
        eph = X25519PrivateKey.generate()
        hello = make_hello(ALICE, "mesh", SESSION, b"a" * 32, _x25519_raw(eph))
        out: list = []

        async def attacker():
            await fa.send_body(hello)
            try:
                bob_hello, _ = await fa.receive_raw()
                _, bob_auth = await fa.receive_raw()
            except NetError:
                return
            good = transcript(TAG_INITIATOR, hello, bob_hello)
            if how == "random":
                await fa.send({"t": "auth", "sig": junk})
            elif how == "wrong-tag":
                await fa.send({"t": "auth", "sig": ALICE.private_key.sign(transcript(TAG_RESPONDER, hello, bob_hello))})
            elif how == "reflect":
                await fa.send({"t": "auth", "sig": bob_auth["sig"]})
            elif how == "mallory":
                await fa.send({"t": "auth", "sig": MALLORY.private_key.sign(good)})
            elif how == "junk-frame":
                await fa.send_frame(HEADER.pack(len(junk) + 1) + b"\xc1" + junk)
            elif how == "two-auth":
                await fa.send_frame(encode_frame(msgpack.packb({"t": "auth", "sig": junk, "t2": 1})))
            else:
                await fa.send({"t": "error", "reason": junk.hex()})

        async with trio.open_nursery() as nursery:
            nursery.start_soon(attacker)
            try:
                out.append(await respond(fb, BOB, admit=lambda h: h.session, timeout=5))
            except NetError as exc:
                out.append(exc)
            nursery.cancel_scope.cancel()
        return out[0]

    outcome = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert isinstance(outcome, NetError), (how, outcome)


# ------------------------------------------------------------------ after the handshake


async def _pair():
    a, b = trio.testing.memory_stream_pair()

    class Tap(trio.abc.Stream):
        def __init__(self, inner):
            self.inner = inner

        async def send_all(self, data):
            await self.inner.send_all(data)

        async def wait_send_all_might_not_block(self):
            await self.inner.wait_send_all_might_not_block()

        async def receive_some(self, max_bytes=None):
            return await self.inner.receive_some(max_bytes)

        async def aclose(self):
            await self.inner.aclose()

    tap = Tap(a)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(initiate, FramedStream(tap), ALICE, role="mesh", session=SESSION))
        cr = await respond(FramedStream(b), BOB, admit=lambda h: h.session)
    return tap, cr


@SETTINGS
@given(st.lists(st.binary(min_size=1, max_size=120), min_size=1, max_size=4))
def test_garbage_injected_into_a_sealed_connection(chunks):
    async def main():
        tap, cr = await _pair()
        for c in chunks:
            await tap.inner.send_all(c)
        await tap.inner.aclose()
        with pytest.raises(NetError):
            with trio.fail_after(5):
                while True:
                    msg = await cr.receive()
                    raise AssertionError(f"a message nobody sealed was delivered: {msg!r}")

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))

