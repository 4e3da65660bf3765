"""A thread worker's pause that a cancel (a newer search) or a hurry cuts short: how a typed
key's count, facets and rest of its page wait SETTLE, unstarted, for the next key."""

from __future__ import annotations

from threading import Event
from time import monotonic, sleep


def after(seconds: float) -> float:
    """The moment `seconds` from now, on the clock `settled` reads."""
    return monotonic() + seconds


def settled(worker, until: float, hurry: Event | None = None) -> bool:
    """Wait until `until` (after()) unless the worker is cancelled first, or `hurry` is set;
    whether it is still wanted."""
    while (left := until - monotonic()) > 0:
        if worker.is_cancelled:
            return False
        if hurry is not None and hurry.is_set():
            break
        sleep(min(left, 0.02))
    return not worker.is_cancelled
