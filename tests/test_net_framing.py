"""Framing and strict decoding, including hypothesis fuzzing of the decoder
and of the handshake parsers: nothing but ProtocolError may come out."""

from __future__ import annotations

import msgpack
import pytest
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.net.errors import ConnectionClosed, ProtocolError
from p2pcards.net.framing import HEADER, FrameDecoder, FramedStream, Limits, decode_body, encode_message
from p2pcards.net.handshake import Identity, make_hello, parse_auth, parse_hello

from tests.helpers import frame, new_key


def bodies(decoder: FrameDecoder) -> list[bytes]:
    out = []
    while (b := decoder.next_body()) is not None:
        out.append(b)
    return out


def test_roundtrip_and_split_feeding():
    msgs = [{"t": "app", "m": {"x": [1, 2, b"\x00" * 100]}}, {"t": "ping"}, {"t": "é", "u": "ü" * 50}]
    data = b"".join(encode_message(m) for m in msgs)
    for step in (1, 3, 7, len(data)):
        dec = FrameDecoder()
        got = []
        for i in range(0, len(data), step):
            dec.feed(data[i : i + step])
            got += bodies(dec)
        assert [decode_body(b) for b in got] == msgs


def test_oversize_header_is_rejected_before_the_body_arrives():
    dec = FrameDecoder(Limits(max_frame=1000))
    with pytest.raises(ProtocolError, match="exceeds the maximum 1000"):
        dec.feed(HEADER.pack(1001))
    with pytest.raises(ValueError, match="exceeds"):
        encode_message({"t": "x", "b": b"\x00" * 2000}, Limits(max_frame=1000))


def test_empty_frame_is_rejected():
    with pytest.raises(ProtocolError, match="empty frame"):
        FrameDecoder().feed(b"\x00\x00\x00\x00")


@pytest.mark.parametrize("obj,reason", [
    ([1, 2], "not a map"),
    ({"x": 1}, "no str 't'"),
    ({"t": 5}, "no str 't'"),
    ({1: "int key", "t": "a"}, "undecodable"),
    (msgpack.ExtType(5, b"abc"), "undecodable"),
    (msgpack.ExtType(5, b""), "undecodable"),
])
def test_strict_decoding(obj, reason):
    body = msgpack.packb(obj, use_bin_type=True, strict_types=False)
    with pytest.raises(ProtocolError, match=reason):
        decode_body(body)


def test_map_keys_must_be_unique_strings_at_every_level():
    with pytest.raises(ProtocolError, match="duplicate map key 't'"):
        decode_body(b"\x82\xa1t\xa1a\xa1t\xa1b")  # {"t": "a", "t": "b"}
    with pytest.raises(ProtocolError, match="is not a string"):
        decode_body(msgpack.packb({"t": "a", "m": {b"bin key": 1}}, use_bin_type=True))
    assert decode_body(msgpack.packb({"t": "a", "m": {"k": [{"x": 1}]}})) == {"t": "a", "m": {"k": [{"x": 1}]}}


def test_trailing_bytes_and_invalid_utf8_are_rejected():
    with pytest.raises(ProtocolError, match="undecodable"):
        decode_body(msgpack.packb({"t": "a"}) + b"\x01")
    with pytest.raises(ProtocolError, match="undecodable"):
        decode_body(b"\x81\xa1t\xa2\xff\xfe")  # {"t": <invalid utf-8>}


def test_container_limits():
    limits = Limits(max_array_len=10, max_map_len=5, max_str_len=20)
    with pytest.raises(ProtocolError):
        decode_body(msgpack.packb({"t": "a", "l": list(range(11))}), limits)
    with pytest.raises(ProtocolError):
        decode_body(msgpack.packb({"t": "a", "s": "x" * 21}), limits)
    with pytest.raises(ProtocolError):
        decode_body(msgpack.packb({"t": "a", **{f"k{i}": i for i in range(6)}}), limits)


def test_deep_nesting_is_a_protocol_error():
    body = b"\x91" * 100_000 + b"\xc0"
    with pytest.raises(ProtocolError):
        decode_body(b"\x82\xa1t\xa1a\xa1x" + body)


async def test_framed_stream_eof_mid_frame_and_clean_eof():
    a, b = trio.testing.memory_stream_pair()
    fa, fb = FramedStream(a), FramedStream(b)
    await fa.send({"t": "ping"})
    await a.send_all(frame({"t": "x"})[:5])
    await a.aclose()
    assert await fb.receive() == {"t": "ping"}
    with pytest.raises(ProtocolError, match="middle of a frame"):
        await fb.receive()
    c, d = trio.testing.memory_stream_pair()
    await c.aclose()
    with pytest.raises(ConnectionClosed):
        await FramedStream(d).receive()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096), st.integers(1, 64))
def test_fuzz_decoder_random_bytes(data, step):
    dec = FrameDecoder(Limits(max_frame=2048))
    try:
        for i in range(0, len(data), step):
            dec.feed(data[i : i + step])
            for body in bodies(dec):
                msg = decode_body(body, dec.limits)
                assert isinstance(msg, dict) and isinstance(msg["t"], str)
    except ProtocolError:
        pass
    assert dec.buffered <= 4 + 2048 + step


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=20)
    | st.binary(max_size=40),
    lambda kids: st.lists(kids, max_size=5) | st.dictionaries(st.text(max_size=8), kids, max_size=5),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["t", "v", "key", "nonce", "name", "role", "session", "kx", "sig", "x"]),
                       msgpack_values, max_size=9))
def test_fuzz_handshake_parsers_structured(fields):
    body = msgpack.packb(fields, use_bin_type=True)
    for parser in (parse_hello, parse_auth):
        try:
            parser(body)
        except ProtocolError:
            pass


_IDENTITY = Identity(new_key(), "fuzz")
_VALID_HELLO = make_hello(_IDENTITY, "lobby", None, b"\x01" * 32, b"\x02" * 32)


@settings(max_examples=400, deadline=None)
@given(st.integers(0, len(_VALID_HELLO) - 1), st.integers(0, 255), st.integers(0, 8))
def test_fuzz_handshake_parser_mutated_hello(pos, value, cut):
    body = bytearray(_VALID_HELLO)
    body[pos] = value
    body = bytes(body[: len(body) - cut])
    try:
        hello = parse_hello(body)
    except ProtocolError:
        return
    assert len(hello.key) == len(hello.nonce) == len(hello.kx) == 32 and hello.role in ("lobby", "watch", "mesh")


_seat = st.fixed_dictionaries({"name": st.text(max_size=70), "key": st.binary(min_size=31, max_size=33)},
                              optional={"host": st.text(max_size=10), "port": st.integers(-1, 70000)})
_lobby_fields = {
    "round": st.integers(-2, 3), "table": st.binary(min_size=15, max_size=17),
    "game": st.sampled_from(["bura", "BAD GAME", "", "kanasta"]), "v": st.integers(0, 2),
    "options": st.dictionaries(st.text(max_size=5), st.one_of(st.integers(-(2**63), 2**64 - 1), st.booleans(),
                                                              st.text(max_size=5), st.none()), max_size=3),
    "wanted": st.integers(0, 10), "seats": st.lists(_seat, max_size=9), "notice": st.none() | st.text(max_size=5),
    "contribs": st.lists(st.binary(min_size=31, max_size=33), max_size=9), "session": st.binary(max_size=33),
}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["seats", "propose", "final"]),
       st.fixed_dictionaries({}, optional=_lobby_fields))
def test_fuzz_lobby_parsers(t, fields):
    from p2pcards.net.agreement import parse_final_msg, parse_propose_msg, parse_seats_msg

    msg = decode_body(msgpack.packb({"t": t, **fields}, use_bin_type=True))
    parser = {"seats": parse_seats_msg, "final": parse_final_msg,
              "propose": lambda m: parse_propose_msg(m, b"k" * 32)}[t]
    try:
        parser(msg)
    except ProtocolError:
        pass


def test_a_body_may_hold_a_bounded_number_of_values_in_all():
    """1 MiB of empty arrays would decode to a million objects (some 64 MB):
    the items of all arrays and maps of one body are bounded together, and a
    received frame is charged what it holds (FramedStream.last_size)."""
    from p2pcards.net.framing import ITEM_COST, decode_counted

    hollow = msgpack.packb({"t": "app", "m": [[[]] * 16_000] * 5}, use_bin_type=True)
    assert len(hollow) < 100_000
    with pytest.raises(ProtocolError, match="more than 65536 values"):
        decode_body(hollow)
    msg, items = decode_counted(msgpack.packb({"t": "app", "m": [[]] * 1000}, use_bin_type=True))
    assert items == 2 + 1000 and len(msg["m"]) == 1000 and ITEM_COST * items > 1000 * 56
