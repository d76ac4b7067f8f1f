"""Frames: a 4-byte big-endian length, then one msgpack map with a ``"t"`` field
(after the handshake, sealed with ChaCha20-Poly1305).

``FrameDecoder`` is sans-IO (feed bytes, get bodies) so it can be fuzzed
directly; ``FramedStream`` puts it on a trio stream.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import msgpack
import trio
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from .. import limits
from ..i18n import N_
from .errors import ConnectionClosed, ProtocolError

DEFAULT_MAX_FRAME = limits.MAX_FRAME
HEADER = struct.Struct(">I")
TAG_LEN = 16  # Poly1305 tag; a plaintext body may be at most max_frame - TAG_LEN

# Why a connection ended, as a player may read it (i18n.known(text, WORDS)).
SEND_FAILED = N_("send to {peer} failed: {reason}")
RECEIVE_FAILED = N_("receive from {peer} failed: {reason}")
CLOSED = N_("{peer} closed the connection")
NOT_READING = N_("{peer} took nothing we sent for {seconds}s")
WORDS = (SEND_FAILED, RECEIVE_FAILED, CLOSED, NOT_READING)
_RECV_CHUNK = 64 * 1024
_SEND_CHUNK = 64 * 1024  # a frame goes out in pieces this big, each with its own stall timeout


@dataclass(frozen=True)
class Limits:
    """Hard bounds on one frame and on what its msgpack body may contain."""

    max_frame: int = DEFAULT_MAX_FRAME
    max_str_len: int = 64 * 1024
    max_array_len: int = 16 * 1024
    max_map_len: int = 1024
    # Items of all arrays and maps of one frame together: a frame of 1 MiB of
    # empty arrays would otherwise decode to a million objects, some 64 MB.
    max_items: int = 64 * 1024

    def __post_init__(self) -> None:
        if not 16 <= self.max_frame <= 0xFFFFFFFF:
            raise ValueError(f"max_frame must be in [16, 2**32-1], got {self.max_frame}")


def _reject_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension type {code} is not allowed")


# What one decoded value may cost in memory beyond its bytes, at most (a
# pointer and a small object): a received frame is charged its body's size
# plus this for every item of its arrays and maps (FramedStream.last_size).
ITEM_COST = 64  # bytes


def _strict_map(pairs: list) -> dict:
    # Only str keys, each once: two decoders must never read one map two ways.
    out: dict = {}
    for key, value in pairs:
        if type(key) is not str:
            raise ValueError(f"map key {key!r} is not a string")
        if key in out:
            raise ValueError(f"duplicate map key {key!r}")
        out[key] = value
    return out


def pack_message(msg: dict, limits: Limits = Limits()) -> bytes:
    """Encode one message to a frame body; ValueError if it is not a message or too big."""
    if not isinstance(msg, dict) or not isinstance(msg.get("t"), str):
        raise ValueError("a message is a dict with a str 't' field")
    try:
        body = msgpack.packb(msg, use_bin_type=True)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"message cannot be encoded: {exc}") from None
    if len(body) + TAG_LEN > limits.max_frame:
        raise ValueError(f"message of {len(body)} bytes exceeds the maximum {limits.max_frame - TAG_LEN}")
    return body


def encode_message(msg: dict, limits: Limits = Limits()) -> bytes:
    """One message as a complete plaintext frame (header + body)."""
    return encode_frame(pack_message(msg, limits), limits)


def encode_frame(body: bytes, limits: Limits = Limits()) -> bytes:
    if not body:
        raise ValueError("empty frame body")
    if len(body) > limits.max_frame:
        raise ValueError(f"frame of {len(body)} bytes exceeds the maximum {limits.max_frame}")
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes, limits: Limits = Limits()) -> dict:
    """Strictly decode one frame body; anything unexpected is a ProtocolError."""
    return decode_counted(body, limits)[0]


def decode_counted(body: bytes, limits: Limits = Limits()) -> tuple[dict, int]:
    """``decode_body``, and the number of array and map items the message holds."""
    items = 0

    def counted(container):
        nonlocal items
        items += len(container)
        if items > limits.max_items:  # checked as the decoder goes: it stops there
            raise ProtocolError(f"frame holds more than {limits.max_items} values")
        return container

    try:
        msg = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_bin_len=limits.max_frame,
            max_str_len=limits.max_str_len,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=0,
            ext_hook=_reject_ext,
            list_hook=counted,
            object_pairs_hook=lambda pairs: _strict_map(counted(pairs)),
        )
    except ProtocolError:
        raise
    except Exception as exc:  # msgpack raises many types (ValueError, ExtraData, StackError...)
        raise ProtocolError(f"undecodable frame: {type(exc).__name__}: {exc}") from None
    if not isinstance(msg, dict):
        raise ProtocolError(f"frame is a {type(msg).__name__}, not a map")
    t = msg.get("t")
    if not isinstance(t, str):
        raise ProtocolError("message has no str 't' field")
    return msg, items


class FrameDecoder:
    """Incremental splitter of a byte stream into frame bodies.

    A frame's header is checked as soon as it is complete, so an oversize frame is
    refused before its body is buffered; the caller feeds at most one read chunk
    beyond the current frame, which bounds the buffer."""

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits
        self._buf = bytearray()
        self._pos = 0  # start of the first unconsumed byte (avoids a memmove per frame)

    @property
    def buffered(self) -> int:
        return len(self._buf) - self._pos

    def feed(self, data: bytes) -> None:
        self._buf += data
        self._check_header()

    def _check_header(self) -> None:
        if self.buffered >= HEADER.size:
            (n,) = HEADER.unpack_from(self._buf, self._pos)
            if n == 0:
                raise ProtocolError("empty frame (length 0)")
            if n > self.limits.max_frame:
                raise ProtocolError(f"frame of {n} bytes exceeds the maximum {self.limits.max_frame}")

    def next_body(self) -> bytes | None:
        """The next complete frame body, or None if more bytes are needed."""
        pos = self._pos
        if self.buffered >= HEADER.size:
            # The header of this frame, checked now: a bad one after a good
            # frame must not cost the good frame (it is delivered first).
            self._check_header()
            (n,) = HEADER.unpack_from(self._buf, pos)
            end = pos + HEADER.size + n
            if len(self._buf) >= end:
                body = bytes(self._buf[pos + HEADER.size : end])
                self._pos = end
                return body
        del self._buf[:pos]  # compact only when waiting for more bytes
        self._pos = 0
        return None


class FrameCipher:
    """One direction of a connection: ChaCha20-Poly1305 with the nonce
    4 zero bytes || u64 big-endian frame counter, so a frame that is forged,
    replayed, dropped or moved fails to open."""

    def __init__(self, key: bytes) -> None:
        self._aead = ChaCha20Poly1305(key)
        self._counter = 0

    def _nonce(self) -> bytes:
        nonce = b"\x00" * 4 + self._counter.to_bytes(8, "big")
        self._counter += 1
        return nonce

    def seal(self, body: bytes) -> bytes:
        return self._aead.encrypt(self._nonce(), body, None)

    def open(self, sealed: bytes) -> bytes:
        try:
            return self._aead.decrypt(self._nonce(), sealed, None)
        except InvalidTag:
            raise ProtocolError("frame failed authentication (forged, replayed or out of order)") from None


class FramedStream:
    """A trio stream carrying frames. Sends are serialised by a lock; once the
    handshake has set keys (``seal_with``), every frame is sealed."""

    def __init__(self, stream: trio.abc.Stream, limits: Limits = Limits(), peer: str = "?") -> None:
        self.stream = stream
        self.limits = limits
        self.peer = peer
        self._decoder = FrameDecoder(limits)
        self._send_lock = trio.Lock()
        self._send_cipher: FrameCipher | None = None
        self._recv_cipher: FrameCipher | None = None
        self.closed = False
        self.last_size = 0  # what the last frame received costs in memory, at most (its bytes and its items)
        # Seconds a send may make no progress at all before the connection is
        # given up (a peer that does not read); None: no limit.
        self.send_stall: float | None = None
        self.stalled = False  # a send gave up for that: nothing more can go out

    def seal_with(self, send_key: bytes, receive_key: bytes) -> None:
        self._send_cipher, self._recv_cipher = FrameCipher(send_key), FrameCipher(receive_key)

    async def send(self, msg: dict) -> None:
        await self.send_body(pack_message(msg, self.limits))

    async def send_body(self, body: bytes) -> None:
        async with self._send_lock:  # sealing under the lock keeps counters in write order
            if self._send_cipher is not None:
                body = self._send_cipher.seal(body)
            await self._send_all(encode_frame(body, self.limits))

    async def send_frame(self, frame: bytes) -> None:
        """Raw bytes, bypassing framing and sealing (tests use it to play a hostile peer)."""
        async with self._send_lock:
            await self._send_all(frame)

    async def _send_all(self, frame: bytes) -> None:
        if self.stalled:  # a frame was cut short: another would be read as its rest
            raise ConnectionClosed(NOT_READING.format(peer=self.peer, seconds=f"{self.send_stall:g}"))
        try:
            if self.send_stall is None:
                await self.stream.send_all(frame)
                return
            view = memoryview(frame)
            for start in range(0, len(frame), _SEND_CHUNK):
                with trio.move_on_after(self.send_stall):
                    await self.stream.send_all(view[start:start + _SEND_CHUNK])
                    continue
                # Part of a frame went out: this stream can carry nothing more.
                self.closed = self.stalled = True
                raise ConnectionClosed(NOT_READING.format(peer=self.peer, seconds=f"{self.send_stall:g}"))
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ConnectionClosed(SEND_FAILED.format(peer=self.peer, reason=exc or type(exc).__name__)) from None

    async def receive_raw(self) -> tuple[bytes, dict]:
        """The next frame as (exact body bytes, decoded message)."""
        while True:
            body = self._decoder.next_body()
            if body is not None:
                if self._recv_cipher is not None:
                    body = self._recv_cipher.open(body)
                msg, items = decode_counted(body, self.limits)
                self.last_size = len(body) + ITEM_COST * items
                return body, msg
            try:
                data = await self.stream.receive_some(_RECV_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                raise ConnectionClosed(RECEIVE_FAILED.format(peer=self.peer, reason=exc or type(exc).__name__)) from None
            if not data:
                if self._decoder.buffered:
                    raise ProtocolError("connection closed in the middle of a frame "
                                        f"({self._decoder.buffered} bytes)")
                raise ConnectionClosed(CLOSED.format(peer=self.peer))
            self._decoder.feed(data)

    async def receive(self) -> dict:
        return (await self.receive_raw())[1]

    async def aclose(self) -> None:
        self.closed = True
        with trio.move_on_after(1) as scope:
            scope.shield = True
            try:
                await self.stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
