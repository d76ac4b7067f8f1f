"""Helper tasks that live exactly as long as a ``with`` body."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import trio


@asynccontextmanager
async def background_tasks() -> AsyncIterator[trio.Nursery]:
    """A nursery for helper tasks around a body. When the body ends the helpers are
    cancelled, and an exception from the body comes out as itself rather than wrapped
    in an ExceptionGroup (which is what a bare nursery would do to our callers)."""
    body_error: BaseException | None = None
    async with trio.open_nursery() as nursery:
        try:
            yield nursery
        except BaseException as exc:
            body_error = exc
        nursery.cancel_scope.cancel()
    if body_error is not None:
        raise body_error
