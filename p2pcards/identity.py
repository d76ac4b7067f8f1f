"""A player's long-term Ed25519 key, kept in the user's data directory.

The key signs the player's log entries and the table/end entries, and names
the player to the others (by its fingerprint). It is created on first use in
``data_dir()/identity.key`` as an unencrypted PKCS#8 PEM file, mode 0600, in a
directory of mode 0700; a key file that others could read is refused.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2pcards.files import REASONS as FILE_REASONS
from p2pcards.files import write_atomically
from p2pcards.i18n import _, known

KEY_FILE = "identity.key"
PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64


class IdentityError(ValueError):
    """The key file is missing, unsafe or unreadable; the message says what to do."""


class IdentityExists(IdentityError):
    """A key already exists where a new one was to be saved; ``identity`` is it
    when known."""

    identity: "Identity | None" = None


# Ed25519 curve arithmetic, only to refuse weak public keys (RFC 8032, 5.1).
_P = 2**255 - 19
_D = -121665 * pow(121666, -1, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _decode_point(key: bytes) -> tuple[int, int] | None:
    y = int.from_bytes(key, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    if y >= _P:
        return None
    u, v = (y * y - 1) % _P, (_D * y * y + 1) % _P
    x = u * pow(v, 3, _P) * pow(u * pow(v, 7, _P), (_P - 5) // 8, _P) % _P
    if (v * x * x - u) % _P:
        x = x * _SQRT_M1 % _P
        if (v * x * x - u) % _P:
            return None
    if x == 0 and sign:
        return None
    return (x, y) if x & 1 == sign else (_P - x, y)


def _double(pt: tuple[int, int]) -> tuple[int, int]:
    x, y = pt
    t = _D * x * x * y * y % _P
    return 2 * x * y * pow(1 + t, -1, _P) % _P, (y * y + x * x) * pow(1 - t, -1, _P) % _P


def key_problem(key: bytes) -> str | None:
    """Why ``key`` cannot be a player's Ed25519 public key, or None if it can.
    OpenSSL accepts keys of small order, under which anyone can make a
    signature that verifies for any message (the identity point with
    R = identity, S = 0, for one): a player with such a key could disown
    every entry of its seat. So they are refused, as are non-points."""
    if not (isinstance(key, bytes) and len(key) == PUBLIC_KEY_SIZE):
        return f"a public key is {PUBLIC_KEY_SIZE} bytes"
    return _point_problem(key)


@functools.lru_cache(maxsize=256)  # the same few keys are checked again and again
def _point_problem(key: bytes) -> str | None:
    pt = _decode_point(key)
    if pt is None:
        return "not a point of the Ed25519 curve"
    for _ in range(3):  # times the cofactor 8
        pt = _double(pt)
    if pt == (0, 1):
        return "a weak (small-order) Ed25519 key, under which signatures can be forged"
    return None


def data_dir() -> Path:
    """``$P2PCARDS_HOME``, else ``$XDG_DATA_HOME/p2pcards``, else ``~/.local/share/p2pcards``."""
    home = os.environ.get("P2PCARDS_HOME")
    if home:
        return Path(home).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    # The XDG spec says to ignore a relative XDG_DATA_HOME.
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "p2pcards"
    try:
        return Path.home() / ".local" / "share" / "p2pcards"
    except RuntimeError:
        raise IdentityError(_("cannot find your home directory; set P2PCARDS_HOME to where keys should live")) from None


def default_key_path() -> Path:
    return data_dir() / KEY_FILE


FINGERPRINT_GROUPS = 7  # of 4 base32 digits: 140 bits, beyond grinding a look-alike key
FINGERPRINT_DIGITS = 4 * FINGERPRINT_GROUPS


def fingerprint(public_bytes: bytes) -> str:
    """The one name of a public key that people compare (keygen, lobby, table,
    audit): the first 140 bits of its SHA-256 in base32 (RFC 4648), as seven
    groups of four to read aloud, ``ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ23``.
    protocol/wire.md fixes this format."""
    if not isinstance(public_bytes, (bytes, bytearray)) or len(public_bytes) != PUBLIC_KEY_SIZE:
        raise IdentityError(f"a public key is {PUBLIC_KEY_SIZE} bytes")
    digits = base64.b32encode(hashlib.sha256(bytes(public_bytes)).digest()).decode()[:FINGERPRINT_DIGITS]
    return "-".join(digits[i:i + 4] for i in range(0, FINGERPRINT_DIGITS, 4))


class Identity:
    """A player's key pair."""

    def __init__(self, private_key: Ed25519PrivateKey, path: Path | None = None):
        self.private_key = private_key
        self.path = path
        self.public_key = private_key.public_key()
        self.public_bytes = self.public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.fingerprint = fingerprint(self.public_bytes)

    @classmethod
    def generate(cls) -> "Identity":
        """A fresh key (OpenSSL's CSPRNG, like ``secrets``), not saved anywhere."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_seed(cls, seed: bytes) -> "Identity":
        """The key with this 32-byte private seed (test vectors, bots with fixed keys)."""
        if not isinstance(seed, (bytes, bytearray)) or len(seed) != 32:
            raise IdentityError("an Ed25519 private seed is 32 bytes")
        return cls(Ed25519PrivateKey.from_private_bytes(bytes(seed)))

    def sign(self, data: bytes) -> bytes:
        return self.private_key.sign(bytes(data))

    @staticmethod
    def verify(public_bytes: bytes, signature: bytes, data: bytes) -> bool:
        """Whether ``signature`` is the holder of ``public_bytes``'s over ``data``.
        Malformed keys or signatures (e.g. from a hostile peer) and weak keys
        (see key_problem) just don't verify."""
        if not (isinstance(public_bytes, bytes) and key_problem(public_bytes) is None
                and isinstance(signature, (bytes, bytearray)) and len(signature) == SIGNATURE_SIZE):
            return False
        try:
            Ed25519PublicKey.from_public_bytes(bytes(public_bytes)).verify(bytes(signature), bytes(data))
        except (InvalidSignature, ValueError):
            return False
        return True

    def __repr__(self) -> str:
        return f"Identity({self.fingerprint})"


def _ensure_dir(d: Path) -> None:
    try:
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = d.stat()
    except OSError as e:
        raise IdentityError(_("cannot create the key directory {path}: {reason}").format(
            path=d, reason=_reason(e))) from None
    if not stat.S_ISDIR(st.st_mode):
        raise IdentityError(_("{path} is not a directory").format(path=d))
    # Someone who can write here could swap our key for theirs.
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        raise IdentityError(_("the key directory {path} is writable by other users; run: chmod 700 {path}")
                            .format(path=d))


def _reason(error: OSError) -> str:
    return known(str(error.strerror or error), FILE_REASONS)


def _check_file(path: Path) -> None:
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise IdentityError(_("{path} is not a regular file").format(path=path))
    if st.st_mode & 0o077:
        raise IdentityError(_("the key file {path} can be read by other users (mode {mode}); "
                              "run: chmod 600 {path}").format(path=path, mode=f"{stat.S_IMODE(st.st_mode):o}"))
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise IdentityError(_("the key file {path} belongs to another user").format(path=path))


def load(path: str | os.PathLike | None = None) -> Identity:
    """The key saved at ``path`` (default: ``default_key_path()``)."""
    path = Path(path) if path is not None else default_key_path()
    try:
        _check_file(path)
        data = path.read_bytes()
    except FileNotFoundError:
        raise IdentityError(_("no key at {path}; create one with: p2pcards keygen").format(path=path)) from None
    except OSError as e:
        raise IdentityError(_("cannot read the key file {path}: {reason}").format(
            path=path, reason=_reason(e))) from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as e:
        raise IdentityError(_("the key file {path} is not an unencrypted PEM private key ({reason})").format(
            path=path, reason=e)) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(_("the key file {path} holds a {kind}, not an Ed25519 key").format(
            path=path, kind=type(key).__name__))
    return Identity(key, path)


def save(identity: Identity, path: str | os.PathLike | None = None, *, replace: bool = False) -> Path:
    """Write the key durably with mode 0600. Without ``replace``, an existing
    file is never overwritten (even by a concurrent process)."""
    path = Path(path) if path is not None else default_key_path()
    _ensure_dir(path.parent)
    pem = identity.private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    try:
        write_atomically(path, pem, private=True, overwrite=replace)
    except FileExistsError:
        raise IdentityExists(_("a key already exists at {path}").format(path=path)) from None
    except OSError as e:
        raise IdentityError(_("cannot write the key file {path}: {reason}").format(
            path=path, reason=_reason(e))) from None
    identity.path = path
    return path


def load_or_create(path: str | os.PathLike | None = None) -> Identity:
    """This player's key: the saved one, or a new one saved on first use."""
    path = Path(path) if path is not None else default_key_path()
    if not path.exists() and not path.is_symlink():
        try:
            return _saved(Identity.generate(), path)
        except IdentityExists:
            pass  # another process created it just now; use theirs
    return load(path)


def _saved(identity: Identity, path: Path, replace: bool = False) -> Identity:
    save(identity, path, replace=replace)
    return identity


def keygen(path: str | os.PathLike | None = None, *, force: bool = False) -> Identity:
    """For ``p2pcards keygen [--force]``: create and save a new key and return
    it (the CLI prints its fingerprint). If a key exists and ``force`` is not
    given, raise IdentityExists (its ``identity`` is the existing key, its
    message names the fingerprint and --force); with ``force``, replace it."""
    path = Path(path) if path is not None else default_key_path()
    if not force and (path.exists() or path.is_symlink()):
        existing = load(path)
        err = IdentityExists(_("a key already exists at {path} (fingerprint {fingerprint}); "
                               "use --force to replace it with a new one").format(
            path=path, fingerprint=existing.fingerprint))
        err.identity = existing
        raise err
    return _saved(Identity.generate(), path, replace=force)
