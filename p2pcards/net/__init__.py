"""Networking: framing, the authenticated handshake, the lobby, the peer mesh,
spectators and LAN discovery. The wire format is specified in protocol/wire.md.

Typical use by a seat driver::

    async with open_endpoint(private_key, "Ala", bind="0.0.0.0", port=DEFAULT_PORT) as ep:
        table = await host_table(ep, "kanasta", 4, options={...}, accept=ask_user)
        # or: table = await join_table(ep, host, port, accept=ask_user)
        async with open_mesh(ep, table, table.seat_of(ep.identity.public_key)) as mesh:
            await mesh.broadcast(msg)
            async for event in mesh:   # Message / PeerUp / PeerDown
                ...
"""

from .endpoint import DEFAULT_PORT, Endpoint, dial, open_endpoint
from .errors import (ConnectionClosed, DiscoveryUnavailable, HandshakeError, LobbyError, MeshError, NetError,
                     ProtocolError, TableRefused)
from .framing import (DEFAULT_MAX_FRAME, FrameDecoder, FramedStream, Limits, decode_body, encode_message,
                      pack_message)
from .handshake import Channel, Identity
from .lobby import HostLobby, host_table, join_table
from .mesh import Mesh, Message, PeerDown, PeerStatus, PeerUp, open_mesh
from .messages import fingerprint
from .spectate import LogEntry, SpectatorHub, TableNews, Watch, watch_table
from .agreement import LobbyView, Proposal, SeatInfo, TableDescription
from . import endpoint, framing, handshake, invite, lobby, mesh, relay, rendezvous, spectate

# Every fixed text of the network layer a player may read, English as raised
# and sent; where a NetError's text is shown, i18n.known(text, WORDS) words it
# in the player's language (LAN discovery, imported apart, has its own WORDS).
WORDS = (*endpoint.WORDS, *handshake.WORDS, *framing.WORDS, *lobby.WORDS, *spectate.WORDS, *mesh.WORDS,
         *rendezvous.WORDS, *relay.WORDS, *invite.WORDS)

__all__ = [
    "DEFAULT_PORT", "DEFAULT_MAX_FRAME", "Endpoint", "open_endpoint", "dial", "Identity", "Channel",
    "NetError", "ProtocolError", "HandshakeError", "ConnectionClosed", "LobbyError", "TableRefused", "MeshError",
    "DiscoveryUnavailable", "FrameDecoder", "FramedStream", "Limits", "decode_body", "encode_message",
    "pack_message",
    "HostLobby", "host_table", "join_table", "Mesh", "open_mesh", "Message", "PeerUp", "PeerDown", "PeerStatus",
    "SpectatorHub", "Watch", "watch_table", "LogEntry", "TableNews", "LobbyView", "Proposal", "SeatInfo", "TableDescription",
    "fingerprint", "WORDS",
]
