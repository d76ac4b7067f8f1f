"""The size limits of everything that crosses a trust boundary, in one table.

Each field has one limit, used by every piece of code that reads it (the log,
the table machine, the peers, the spectator hub, the wire), so an entry one
part accepts is never one another part chokes on.
"""

from __future__ import annotations

# The wire: one frame, sealed (protocol/wire.md).
MAX_FRAME = 1 << 20  # bytes
# Room in a frame for the envelope around an entry: the seal, the frame's map
# ({"t": "app", "m": {"t": "entry", "raw": ...}} or a spectator's {"t": "entry", "i": ..., "e": ...}).
ENTRY_ENVELOPE = 1024  # bytes
# One log entry as signed (any kind, an abort with its evidence included):
# whatever fits in a frame, so every entry a log may hold can also be sent.
MAX_ENTRY = MAX_FRAME - ENTRY_ENVELOPE  # bytes
# An abort quotes the entries it accuses as its evidence, and an abort refused is
# itself quoted by the abort that answers it. So that any entry refused for a
# fault can be quoted, an entry may be the bigger the deeper evidence nests in it:
# an entry whose evidence nests d levels deep (0: none) may be at most
# MAX_ENTRY - (MAX_EVIDENCE_DEPTH - d) * ANSWER_ROOM bytes (protocol.log.size_limit),
# and evidence nests at most MAX_EVIDENCE_DEPTH levels. An answer adds one level
# and at most ANSWER_ROOM bytes (its own fields, the detail text, the signature).
ANSWER_ROOM = 4 * 1024  # bytes
MAX_EVIDENCE_DEPTH = 4  # levels of evidence inside evidence (an honest answer to a cheater needs two)

MAX_NAME = 64  # characters: a player's name (log, handshake, lobby)
MAX_REASON = 512  # characters: any free text read off the wire (refusal reasons, notices)
MAX_CHAT = 4  # chat texts carried by one entry
MAX_CHAT_LEN = 300  # characters in one chat text
MAX_ABORT_KIND = 32  # characters: the short name of what went wrong ("timeout", "equivocate", ...)
MAX_ABORT_DETAIL = MAX_REASON  # characters: an abort's words for people

# What one peer keeps for another before it can use it.
MAX_AHEAD = 256  # places past the log's end an entry may be for, to be kept
AHEAD_PER_AUTHOR = 8  # entries kept from one author for places not reached yet
AHEAD_BYTES_PER_AUTHOR = 2 * MAX_ENTRY  # bytes kept from one author (two full-size entries)

# What one peer's messages may take in another's inbox before its connection is read no further.
MAX_INBOX_BYTES = 8 * MAX_FRAME  # bytes
# What may wait in one peer's send queue: past it the connection is cut (a peer
# that reads too slowly or not at all; it comes back as after any lost connection).
MAX_SEND_QUEUE_BYTES = 8 * MAX_FRAME  # bytes
# Answers to "send me what you have from here" ('have'), per asking peer: at
# most HAVE_BURST at once, then HAVE_RATE a second; each adds entries to the
# asker's send queue only while it holds less than HAVE_QUEUE_BYTES (the rest
# the asker asks for again once it has taken these).
HAVE_BURST = 16  # answers
HAVE_RATE = 4.0  # answers a second
HAVE_QUEUE_BYTES = 2 * MAX_FRAME  # bytes

# A joiner's message to the host's lobby (accept, refuse, reveal: a few dozen
# bytes), counted as the inbox counts it (its bytes and 64 bytes an item).
MAX_LOBBY_MESSAGE = 16 * 1024  # bytes

# Connections not yet authenticated (p2pcards.net.endpoint).
PRE_AUTH_TIMEOUT = 3.0  # seconds a new connection has to present its hello
MAX_PRE_AUTH = 64  # connections waiting for their hello, in all
MAX_PRE_AUTH_PER_ADDRESS = 8  # of those, from one address
MAX_HANDSHAKES = 64  # strangers' handshakes in progress after their hello
