"""The query tree (catalog/query.py) compiled to SQLite FTS5 and run.

This is the only module that knows FTS5 query syntax. Every user word is quoted before it
reaches MATCH, so punctuation (`multi-agent`, `c++`, `20.04`) is never FTS5 syntax.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.engine import Connection

from catalog.query import Clause, Filter, Query, QueryError, Text
from catalog.sqlite import FTS_COLUMNS, FTS_TABLE
from catalog.text import has_cjk

HIGHLIGHT_START, HIGHLIGHT_END = "\x02", "\x03"  # turned into styles by whoever displays them
_BM25 = f"bm25({FTS_TABLE}, {', '.join(str(w) for w in FTS_COLUMNS.values())})"
_ABSTRACT_COLUMN = list(FTS_COLUMNS).index("abstract_text")
_SNIPPET = f"snippet({FTS_TABLE}, {_ABSTRACT_COLUMN}, char(2), char(3), '…', 24)"
# Short queries in Chinese or Japanese are matched as substrings: unicode61 keeps a run of
# ideographs as one token, so a two-character word inside it would never match otherwise.
_ALL_TEXT = (
    "(coalesce(p.user_title, '') || ' ' || coalesce(p.title, '') || ' ' || p.headline || ' ' || "
    "p.abstract_text || ' ' || coalesce(p.authors, '') || ' ' || p.tags_text || ' ' || p.notes_text)"
)
SUMMARY_COLUMNS = (
    "p.id, p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue, p.year, "
    "p.status, p.rating, p.tags_text"
)
DEFAULT_ORDER = "p.year DESC, p.venue, p.id"


@dataclass
class CompiledQuery:
    match: str | None = None  # FTS5 expression for ranking, if any
    where: list[str] = field(default_factory=list)
    params: list = field(default_factory=list)


def fts_phrase(text: Text) -> str:
    return '"' + text.text.replace('"', '""') + '"' + ("*" if text.prefix else "")


def _is_fts(option: Text | Filter) -> bool:
    return isinstance(option, Text) and not has_cjk(option.text)


def compile_query(query: Query) -> CompiledQuery:
    out = CompiledQuery()
    positive: list[str] = []
    negative: list[str] = []
    for clause in query.clauses:
        if all(_is_fts(o) for o in clause.options):
            group = " OR ".join(fts_phrase(o) for o in clause.options)
            (negative if clause.negated else positive).append(f"({group})")
            continue
        sql, params = _clause_sql(clause)
        out.where.append(f"NOT {sql}" if clause.negated else sql)
        out.params.extend(params)
    if positive:
        out.match = " AND ".join(positive)
        if negative:
            out.match += " NOT (" + " OR ".join(negative) + ")"
    elif negative:
        out.where.append(f"p.id NOT IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?)")
        out.params.append(" OR ".join(negative))
    return out


def _clause_sql(clause: Clause) -> tuple[str, list]:
    parts, params = [], []
    for option in clause.options:
        if isinstance(option, Filter):
            sql, p = _filter_sql(option)
        elif _is_fts(option):
            sql, p = f"p.id IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?)", [fts_phrase(option)]
        else:
            sql, p = f"instr({_ALL_TEXT}, ?) > 0", [option.text]
        parts.append(sql)
        params.extend(p)
    return "(" + " OR ".join(parts) + ")", params


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _filter_sql(f: Filter) -> tuple[str, list]:
    if f.field == "venue":
        return "p.venue = ? COLLATE NOCASE", [f.value]
    if f.field == "key":
        return "p.key LIKE ? ESCAPE '\\'", [_like_escape(str(f.value).lower()) + "%"]
    if f.field == "status":
        return "p.status = ?", [f.value]
    if f.field == "tag":
        # A tag includes its children: tag:project finds project/thesis too.
        return (
            "EXISTS (SELECT 1 FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id "
            "WHERE pt.paper_id = p.id AND (t.name = ? OR t.name LIKE ? ESCAPE '\\'))",
            [f.value, _like_escape(str(f.value)) + "/%"],
        )
    if f.field == "has":
        return {
            "notes": "p.notes_text != ''",
            "tags": "p.tags_text != ''",
            "rating": "p.rating IS NOT NULL",
            "title": "coalesce(p.user_title, p.title) IS NOT NULL",
            "abstract": "p.abstract != ''",
            "authors": "coalesce(p.authors, '') != ''",
        }[f.value], []
    column = {"year": "p.year", "rating": "p.rating"}[f.field]
    if f.op == "range":
        low, high = f.value
        return f"{column} BETWEEN ? AND ?", [low, high]
    return f"{column} {f.op} ?", [f.value]


@dataclass
class Row:
    id: int
    key: str
    title: str
    venue: str | None
    year: int | None
    status: str
    rating: int | None
    tags_text: str
    snippet: str | None = None
    score: float | None = None


def run(conn: Connection, query: Query, *, limit: int = 50, offset: int = 0,
        snippets: bool = True) -> list[Row]:
    """The page of papers matching `query`, best first (or newest first without words)."""
    compiled = compile_query(query)
    where = " AND ".join(compiled.where) or "1"
    if compiled.match is None:
        sql = (f"SELECT {SUMMARY_COLUMNS}, NULL, NULL FROM paper p WHERE {where} "
               f"ORDER BY {DEFAULT_ORDER} LIMIT ? OFFSET ?")
        params = [*compiled.params, limit, offset]
    else:
        snippet = _SNIPPET if snippets else "NULL"
        sql = (f"SELECT {SUMMARY_COLUMNS}, {snippet}, {_BM25} AS score "
               f"FROM {FTS_TABLE} JOIN paper p ON p.id = {FTS_TABLE}.rowid "
               f"WHERE {FTS_TABLE} MATCH ? AND {where} ORDER BY score, p.id LIMIT ? OFFSET ?")
        params = [compiled.match, *compiled.params, limit, offset]
    rows = _execute(conn, sql, params, query)
    return [Row(*r) for r in rows]


def count(conn: Connection, query: Query) -> int:
    compiled = compile_query(query)
    where = " AND ".join(compiled.where) or "1"
    if compiled.match is None:
        sql, params = f"SELECT count(*) FROM paper p WHERE {where}", compiled.params
    else:
        sql = (f"SELECT count(*) FROM {FTS_TABLE} JOIN paper p ON p.id = {FTS_TABLE}.rowid "
               f"WHERE {FTS_TABLE} MATCH ? AND {where}")
        params = [compiled.match, *compiled.params]
    return _execute(conn, sql, params, query)[0][0]


def _execute(conn: Connection, sql: str, params: list, query: Query) -> list[tuple]:
    try:
        return conn.exec_driver_sql(sql, tuple(params)).all()
    except Exception as exc:  # quoting makes this unreachable; keep the promise anyway
        message = str(getattr(exc, "orig", exc)).splitlines()[0]
        raise QueryError(f"cannot search for {query.source!r}: {message}") from None
