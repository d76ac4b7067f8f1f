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
from p2pcards.i18n import _, shown
from p2pcards.protocol.log import TABLE, Entry, LogError, TableInfo
from p2pcards.protocol.machine import Violation
from p2pcards.ui.network_session import NetworkSession
from p2pcards.protocol.driver import SeatDriver
from p2pcards.ui.session import PHASE_ABORTED, PHASE_OVER


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
        self.table_news: list[tuple[int, str]] = []  # who came and went: a spectator is told nothing
        self.driver: SeatDriver | None = None
        self.chat_seen: list[tuple[int, str]] = []  # (seat, text) from logged entries; the session drains it
        self.ended: str | None = None  # the host's reason, after a clean end
        self.error: str | None = None
        self._progress_at: float | None = None

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
        extra = self.driver.log.table.extra
        timeout = extra.get("turn_timeout") if isinstance(extra, dict) else None
        return self._progress_at + timeout if isinstance(timeout, (int, float)) and timeout > 0 else None

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
            lines.append(view.notice)
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
        from p2pcards.net import LobbyView, LogEntry, NetError, TableDescription, watch_table

        host, port = self.address
        connect = self._connect or (lambda: watch_table(host, port, private_key=self.private_key, name=self.name,
                                                        dead_after=self.dead_after))
        try:
            async with connect() as watch:
                async for item in watch:
                    if isinstance(item, LobbyView):
                        self.lobby = item
                    elif isinstance(item, TableDescription):
                        self.table = item
                    elif isinstance(item, LogEntry):
                        self._take(item.index, item.data)
                        self._progress_at = trio.current_time()
                    on_change()
                reason = watch.ended or _("the connection ended")
        except NetError as exc:
            if self.driver is None:
                raise WatchError(_("cannot watch the table at {address}: {error}").format(
                    address=self.label, error=exc)) from None
            raise WatchError(_("lost the host after entry {index}: {error}").format(
                index=len(self.driver.log) - 1, error=exc)) from None
        if not self.finished:
            # Translators: {reason} is the host's own words (may be English).
            if self.driver is None:
                raise WatchError(_("the host stopped before the table was made: {reason}").format(reason=reason))
            raise WatchError(_("the host stopped after entry {index}, before the game ended: {reason}").format(
                index=len(self.driver.log) - 1, reason=reason))
        self.ended = reason
        on_change()

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
        machine = self._machine
        return {} if machine is None else {s: "blamed" for s in machine.excluded}


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

    def on_change() -> None:
        if spectator.driver is None:
            ui.set_status(*spectator.status_lines())
            return
        if session.peer is None:
            session.attach(spectator)
            ui.show(session)
            ui.say(_("You are watching: you see what lies open on the table, never a hand. quit leaves."),
                   "class:label")
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
