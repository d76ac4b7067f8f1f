"""Field checks shared by every message parser, and the few derived values
(fingerprints, option encoding) that the spec fixes byte for byte."""

from __future__ import annotations

import struct
from typing import Any

from .. import limits
from .errors import ProtocolError

KEY_LEN = 32  # raw Ed25519 public key
NONCE_LEN = 32
SIG_LEN = 64
TABLE_ID_LEN = 16
SESSION_ID_LEN = 32
MAX_NAME = limits.MAX_NAME
MAX_REASON = limits.MAX_REASON
MAX_PLAYERS = 8
MAX_OPTIONS = 64
MAX_OPTION_KEY = 64
MAX_OPTION_STR = 256
INT64 = (-(1 << 63), (1 << 63) - 1)

_MISSING = object()


def _get(msg: dict, key: str, optional: bool) -> Any:
    value = msg.get(key, _MISSING)
    if value is _MISSING:
        if optional:
            return None
        raise ProtocolError(f"{msg.get('t')!r} message lacks field {key!r}")
    return value


def _bad(msg: dict, key: str, what: str) -> ProtocolError:
    return ProtocolError(f"{msg.get('t')!r} message: field {key!r} {what}")


def get_str(msg: dict, key: str, *, max_len: int = MAX_REASON, optional: bool = False) -> str | None:
    value = _get(msg, key, optional)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _bad(msg, key, f"must be a string, not {type(value).__name__}")
    if len(value) > max_len:
        raise _bad(msg, key, f"longer than {max_len} characters")
    return value


def get_text(msg: dict, key: str, *, max_len: int = MAX_REASON, optional: bool = False) -> str | None:
    """A free text a person may read (a refusal's reason, a notice): a string
    field as ``get_str``, made safe for a terminal by ``printable``, so a
    peer's escape sequences never reach the screen, whoever it is."""
    value = get_str(msg, key, max_len=max_len, optional=optional)
    return None if value is None else printable(value, max_len)


def get_int(msg: dict, key: str, lo: int, hi: int, *, optional: bool = False) -> int | None:
    value = _get(msg, key, optional)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise _bad(msg, key, f"must be an integer, not {type(value).__name__}")
    if not lo <= value <= hi:
        raise _bad(msg, key, f"out of range [{lo}, {hi}]: {value}")
    return value


def get_bytes(msg: dict, key: str, size: int | None = None, *, max_len: int | None = None,
              optional: bool = False) -> bytes | None:
    value = _get(msg, key, optional)
    if value is None and optional:
        return None
    if not isinstance(value, bytes):
        raise _bad(msg, key, f"must be binary, not {type(value).__name__}")
    if size is not None and len(value) != size:
        raise _bad(msg, key, f"must be {size} bytes, got {len(value)}")
    if max_len is not None and len(value) > max_len:
        raise _bad(msg, key, f"longer than {max_len} bytes")
    return value


def get_list(msg: dict, key: str, max_len: int) -> list:
    value = _get(msg, key, False)
    if not isinstance(value, list):
        raise _bad(msg, key, f"must be an array, not {type(value).__name__}")
    if len(value) > max_len:
        raise _bad(msg, key, f"has more than {max_len} items")
    return value


def get_map(msg: dict, key: str) -> dict:
    value = _get(msg, key, False)
    if not isinstance(value, dict):
        raise _bad(msg, key, f"must be a map, not {type(value).__name__}")
    return value


def check_name(name: Any, what: str = "name") -> str:
    """Names are shown on terminals: bounded and free of control characters."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
        raise ProtocolError(f"{what} must be 1..{MAX_NAME} characters")
    if not name.isprintable() or name != name.strip():
        raise ProtocolError(f"{what} {name!r} has control characters or surrounding spaces")
    return name


def printable(text: str, max_len: int) -> str:
    """Text from the network made safe for a terminal: at most ``max_len``
    characters, each one the name rule refuses (controls such as ESC and BEL)
    shown as '?'. For what is displayed, not checked (names are refused instead)."""
    return "".join(c if c.isprintable() else "?" for c in text[:max_len])


def check_options(options: Any) -> dict[str, str | int | bool]:
    if not isinstance(options, dict) or len(options) > MAX_OPTIONS:
        raise ProtocolError(f"options must be a map of at most {MAX_OPTIONS} entries")
    for k, v in options.items():
        if not isinstance(k, str) or not 1 <= len(k) <= MAX_OPTION_KEY or not k.isprintable():
            raise ProtocolError(f"option key {k!r} must be 1..{MAX_OPTION_KEY} printable characters")
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            if not INT64[0] <= v <= INT64[1]:
                raise ProtocolError(f"option {k!r} is out of the 64-bit range")
            continue
        if isinstance(v, str):
            if len(v) > MAX_OPTION_STR or not v.isprintable():
                raise ProtocolError(f"option {k!r} must be at most {MAX_OPTION_STR} printable characters")
            continue
        raise ProtocolError(f"option {k!r} must be a string, integer or boolean, not {type(v).__name__}")
    return dict(options)


def fingerprint(key: bytes) -> str:
    """The key's fingerprint for people (wire.md 3): ``p2pcards.identity.fingerprint``.
    A key of the wrong size (from a hostile peer) is named by its size."""
    from p2pcards.identity import PUBLIC_KEY_SIZE, fingerprint as key_fingerprint

    if not isinstance(key, (bytes, bytearray)) or len(key) != PUBLIC_KEY_SIZE:
        return "(not a key)"
    return key_fingerprint(bytes(key))


def lp(data: bytes) -> bytes:
    """Length-prefixed bytes (u32 big-endian) for hash inputs."""
    return struct.pack(">I", len(data)) + data


def encode_options(options: dict[str, str | int | bool]) -> bytes:
    """The canonical byte encoding of options used inside the session id."""
    out = [struct.pack(">I", len(options))]
    for k in sorted(options):
        v = options[k]
        out.append(lp(k.encode()))
        if isinstance(v, bool):
            out.append(b"b" + (b"\x01" if v else b"\x00"))
        elif isinstance(v, int):
            out.append(b"i" + struct.pack(">q", v))
        else:
            out.append(b"s" + lp(v.encode()))
    return b"".join(out)
