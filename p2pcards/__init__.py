"""p2pcards: card games between terminals on a LAN with no server and no trusted dealer.

The package in layers, lowest first::

    cards, files, i18n,      card codes and decks; atomic file writes; the player's
    identity, limits         language (gettext catalogs in locale/); the player's
                             key and fingerprint; the table of size limits
    games, rules, mental,    pure rules engines and their rule texts; the dealing
    net                      cryptography; the trio transport (framing, handshake,
                             lobby, mesh, discovery, spectating)
    protocol, bots           the signed log, the table machine, what each seat may
                             know, the dealing checks, the one walk of a log
                             through the machine, one seat's driver, the
                             narration of moves; the bots (they need only games)
    audit, peer              replaying a log to name a cheat; a seat on the network
                             (acks, finality, referee, state file)
    ui                       the prompt-toolkit terminal table, its sessions, the
                             spectator's screen, the replay viewer
    testing                  cheats and fault injection for selfplay
    cli                      the ``p2pcards`` command

Dependency rule: a module imports only from its own layer and the layers
listed before it, never from one listed after it; no import cycles, also
not through imports inside functions. ``testing`` is imported by nothing but
``cli`` (and the tests): it reaches a peer only through ``peer.PeerHooks``.
``tests/test_layering.py`` checks all of this over the import graph.
"""

__version__ = "0.1.0"
PROTOCOL_VERSION = 4  # 3: signed acknowledgements, signed messages relayed; 4: acks handed on when asked (table.md §5)
LOG_PROTOCOLS = (2, 3, 4)  # versions whose logs this program reads: the log's format is the same in all
