"""Writing a file atomically and durably: readers see the old content or the
new, never a half-written file, and the new content survives a power cut
once the call returns."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from p2pcards.i18n import N_

# The system's reasons a file cannot be written or read (os.strerror, English
# in Python), in the player's language where shown: i18n.known(reason, REASONS).
REASONS = (N_("No space left on device"), N_("Disk quota exceeded"), N_("Permission denied"),
           N_("Read-only file system"), N_("No such file or directory"), N_("Is a directory"),
           N_("Not a directory"), N_("Input/output error"))


def reason_of(error: OSError) -> str:
    """Why the system refused a file: one of ``REASONS`` (a Text, shown in the
    reader's language) when it is one, else as the system said it."""
    said = str(error.strerror or error)
    return next((reason for reason in REASONS if reason == said), said)


def cannot_read(path: str | os.PathLike, error: OSError) -> str:
    """The message for a file that could not be read (a Text)."""
    return N_("cannot read {path}: {error}", path=os.fspath(path), error=reason_of(error))


def unreadable(path: str | os.PathLike) -> str | None:
    """Why the file at ``path`` cannot be read at all (``cannot_read``), or None."""
    try:
        with open(path, "rb"):
            return None
    except OSError as exc:
        return cannot_read(path, exc)


def write_atomically(path: str | os.PathLike, data: bytes, *, private: bool = False,
                     overwrite: bool = True) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it.

    ``private``: mode 0600 whatever the umask (keys, state files).
    ``overwrite=False``: raise ``FileExistsError`` if ``path`` exists, even
    when another process creates it meanwhile (the file is linked into
    place, which fails on an existing name). On any error the old file, if
    any, stays as it was and no temporary file is left."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if private else 0o666)
        try:
            if private:
                os.fchmod(fd, 0o600)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
    dfd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)
    return path
