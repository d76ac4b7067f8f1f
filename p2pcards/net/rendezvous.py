"""Invite codes: two people who share a short code get an authenticated,
sealed channel through a magic-wormhole Mailbox server, which sees only
ciphertext.

The Mailbox server's protocol (JSON over a WebSocket): ``bind`` (our app id
and a random side), the host's ``allocate`` gives a short number (the
nameplate, the code's first part), both ``claim`` it and ``open`` the mailbox
it names, then each ``add``\\ s messages (a phase and a hex body) that the server
hands to both sides. On top, as magic-wormhole clients do: SPAKE2 on the
whole code (phase ``pake``), then a ``version`` message sealed with the
agreed key, which a side that typed another code cannot open (the code is
then void: both sides close the mailbox, the host makes a new code), then
the application's messages (phases ``0``, ``1``, ...), each sealed with a key
derived from the PAKE key, the sender's side and the phase, so none can be
replayed, reordered or reflected.

The code is ``NAMEPLATE-DDDD-DDDD``: digits read out the same way in every
language; the eight secret digits give an attacker one guess in 10^8 before
the code burns.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
from contextlib import asynccontextmanager
from typing import AsyncIterator

import msgpack
import trio
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from ..i18n import N_
from .errors import NetError
from .messages import printable

log = logging.getLogger("p2pcards.net.rendezvous")

APPID = "p2pcards.table/v1"
CODE_RE = re.compile(r"^(\d{1,6})-(\d{4}-\d{4})$")
MAX_MAILBOX_MESSAGE = 64 * 1024  # bytes: ours are a few hundred
DEFAULT_ANSWER_TIMEOUT = 30.0  # seconds a code's other side has to show up once we are in the mailbox

CANNOT_REACH = N_("cannot reach the invitation server {url}: {reason}")
SERVER_REFUSED = N_("the invitation server refused: {reason}")
WRONG_CODE = N_("wrong invite code: the code is now void, ask for a new one")
NO_ANSWER = N_("nobody answered the invite code {code} (mistyped, or already used?)")
BAD_CODE = N_("{code} is not an invite code (they look like 7-1234-5678)")
GARBLED = N_("the other side of the invite code sent something unreadable")
WORDS = (CANNOT_REACH, SERVER_REFUSED, WRONG_CODE, NO_ANSWER, BAD_CODE, GARBLED)


class CodeError(NetError):
    """The code did not give a channel: mistyped, used, guessed wrong, or no server."""


class WrongCode(CodeError):
    """The two sides typed different codes; the code is void from now on."""


def is_code(text: str) -> bool:
    return CODE_RE.match(text.strip()) is not None


def new_password() -> str:
    digits = f"{secrets.randbelow(10 ** 8):08d}"
    return f"{digits[:4]}-{digits[4:]}"


def _derive(key: bytes, purpose: bytes, length: int = 32) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=purpose).derive(key)


def phase_key(key: bytes, side: str, phase: str) -> bytes:
    """The key sealing ``side``'s message of ``phase`` (bound to both, so a
    message cannot be replayed under another phase or reflected to its sender)."""
    return _derive(key, b"wormhole:phase:" + hashlib.sha256(side.encode()).digest()
                   + hashlib.sha256(phase.encode()).digest())


def seal(key: bytes, plaintext: bytes) -> bytes:
    nonce = secrets.token_bytes(12)
    return nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, None)


def unseal(key: bytes, sealed: bytes) -> bytes:
    """Raises InvalidTag if ``sealed`` was not made with ``key``."""
    if len(sealed) < 12 + 16:
        raise InvalidTag()
    return ChaCha20Poly1305(key).decrypt(sealed[:12], sealed[12:], None)


class Mailbox:
    """One WebSocket connection to a Mailbox server (use ``connect_mailbox``)."""

    def __init__(self, ws, url: str) -> None:
        self.ws, self.url = ws, url
        self.side = secrets.token_hex(8)
        self.nameplate: str | None = None
        self.mailbox: str | None = None
        self.other_side: str | None = None  # fixed by the first PAKE message we read
        self._pending: list[dict] = []  # messages of the other side, in order

    async def _send(self, mtype: str, **fields) -> None:
        fields["type"] = mtype
        fields["id"] = secrets.token_hex(2)
        await self.ws.send_message(json.dumps(fields))

    async def _next(self) -> dict:
        from trio_websocket import ConnectionClosed as WsClosed

        try:
            raw = await self.ws.get_message()
        except WsClosed as exc:
            raise CodeError(CANNOT_REACH.format(url=self.url, reason=printable(str(exc.reason or "closed"), 200))) from None
        try:
            msg = json.loads(raw)
        except (ValueError, TypeError):
            raise CodeError(SERVER_REFUSED.format(reason="not JSON")) from None
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            raise CodeError(SERVER_REFUSED.format(reason="no message type"))
        if msg["type"] == "error":  # the server's own words, made safe for a terminal
            raise CodeError(SERVER_REFUSED.format(reason=printable(str(msg.get("error")), 200)))
        return msg

    async def _expect(self, mtype: str) -> dict:
        """The server's next answer of ``mtype``; the other side's messages met
        on the way are kept for ``receive``."""
        while True:
            msg = await self._next()
            if msg["type"] == mtype:
                return msg
            self._keep(msg)

    def _keep(self, msg: dict) -> None:
        side = msg.get("side")
        if msg["type"] == "message" and isinstance(side, str) and side != self.side \
                and self.other_side in (None, side):
            self._pending.append(msg)

    async def bind(self) -> None:
        await self._expect("welcome")
        await self._send("bind", appid=APPID, side=self.side, client_version=["p2pcards", "1"])

    async def allocate(self) -> str:
        await self._send("allocate")
        nameplate = (await self._expect("allocated")).get("nameplate")
        if not isinstance(nameplate, str) or not nameplate.isdigit():
            raise CodeError(SERVER_REFUSED.format(reason="odd nameplate"))
        return nameplate

    async def claim_and_open(self, nameplate: str) -> None:
        await self._send("claim", nameplate=nameplate)
        mailbox = (await self._expect("claimed")).get("mailbox")
        if not isinstance(mailbox, str):
            raise CodeError(SERVER_REFUSED.format(reason="no mailbox"))
        self.nameplate, self.mailbox = nameplate, mailbox
        await self._send("open", mailbox=mailbox)

    async def add(self, phase: str, body: bytes) -> None:
        await self._send("add", phase=phase, body=body.hex())

    async def receive(self, phase: str) -> bytes:
        """The other side's message of ``phase`` (the server sends every message
        to both sides, ours included: those are skipped)."""
        while True:
            while self._pending:
                msg = self._pending.pop(0)
                if msg.get("phase") == phase and self.other_side in (None, msg["side"]):
                    self.other_side = msg["side"]
                    try:
                        body = bytes.fromhex(msg.get("body", ""))
                    except (ValueError, TypeError):
                        raise CodeError(GARBLED) from None
                    if len(body) > MAX_MAILBOX_MESSAGE:
                        raise CodeError(GARBLED)
                    return body
            self._keep(await self._next())

    async def close(self, mood: str) -> None:
        """Release the nameplate and close the mailbox (best effort: the
        server forgets both once both sides have)."""
        with trio.move_on_after(2) as scope:
            scope.shield = True
            try:
                if self.nameplate is not None:
                    await self._send("release", nameplate=self.nameplate)
                if self.mailbox is not None:
                    await self._send("close", mailbox=self.mailbox, mood=mood)
            except Exception:  # the server may be gone already
                pass


@asynccontextmanager
async def connect_mailbox(url: str) -> AsyncIterator[Mailbox]:
    from trio_websocket import HandshakeError as WsHandshakeError
    from trio_websocket import open_websocket_url

    try:
        async with open_websocket_url(url, max_message_size=MAX_MAILBOX_MESSAGE) as ws:
            box = Mailbox(ws, url)
            await box.bind()
            yield box
    except (OSError, WsHandshakeError, ValueError, trio.TooSlowError) as exc:
        raise CodeError(CANNOT_REACH.format(url=url, reason=str(exc) or type(exc).__name__)) from None


class CodeChannel:
    """The sealed channel a code gives: ``send`` and ``receive`` msgpack maps."""

    def __init__(self, box: Mailbox, key: bytes) -> None:
        self.box, self.key = box, key
        self._sent = 0
        self._received = 0
        self.verifier = _derive(key, b"p2pcards:code-verifier", 16)

    async def send(self, msg: dict) -> None:
        phase = str(self._sent)
        self._sent += 1
        body = msgpack.packb(msg, use_bin_type=True)
        await self.box.add(phase, seal(phase_key(self.key, self.box.side, phase), body))

    async def receive(self) -> dict:
        phase = str(self._received)
        self._received += 1
        sealed = await self.box.receive(phase)
        try:
            body = unseal(phase_key(self.key, self.box.other_side, phase), sealed)
            msg = msgpack.unpackb(body, raw=False, strict_map_key=True)
        except (InvalidTag, ValueError, msgpack.UnpackException):
            raise CodeError(GARBLED) from None
        if not isinstance(msg, dict):
            raise CodeError(GARBLED)
        return msg


async def _agree(box: Mailbox, code: str, answer_timeout: float | None) -> CodeChannel:
    """SPAKE2 on the code, then the sealed ``version`` both ways: a side with
    another code cannot open ours, and the code is void."""
    from spake2 import SPAKE2_Symmetric
    from spake2.spake2 import SPAKEError

    pake = SPAKE2_Symmetric(code.encode(), idSymmetric=APPID.encode())
    await box.add("pake", json.dumps({"pake_v1": pake.start().hex()}).encode())
    with trio.move_on_after(answer_timeout if answer_timeout is not None else float("inf")) as waiting:
        theirs = await box.receive("pake")
    if waiting.cancelled_caught:
        raise CodeError(NO_ANSWER.format(code=code))
    other_side = box.other_side
    try:
        key = pake.finish(bytes.fromhex(json.loads(theirs)["pake_v1"]))
    except (SPAKEError, ValueError, KeyError, TypeError):
        raise CodeError(GARBLED) from None
    await box.add("version", seal(phase_key(key, box.side, "version"), b'{"app_versions": {}}'))
    try:
        unseal(phase_key(key, other_side, "version"), await box.receive("version"))
    except InvalidTag:
        await box.close("scary")
        raise WrongCode(WRONG_CODE) from None
    return CodeChannel(box, key)


@asynccontextmanager
async def offer_code(url: str, on_code, *, answer_timeout: float | None = None) -> AsyncIterator[CodeChannel]:
    """Host side: allocate a code, tell it through ``on_code(code)``, wait for
    whoever types it, yield the sealed channel to them."""
    async with connect_mailbox(url) as box:
        nameplate = await box.allocate()
        await box.claim_and_open(nameplate)
        code = f"{nameplate}-{new_password()}"
        on_code(code)
        channel = await _agree(box, code, answer_timeout)
        try:
            yield channel
        finally:
            await box.close("happy")


@asynccontextmanager
async def redeem_code(url: str, code: str, *,
                      answer_timeout: float = DEFAULT_ANSWER_TIMEOUT) -> AsyncIterator[CodeChannel]:
    """Joiner side: the sealed channel to whoever offered ``code``."""
    code = code.strip()
    match = CODE_RE.match(code)
    if match is None:
        raise CodeError(BAD_CODE.format(code=repr(code)))
    async with connect_mailbox(url) as box:
        await box.claim_and_open(match.group(1))
        channel = await _agree(box, code, answer_timeout)
        try:
            yield channel
        finally:
            await box.close("happy")
