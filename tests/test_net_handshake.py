"""The authenticated handshake over in-memory streams: success, every refusal,
replays, and timeouts under a mock clock."""

from __future__ import annotations

import functools

import msgpack
import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards import PROTOCOL_VERSION
from p2pcards.net.errors import ConnectionClosed, HandshakeError, NetError, ProtocolError
from p2pcards.net.framing import FramedStream
from p2pcards.net.handshake import (TAG_INITIATOR, Identity, ReplayGuard, initiate, make_hello, respond,
                                    transcript)

from tests.helpers import Recorder, frame, new_key

ALICE = Identity(new_key(), "Alice")
BOB = Identity(new_key(), "Bob")
SESSION = b"S" * 32
KX = bytes(range(1, 33))  # any X25519 public value


def admit_all(hello):
    return hello.session


async def run_pair(init_kwargs, resp_kwargs, initiator=ALICE, responder=BOB):
    a, b = trio.testing.memory_stream_pair()
    fa, fb = FramedStream(a), FramedStream(b)
    results = {}

    async def side(name, framed, coro):
        try:
            results[name] = await coro
        except NetError as exc:
            results[name] = exc
            await framed.aclose()  # as the endpoint does: the other side sees the close

    async with trio.open_nursery() as nursery:
        nursery.start_soon(side, "i", fa, initiate(fa, initiator, **init_kwargs))
        nursery.start_soon(side, "r", fb, respond(fb, responder, **resp_kwargs))
    return results["i"], results["r"]


async def test_handshake_succeeds_and_names_both_sides():
    ci, cr = await run_pair(dict(role="mesh", session=SESSION, expect_key=BOB.public_key),
                            dict(admit=admit_all))
    assert ci.peer_key == BOB.public_key and ci.peer_name == "Bob" and ci.session == SESSION
    assert cr.peer_key == ALICE.public_key and cr.peer_name == "Alice" and cr.role == "mesh"
    await ci.send({"t": "app", "m": 1})
    assert await cr.receive() == {"t": "app", "m": 1}


async def test_unexpected_key_is_refused_by_the_initiator():
    ci, cr = await run_pair(dict(role="mesh", session=SESSION, expect_key=new_key().public_key().public_bytes_raw()),
                            dict(admit=admit_all))
    assert isinstance(ci, HandshakeError) and "unexpected key" in str(ci)
    assert isinstance(cr, NetError)


async def test_admission_refusal_reaches_the_initiator():
    def refuse(hello):
        raise HandshakeError("key is not a player of this table")
    ci, cr = await run_pair(dict(role="mesh", session=SESSION), dict(admit=refuse))
    assert isinstance(cr, HandshakeError)
    # The responder's caller sends the error frame; here we only check the initiator fails too.
    assert isinstance(ci, NetError)


async def test_different_session_is_refused():
    ci, cr = await run_pair(dict(role="mesh", session=SESSION), dict(admit=lambda h: b"T" * 32))
    assert isinstance(ci, HandshakeError) and "different session" in str(ci)


async def test_own_key_is_refused():
    ci, cr = await run_pair(dict(role="lobby", session=None), dict(admit=admit_all), initiator=BOB)
    assert isinstance(cr, HandshakeError) and "our own key" in str(cr)


async def test_wrong_version_is_refused_with_reason():
    a, b = trio.testing.memory_stream_pair()
    hello = msgpack.unpackb(make_hello(ALICE, "lobby", None, b"n" * 32, KX))
    hello["v"] = PROTOCOL_VERSION + 1
    await a.send_all(frame(hello))
    with pytest.raises(HandshakeError, match=f"version {PROTOCOL_VERSION + 1}"):
        await respond(FramedStream(b), BOB, admit=admit_all)


async def test_forged_signature_is_refused():
    """A stranger presenting Alice's key without her private key cannot sign the transcript."""
    mallory = Identity(new_key(), "Alice")
    a, b = trio.testing.memory_stream_pair()
    fa = FramedStream(a)
    hello_i = make_hello(ALICE, "lobby", None, b"m" * 32, KX)  # Alice's public key, Mallory's connection
    await fa.send_frame(frame(msgpack.unpackb(hello_i))[:4] + hello_i)

    async def mallory_side():
        body, _ = await fa.receive_raw()  # responder hello
        await fa.receive_raw()  # responder auth
        await fa.send({"t": "auth", "sig": mallory.private_key.sign(transcript(TAG_INITIATOR, hello_i, body))})

    async with trio.open_nursery() as nursery:
        nursery.start_soon(mallory_side)
        with pytest.raises(HandshakeError, match="bad handshake signature"):
            await respond(FramedStream(b), BOB, admit=admit_all)


async def test_replayed_transcript_is_refused():
    """Record Alice's side of a real handshake and play it back to Bob: Bob's fresh nonce
    makes the old signature worthless, and the replay guard names the replay."""
    guard = ReplayGuard()
    a, b = trio.testing.memory_stream_pair()
    rec = Recorder(a)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(initiate, FramedStream(rec), ALICE, role="lobby", session=None))
        await respond(FramedStream(b), BOB, admit=admit_all, replay=guard)
    recorded = bytes(rec.sent)

    for g, reason in ((guard, "replayed handshake"), (ReplayGuard(), "bad handshake signature")):
        c, d = trio.testing.memory_stream_pair()
        await c.send_all(recorded)
        with pytest.raises(HandshakeError, match=reason):
            await respond(FramedStream(d), BOB, admit=admit_all, replay=g)


async def test_half_open_connection_times_out(autojump_clock):
    a, b = trio.testing.memory_stream_pair()
    with pytest.raises(HandshakeError, match="timed out after 10"):
        await respond(FramedStream(b), BOB, admit=admit_all, timeout=10)
    # ... and a responder that never answers times the initiator out too.
    c, d = trio.testing.memory_stream_pair()
    with pytest.raises(HandshakeError, match="answered nothing in 3s"):
        await initiate(FramedStream(c), ALICE, role="lobby", session=None, timeout=3)


async def test_slowloris_trickle_times_out(autojump_clock):
    a, b = trio.testing.memory_stream_pair()
    data = frame(msgpack.unpackb(make_hello(ALICE, "lobby", None, b"n" * 32, KX)))

    async def trickle():
        for byte in data[:-1]:
            await a.send_all(bytes([byte]))
            await trio.sleep(1)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trickle)
        with pytest.raises(HandshakeError, match="timed out"):
            await respond(FramedStream(b), BOB, admit=admit_all, timeout=10)
        nursery.cancel_scope.cancel()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=200), max_size=6), st.booleans())
def test_fuzz_responder_never_crashes_or_hangs(chunks, close):
    """Arbitrary bytes from an unauthenticated peer end in a NetError: at the EOF if the
    peer closes, else at the handshake timeout (virtual time)."""
    async def main():
        a, b = trio.testing.memory_stream_pair()
        for c in chunks:
            await a.send_all(c)
        if close:
            await a.aclose()
        with pytest.raises(NetError):
            await respond(FramedStream(b), BOB, admit=admit_all, timeout=5)

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


async def test_silent_peer_is_declared_dead_but_a_pinging_one_is_not(autojump_clock):
    """After the handshake: pings keep a quiet connection alive; silence kills it."""
    ci, cr = await run_pair(dict(role="mesh", session=SESSION), dict(admit=admit_all))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(ci.keepalive, 3.0)
        with trio.move_on_after(600):  # ten virtual minutes of pings only
            await cr.receive_live(20.0)
        nursery.cancel_scope.cancel()
    with pytest.raises(ConnectionClosed, match="silent for 20.0s"):
        await cr.receive_live(20.0)


async def _sealed_pair():
    a, b = trio.testing.memory_stream_pair()
    rec = Recorder(a)
    fi = FramedStream(rec)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(functools.partial(initiate, fi, ALICE, role="mesh", session=SESSION))
        cr = await respond(FramedStream(b), BOB, admit=admit_all)
    return fi, rec, cr


async def test_after_the_handshake_frames_are_sealed_to_their_connection():
    """An on-path attacker can neither inject a frame, nor replay one, nor move one
    from another connection: each fails to open."""
    fi, rec, cr = await _sealed_pair()
    start = len(rec.sent)
    await fi.send({"t": "app", "m": "first"})
    sealed_first = bytes(rec.sent[start:])
    assert b"first" not in sealed_first
    assert await cr.receive() == {"t": "app", "m": "first"}

    cases = {"injected": frame({"t": "app", "m": "injected"}), "replayed": sealed_first}
    for what, forged in cases.items():
        fi2, rec2, cr2 = await _sealed_pair() if what == "injected" else (fi, rec, cr)
        await rec2.inner.send_all(forged)
        with pytest.raises(ProtocolError, match="frame failed authentication"):
            await cr2.receive()
    # Moved: the first frame of one connection, shown to another at the same counter.
    fi3, rec3, cr3 = await _sealed_pair()
    await rec3.inner.send_all(sealed_first)
    with pytest.raises(ProtocolError, match="frame failed authentication"):
        await cr3.receive()


# ----- a port that is not a p2pcards table


async def _serve_once(answer: bytes | None, task_status=trio.TASK_STATUS_IGNORED):
    """A TCP server on loopback that answers every connection with ``answer``
    (None: reads and says nothing), as an HTTP or SSH server would."""
    async def handle(stream):
        if answer is not None:
            await stream.send_all(answer)
        await trio.sleep_forever()

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listeners[0].socket.getsockname()[1])
    await trio.serve_listeners(handle, listeners)


@pytest.mark.parametrize("answer", [b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
                                    b"SSH-2.0-OpenSSH_9.6\r\n", b"\x00\x00\x00\x05hello"])
async def test_a_port_answering_another_protocol_is_not_a_table_at_once(answer):
    from p2pcards.net.endpoint import dial

    async with trio.open_nursery() as nursery:
        port = await nursery.start(_serve_once, answer)
        with trio.fail_after(30):  # well under the handshake's own time: it is said at once
            with pytest.raises(NetError) as caught:
                await dial(ALICE, "127.0.0.1", port, role="lobby", session=None, timeout=60)
        nursery.cancel_scope.cancel()
    assert str(caught.value) == f"127.0.0.1:{port} is not a p2pcards table (it answers in another protocol)"


async def test_a_silent_port_is_named_with_the_question_whether_it_is_a_table(autojump_clock):
    from p2pcards.net.endpoint import dial

    async with trio.open_nursery() as nursery:
        port = await nursery.start(_serve_once, None)
        with pytest.raises(NetError) as caught:
            await dial(ALICE, "127.0.0.1", port, role="lobby", session=None, timeout=10)
        nursery.cancel_scope.cancel()
    assert str(caught.value) == f"127.0.0.1:{port} answered nothing in 10s: is it a p2pcards table?"
