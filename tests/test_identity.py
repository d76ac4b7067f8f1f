"""Player keys: where they live, their permissions, fingerprints, keygen."""

import os
import re
import stat

import pytest

from p2pcards import identity as I
from p2pcards.identity import Identity, IdentityError, IdentityExists


@pytest.fixture
def home(tmp_path, monkeypatch):
    d = tmp_path / "p2p-home"
    monkeypatch.setenv("P2PCARDS_HOME", str(d))
    return d


def test_data_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "h"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert I.data_dir() == tmp_path / "h"
    monkeypatch.delenv("P2PCARDS_HOME")
    assert I.data_dir() == tmp_path / "x" / "p2pcards"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")  # ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert I.data_dir() == tmp_path / "home" / ".local" / "share" / "p2pcards"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert I.data_dir() == tmp_path / "home" / ".local" / "share" / "p2pcards"


def test_created_on_first_use_with_private_permissions(home):
    me = I.load_or_create()
    path = home / "identity.key"
    assert me.path == path
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    again = I.load_or_create()
    assert again.public_bytes == me.public_bytes and len(me.public_bytes) == 32
    assert not list(home.glob(".*tmp"))  # no temporary files left behind


def test_permissions_hold_under_a_loose_umask(home):
    old = os.umask(0)
    try:
        I.load_or_create()
    finally:
        os.umask(old)
    assert stat.S_IMODE((home / "identity.key").stat().st_mode) == 0o600


def test_key_readable_by_others_is_refused(home):
    I.load_or_create()
    path = home / "identity.key"
    path.chmod(0o644)
    with pytest.raises(IdentityError, match=r"can be read by other users \(mode 644\); run: chmod 600"):
        I.load_or_create()
    path.chmod(0o600)
    I.load_or_create()


def test_directory_writable_by_others_is_refused(tmp_path):
    d = tmp_path / "shared"
    d.mkdir()
    d.chmod(0o777)
    with pytest.raises(IdentityError, match="writable by other users"):
        I.load_or_create(d / "k.key")


def test_broken_key_files(tmp_path):
    path = tmp_path / "k.key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"not a key")
    os.close(fd)
    with pytest.raises(IdentityError, match="not an unencrypted PEM private key"):
        I.load(path)
    with pytest.raises(IdentityError, match="no key at .*p2pcards keygen"):
        I.load(tmp_path / "missing.key")
    (tmp_path / "dir.key").mkdir(mode=0o700)
    with pytest.raises(IdentityError, match="not a regular file"):
        I.load(tmp_path / "dir.key")


def test_fingerprint_is_long_enough_stable_and_readable():
    a = Identity.from_seed(bytes(32))
    # seven groups of four base32 digits: 140 bits of SHA-256, as protocol/wire.md says
    assert re.fullmatch(r"[A-Z2-7]{4}(-[A-Z2-7]{4}){6}", a.fingerprint)
    import base64
    import hashlib
    digest = base64.b32encode(hashlib.sha256(a.public_bytes).digest()).decode()
    assert a.fingerprint.replace("-", "") == digest[:28] and 28 * 5 >= 128
    assert a.fingerprint == I.fingerprint(a.public_bytes) == Identity.from_seed(bytes(32)).fingerprint
    assert Identity.from_seed(b"\x01" * 32).fingerprint != a.fingerprint
    with pytest.raises(IdentityError):
        I.fingerprint(b"short")


def test_sign_and_verify():
    a, b = Identity.generate(), Identity.generate()
    sig = a.sign(b"hello")
    assert Identity.verify(a.public_bytes, sig, b"hello")
    assert not Identity.verify(a.public_bytes, sig, b"hellO")
    assert not Identity.verify(b.public_bytes, sig, b"hello")
    assert not Identity.verify(a.public_bytes[:31], sig, b"hello")
    assert not Identity.verify(a.public_bytes, sig[:63], b"hello")
    assert not Identity.verify("nonsense", sig, b"hello")
    with pytest.raises(IdentityError, match="32 bytes"):
        Identity.from_seed(b"x")


def test_keygen_refuses_to_overwrite_without_force(home):
    first = I.keygen()
    with pytest.raises(IdentityExists, match=f"fingerprint {first.fingerprint}.*--force") as info:
        I.keygen()
    assert info.value.identity.public_bytes == first.public_bytes
    assert I.load().public_bytes == first.public_bytes
    second = I.keygen(force=True)
    assert second.public_bytes != first.public_bytes
    assert I.load().public_bytes == second.public_bytes
    assert stat.S_IMODE((home / "identity.key").stat().st_mode) == 0o600


def test_save_never_replaces_silently(tmp_path):
    path = tmp_path / "k.key"
    I.save(Identity.generate(), path)
    with pytest.raises(IdentityExists):
        I.save(Identity.generate(), path)


def test_verify_refuses_weak_keys():
    identity_point = bytes.fromhex("01" + "00" * 31)
    # OpenSSL alone would accept this "signature" of anything under that key.
    assert not Identity.verify(identity_point, identity_point + bytes(32), b"anything")
    assert I.key_problem(identity_point).startswith("a weak")
