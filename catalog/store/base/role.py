"""The root of every role of a transaction: its connection, and whose data it reads."""

from __future__ import annotations

from abc import ABC


class Role(ABC):
    """One role of a transaction: its connection, and `user`, whose reading status and rating
    it reads and writes."""

    def __init__(self, conn, user: str):
        self.conn = conn
        self.user = user
