"""A seat's state file, kept beside its log, so a crashed or disconnected
player can come back to the same game (``p2pcards resume STATEFILE``).

It holds what the log does not: the table as agreed in the lobby (to find
the other players again), this seat's address and key file, its secret deal
seeds (mode 0600: they open this seat's cards) and the last entry it sent,
which must be sent again, not replaced, after a crash. Each save replaces
the file atomically (write, fsync, rename, fsync the directory).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import msgpack

from p2pcards.files import REASONS as FILE_REASONS
from p2pcards.files import write_atomically
from p2pcards.i18n import N_, _, known
from p2pcards.limits import MAX_ENTRY, MAX_NAME
from p2pcards.mental.group import SEED_LEN
from p2pcards.net.messages import MAX_PLAYERS

STATE_VERSION = 1
MAX_STATE_SIZE = 4 << 20  # room for the largest pending entry (limits.MAX_ENTRY) and every seed
NOT_A_STATE_FILE = N_("not a p2pcards state file (a seat's state file is its log's name with .state added)")


class StateError(ValueError):
    """The state file is missing, unreadable or not a p2pcards state file."""


@dataclass
class SeatState:
    log_path: str
    seat: int
    name: str
    key_path: str
    bind: str
    port: int
    table: dict  # the lobby's "final" message (p2pcards.net.agreement.final_msg)
    seeds: dict[int, bytes] = field(default_factory=dict)
    pending: bytes | None = None  # the last entry this seat sent, as signed
    strategy: str | None = None  # a bot's strategy; None: a person plays this seat
    origin: str | None = None  # the command that took the seat (play, host, join, bot): to offer it back
    relay: str | None = None  # an internet table: the relay (HOST:PORT) the seats meet at
    relay_secret: bytes | None = None  # and the table secret the relay tokens come from

    def to_bytes(self) -> bytes:
        return msgpack.packb({
            "v": STATE_VERSION, "log": self.log_path, "seat": self.seat, "name": self.name,
            "key": self.key_path, "bind": self.bind, "port": self.port, "table": self.table,
            "seeds": [[d, s] for d, s in sorted(self.seeds.items())], "pending": self.pending,
            "strategy": self.strategy, "origin": self.origin, "relay": self.relay, "relay_secret": self.relay_secret,
        }, use_bin_type=True)

    @classmethod
    def from_bytes(cls, data: bytes) -> "SeatState":
        try:
            raw = msgpack.unpackb(data, raw=False, strict_map_key=False)
        except Exception:  # msgpack raises many types on garbage
            raise StateError(_(NOT_A_STATE_FILE)) from None
        if not isinstance(raw, dict) or "v" not in raw:
            raise StateError(_(NOT_A_STATE_FILE))
        if raw.get("v") != STATE_VERSION:
            raise StateError(_("a state file of another version of p2pcards ({version}, this one reads {ours})")
                             .format(version=repr(raw.get("v"))[:32], ours=STATE_VERSION))
        state = cls(_field(raw, "log", _is_path), _field(raw, "seat", _is_seat), _field(raw, "name", _is_name),
                    _field(raw, "key", _is_path), _field(raw, "bind", _is_host), _field(raw, "port", _is_port),
                    _field(raw, "table", _is_table), _seeds(raw.get("seeds")),
                    _field(raw, "pending", _is_pending, optional=True),
                    _field(raw, "strategy", _is_word, optional=True), _field(raw, "origin", _is_word, optional=True))
        # An internet table's seat: the relay and the table secret, both or neither.
        state.relay = _field(raw, "relay", _is_relay, optional=True)
        state.relay_secret = _field(raw, "relay_secret", _is_secret, optional=state.relay is None)
        if state.relay is None and state.relay_secret is not None:
            raise damaged("relay")
        return state


# What each field of a state file must be, checked before anything uses it: the
# file may have been written by anybody (a hostile one gave the seeds as a huge
# integer, and bytes(n) tried to allocate n bytes).
MAX_PATH = 4096  # characters
MAX_DEALS = 1 << 12  # deal seeds a state file may hold
# Translators: the parts of a state file, as named in "the state file is damaged ({reason})".
PARTS = {"log": N_("the log's file name"), "seat": N_("the seat number"), "name": N_("the player's name"),
         "key": N_("the key file's name"), "bind": N_("the address to listen on"), "port": N_("the port"),
         "table": N_("the table"), "seeds": N_("the secret deal seeds"), "pending": N_("the entry last sent"),
         "strategy": N_("the bot's strategy"), "origin": N_("the command that took the seat"),
         "relay": N_("the relay's address"), "relay_secret": N_("the table secret")}


def _is_path(v) -> bool:
    return isinstance(v, str) and 0 < len(v) <= MAX_PATH and "\0" not in v


def _is_seat(v) -> bool:
    return type(v) is int and 0 <= v < MAX_PLAYERS


def _is_name(v) -> bool:
    return isinstance(v, str) and 0 < len(v) <= MAX_NAME and v.isprintable() and v == v.strip()


def _is_host(v) -> bool:
    return isinstance(v, str) and len(v) <= 255 and v.isprintable()


def _is_port(v) -> bool:
    return type(v) is int and 0 <= v <= 0xFFFF


def _is_table(v) -> bool:
    return isinstance(v, dict)  # checked in full by parse_final_msg where it is used


def _is_pending(v) -> bool:
    return isinstance(v, bytes) and len(v) <= MAX_ENTRY


def _is_relay(v) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 300 and v.isprintable()


def _is_secret(v) -> bool:
    return isinstance(v, bytes) and len(v) == 32


def _is_word(v) -> bool:
    return isinstance(v, str) and 0 < len(v) <= 64 and v.isprintable()


def damaged(part: str) -> StateError:
    """The error for a state file whose ``part`` (a key of PARTS) is unusable."""
    return StateError(_("the state file is damaged ({reason})").format(reason=_(PARTS[part])))


def _field(raw: dict, key: str, fits, optional: bool = False):
    value = raw.get(key)
    if value is None and optional:
        return None
    if not fits(value):
        raise damaged(key)
    return value


def _seeds(value) -> dict[int, bytes]:
    if not isinstance(value, list) or len(value) > MAX_DEALS:
        raise damaged("seeds")
    seeds = {}
    for pair in value:
        if (not isinstance(pair, list) or len(pair) != 2 or type(pair[0]) is not int or not 0 <= pair[0] < MAX_DEALS
                or not isinstance(pair[1], bytes) or len(pair[1]) != SEED_LEN):
            raise damaged("seeds")
        seeds[pair[0]] = pair[1]
    return seeds


def state_path(log_path: str | os.PathLike) -> Path:
    return Path(str(log_path) + ".state")


def save(path: str | os.PathLike, state: SeatState) -> None:
    path = Path(path)
    try:
        write_atomically(path, state.to_bytes(), private=True)
    except OSError as exc:  # the old state file stays as it was
        raise StateError(_("cannot save {path}: {reason}").format(
            path=path, reason=known(str(exc.strerror or exc), FILE_REASONS))) from None


def load(path: str | os.PathLike) -> SeatState:
    path = Path(path)
    try:
        st = path.stat()
        if not path.is_file():
            raise StateError(_("{path} is not a file; a seat's state file is its log's name with .state added")
                             .format(path=path))
        if st.st_size > MAX_STATE_SIZE:
            raise StateError(_("{path} is too large to be a state file").format(path=path))
        data = path.read_bytes()
    except FileNotFoundError:
        raise StateError(_("no state file at {path}").format(path=path)) from None
    except OSError as exc:
        raise StateError(_("cannot read {path}: {reason}").format(
            path=path, reason=known(str(exc.strerror or exc), FILE_REASONS))) from None
    from p2pcards.protocol.log import MAGIC

    if data.startswith(MAGIC):
        raise StateError(_("{path} is a game's log, not its state file: p2pcards resume {path}.state")
                         .format(path=path))
    try:
        state = SeatState.from_bytes(data)
    except StateError as exc:
        raise StateError(f"{path}: {exc}") from None
    if st.st_mode & 0o077:  # only now: a file that is no state file holds no secrets to warn about
        raise StateError(_("{path} can be read by other users; its secrets may be known (chmod 600 {path})")
                         .format(path=path))
    return state



@dataclass
class Resumable:
    """An unfinished game this user can come back to, as found on disk."""

    state_file: Path
    state: SeatState
    game: str
    names: list[str]
    when: float  # the log's last change (seconds since the epoch)
    entries: int
    deal: int  # counted from 1

    @property
    def seats(self):
        """The table as agreed in the lobby (its seats with their addresses)."""
        from p2pcards.net.agreement import parse_final_msg

        return parse_final_msg(self.state.table)[1].seats

    def describe(self) -> str:
        import time

        from p2pcards.net.messages import printable

        names = ", ".join(printable(n, 32) for n in self.names)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.when))
        # Translators: one unfinished game in p2pcards resume's list.
        return _("{game} with {names}: deal {deal}, entry {entry}, last played {when}").format(
            game=self.game, names=names, deal=self.deal, entry=self.entries, when=when)


def resumable_games(directory: str | os.PathLike) -> list[Resumable]:
    """The games in ``directory`` whose state file is sound and whose log has
    no end entry, newest first. Files that do not fit are skipped: the list
    offers games, ``resume`` checks them."""
    from p2pcards.net.agreement import parse_final_msg
    from p2pcards.net.errors import ProtocolError
    from p2pcards.protocol.log import END, LogError, log_progress

    found = []
    for path in Path(directory).glob("*.state"):
        try:
            state = load(path)
            _, table = parse_final_msg(state.table)
            log_path = Path(state.log_path)
            count, last = log_progress(log_path.read_bytes())
            when = log_path.stat().st_mtime
        except (StateError, ProtocolError, LogError, OSError):  # unreadable or foreign: not a game to offer
            continue
        if last is None or last.kind == END:
            continue
        deal = last.payload.get("deal") if isinstance(last.payload, dict) else None
        found.append(Resumable(path, state, table.game, [seat.name for seat in table.seats], when, count,
                               (deal if type(deal) is int else 0) + 1))
    return sorted(found, key=lambda r: r.when, reverse=True)
