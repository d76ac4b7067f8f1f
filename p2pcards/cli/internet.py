"""The command line's side of internet tables: invite codes in place of an
address, and which servers to use.

The servers, first found wins: ``--mailbox URL`` / ``--relay HOST:PORT``;
``P2PCARDS_MAILBOX`` / ``P2PCARDS_RELAY``; the file ``servers.conf`` in the
data directory (lines ``mailbox = URL`` and ``relay = HOST:PORT``); else the
public magic-wormhole servers, run by the magic-wormhole project.
"""

from __future__ import annotations

import os

from p2pcards.i18n import _, known

DEFAULT_MAILBOX = "ws://relay.magic-wormhole.io:4000/v1"
DEFAULT_RELAY = "transit.magic-wormhole.io:4001"
CONFIG_FILE = "servers.conf"


class InviteCode(str):
    """A join argument that is an invite code, not ADDR:PORT."""


def add_server_options(p, host: bool) -> None:
    if host:
        p.add_argument("--internet", action="store_true",
                       help=_("play across the internet: print invite codes instead of an address"))
        p.add_argument("--relay", metavar=_("HOST:PORT"),
                       help=_("the transit relay of an internet table (default: the public magic-wormhole one)"))
    p.add_argument("--mailbox", metavar="URL",
                   help=_("the mailbox server where invite codes meet (default: the public magic-wormhole one)"))


def _config() -> dict[str, str]:
    from p2pcards.identity import IdentityError, data_dir

    try:
        path = data_dir() / CONFIG_FILE
        text = path.read_text(encoding="utf-8")
    except (OSError, IdentityError, UnicodeDecodeError):
        return {}
    found = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and not line.lstrip().startswith("#"):
            found[key.strip().lower()] = value.strip()
    return found


def servers(args) -> tuple[str, str]:
    """(mailbox URL, relay HOST:PORT) for this command."""
    from p2pcards.cli.args import CliError
    from p2pcards.net.relay import WORDS, parse_relay  # here: trio stays out of the other commands

    config = _config()
    mailbox = (getattr(args, "mailbox", None) or os.environ.get("P2PCARDS_MAILBOX") or config.get("mailbox")
               or DEFAULT_MAILBOX)
    relay = getattr(args, "relay", None) or os.environ.get("P2PCARDS_RELAY") or config.get("relay") or DEFAULT_RELAY
    if not mailbox.startswith(("ws://", "wss://")):
        raise CliError(_("{url} is not a mailbox server address (ws://HOST:PORT/v1)").format(url=repr(mailbox)))
    try:
        parse_relay(relay)
    except ValueError as exc:
        raise CliError(known(str(exc), WORDS)) from None
    return mailbox, relay
