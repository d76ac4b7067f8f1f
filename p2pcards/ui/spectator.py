"""Spectators: ``p2pcards join ADDR:PORT --watch`` follows a table live.

A spectator takes no seat. It connects to the host with role ``watch``
(``protocol/wire.md`` §5), sees the lobby fill, then receives every final log
entry, from entry 0 on (the backlog first when it joins late). It trusts the
host with nothing: every entry goes through a ``SeatDriver(genesis, None)``,
which checks signatures, the hash chain and every rule exactly as a player
does. An entry that fails stops the watch: a spectator cannot repair a bad
host, only say so. What it shows is the machine's *public* deal state, so it
sees what a bystander at a real table would, never a card in a hand.

Identity: by default a spectator dials with a fresh throwaway Ed25519 key. The
host needs no key to admit a watcher, and watching should neither require
nor reveal the user's identity. ``--key FILE`` uses that identity instead
(for a host that wants to recognise who is watching).

``Spectator`` is the part without a terminal (connect, verify, keep the state);
``SpectatorSession`` shows it on the terminal table; ``watch`` is the command.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import trio

from p2pcards.games import IllegalAction
from p2pcards.files import write_atomically
from p2pcards.i18n import _, known, shown
from p2pcards.protocol.log import TABLE, Entry, LogError, TableInfo
from p2pcards.protocol.machine import Violation
from p2pcards.ui.network_session import NetworkSession
from p2pcards.ui.render import fmt_clock
from p2pcards.protocol.driver import SeatDriver
from p2pcards.net.lobby import NOTICES as LOBBY_NOTICES
from p2pcards.net.spectate import TableNews
from p2pcards.peer import PeerOptions, auto_play_margin
from p2pcards.ui.session import PHASE_ABORTED, PHASE_OVER


RECONNECT_EVERY = 2.0  # seconds between tries to reach a host that went away
DEFAULT_TIMEOUT = 120.0  # a table's turn time and time to come back when entry 0 does not say


class WatchError(Exception):
    """The watch cannot go on (unreachable host, a bad entry, the host gone);
    the message says why, for people."""


class Spectator:
    """Follows one table: ``await run(on_change)`` until the host says the game
    is over. It stands where a ``TablePeer`` stands for ``NetworkSession``:
    ``driver``, ``machine``, ``seat`` (None), ``chat_seen``, ``turn_deadline``.

    ``run`` returns once the finished log is verified; it raises ``WatchError``
    (also kept in ``error``) if the host cannot be reached, sends an entry that
    fails verification, or stops before the log is finished."""

    seat = None

    def __init__(self, address: tuple[str, int], *, name: str = "spectator", private_key=None,
                 dead_after: float = 35.0, connect=None, label: str | None = None):
        self.address = address
        self.label = label or f"{address[0]}:{address[1]}"  # where the table is, as the user named it
        self.name = name
        self.private_key = private_key  # None: watch_table makes a throwaway key
        self.dead_after = dead_after
        self._connect = connect  # tests: an async context manager factory in place of watch_table
        self.lobby = None  # the latest LobbyView
        self.table = None  # the TableDescription, once the table is made
        # Who came and went, as the host tells it: (seat, "left" | "lost" | "back"), taken by the session;
        # who is away since when, and who left on purpose (their clocks beside their names).
        self.table_news: list[tuple[int, str]] = []
        self.down_since: dict[int, float] = {}
        self.left_on_purpose: set[int] = set()
        self._turn_restarted: tuple[int, int] | None = None  # (seat, log length) of its last fresh turn
        self.driver: SeatDriver | None = None
        self.chat_seen: list[tuple[int, str]] = []  # (seat, text) from logged entries; the session drains it
        self.ended: str | None = None  # the host's reason, after a clean end
        self.error: str | None = None
        self._progress_at: float | None = None
        # The host's connection broke mid-game: when the table stops waiting
        # for it (its time to come back); None while it is there.
        self.host_back_by: float | None = None
        self.host_returned = False  # it broke and came back (the screen says so once)

    # ----- what a session reads
    @property
    def machine(self):
        return None if self.driver is None else self.driver.machine

    @property
    def log(self):
        return None if self.driver is None else self.driver.log

    @property
    def finished(self) -> bool:
        return self.driver is not None and self.driver.machine.finished

    def turn_deadline(self) -> float | None:
        """When the seat due should have written its entry (the players abort
        after ``turn_timeout``); None while there is no clock to show."""
        if self.driver is None or self.finished or self.error or self._progress_at is None:
            return None
        return self._progress_at + self.options.turn_timeout

    @property
    def options(self) -> PeerOptions:
        """The table's clocks, as entry 0 sets them (the defaults where it does not)."""
        extra = self.driver.log.table.extra if self.driver is not None else None
        extra = extra if isinstance(extra, dict) else {}

        def seconds(key: str) -> float:
            value = extra.get(key)
            return float(value) if isinstance(value, (int, float)) and value > 0 else DEFAULT_TIMEOUT

        return PeerOptions(turn_timeout=seconds("turn_timeout"), rejoin_timeout=seconds("rejoin_timeout"))

    def gives_up_at(self, seat: int) -> float:
        """When the table stops waiting for ``seat``, as near as a spectator
        can tell: the turn's time and the players' margin from the last
        entry, or its time to come back if its connection broke."""
        options = self.options
        until = (self._progress_at or trio.current_time()) + options.turn_timeout \
            + auto_play_margin(options.turn_timeout)
        if seat in self.down_since:
            until = max(until, self.down_since[seat] + options.rejoin_timeout)
        return until

    def _heard(self, news: "TableNews") -> None:
        if news.what == "back":
            self.down_since.pop(news.seat, None)
            self.left_on_purpose.discard(news.seat)
            place = (news.seat, len(self.driver.log))
            if self.driver.machine.expect().author == news.seat and self._turn_restarted != place:
                # As the players do (table.md §3): the seat due, back, has its turn afresh.
                self._turn_restarted = place
                self._progress_at = trio.current_time()
        else:
            self.down_since.setdefault(news.seat, trio.current_time())
            if news.what == "left":
                self.left_on_purpose.add(news.seat)
        self.table_news.append((news.seat, news.what))
        del self.table_news[:-64]

    def status_lines(self) -> list[str]:
        """The waiting screen before the table: the lobby as it fills."""
        host = self.label
        if self.lobby is None:
            return [_("Watching the table at {address}: connecting\u2026").format(address=host)]
        view = self.lobby
        lines = [_("Watching the table at {address}: {game}, {seated} of {wanted} seated").format(
            address=host, game=view.game, seated=len(view.seats), wanted=view.wanted)]
        # Translators: a seat of the lobby: its number, the player's name (padded) and key fingerprint.
        lines += ["  " + _("seat {seat}: {name} key {fingerprint}").format(seat=s.seat, name=f"{s.name:<16}",
                                                                        fingerprint=s.fingerprint)
                  for s in view.seats]
        if view.notice:
            lines.append(known(view.notice, LOBBY_NOTICES))  # the host's words, in English on the wire
        if self.table is not None:
            lines.append(_("The table is made; waiting for the players to sign it\u2026"))
        return lines

    # ----- running
    async def run(self, on_change: Callable[[], None] = lambda: None) -> None:
        try:
            await self._run(on_change)
        except WatchError as exc:
            self.error = str(exc)
            on_change()
            raise

    async def _run(self, on_change: Callable[[], None]) -> None:
        from p2pcards.net import NetError, ProtocolError

        while True:
            try:
                reason, lost = await self._follow(on_change)
            except NetError as exc:
                if self.driver is None:
                    raise WatchError(_("cannot watch the table at {address}: {error}").format(
                        address=self.label, error=exc)) from None
                if isinstance(exc, ProtocolError):  # the host misbehaves: no waiting for it
                    raise WatchError(_("lost the host after entry {index}: {error}").format(
                        index=len(self.driver.log) - 1, error=exc)) from None
                reason, lost = str(exc), True  # gone silent, or not back yet
            if self.finished or not lost or self.driver is None:
                break
            # The host's connection broke mid-game: the table waits for it to
            # come back (p2pcards resume), and so does the watch.
            now = trio.current_time()
            if self.host_back_by is None:
                self.host_back_by = now + self.options.rejoin_timeout
                on_change()
            if now >= self.host_back_by:
                break
            await trio.sleep(min(RECONNECT_EVERY, self.host_back_by - now))
        self.host_back_by = None
        if not self.finished:
            # Translators: {reason} is the host's own words (may be English).
            if self.driver is None:
                raise WatchError(_("the host stopped before the table was made: {reason}").format(reason=reason))
            raise WatchError(_("the host stopped after entry {index}, before the game ended: {reason}").format(
                index=len(self.driver.log) - 1, reason=reason))
        self.ended = reason
        on_change()

    async def _follow(self, on_change: Callable[[], None]) -> tuple[str, bool]:
        """One connection to the host, followed until it ends: the host's
        reason, and whether the connection broke (rather than ended)."""
        from p2pcards.net import LobbyView, LogEntry, TableDescription, TableNews, watch_table

        host, port = self.address
        connect = self._connect or (lambda: watch_table(host, port, private_key=self.private_key, name=self.name,
                                                        dead_after=self.dead_after))
        async with connect() as watch:
            if self.host_back_by is not None:
                self.host_back_by = None  # back: the feed starts again from entry 0
                self.host_returned = True
                on_change()
            async for item in watch:
                if isinstance(item, LobbyView):
                    self.lobby = item
                elif isinstance(item, TableDescription):
                    if self.table is not None and item.session_id != self.table.session_id:
                        raise WatchError(_("the host came back with another table"))
                    self.table = item
                elif isinstance(item, LogEntry):
                    if self.driver is not None and item.index < len(self.driver.log):
                        if self.driver.log[item.index].raw != item.data:
                            raise WatchError(_("the host came back with another entry {index} than it sent "
                                               "before").format(index=item.index))
                        continue  # had it: the feed after a return starts from entry 0
                    self._take(item.index, item.data)
                    self._progress_at = trio.current_time()
                elif isinstance(item, TableNews):
                    if self.driver is not None and 0 <= item.seat < self.driver.machine.players:
                        self._heard(item)
                on_change()
            return watch.ended or _("the connection ended"), getattr(watch, "lost", False)

    def _take(self, index: int, data: bytes) -> None:
        """Verify entry ``index`` as the next one of the log, or stop the watch."""
        try:
            entry = Entry.from_wire(data, index)
        except LogError as exc:
            raise WatchError(_("the host sent a malformed log entry: {error}").format(error=shown(exc))) from None
        if self.driver is None:
            self._start(entry)
            return
        if entry.seq != index:
            raise WatchError(_("the host sent entry {seq} as entry {index}").format(seq=entry.seq, index=index))
        try:
            self.driver.receive(entry)
        except LogError as exc:
            raise WatchError(_("entry {index} fails verification: {error}").format(index=index, error=shown(exc.reason))) from None
        except Violation as exc:
            # Translators: {kind} is the entry's protocol name (move, reveal...), kept in English.
            text = (_("entry {index} (seat {seat}'s {kind}) breaks the rules: {error}") if entry.author >= 0 else
                    _("entry {index} (the {kind}) breaks the rules: {error}"))
            raise WatchError(text.format(index=index, seat=entry.author, kind=entry.kind, error=exc)) from None
        except Exception as exc:  # a signed entry the checks cannot even read: as bad as a refused one
            raise WatchError(_("entry {index} cannot be checked ({error})").format(
                index=index, error=f"{type(exc).__name__}: {exc}")) from None
        if isinstance(entry.payload, dict) and isinstance(entry.payload.get("chat"), list):
            self.chat_seen.extend((entry.author, text) for text in entry.payload["chat"])

    def _start(self, genesis: Entry) -> None:
        if genesis.kind != TABLE or genesis.seq != 0:
            raise WatchError(_("the host's feed does not begin with the table entry (entry 0); "
                               "nothing after it can be verified"))
        try:
            driver = SeatDriver(genesis, None)  # checks every player's signature on it
        except (LogError, Violation, ValueError) as exc:
            raise WatchError(_("the table entry fails verification: {error}").format(error=shown(exc))) from None
        self._check_table(driver.log.table)
        self.driver = driver

    def _check_table(self, info: TableInfo) -> None:
        """Entry 0 must be the table the lobby made (same session, game and players)."""
        if self.table is None:
            return
        if info.session != self.table.session_id or info.game != self.table.game:
            raise WatchError(_("the table entry is for another table than the one the host announced"))
        if [p.key for p in info.players] != [s.key for s in self.table.seats]:
            raise WatchError(_("the table entry seats other players than the host announced"))

    def write(self, path: str | os.PathLike) -> None:
        """Write the verified log to ``path`` (replacing it), durably; blocks."""
        if self.driver is None:
            raise WatchError(_("there is no log to write: the table was never made"))
        path = Path(path)
        if not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, self.driver.log.to_bytes())


class SpectatorSession(NetworkSession):
    """The terminal table's session for a spectator (``seat`` None). The
    player's ``NetworkSession`` does all the reading (history lines, match
    info, the log in words); a ``Spectator`` stands in for its ``TablePeer``.
    Here only what differs: the public view, no chat, no mesh to report."""

    def __init__(self) -> None:
        super().__init__(None, seat=None)

    def view(self) -> dict | None:
        machine = self._machine
        if machine is None:
            return None
        if machine.state is not None:
            self._last_view = machine.public_view(None)  # the public state, seen by nobody in particular
        return self._last_view

    def match_info(self) -> dict:
        info = super().match_info()
        error = getattr(self.peer, "error", None)
        if error and info["phase"] not in (PHASE_OVER, PHASE_ABORTED):
            info["phase"] = PHASE_ABORTED
            info["reason"] = _("watch stopped: {error}").format(error=error)
        return info

    def legal_actions(self) -> list[dict]:
        return []

    def turn_deadline(self) -> float | None:
        """The clock of the player to act, as near as a spectator can tell it
        (from when the last entry came); for a player whose connection broke,
        the table's wait for them."""
        spectator = self.peer
        if spectator is None or spectator.turn_deadline() is None:
            return None
        waited = spectator.machine.expect().author
        if waited in spectator.down_since:
            return self._back_by(waited)
        return spectator.turn_deadline()

    def hint(self) -> dict | None:
        return None

    async def act(self, action: dict) -> None:
        await trio.lowlevel.checkpoint()
        raise IllegalAction(_("spectators do not play"))

    async def chat(self, text: str) -> None:
        await trio.lowlevel.checkpoint()
        raise IllegalAction(_("spectators do not chat: only the players write to the table's log"))

    async def ready(self) -> None:
        await trio.lowlevel.checkpoint()
        raise IllegalAction(_("the players deal on by themselves; a spectator waits"))

    def peer_status(self) -> dict[int, str]:
        """Who is blamed, and who is away with the time the table waits for them (as the host tells it)."""
        machine = self._machine
        if machine is None:
            return {}
        out = {s: "blamed" for s in machine.excluded}
        if machine.finished or machine.aborted:
            return out
        now = trio.current_time()
        for seat in self.peer.down_since:
            if seat not in out:
                out[seat] = self._away_words(seat, self._back_by(seat) - now)
        return out


# ----- the command


def watch(address: tuple[str, int], args, private_key=None, run=None, connect=None, label: str | None = None) -> int:
    """``p2pcards join ADDR:PORT --watch``: the table on the terminal until the
    user quits. Exit 0 when the finished log was verified (and written with
    ``--out``), 1 when the watch stopped on an error. ``run`` shows the screen
    (the command line's, which first makes sure there is a terminal)."""
    from p2pcards.ui.app import run_app

    out = getattr(args, "out", None)
    spectator = Spectator(tuple(address), name=(getattr(args, "name", None) or "spectator")[:32], private_key=private_key,
                          connect=connect, label=label)

    async def main(ui) -> int:
        return await watch_on(ui, spectator, out)

    return (run or run_app)(main, ascii=getattr(args, "ascii", False)) or 0


async def watch_on(ui, spectator: Spectator, out: str | None = None) -> int:
    """Drive ``ui`` (a ``TableApp``) from ``spectator``; returns the exit code."""
    session = SpectatorSession()
    ui.set_status(*spectator.status_lines())

    host_away = [False]

    def on_change() -> None:
        if spectator.driver is None:
            ui.set_status(*spectator.status_lines())
            return
        if session.peer is None:
            session.attach(spectator)
            ui.show(session)
            ui.say(_("You are watching: you see what lies open on the table, never a hand. quit leaves."),
                   "class:label")
        if (spectator.host_back_by is not None) != host_away[0]:
            host_away[0] = not host_away[0]
            if host_away[0]:
                wait = fmt_clock(spectator.host_back_by - trio.current_time())
                ui.say(_("The host's connection broke; the table waits {clock} for it to come back, "
                         "and so does this watch.").format(clock=wait), "class:warn")
            else:
                ui.say(_("The host is back; the watch goes on."), "class:label")
        session.changed()

    try:
        await spectator.run(on_change)
    except WatchError as exc:
        unwritten = " " + _("Nothing was written to {path}: the log is not finished.").format(path=out) if out else ""
        leave = _("Type quit to leave.")
        if session.peer is None:
            ui.set_status(str(exc)[:1].upper() + str(exc)[1:] + "." + unwritten, leave)
        else:
            ui.say(_("The watch stopped: {error}.").format(error=exc) + unwritten + " " + leave, "class:error")
        return 1
    message = _("The game is over and every entry of its log checked out.")
    if out:
        try:
            await trio.to_thread.run_sync(spectator.write, out)
        except (OSError, LogError, WatchError) as exc:
            ui.say(message + " " + _("Writing {path} failed: {error}.").format(path=out, error=exc) + " "
                   + _("Type quit to leave."), "class:error")
            return 1
        message += " " + _("The log is in {path}; audit it with: p2pcards audit {path}.").format(path=out)
    ui.say(message + " " + _("Type quit to leave."), "class:label")
    return 0
