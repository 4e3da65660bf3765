"""The query language's filters (venue:, year:, tag:, status:, rating:, has:, key:, topic:, citekey:, author:,
notice:) as SQL
conditions on `paper p`: plain SQL both backends run (`venue` and `tag.name` compare without
case on both: NOCASE in SQLite, citext in PostgreSQL). Each backend's compiler adds the words."""

from __future__ import annotations

from catalog.ingest.people import fold
from catalog.results.papers import GRAVE_FLAGS, NOTICE_FLAGS
from catalog.searching.query import Filter

TAGGED = "SELECT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE {}"
TAG_OR_CHILD = "t.name = ? OR t.name LIKE ? ESCAPE '\\'"
# One reader's marks: status and rating are each person's own (paper_reader).
MARKED = "SELECT paper_id FROM paper_reader WHERE reader = ? AND {}"


def like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def filter_sql(f: Filter, reader: str) -> tuple[str, list]:
    """A condition on `paper p` and its parameters; `reader`: whose status and rating."""
    if f.field == "venue":
        return "p.venue = ?", [f.value]  # the column compares without case
    if f.field == "citekey":  # the paper's own, or one a record of it had (compared without case)
        return ("p.id IN (SELECT paper_id FROM citekey WHERE key = ?"
                " UNION SELECT paper_id FROM kept_record WHERE cite_key = ?)"), [f.value, f.value]
    if f.field == "author":
        # A family name or its start (`hinton`, `maaten` in "van der Maaten"), or a name from
        # its first given name on (`geoffrey hinton`, `laurens van`); accents and case aside.
        folded = like_escape(fold(str(f.value)))
        return ("p.id IN (SELECT paper_id FROM paper_author WHERE (' ' || folded_family) LIKE ? ESCAPE '\\'"
                " OR folded LIKE ? ESCAPE '\\' OR folded_short LIKE ? ESCAPE '\\')"), [
                    f"% {folded}%", f"{folded}%", f"{folded}%"]
    if f.field == "key":
        return "p.key LIKE ? ESCAPE '\\'", [like_escape(str(f.value).lower()) + "%"]
    if f.field == "status":
        if f.value == "unread":  # most papers: the complement is small and indexed
            return "p.id NOT IN (" + MARKED.format("status != 'unread'") + ")", [reader]
        return f"p.id IN ({MARKED.format('status = ?')})", [reader, f.value]
    if f.field == "tag":
        # A tag includes its children: tag:project finds project/thesis too.
        return (
            f"p.id IN ({TAGGED.format(TAG_OR_CHILD)})",
            [f.value, like_escape(str(f.value)) + "/%"],
        )
    if f.field == "has":
        if f.value == "rating":
            return f"p.id IN ({MARKED.format('rating IS NOT NULL')})", [reader]
        return {
            "notes": "p.id IN (SELECT paper_id FROM note)",
            "tags": "p.id IN (SELECT paper_id FROM paper_tag)",
            "title": "coalesce(p.user_title, p.title) IS NOT NULL",
            "abstract": "p.abstract != ''",
            "authors": "coalesce(p.authors, '') != ''",
            "pdf": "p.id IN (SELECT paper_id FROM attachment WHERE lower(path) LIKE '%.pdf')",
            "files": "p.id IN (SELECT paper_id FROM attachment)",
            "notice": "p.id IN (SELECT paper_id FROM paper_notice)",
        }[f.value], []
    if f.field == "notice":  # a flag (query.py NOTICE_VALUES): the kinds lists show with it
        flags = GRAVE_FLAGS if f.value == "grave" else {f.value}
        kinds = sorted(kind for kind, flag in NOTICE_FLAGS.items() if flag in flags)
        return f"p.id IN (SELECT paper_id FROM paper_notice WHERE kind IN ({', '.join('?' * len(kinds))}))", kinds
    if f.field == "topic":  # the whole catalog's stored topics (scope '')
        return "p.id IN (SELECT paper_id FROM topic WHERE scope = '' AND number = ?)", [f.value]
    if f.field == "rating":
        # As a set of ids: rated papers are few, and a plain `rating >= 4` tempts the planner
        # into walking the whole year index looking for them.
        return f"p.id IN ({MARKED.format(f'rating IS NOT NULL AND rating {f.op} ?')})", [reader, f.value]
    if f.op == "range":
        low, high = f.value
        return "p.year BETWEEN ? AND ?", [low, high]
    return f"p.year {f.op} ?", [f.value]
