"""SQLite FTS5: the index's layout, and the query tree (catalog/query.py) compiled to SQL.

This is the only module that knows FTS5 query syntax. Every user word is quoted before it
reaches MATCH, so punctuation (`multi-agent`, `c++`, `20.04`) is never FTS5 syntax. The
functions that build SQL are pure (query tree in, SQL and parameters out) and pinned by
exact-string tests (tests/test_compiler.py); the store runs what they build.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from catalog.text.cjk import cjk_spaced
from catalog.query import RELEVANCE, Clause, Filter, Query, Sort, Text
from catalog.text.cjk import has_cjk

FTS_TABLE = "paper_fts"
# Indexed columns of `paper`, in FTS5 column order, with their bm25 weights: a hit in a title
# or tag counts for more than one in the abstract.
FTS_COLUMNS = {
    "user_title": 10.0,
    "title": 10.0,
    "headline": 6.0,
    "abstract_text": 1.0,
    "authors": 3.0,
    "tags_text": 8.0,
    "notes_text": 2.0,
    "search_extra": 1.0,
}
VIEWS = ("papers", "paper_tags", "paper_notes")
INSERT_TRIGGER = "paper_fts_insert"
# Papers whose `abstract` was edited by hand, waiting for their derived text (migration 0006).
REDERIVE_TABLE = "paper_rederive"
# What triggers copy onto paper.tags_text / paper.notes_text (the migrations hold their own
# frozen copy of these); `catalog doctor` recomputes them with these. {pid}: the paper id.
TAGS_TEXT_OF = """(SELECT coalesce(group_concat(name, ' '), '') FROM (
    SELECT t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id
    WHERE pt.paper_id = {pid} ORDER BY t.name))"""
NOTES_TEXT_OF = """(SELECT coalesce(group_concat(body, char(10)), '') FROM (
    SELECT body FROM note WHERE paper_id = {pid} ORDER BY created_at, id))"""

_BM25 = f"bm25({FTS_TABLE}, {', '.join(str(w) for w in FTS_COLUMNS.values())})"
SUMMARY_COLUMNS = (
    "p.id, p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue, p.year, "
    "p.status, p.rating, p.tags_text, p.notes_text != '' AS has_notes"
)
# Newest year first, then most recently added: the year indexes (rowid last) give this order
# directly, so a filtered listing stops after LIMIT rows instead of sorting the catalog.
DEFAULT_ORDER = "p.year DESC, p.id DESC"
# The other orders (catalog.query.SORTS), as (natural, reversed). Unknown years and ratings go
# last both ways; "date added" is the id, which grows as papers are imported (the primary key
# gives that order with no sorting).
ORDERS = {
    "year": (DEFAULT_ORDER, "p.year ASC NULLS LAST, p.id ASC"),
    "rating": ("p.rating DESC NULLS LAST, p.year DESC, p.id DESC",
               "p.rating ASC NULLS LAST, p.year DESC, p.id DESC"),
    "title": ("coalesce(p.user_title, p.title, p.headline) COLLATE NOCASE ASC, p.id ASC",
              "coalesce(p.user_title, p.title, p.headline) COLLATE NOCASE DESC, p.id DESC"),
    "added": ("p.id DESC", "p.id ASC"),
}


def is_hand_made_table(name: str) -> bool:
    """FTS5 tables and their shadow tables, views and the re-derive queue, which SQLModel
    does not describe (Alembic's autogenerate must leave them alone)."""
    return (name == FTS_TABLE or name.startswith(FTS_TABLE + "_") or name in VIEWS
            or name == REDERIVE_TABLE)


_TAGGED = "SELECT pt.paper_id FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id WHERE {}"
_TAG_OR_CHILD = "t.name = ? OR t.name LIKE ? ESCAPE '\\'"


@dataclass
class CompiledQuery:
    """A query as SQL pieces: an FTS5 expression that ranks, and filters on `paper p`."""

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
            sql, p = _cjk_sql(option)
        parts.append(sql)
        params.extend(p)
    return "(" + " OR ".join(parts) + ")", params


def _cjk_sql(option: Text) -> tuple[str, list]:
    """Chinese and Japanese: unicode61 keeps a run of ideographs as one token, so a two-character
    word inside it would never match. Papers carry their CJK text one character per token in
    `search_extra` (matched as a phrase); user-written tags, notes and titles are small and
    matched as substrings."""
    return (
        f"(p.id IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?)"
        " OR p.id IN (SELECT paper_id FROM note WHERE instr(body, ?) > 0)"
        f" OR p.id IN ({_TAGGED.format('instr(t.name, ?) > 0')})"
        " OR p.id IN (SELECT id FROM paper WHERE user_title IS NOT NULL AND instr(user_title, ?) > 0))",
        ["search_extra : " + fts_phrase(Text(cjk_spaced(option.text), prefix=option.prefix))]
        + [option.text] * 3,
    )


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _filter_sql(f: Filter) -> tuple[str, list]:
    if f.field == "venue":
        return "p.venue = ?", [f.value]  # the column is NOCASE
    if f.field == "key":
        return "p.key LIKE ? ESCAPE '\\'", [_like_escape(str(f.value).lower()) + "%"]
    if f.field == "status":
        if f.value == "unread":  # most papers: the complement is small and indexed
            return "p.id NOT IN (SELECT id FROM paper WHERE status != 'unread')", []
        return "p.status = ? AND p.status != 'unread'", [f.value]  # lets SQLite use the partial index
    if f.field == "tag":
        # A tag includes its children: tag:project finds project/thesis too.
        return (
            f"p.id IN ({_TAGGED.format(_TAG_OR_CHILD)})",
            [f.value, _like_escape(str(f.value)) + "/%"],
        )
    if f.field == "has":
        return {
            "notes": "p.id IN (SELECT paper_id FROM note)",
            "tags": "p.id IN (SELECT paper_id FROM paper_tag)",
            "rating": "p.rating IS NOT NULL",
            "title": "coalesce(p.user_title, p.title) IS NOT NULL",
            "abstract": "p.abstract != ''",
            "authors": "coalesce(p.authors, '') != ''",
        }[f.value], []
    if f.field == "topic":  # the whole catalog's stored topics (scope '')
        return "p.id IN (SELECT paper_id FROM topic WHERE scope = '' AND number = ?)", [f.value]
    if f.field == "rating":
        # As a set of ids: rated papers are few, and a plain `rating >= 4` tempts the planner
        # into walking the whole year index looking for them.
        return f"p.id IN (SELECT id FROM paper WHERE rating IS NOT NULL AND rating {f.op} ?)", [f.value]
    if f.op == "range":
        low, high = f.value
        return "p.year BETWEEN ? AND ?", [low, high]
    return f"p.year {f.op} ?", [f.value]


def _restriction(compiled: CompiledQuery) -> tuple[str, list]:
    """Filters as a set of ids built from indexes, without reading the wide paper rows.

    The unary + keeps SQLite from handing `rowid IN (...)` to FTS5, which would rerun the
    whole MATCH once per id; as a plain filter it is one lookup per matching row.
    """
    if not compiled.where:
        return "", []
    where = " AND ".join(compiled.where)
    return f" AND +rowid IN (SELECT p.id FROM paper p WHERE {where})", list(compiled.params)


def order_sql(sort: Sort) -> str:
    """ORDER BY terms on `paper p` for `sort`; relevance without words is newest first."""
    return ORDERS["year" if sort.field == "relevance" else sort.field][sort.reverse]


def search_sql(compiled: CompiledQuery, *, limit: int, offset: int = 0,
               with_text: bool = False, sort: Sort = RELEVANCE) -> tuple[str, list]:
    """The page of papers, best first (newest first without words) or in `sort`'s order:
    SUMMARY_COLUMNS, then `text` (the rendered abstract, for snippets, or NULL) and `score`."""
    text = "p.abstract_text" if with_text else "NULL"
    if compiled.match is None:
        where = " AND ".join(compiled.where) or "1"
        return (f"SELECT {SUMMARY_COLUMNS}, {text} AS text, NULL AS score FROM paper p WHERE {where}"
                f" ORDER BY {order_sql(sort)} LIMIT ? OFFSET ?", [*compiled.params, limit, offset])
    restrict, params = _restriction(compiled)
    if sort.field != "relevance":
        # Every match's row is read to sort it (a top-N sort): ~100 ms for a word in half of
        # 100k papers, a few ms for typical queries.
        return (f"WITH hits AS (SELECT rowid AS id FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?{restrict})"
                f" SELECT {SUMMARY_COLUMNS}, {text} AS text, NULL AS score FROM hits CROSS JOIN paper p"
                f" WHERE p.id = hits.id ORDER BY {order_sql(sort)} LIMIT ? OFFSET ?",
                [compiled.match, *params, limit, offset])
    # Rank in the index alone, then read only the page's rows: reading every matching paper
    # row before sorting costs more than the ranking itself. CROSS JOIN keeps that order.
    desc = " DESC" if sort.reverse else ""
    return (f"WITH top AS (SELECT rowid AS id, {_BM25} AS score FROM {FTS_TABLE}"
            f" WHERE {FTS_TABLE} MATCH ?{restrict} ORDER BY score{desc}, rowid{desc} LIMIT ? OFFSET ?)"
            f" SELECT {SUMMARY_COLUMNS}, {text} AS text, top.score AS score FROM top CROSS JOIN paper p"
            f" WHERE p.id = top.id ORDER BY top.score{desc}, top.id{desc}",
            [compiled.match, *params, limit, offset])


def count_sql(compiled: CompiledQuery) -> tuple[str, list]:
    if compiled.match is None:
        where = " AND ".join(compiled.where) or "1"
        return f"SELECT count(*) FROM paper p WHERE {where}", list(compiled.params)
    restrict, params = _restriction(compiled)
    return (f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?{restrict}",
            [compiled.match, *params])


def ids_sql(compiled: CompiledQuery) -> tuple[str, list]:
    """The ids of every paper the query finds, as a subquery (for counting facets)."""
    if compiled.match is None:
        return f"SELECT p.id FROM paper p WHERE {' AND '.join(compiled.where) or '1'}", list(compiled.params)
    restrict, params = _restriction(compiled)
    return f"SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?{restrict}", [compiled.match, *params]


def facet_sql(ids: str, *, scan: bool) -> dict[str, str]:
    """Venue-year, status and rating counts of the papers `ids` selects (a subquery, see
    ids_sql; its parameters go once into each). Without `scan` SQLite looks up each id's row;
    with it, it reads only an index and checks each entry against the ids: far less to read
    when they are many (the paper rows are wide, the indexes narrow). Unread papers are not
    counted: they are the rest."""
    def index(name: str) -> str:
        return f" INDEXED BY {name}" if scan else ""

    return {
        "venues": (f"SELECT coalesce(venue, '?') AS venue, year, count(*) AS papers FROM paper"
                   f"{index('ix_paper_venue_year')} WHERE id IN ({ids}) GROUP BY venue, year"
                   " ORDER BY year DESC, venue"),
        "statuses": (f"SELECT status, count(*) AS papers FROM paper{index('ix_paper_status_year')}"
                     f" WHERE status != 'unread' AND id IN ({ids}) GROUP BY status"),
        "ratings": (f"SELECT rating, count(*) AS papers FROM paper{index('ix_paper_rating')}"
                    f" WHERE rating IS NOT NULL AND id IN ({ids}) GROUP BY rating ORDER BY rating DESC"),
    }


def titled_sql(title: str, limit: int) -> tuple[str, list] | None:
    """Papers whose real title holds `title`'s words as a phrase and is not much longer:
    candidates for deduplication, which compares the titles themselves. None when `title`
    has no words."""
    if not any(ch.isalnum() for ch in title):
        return None
    phrase = "title : " + fts_phrase(Text(title))
    return (f"SELECT p.id, p.key, p.title, p.year, p.authors, p.url, p.doi, p.arxiv_id, p.abstract"
            f" FROM {FTS_TABLE} CROSS JOIN paper p"
            f" WHERE {FTS_TABLE} MATCH ? AND p.id = {FTS_TABLE}.rowid AND length(p.title) <= ? LIMIT ?",
            [phrase, 2 * len(title) + 20, limit])
