"""A thread worker's pause that a cancel (a newer search) or a hurry cuts short: how a typed
key's count, facets and rest of its page wait SETTLE, unstarted, for the next key; and
Typing, the search bar's keys as the workers see them: a key that searches nothing (the
first letters of a word) puts off that work again and stops it if it already runs, so it
never shares the cores with the next key's search (on a real library the whole catalog's
facets, started while `the` was typed, doubled that key's search)."""

from __future__ import annotations

from collections.abc import Callable
from threading import Event
from time import monotonic, sleep
from typing import TypeVar

from catalog.errors import Interrupted

T = TypeVar("T")


def now() -> float:
    """The clock `settled` and Typing read."""
    return monotonic()


def after(seconds: float) -> float:
    """The moment `seconds` from now, on the clock `settled` reads."""
    return monotonic() + seconds


class Typing:
    """When the last key was typed into the search bar. Written on the UI thread only (one
    int, one float), read by workers."""

    def __init__(self, quiet: float) -> None:
        self.quiet = quiet  # how long typing pauses before deferred work starts
        self.keys = 0  # keys typed so far
        self.at = float("-inf")  # when the last one came (monotonic)

    def typed(self) -> None:
        self.keys += 1
        self.at = monotonic()

    @property
    def until(self) -> float:
        """When deferred work may start, if no other key comes."""
        return self.at + self.quiet


def settled(worker, until: float, hurry: Event | None = None, typing: Typing | None = None,
            seen: int = 0) -> bool:
    """Wait until `until` (after()) and, once keys came into `typing` since it counted `seen`,
    until they pause; unless the worker is cancelled first, or `hurry` is set. Whether it is
    still wanted."""
    while (left := _deadline(until, typing, seen) - monotonic()) > 0:
        if worker.is_cancelled:
            return False
        if hurry is not None and hurry.is_set():
            break
        sleep(min(left, 0.02))
    return not worker.is_cancelled


def _deadline(until: float, typing: Typing | None, seen: int) -> float:
    return max(until, typing.until) if typing is not None and typing.keys != seen else until


def when_quiet(worker, until: float, typing: Typing | None, seen: int,
               call: Callable[[Callable[[], bool]], T], hurry: Event | None = None) -> tuple[bool, T | None]:
    """`call(stop)` once `settled`. With `typing` (its count of keys when the work was asked
    for: `seen`), a key typed while it runs stops it (`stop` turns true: SQLite stops at once,
    Interrupted is raised) and it starts again once the keys pause, unless `hurry` is set (the
    list needs it now). (False, None) when the worker was cancelled first."""
    while True:
        if not settled(worker, until, hurry, typing, seen):
            return False, None
        if typing is not None:
            seen = typing.keys
        urgent = hurry is not None and hurry.is_set()

        def stop() -> bool:
            return worker.is_cancelled or (typing is not None and not urgent and typing.keys != seen)

        try:
            return True, call(stop)
        except Interrupted:
            if worker.is_cancelled or typing is None:
                return False, None
