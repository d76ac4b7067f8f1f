"""LAN discovery over DNS-SD/mDNS (``_p2pcards._tcp.local.``) with python-zeroconf.

zeroconf is optional (``pip install p2pcards[lan]``); without it every call
raises DiscoveryUnavailable with the reason, and joining by ADDR:PORT works
as before. zeroconf runs its own thread; its blocking calls go through
``trio.to_thread`` and its callbacks come back with ``trio.from_thread``.
"""

from __future__ import annotations

import logging
import math
import socket
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator

import trio

from .. import PROTOCOL_VERSION
from ..i18n import N_, _
from .errors import DiscoveryUnavailable
from .messages import MAX_NAME, printable

log = logging.getLogger("p2pcards.net.discovery")

SERVICE_TYPE = "_p2pcards._tcp.local."

# Why the LAN cannot be searched, as a player may read it (i18n.known(text, WORDS)).
NO_ZEROCONF = N_("LAN discovery needs python-zeroconf (pip install 'p2pcards[lan]'); join by ADDR:PORT instead")
NO_SOCKETS = N_("cannot open mDNS sockets: {reason}")
NO_ADVERTISING = N_("cannot advertise the table: {reason}")
WORDS = (NO_ZEROCONF, NO_SOCKETS, NO_ADVERTISING)
_RESOLVE_MS = 1500

try:  # optional dependency
    import zeroconf as _zc
except ImportError:  # pragma: no cover - depends on the installation
    _zc = None


def available() -> bool:
    return _zc is not None


def _require():
    if _zc is None:
        raise DiscoveryUnavailable(NO_ZEROCONF)
    return _zc


@dataclass(frozen=True)
class TableAd:
    """One advertised table, as found by ``browse``."""

    instance: str
    game: str
    wanted: int
    seated: int
    host_name: str
    version: int
    table_id: bytes | None
    addresses: tuple[str, ...]
    port: int

    @property
    def joinable(self) -> bool:
        return self.version == PROTOCOL_VERSION and self.seated < self.wanted and bool(self.addresses)

    @property
    def address(self) -> str:
        """The host address to join (the first advertised one); the port is ``port``."""
        return self.addresses[0] if self.addresses else ""

    @property
    def join_arg(self) -> str:
        """``ADDR:PORT`` as typed after ``p2pcards join`` (IPv6 in brackets)."""
        a = self.address or "?"
        return f"[{a}]:{self.port}" if ":" in a else f"{a}:{self.port}"

    def describe(self) -> str:
        """The table in one line of the player's language (``p2pcards tables``)."""
        words = dict(host=self.host_name, game=self.game, seated=self.seated, wanted=self.wanted,
                     address=self.join_arg)
        if self.joinable:
            return _("{host}: {game}, {seated}/{wanted} players at {address}").format(**words)
        if self.version == PROTOCOL_VERSION:
            return _("{host}: {game}, {seated}/{wanted} players at {address} (full)").format(**words)
        return _("{host}: {game}, {seated}/{wanted} players at {address} (protocol {version}, we speak {ours})"
                 ).format(version=self.version, ours=PROTOCOL_VERSION, **words)


def _txt(game: str, wanted: int, seated: int, host_name: str, table_id: bytes) -> dict[str, str]:
    return {"game": game, "wanted": str(wanted), "seated": str(seated), "host": host_name,
            "v": str(PROTOCOL_VERSION), "tid": table_id.hex()}


def _instance_name(host_name: str, game: str, table_id: bytes) -> str:
    # DNS labels are at most 63 bytes; keep the id suffix so names stay unique.
    suffix = f" {game} {table_id.hex()[:8]}"
    name = host_name.encode()[: 63 - len(suffix.encode())].decode(errors="ignore")
    return f"{name}{suffix}.{SERVICE_TYPE}"


def _parse_ad(info) -> TableAd | None:
    """A TableAd from a resolved ServiceInfo; None for a malformed record (logged)."""
    try:
        props = {k.decode(): (v or b"").decode() for k, v in (info.properties or {}).items()}
        tid = props.get("tid")
        return TableAd(
            instance=info.name, game=printable(props["game"], 32), wanted=int(props["wanted"]),
            seated=int(props["seated"]), host_name=printable(props.get("host", "?"), MAX_NAME),
            version=int(props["v"]),
            table_id=bytes.fromhex(tid) if tid else None, addresses=tuple(info.parsed_addresses()),
            port=int(info.port))
    except (KeyError, ValueError, UnicodeDecodeError, TypeError) as exc:
        log.info("ignoring malformed advertisement %r: %s", getattr(info, "name", "?"), exc)
        return None


def _local_addresses() -> list[str]:
    zc = _require()
    addrs = [a for a in zc.get_all_addresses() if not a.startswith("127.")]
    return addrs or ["127.0.0.1"]


class Advertiser:
    def __init__(self, zc, info, fields: dict) -> None:
        self._zc, self._info, self._fields = zc, info, fields

    async def update(self, *, seated: int) -> None:
        """Re-announce with the new number of seated players."""
        zc = _require()
        self._fields["seated"] = str(seated)
        info = self._info
        self._info = zc.ServiceInfo(info.type, info.name, addresses=info.addresses, port=info.port,
                                    properties=dict(self._fields), server=info.server)
        await trio.to_thread.run_sync(self._zc.update_service, self._info)


@asynccontextmanager
async def advertise(*, game: str, wanted: int, seated: int, host_name: str, port: int, table_id: bytes,
                    addresses: list[str] | None = None,
                    interfaces: list[str] | None = None) -> AsyncIterator[Advertiser]:
    """Advertise a hosted table while the block runs. ``addresses`` default to this
    machine's non-loopback IPv4 addresses; ``interfaces`` limit zeroconf's sockets."""
    zc = _require()
    addrs = addresses or await trio.to_thread.run_sync(_local_addresses)
    fields = _txt(game, wanted, seated, host_name, table_id)
    info = zc.ServiceInfo(SERVICE_TYPE, _instance_name(host_name, game, table_id),
                          addresses=[socket.inet_pton(socket.AF_INET6 if ":" in a else socket.AF_INET, a)
                                     for a in addrs],
                          port=port, properties=fields, server=f"p2pcards-{table_id.hex()[:12]}.local.")
    try:
        conf = await trio.to_thread.run_sync(lambda: zc.Zeroconf(interfaces=interfaces or zc.InterfaceChoice.All))
    except OSError as exc:
        raise DiscoveryUnavailable(NO_SOCKETS.format(reason=exc)) from None
    try:
        try:
            await trio.to_thread.run_sync(lambda: conf.register_service(info, allow_name_change=True))
        except (OSError, zc.Error) as exc:
            raise DiscoveryUnavailable(NO_ADVERTISING.format(reason=exc)) from None
        log.info("advertising %s on port %d (%s)", info.name, port, ", ".join(addrs))
        yield Advertiser(conf, info, fields)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(conf.close)


async def browse(seconds: float = 2.0, *, interfaces: list[str] | None = None) -> list[TableAd]:
    """Listen for ``seconds`` and return the tables advertised on the LAN."""
    zc = _require()
    token = trio.lowlevel.current_trio_token()
    found_send, found_recv = trio.open_memory_channel(math.inf)

    def on_change(zeroconf, service_type, name, state_change) -> None:
        # Runs on zeroconf's thread: hand the name to trio, resolve it there.
        if state_change is zc.ServiceStateChange.Added or state_change is zc.ServiceStateChange.Updated:
            try:
                trio.from_thread.run_sync(found_send.send_nowait, name, trio_token=token)
            except (trio.RunFinishedError, trio.ClosedResourceError):
                pass

    try:
        conf = await trio.to_thread.run_sync(lambda: zc.Zeroconf(interfaces=interfaces or zc.InterfaceChoice.All))
    except OSError as exc:
        raise DiscoveryUnavailable(NO_SOCKETS.format(reason=exc)) from None
    ads: dict[str, TableAd] = {}
    browser = None
    try:
        browser = await trio.to_thread.run_sync(
            lambda: zc.ServiceBrowser(conf, SERVICE_TYPE, handlers=[on_change]))
        with trio.move_on_after(seconds):
            async for name in found_recv:
                info = await trio.to_thread.run_sync(conf.get_service_info, SERVICE_TYPE, name, _RESOLVE_MS)
                ad = _parse_ad(info) if info is not None else None
                if ad is not None:
                    ads[name] = ad
    finally:
        found_send.close()
        with trio.CancelScope(shield=True):
            if browser is not None:
                await trio.to_thread.run_sync(browser.cancel)
            await trio.to_thread.run_sync(conf.close)
    return sorted(ads.values(), key=lambda a: (a.host_name, a.instance))


def browse_blocking(seconds: float = 2.0, *, interfaces: list[str] | None = None) -> list[TableAd]:
    """``browse`` for code outside trio (the command line)."""
    _require()
    return trio.run(lambda: browse(seconds, interfaces=interfaces))
