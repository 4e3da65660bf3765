"""SQLite FTS5: the query tree (catalog/searching/query.py) compiled to SQL over the index
that store/fts5.py describes.

This is the only module that knows FTS5 query syntax. Every user word is quoted before it
reaches MATCH, so punctuation (`multi-agent`, `c++`, `20.04`) is never FTS5 syntax. The
functions that build SQL are pure (query tree in, SQL and parameters out) and pinned by
exact-string tests (tests/test_compiler.py); the store runs what they build.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from catalog.searching import connecting
from catalog.searching.query import RELEVANCE, Clause, Filter, Query, Sort, Text
from catalog.store.compiler import HELD_SCALE, CompiledQuery, Compiler, people_and_files_sql, some_weights, some_words
from catalog.store.filters import TAGGED as _TAGGED, filter_sql
from catalog.store.fts5 import (FTS_COLUMNS, FTS_TABLE, PAGE_TABLE, STEM_TABLE, STEM_TOKENIZER, VOCAB_TABLE,  # noqa: F401
                                WEIGHTS, fts_phrase)
from catalog.store.imports import REDERIVE_TABLE
from catalog.store.rows import READER_JOIN, SUMMARY_COLUMNS  # noqa: F401 (the compiler's rows: theirs)
from catalog.store.tierplan import Syntax, ids_of_tiers, is_words, plan_tiers
from catalog.text.cjk import cjk_spaced

VIEWS = ("papers", "paper_tags", "paper_notes", "paper_fields")
INSERT_TRIGGER = "paper_fts_insert"
INSERT_TRIGGERS = (INSERT_TRIGGER, "paper_stem_insert", "term_top_paper_insert")
# The ranked lists of frequent words (catalog/store/lists/, migrations 0009-0010): derived, hand-made.
TOP_TABLES = ("term_top", "term_top_state", "term_top_dirty", "term_top_was", "term_top_now", "term_top_now_words")
# What triggers copy onto paper.tags_text / paper.notes_text (the migrations hold their own
# frozen copy of these); `catalog doctor` recomputes them with these. {pid}: the paper id.
TAGS_TEXT_OF = """(SELECT coalesce(group_concat(name, ' '), '') FROM (
    SELECT t.name FROM paper_tag pt JOIN tag t ON t.id = pt.tag_id
    WHERE pt.paper_id = {pid} ORDER BY t.name))"""
NOTES_TEXT_OF = """(SELECT coalesce(group_concat(body, char(10)), '') FROM (
    SELECT body FROM note WHERE paper_id = {pid} ORDER BY created_at, id))"""

_WEIGHTS = WEIGHTS
# Newest year first, then most recently added: the year indexes (rowid last) give this order
# directly, so a filtered listing stops after LIMIT rows instead of sorting the catalog.
DEFAULT_ORDER = "p.year DESC, p.id DESC"
# The other orders (catalog.searching.query.SORTS), as (natural, reversed). Unknown years and ratings go
# last both ways; "date added" is the id, which grows as papers are imported (the primary key
# gives that order with no sorting).
ORDERS = {
    "year": (DEFAULT_ORDER, "p.year ASC NULLS LAST, p.id ASC"),
    "rating": ("r.rating DESC NULLS LAST, p.year DESC, p.id DESC",  # the reader's (READER_JOIN)
               "r.rating ASC NULLS LAST, p.year DESC, p.id DESC"),
    "title": ("coalesce(p.user_title, p.title, p.headline) COLLATE NOCASE ASC, p.id ASC",
              "coalesce(p.user_title, p.title, p.headline) COLLATE NOCASE DESC, p.id DESC"),
    "added": ("p.id DESC", "p.id ASC"),
}


def is_hand_made_table(name: str) -> bool:
    """FTS5 tables and their shadow tables, views and the re-derive queue, which SQLModel
    does not describe (Alembic's autogenerate must leave them alone)."""
    return (name in (FTS_TABLE, STEM_TABLE, VOCAB_TABLE) or name.startswith((FTS_TABLE + "_", STEM_TABLE + "_"))
            or name in VIEWS or name == REDERIVE_TABLE or name in TOP_TABLES
            or name.startswith(("term_top_was_", "term_top_now_"))
            or name == PAGE_TABLE or name.startswith(PAGE_TABLE + "_"))


# Papers a parameter finds in the unstemmed index: a word ORed with filters, or an `=word` the
# stemmed tiers must also hold as typed.
_IN_EXACT = f"p.id IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?)"


def _clause_sql(clause: Clause, reader: str) -> tuple[str, list]:
    parts, params = [], []
    for option in clause.options:
        if isinstance(option, Filter):
            sql, p = filter_sql(option, reader)
        elif is_words(option):
            sql, p = _IN_EXACT, [fts_phrase(option)]
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


_SYNTAX = Syntax(
    phrase=fts_phrase, clause_sql=_clause_sql, and_=" AND ", or_=" OR ", and_not=" NOT ",
    alone=lambda phrase: "(" + phrase + ")", exact_index=FTS_TABLE, stem_index=STEM_TABLE, in_exact=_IN_EXACT,
    not_matching=lambda table: f"p.id NOT IN (SELECT rowid FROM {table} WHERE {table} MATCH ?)",
)


def compile_query(query: Query, acronyms: Mapping[str, Sequence[str]] | None = None,
                  reader: str = "") -> CompiledQuery:
    """The query's tiers (store/tierplan.py) in FTS5 syntax; `acronyms` as plan_tiers takes them."""
    return plan_tiers(query, acronyms or {}, _SYNTAX, CompiledQuery(reader=reader))


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



def _not_in(table: str) -> str:
    return f" AND +rowid NOT IN (SELECT rowid FROM {table} WHERE {table} MATCH ?)"


def tier_expression(compiled: CompiledQuery, tier: str) -> str | None:
    """The MATCH of one tier, or None when the query has no such tier."""
    if tier == "exact":
        return compiled.match
    if tier == "forms":
        return compiled.forms
    if tier == "wide":
        return compiled.wide if compiled.forms else None
    return " OR ".join(some_words(compiled)) if compiled.forms and compiled.words else None


def _tier_from(compiled: CompiledQuery, tier: str) -> tuple[str, str, list]:
    """(index table, `FROM ... WHERE ...` of one tier's papers, parameters): its MATCH, the
    filters, `-word`s, and none of the papers an earlier tier found."""
    table = FTS_TABLE if tier == "exact" else STEM_TABLE
    sql = f"FROM {table} WHERE {table} MATCH ?"
    params: list = [tier_expression(compiled, tier)]
    restrict, filters = _restriction(compiled)
    sql += restrict
    params += filters
    for other, expression in compiled.exclude:
        if tier != "exact" or other != FTS_TABLE:
            sql += _not_in(other)
            params.append(expression)
    earlier = {"exact": None, "forms": (FTS_TABLE, compiled.match), "wide": (STEM_TABLE, compiled.forms),
               "some": (STEM_TABLE, compiled.wide or compiled.forms)}[tier]
    if earlier:
        sql += _not_in(earlier[0])
        params.append(earlier[1])
    return table, sql, params


def _all_words_from(compiled: CompiledQuery) -> tuple[str, str, list]:
    """(index table, `FROM ... WHERE ...`, parameters) of every paper holding all the words in
    some form (the tiers before "some" together): every paper of the exact tier holds the
    words in the stemmed index too."""
    widest = compiled.wide or compiled.forms
    if widest is None:
        return _tier_from(compiled, "exact")
    restrict, params = _restriction(compiled)
    sql = f"FROM {STEM_TABLE} WHERE {STEM_TABLE} MATCH ?{restrict}"
    params = [widest, *params]
    for other, expression in compiled.exclude:
        sql += _not_in(other)
        params.append(expression)
    return STEM_TABLE, sql, params


def search_sql(compiled: CompiledQuery, *, limit: int, offset: int = 0, with_text: bool = False,
               tier: str = "exact", sort: Sort = RELEVANCE,
               tiers: Sequence[str] | None = None) -> tuple[str, list]:
    """The page of papers, best first (newest first without words) or in `sort`'s order:
    SUMMARY_COLUMNS, then `text` (the rendered abstract, for snippets, or NULL) and `score`.
    By relevance, the papers of one tier (TIERS); "some" ranks papers by how many of the words
    they hold, then bm25. In another order, every paper holding all the words, or the papers
    of `tiers` (as ids_sql)."""
    text = "p.abstract_text" if with_text else "NULL"
    if compiled.match is None:
        where = " AND ".join(compiled.where) or "1"
        return (f"SELECT {SUMMARY_COLUMNS}, {text} AS text, NULL AS score FROM paper p {READER_JOIN}"
                f" WHERE {where} ORDER BY {order_sql(sort)} LIMIT ? OFFSET ?",
                [compiled.reader, *compiled.params, limit, offset])
    if sort.field != "relevance":
        # Every match's row is read to sort it (a top-N sort): ~100 ms for a word in half of
        # 100k papers, a few ms for typical queries.
        if tiers:
            ids, params = ids_sql(compiled, tiers)
            hits = f"hits(id) AS ({ids})"
        else:
            _, source, params = _all_words_from(compiled)
            hits = f"hits AS (SELECT rowid AS id {source})"
        return (f"WITH {hits}"
                f" SELECT {SUMMARY_COLUMNS}, {text} AS text, NULL AS score FROM hits CROSS JOIN paper p"
                f" {READER_JOIN} WHERE p.id = hits.id ORDER BY {order_sql(sort)} LIMIT ? OFFSET ?",
                [*params, compiled.reader, limit, offset])
    # Rank in the index alone, then read only the page's rows: reading every matching paper
    # row before sorting costs more than the ranking itself. CROSS JOIN keeps that order.
    table, source, params = _tier_from(compiled, tier)
    bm25 = f"bm25({table}, {_WEIGHTS})"
    if tier == "some":
        held = " + ".join(f"? * (+rowid IN (SELECT rowid FROM {STEM_TABLE} WHERE {STEM_TABLE} MATCH ?))"
                          for _ in compiled.words)
        bm25 = f"{bm25} - ({held}) * {HELD_SCALE}"  # the weight of the words held outranks bm25
        params = [x for pair in zip(some_weights(compiled), compiled.words) for x in pair] + params
    desc = " DESC" if sort.reverse else ""
    return (f"WITH top AS (SELECT rowid AS id, {bm25} AS score {source}"
            f" ORDER BY score{desc}, rowid{desc} LIMIT ? OFFSET ?)"
            f" SELECT {SUMMARY_COLUMNS}, {text} AS text, top.score AS score FROM top CROSS JOIN paper p"
            f" {READER_JOIN} WHERE p.id = top.id ORDER BY top.score{desc}, top.id{desc}",
            [*params, limit, offset, compiled.reader])


def count_sql(compiled: CompiledQuery, tier: str | None = None) -> tuple[str, list]:
    """How many papers match: all words (in any form, through acronyms) by default, or one
    tier's papers."""
    if compiled.match is None:
        where = " AND ".join(compiled.where) or "1"
        return f"SELECT count(*) FROM paper p WHERE {where}", list(compiled.params)
    _, source, params = _all_words_from(compiled) if tier is None else _tier_from(compiled, tier)
    return f"SELECT count(*) {source}", params


def ids_sql(compiled: CompiledQuery, tiers: Sequence[str] | None = None) -> tuple[str, list]:
    """The ids of every paper the query finds, as a subquery (for counting facets): those
    holding all the words in some form, or the papers of these `tiers` (TIERS; each leaves
    out the papers of those before it, so they add up as the count's do)."""
    if compiled.match is None:
        return f"SELECT p.id FROM paper p WHERE {' AND '.join(compiled.where) or '1'}", list(compiled.params)

    def select(tier: str | None) -> tuple[str, list]:
        _, source, params = _all_words_from(compiled) if tier is None else _tier_from(compiled, tier)
        return f"SELECT rowid {source}", params

    return ids_of_tiers(tiers, select)


def facet_sql(ids: str, *, scan: bool) -> dict[str, str]:
    """Venue-year, status and rating counts of the papers `ids` selects (a subquery, see
    ids_sql; its parameters go once into each, after the reader's name for the statuses and
    ratings, which are the reader's own: paper_reader). Without `scan` SQLite looks up each
    id's row; with it, it reads only an index and checks each entry against the ids: far less
    to read when they are many (the paper rows are wide, the indexes narrow). Unread papers
    are not counted: they are the rest."""
    def index(name: str) -> str:
        return f" INDEXED BY {name}" if scan else ""

    return {
        "venues": (f"SELECT coalesce(venue, '?') AS venue, year, count(*) AS papers FROM paper"
                   f"{index('ix_paper_venue_year')} WHERE id IN ({ids}) GROUP BY venue, year"
                   " ORDER BY year DESC, venue COLLATE NOCASE"),
        "statuses": ("SELECT status, count(*) AS papers FROM paper_reader WHERE reader = ?"
                     f" AND status != 'unread' AND paper_id IN ({ids}) GROUP BY status"),
        "ratings": ("SELECT rating, count(*) AS papers FROM paper_reader WHERE reader = ?"
                    f" AND rating IS NOT NULL AND paper_id IN ({ids}) GROUP BY rating ORDER BY rating DESC"),
        **people_and_files_sql(ids),
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


# How many papers hold one word (an expression of CompiledQuery.words), up to a limit.
PAPERS_HOLDING = f"SELECT count(*) FROM (SELECT 1 FROM {STEM_TABLE} WHERE {STEM_TABLE} MATCH ? LIMIT ?)"


class Fts5Compiler(Compiler):
    """The query compiler over SQLite's two FTS5 indexes (this module's functions)."""

    compile_query = staticmethod(compile_query)
    tier_expression = staticmethod(tier_expression)
    search_sql = staticmethod(search_sql)
    count_sql = staticmethod(count_sql)
    ids_sql = staticmethod(ids_sql)
    facet_sql = staticmethod(facet_sql)
    titled_sql = staticmethod(titled_sql)

    def papers_holding_sql(self) -> str:
        return PAPERS_HOLDING


FTS5 = Fts5Compiler()


def page_match(query: Query) -> str | None:
    """`query`'s words as an FTS5 expression over the pages of attached files (page_fts,
    stemmed): each clause's words ORed, clauses ANDed, negated ones NOTed. A clause that ORs
    a word with a filter is left out (a page has no venue): the page search is then wider, and
    the caller applies the filters to the papers. None: no words to look for."""
    wanted, unwanted = [], []
    skipped = connecting.optional(query.clauses)  # `versus`: a page need not hold it either
    for i, clause in enumerate(query.clauses):
        if i in skipped or not all(isinstance(option, Text) for option in clause.options):
            continue
        words = " OR ".join(fts_phrase(option) for option in clause.options)
        (unwanted if clause.negated else wanted).append(f"({words})")
    if not wanted:
        return None
    return " AND ".join(wanted) + "".join(f" NOT {words}" for words in unwanted)
