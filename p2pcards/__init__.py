"""p2pcards: card games between terminals on a LAN with no server and no trusted dealer."""

__version__ = "0.1.0"
PROTOCOL_VERSION = 2
