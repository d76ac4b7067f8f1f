"""Exceptions of the network layer; every one carries a human-readable reason."""


class NetError(Exception):
    """Base class of every error raised by ``p2pcards.net``."""

    @property
    def reason(self) -> str:
        return str(self)


class ProtocolError(NetError):
    """The peer sent bytes or a message that break the wire protocol."""


class HandshakeError(ProtocolError):
    """The peer failed the authenticated handshake (version, key, signature, replay...)."""


class NotReady(HandshakeError):
    """The peer asked for a game we have not opened (yet): usually a harmless race."""


class ConnectionClosed(NetError):
    """The connection ended (cleanly or not) before the expected message arrived."""


class LobbyError(NetError):
    """The lobby could not produce a table (host cancelled, table full, ...)."""


class TableRefused(LobbyError):
    """This side refused the proposed table."""


class MeshError(NetError):
    """The peer mesh could not be established or was used wrongly."""


class DiscoveryUnavailable(NetError):
    """LAN discovery cannot run here (zeroconf missing or no multicast)."""
