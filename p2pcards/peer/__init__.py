"""A seat at a table over the network.

- ``table_peer``: the seat driver on the peer mesh (entries, acknowledgements,
  finality, aborts and silence between players);
- ``seating``: from the lobby to a running peer (and back after a restart);
- ``ahead``: entries received for places past the end of our log;
- ``seatlock`` and ``statefile``: one client per seat, and what ``resume`` reads.
"""

from p2pcards.peer.table_peer import PeerHooks, PeerOptions, TablePeer, auto_play_margin

__all__ = ["PeerHooks", "PeerOptions", "TablePeer", "auto_play_margin"]
