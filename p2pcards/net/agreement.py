"""The table as agreed in the lobby, its wire form, and the session id."""

from __future__ import annotations

import hashlib
import re
import struct
from dataclasses import dataclass
from typing import Any

from .. import PROTOCOL_VERSION
from .errors import ProtocolError
from .messages import (KEY_LEN, MAX_NAME, MAX_PLAYERS, NONCE_LEN, SESSION_ID_LEN, TABLE_ID_LEN, check_name,
                       check_options, encode_options, fingerprint, get_bytes, get_int, get_list, get_map,
                       get_str, get_text, lp)

SESSION_DOMAIN = b"p2pcards-session-v1\x00"
COMMIT_DOMAIN = b"p2pcards-commit-v1\x00"
_GAME_RE = re.compile(r"^[a-z0-9_-]{1,32}$")
MAX_HOST = 255


@dataclass(frozen=True)
class SeatInfo:
    seat: int
    name: str
    key: bytes  # raw Ed25519 public key
    host: str = ""  # mesh listen address as seen by the lobby host ("" while unknown)
    port: int = 0

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


@dataclass(frozen=True)
class TableDescription:
    """The final table: every player received the same one (bar the address hints)."""

    table_id: bytes
    game: str
    options: dict
    version: int
    seats: tuple[SeatInfo, ...]
    contributions: tuple[bytes, ...]
    session_id: bytes

    def seat_of(self, key: bytes) -> int | None:
        for s in self.seats:
            if s.key == key:
                return s.seat
        return None


@dataclass(frozen=True)
class LobbyView:
    """What the lobby looks like now (sent whenever it changes)."""

    table_id: bytes
    game: str
    options: dict
    wanted: int
    seats: tuple[SeatInfo, ...]
    notice: str | None


@dataclass(frozen=True)
class Proposal:
    """The full table put to every player for acceptance."""

    round: int
    table_id: bytes
    game: str
    options: dict
    seats: tuple[SeatInfo, ...]
    my_seat: int


def check_game(game: Any) -> str:
    if not isinstance(game, str) or not _GAME_RE.match(game):
        raise ProtocolError(f"game id {game!r} must match [a-z0-9_-]{{1,32}}")
    return game


def commit_of(contribution: bytes) -> bytes:
    return hashlib.sha256(COMMIT_DOMAIN + contribution).digest()


def compute_session_id(table_id: bytes, version: int, game: str, options: dict,
                       seats: tuple[SeatInfo, ...] | list[SeatInfo], contributions) -> bytes:
    h = hashlib.sha256(SESSION_DOMAIN)
    h.update(table_id + struct.pack(">I", version) + lp(game.encode()) + encode_options(options))
    h.update(struct.pack(">I", len(seats)))
    for s in seats:
        h.update(lp(s.name.encode()) + s.key)
    for c in contributions:
        h.update(c)
    return h.digest()


# -- wire forms --------------------------------------------------------------

def _seat_list(seats, with_addr: bool) -> list[dict]:
    out = []
    for s in seats:
        d = {"name": s.name, "key": s.key}
        if with_addr:
            d["host"], d["port"] = s.host, s.port
        out.append(d)
    return out


def _parse_seats(msg: dict, with_addr: bool, exact: int | None = None) -> tuple[SeatInfo, ...]:
    items = get_list(msg, "seats", MAX_PLAYERS)
    if exact is not None and len(items) != exact:
        raise ProtocolError(f"{msg['t']!r}: {len(items)} seats, expected {exact}")
    seats, keys = [], set()
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ProtocolError(f"{msg['t']!r}: seat {i} is not a map")
        item = dict(item, t=msg["t"])
        name = check_name(get_str(item, "name", max_len=MAX_NAME), f"seat {i} name")
        key = get_bytes(item, "key", KEY_LEN)
        if key in keys:
            raise ProtocolError(f"{msg['t']!r}: the same key sits twice")
        keys.add(key)
        host, port = "", 0
        if with_addr:
            host = get_str(item, "host", max_len=MAX_HOST)
            port = get_int(item, "port", 0, 65535)
        seats.append(SeatInfo(i, name, key, host, port))
    return tuple(seats)


def seats_msg(view: LobbyView) -> dict:
    return {"t": "seats", "table": view.table_id, "game": view.game, "options": view.options,
            "wanted": view.wanted, "seats": _seat_list(view.seats, False), "notice": view.notice}


def parse_seats_msg(msg: dict) -> LobbyView:
    wanted = get_int(msg, "wanted", 2, MAX_PLAYERS)
    seats = _parse_seats(msg, False)
    if len(seats) > wanted:
        raise ProtocolError("'seats': more players than wanted")
    return LobbyView(get_bytes(msg, "table", TABLE_ID_LEN), check_game(msg.get("game")),
                     check_options(get_map(msg, "options")), wanted, seats,
                     get_text(msg, "notice", optional=True))


def propose_msg(p: Proposal) -> dict:
    return {"t": "propose", "round": p.round, "table": p.table_id, "game": p.game, "options": p.options,
            "seats": _seat_list(p.seats, False)}


def parse_propose_msg(msg: dict, my_key: bytes) -> Proposal:
    seats = _parse_seats(msg, False)
    if len(seats) < 2:
        raise ProtocolError("'propose': fewer than 2 seats")
    mine = [s.seat for s in seats if s.key == my_key]
    if not mine or mine[0] == 0:
        raise ProtocolError("'propose': our key is not at a joiner's seat")
    return Proposal(get_int(msg, "round", 1, 1 << 31), get_bytes(msg, "table", TABLE_ID_LEN),
                    check_game(msg.get("game")), check_options(get_map(msg, "options")), seats, mine[0])


def final_msg(round_: int, t: TableDescription) -> dict:
    return {"t": "final", "round": round_, "table": t.table_id, "v": t.version, "game": t.game,
            "options": t.options, "seats": _seat_list(t.seats, True), "contribs": list(t.contributions),
            "session": t.session_id}


def parse_final_msg(msg: dict) -> tuple[int, TableDescription]:
    """Parse a 'final' and check that its session id is the one its contents give."""
    round_ = get_int(msg, "round", 1, 1 << 31)
    version = get_int(msg, "v", 0, 0xFFFFFFFF)
    if version != PROTOCOL_VERSION:
        raise ProtocolError(f"'final': protocol version {version}, we speak {PROTOCOL_VERSION}")
    seats = _parse_seats(msg, True)
    if len(seats) < 2:
        raise ProtocolError("'final': fewer than 2 seats")
    contribs = get_list(msg, "contribs", MAX_PLAYERS)
    if len(contribs) != len(seats) or not all(isinstance(c, bytes) and len(c) == NONCE_LEN for c in contribs):
        raise ProtocolError("'final': need one 32-byte contribution per seat")
    table_id = get_bytes(msg, "table", TABLE_ID_LEN)
    game = check_game(msg.get("game"))
    options = check_options(get_map(msg, "options"))
    session = get_bytes(msg, "session", SESSION_ID_LEN)
    if compute_session_id(table_id, version, game, options, seats, contribs) != session:
        raise ProtocolError("'final': session id does not match the table and contributions")
    return round_, TableDescription(table_id, game, options, version, seats, tuple(contribs), session)
