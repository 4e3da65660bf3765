"""The query language on PostgreSQL: words become a tsquery over `paper.search_vector` (made
by migration 0007: titles weigh A, tags B, authors and notes C, abstract and search_extra D),
filters the same SQL conditions as SQLite's (store/filters.py). A pure compiler, like
sqlite/fts.py: query tree in, SQL and parameters out.

Safety in the manner of websearch_to_tsquery: the user's text never reaches tsquery syntax.
Each word is cut into runs of letters and digits (ASCII punctuation separates words, as in
FTS5's unicode61: `multi-agent` is the phrase `multi <-> agent`), each run is quoted as a
lexeme, and the tsquery is assembled here from &, |, ! and <->. Chinese and Japanese words
match papers through their spaced characters in search_extra, and user-written tags, notes and
titles as substrings, as on SQLite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from catalog.query import Clause, Filter, Query, Text
from catalog.store.filters import TAGGED, filter_sql
from catalog.text.cjk import cjk_spaced, has_cjk

CONFIG = "catalog_words"
# ts_rank's weights for D, C, B, A (abstract, authors/notes, tags, titles): SQLite's bm25
# weights (1, 2-3, 8, 10) scaled to ts_rank's 0..1.
WEIGHTS = "'{0.1, 0.25, 0.8, 1.0}'"
SUMMARY_COLUMNS = (
    "p.id, p.key, coalesce(p.user_title, p.title, p.headline) AS title, p.venue, p.year, "
    "coalesce(r.status, 'unread') AS status, r.rating, p.tags_text"
)
READER_JOIN = "LEFT JOIN paper_reader r ON r.paper_id = p.id AND r.reader = ?"
DEFAULT_ORDER = "p.year DESC NULLS LAST, p.id DESC"
# A word as a set of ids found through the GIN index (hashed once), not a test of each
# candidate's vector (read and decompressed row by row).
MATCHING = f"SELECT id FROM paper WHERE search_vector @@ to_tsquery('{CONFIG}', ?)"
_WORD = re.compile(r"[^\W_]+")
# As the migration's catalog_words(): super- and subscript digits are plain digits of the word.
_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉", "01234567890123456789")


@dataclass
class CompiledQuery:
    """`match`: a tsquery (text) that ranks, or None; `where`: conditions on `paper p`."""

    match: str | None = None
    where: list[str] = field(default_factory=list)
    params: list = field(default_factory=list)
    reader: str = ""


def tsquery_phrase(text: Text) -> str | None:
    """One word or phrase as tsquery text; None when it has no letters or digits."""
    runs = _WORD.findall(text.text.translate(_DIGITS))
    if not runs:
        return None
    lexemes = [f"'{run}'" for run in runs]
    if text.prefix:
        lexemes[-1] += ":*"
    return lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")"


def compile_query(query: Query, reader: str = "") -> CompiledQuery:
    out = CompiledQuery(reader=reader)
    positive: list[str] = []
    negative: list[str] = []
    for clause in query.clauses:
        if all(isinstance(o, Text) and not has_cjk(o.text) for o in clause.options):
            group = [p for o in clause.options if (p := tsquery_phrase(o))]
            if not group:  # nothing searchable: finds nothing, and excludes nothing
                if not clause.negated:
                    out.where.append("FALSE")
                continue
            (negative if clause.negated else positive).append("(" + " | ".join(group) + ")")
            continue
        sql, params = _clause_sql(clause, reader)
        out.where.append(f"NOT {sql}" if clause.negated else sql)
        out.params.extend(params)
    if positive:
        out.match = " & ".join(positive + [f"!{n}" for n in negative])
    elif negative:
        for n in negative:
            out.where.append(f"p.id NOT IN ({MATCHING})")
            out.params.append(n)
    return out


def _clause_sql(clause: Clause, reader: str) -> tuple[str, list]:
    parts, params = [], []
    for option in clause.options:
        if isinstance(option, Filter):
            sql, p = filter_sql(option, reader)
        elif not has_cjk(option.text):
            phrase = tsquery_phrase(option)
            sql, p = (f"p.id IN ({MATCHING})", [phrase]) if phrase else ("FALSE", [])
        else:
            sql, p = _cjk_sql(option)
        parts.append(sql)
        params.extend(p)
    return "(" + " OR ".join(parts) + ")", params


def _cjk_sql(option: Text) -> tuple[str, list]:
    phrase = tsquery_phrase(Text(cjk_spaced(option.text), prefix=option.prefix)) or "''"
    return (
        f"(p.id IN ({MATCHING})"
        " OR p.id IN (SELECT paper_id FROM note WHERE strpos(body, ?) > 0)"
        f" OR p.id IN ({TAGGED.format('strpos(t.name::text, ?) > 0')})"
        " OR (p.user_title IS NOT NULL AND strpos(p.user_title, ?) > 0))",
        [phrase] + [option.text] * 3,
    )


def _page(limit: int, offset: int) -> list:
    return [None if limit is None or limit < 0 else limit, offset]


def search_sql(compiled: CompiledQuery, *, limit: int, offset: int = 0,
               with_text: bool = False) -> tuple[str, list]:
    """The page of papers, best first (newest first without words): SUMMARY_COLUMNS, `text`
    and `score` (lower is better, as SQLite's bm25)."""
    text = "p.abstract_text" if with_text else "NULL"
    where = " AND ".join(compiled.where) or "TRUE"
    if compiled.match is None:
        return (f"SELECT {SUMMARY_COLUMNS}, {text} AS text, NULL::float AS score FROM paper p {READER_JOIN}"
                f" WHERE {where} ORDER BY {DEFAULT_ORDER} LIMIT ? OFFSET ?",
                [compiled.reader, *compiled.params, *_page(limit, offset)])
    return (f"WITH q AS (SELECT to_tsquery('{CONFIG}', ?) AS q),"
            f" top AS (SELECT p.id, -ts_rank({WEIGHTS}, p.search_vector, q.q, 1) AS score FROM paper p, q"
            f" WHERE p.search_vector @@ q.q AND {where} ORDER BY score, p.id LIMIT ? OFFSET ?)"
            f" SELECT {SUMMARY_COLUMNS}, {text} AS text, top.score AS score FROM top JOIN paper p ON p.id = top.id"
            f" {READER_JOIN} ORDER BY top.score, top.id",
            [compiled.match, *compiled.params, *_page(limit, offset), compiled.reader])


def count_sql(compiled: CompiledQuery) -> tuple[str, list]:
    where = " AND ".join(compiled.where) or "TRUE"
    if compiled.match is None:
        return f"SELECT count(*) FROM paper p WHERE {where}", list(compiled.params)
    return (f"SELECT count(*) FROM paper p WHERE p.search_vector @@ to_tsquery('{CONFIG}', ?) AND {where}",
            [compiled.match, *compiled.params])


def titled_sql(title: str, limit: int) -> tuple[str, list] | None:
    """Papers whose real title holds `title`'s words as a phrase and is not much longer
    (deduplication's candidates); None when `title` has no words."""
    phrase = tsquery_phrase(Text(title))
    if phrase is None:
        return None
    return (f"WITH q AS (SELECT to_tsquery('{CONFIG}', ?) AS q)"
            " SELECT p.id, p.key, p.title, p.year, p.authors, p.url, p.doi, p.arxiv_id, p.abstract FROM paper p, q"
            f" WHERE p.search_vector @@ q.q AND to_tsvector('{CONFIG}', catalog_words(p.title)) @@ q.q"
            " AND length(p.title) <= ? LIMIT ?",
            [phrase, 2 * len(title) + 20, limit])
