"""Small shared vocabulary, importable without the ORM (keeps `catalog search` quick to start)."""

STATUSES = ("unread", "queued", "reading", "read", "skipped")
