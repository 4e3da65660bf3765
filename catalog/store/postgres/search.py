"""The query language on PostgreSQL: words become tsqueries over two stored vectors that
migration 0009 made: `paper.search_vector`, the words as written (`catalog_words`: lower case,
accents folded; titles weigh A, tags B, authors and notes C, abstract and search_extra D), and
`paper.stem_vector`, the same through the Porter stemmer FTS5's `porter` uses
(`catalog_stems`), so the tiers are SQLite's (sqlite/fts.py): the words as typed, then in other
forms, then through acronyms, then papers holding some of them. Filters are the same SQL
conditions as SQLite's (store/filters.py). A pure compiler, like sqlite/fts.py: query tree in,
SQL and parameters out, with the same functions (store/tierplan.py plans the tiers of both,
store/ranked.py walks them).

Safety in the manner of websearch_to_tsquery: the user's text never reaches tsquery syntax.
Each word is cut into runs of letters and digits (ASCII punctuation separates words, as in
FTS5's unicode61: `multi-agent` is the phrase `multi <-> agent`), each run is quoted as a
lexeme, and the tsquery is assembled here from &, |, ! and <->. Chinese and Japanese words
match papers through their spaced characters in search_extra, and user-written tags, notes and
titles as substrings, as on SQLite.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from catalog.searching import connecting
from catalog.searching.query import RELEVANCE, Clause, Filter, Query, Sort, Text
from catalog.store.compiler import HELD_SCALE, CompiledQuery, Compiler, people_and_files_sql, some_weights, some_words
from catalog.store.filters import TAGGED, filter_sql
from catalog.store.rows import READER_JOIN, SUMMARY_COLUMNS
from catalog.store.tsvector import CONFIG, STEMS, VECTORS, WEIGHTS
from catalog.store.tierplan import Syntax, ids_of_tiers, plan_tiers
from catalog.text.cjk import cjk_spaced, has_cjk

DEFAULT_ORDER = "p.year DESC NULLS LAST, p.id DESC"
# SQLite's orders (sqlite/fts.py ORDERS): titles compare lower case, code point by code point
# as NOCASE does; unknown years and ratings last.
_TITLE = 'lower(coalesce(p.user_title, p.title, p.headline)) COLLATE "C"'
ORDERS = {
    "year": (DEFAULT_ORDER, "p.year ASC NULLS LAST, p.id ASC"),
    "rating": ("r.rating DESC NULLS LAST, p.year DESC NULLS LAST, p.id DESC",  # the reader's
               "r.rating ASC NULLS LAST, p.year DESC NULLS LAST, p.id DESC"),
    "title": (f"{_TITLE} ASC, p.id ASC", f"{_TITLE} DESC, p.id DESC"),
    "added": ("p.id DESC", "p.id ASC"),
}
# A word as a set of ids found through the GIN index (hashed once), not a test of each
# candidate's vector (read and decompressed row by row).
MATCHING = "SELECT id FROM paper WHERE {} @@ to_tsquery('{}', ?)"
# How many papers hold one word (an expression of CompiledQuery.words), up to a limit.
PAPERS_HOLDING = (f"SELECT count(*) FROM (SELECT 1 FROM paper WHERE stem_vector @@ to_tsquery('{STEMS}', ?)"
                  " LIMIT ?) AS held")
_WORD = re.compile(r"[^\W_]+")
# As the migration's catalog_words(): super- and subscript digits are plain digits of the word.
_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉", "01234567890123456789")


def _matching(index: str) -> str:
    return MATCHING.format(*VECTORS[index])


def tsquery_phrase(text: Text) -> str | None:
    """One word or phrase as tsquery text; None when it has no letters or digits."""
    runs = _WORD.findall(text.text.translate(_DIGITS))
    if not runs:
        return None
    lexemes = [f"'{run}'" for run in runs]
    if text.prefix:
        lexemes[-1] += ":*"
    return lexemes[0] if len(lexemes) == 1 else "(" + " <-> ".join(lexemes) + ")"


def _clause_sql(clause: Clause, reader: str) -> tuple[str, list]:
    parts, params = [], []
    for option in clause.options:
        if isinstance(option, Filter):
            sql, p = filter_sql(option, reader)
        elif not has_cjk(option.text):
            phrase = tsquery_phrase(option)
            sql, p = (f"p.id IN ({_matching('exact')})", [phrase]) if phrase else ("FALSE", [])
        else:
            sql, p = _cjk_sql(option)
        parts.append(sql)
        params.extend(p)
    if len(parts) > 1 and all(_id_set(part) for part in parts):
        # Sets of ids (tags, marks, notes, words): one set, which the planner reads first; an
        # OR of two `IN`s made it walk the listing index testing each paper against both
        # (`tag:x OR status:read` at 100k: 53 ms, now under 1 ms).
        return "p.id IN (" + " UNION ALL ".join(part[len(_IN):-1] for part in parts) + ")", params
    return "(" + " OR ".join(parts) + ")", params


_IN = "p.id IN ("


def _id_set(sql: str) -> bool:
    """Whether `sql` is one `p.id IN (subquery)` and nothing more."""
    if not sql.startswith(_IN) or not sql.endswith(")"):
        return False
    depth = 0
    for i, ch in enumerate(sql[len(_IN) - 1:], len(_IN) - 1):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i == len(sql) - 1
    return False


def _cjk_sql(option: Text) -> tuple[str, list]:
    phrase = tsquery_phrase(Text(cjk_spaced(option.text), prefix=option.prefix)) or "''"
    return (
        f"(p.id IN ({_matching('exact')})"
        " OR p.id IN (SELECT paper_id FROM note WHERE strpos(body, ?) > 0)"
        f" OR p.id IN ({TAGGED.format('strpos(t.name::text, ?) > 0')})"
        " OR (p.user_title IS NOT NULL AND strpos(p.user_title, ?) > 0))",
        [phrase] + [option.text] * 3,
    )


_SYNTAX = Syntax(
    phrase=tsquery_phrase, clause_sql=_clause_sql, and_=" & ", or_=" | ", and_not=" & !",
    alone=lambda phrase: phrase, exact_index="exact", stem_index="stems", in_exact=f"p.id IN ({_matching('exact')})",
    # Tested on each paper the listing reads (its vectors are in the row): a page needs a few
    # more rows than it shows, where the set of ids holding a common word is large.
    not_matching=lambda index: f"NOT {_matches(index)}",
)


def compile_query(query: Query, acronyms: Mapping[str, Sequence[str]] | None = None,
                  reader: str = "") -> CompiledQuery:
    """As sqlite/fts.py's compile_query: the query's tiers (store/tierplan.py) in tsquery syntax."""
    return plan_tiers(query, acronyms or {}, _SYNTAX, CompiledQuery(reader=reader))


def _page(limit: int, offset: int) -> list:
    return [None if limit is None or limit < 0 else limit, offset]


def order_sql(sort: Sort) -> str:
    """ORDER BY terms on `paper p` (and the reader's `r`) for `sort`."""
    return ORDERS["year" if sort.field == "relevance" else sort.field][sort.reverse]


def tier_expression(compiled: CompiledQuery, tier: str) -> str | None:
    """The tsquery of one tier, or None when the query has no such tier."""
    if tier == "exact":
        return compiled.match
    if tier == "forms":
        return compiled.forms
    if tier == "wide":
        return compiled.wide if compiled.forms else None
    return " | ".join(some_words(compiled)) if compiled.forms and compiled.words else None


def _matches(index: str, query: str = "?") -> str:
    column, config = VECTORS[index]
    return f"p.{column} @@ " + (query if query != "?" else f"to_tsquery('{config}', ?)")


def _tier_where(compiled: CompiledQuery, tier: str, first: str = "?") -> tuple[str, str, list]:
    """(index, conditions on `paper p` of one tier's papers, parameters): its tsquery (`first`:
    the expression standing for it, a parameter by default), the filters, `-word`s, and none of
    the papers an earlier tier found."""
    index = "exact" if tier == "exact" else "stems"
    others, other_params = tier_conditions(compiled, tier)
    conds = [_matches(index, first), *others]
    params: list = [] if first != "?" else [tier_expression(compiled, tier)]
    return index, " AND ".join(conds), params + other_params


def tier_conditions(compiled: CompiledQuery, tier: str) -> tuple[list[str], list]:
    """The conditions on `paper p` a tier's papers meet besides its tsquery: the filters,
    `-word`s, and none of the papers an earlier tier found (lists/postgres.py applies them to
    a ranked list's papers)."""
    conds, params = list(compiled.where), list(compiled.params)
    for other, expression in compiled.exclude:
        if tier != "exact" or other != "exact":
            conds.append(f"NOT {_matches(other)}")
            params.append(expression)
    earlier = {"exact": None, "forms": ("exact", compiled.match), "wide": ("stems", compiled.forms),
               "some": ("stems", compiled.wide or compiled.forms)}[tier]
    if earlier:
        conds.append(f"NOT {_matches(earlier[0])}")
        params.append(earlier[1])
    return conds, params


def _all_words_where(compiled: CompiledQuery) -> tuple[str, list]:
    """Conditions of every paper holding all the words in some form (the tiers before "some")."""
    widest = compiled.wide or compiled.forms
    if widest is None:
        return _tier_where(compiled, "exact")[1:]
    conds, params = [_matches("stems")] + compiled.where, [widest, *compiled.params]
    for other, expression in compiled.exclude:
        conds.append(f"NOT {_matches(other)}")
        params.append(expression)
    return " AND ".join(conds), params


def search_sql(compiled: CompiledQuery, *, limit: int, offset: int = 0, with_text: bool = False,
               tier: str = "exact", sort: Sort = RELEVANCE,
               tiers: Sequence[str] | None = None) -> tuple[str, list]:
    """As sqlite/fts.py's search_sql: SUMMARY_COLUMNS, `text` and `score` (lower is better,
    as SQLite's bm25)."""
    text = "p.abstract_text" if with_text else "NULL"
    if compiled.match is None or sort.field != "relevance":
        if compiled.match is None:
            where, params = " AND ".join(compiled.where) or "TRUE", list(compiled.params)
        elif tiers:
            ids, params = ids_sql(compiled, tiers)
            where = f"p.id IN ({ids})"
        else:
            where, params = _all_words_where(compiled)
        order = order_sql(sort)
        if sort.field == "rating":  # the reader's rating: sorted with the reader's rows joined
            return (f"SELECT {SUMMARY_COLUMNS}, {text} AS text, NULL::float AS score FROM paper p {READER_JOIN}"
                    f" WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?",
                    [compiled.reader, *params, *_page(limit, offset)])
        # The page's ids first (the listing index alone when the filters are sets of ids),
        # then only those rows: the paper rows are wide (the vectors are stored in them).
        return (f"WITH top AS (SELECT p.id FROM paper p WHERE {where} ORDER BY {order} LIMIT ? OFFSET ?)"
                f" SELECT {SUMMARY_COLUMNS}, {text} AS text, NULL::float AS score FROM top"
                f" JOIN paper p ON p.id = top.id {READER_JOIN} ORDER BY {order}",
                [*params, *_page(limit, offset), compiled.reader])
    index, where, params = _tier_where(compiled, tier, first="q.q")
    column, config = VECTORS[index]
    score = f"-ts_rank({WEIGHTS}, p.{column}, q.q, 1)"
    held: list = []
    if tier == "some":
        count = " + ".join(f"?::float8 * (p.stem_vector @@ to_tsquery('{STEMS}', ?))::int" for _ in compiled.words)
        score = f"{score} - ({count}) * {HELD_SCALE}"  # the weight of the words held outranks any rank difference
        held = [x for pair in zip(some_weights(compiled), compiled.words) for x in pair]
    desc = " DESC" if sort.reverse else ""
    return (f"WITH q AS (SELECT to_tsquery('{config}', ?) AS q),"
            f" top AS (SELECT p.id, {score} AS score FROM paper p, q"
            f" WHERE {where} ORDER BY score{desc}, p.id{desc} LIMIT ? OFFSET ?)"
            f" SELECT {SUMMARY_COLUMNS}, {text} AS text, top.score AS score FROM top JOIN paper p ON p.id = top.id"
            f" {READER_JOIN} ORDER BY top.score{desc}, top.id{desc}",
            [tier_expression(compiled, tier), *held, *params, *_page(limit, offset), compiled.reader])


def tiers_search_sql(compiled: CompiledQuery, tiers: Sequence[str], *, limit: int,
                     with_text: bool = False) -> tuple[str, list]:
    """The first page (best first, no offset) of several tiers in one statement, as
    search_sql's rows would be walked tier by tier (ranked.py), each row with `tier`: its
    place in `tiers`. A later tier is ranked only while the tiers before it hold fewer than
    `limit` papers (a one-time filter: a rare word's other forms cost one round trip less;
    a word whose exact form fills the page ranks nothing more)."""
    text = "p.abstract_text" if with_text else "NULL"
    ctes, params = [], []
    for n, tier in enumerate(tiers):
        index, where, tier_params = _tier_where(compiled, tier, first=f"q{n}.q")
        column, config = VECTORS[index]
        gate = ""
        if n:
            gate = " AND " + " + ".join(f"(SELECT count(*) FROM t{m})" for m in range(n)) + " < ?"
            tier_params = [*tier_params, limit]
        ctes.append(f"q{n} AS (SELECT to_tsquery('{config}', ?) AS q)")
        ctes.append(f"t{n} AS MATERIALIZED (SELECT p.id, -ts_rank({WEIGHTS}, p.{column}, q{n}.q, 1) AS score"
                    f" FROM paper p, q{n} WHERE {where}{gate} ORDER BY score, p.id LIMIT ?)")
        params += [tier_expression(compiled, tier), *tier_params, limit]
    union = " UNION ALL ".join(f"SELECT {n} AS tier, id, score FROM t{n}" for n in range(len(tiers)))
    return (f"WITH {', '.join(ctes)}, top AS ({union})"
            f" SELECT top.tier, {SUMMARY_COLUMNS}, {text} AS text, top.score AS score FROM top"
            f" JOIN paper p ON p.id = top.id {READER_JOIN} ORDER BY top.tier, top.score, top.id LIMIT ?",
            [*params, compiled.reader, limit])


def count_sql(compiled: CompiledQuery, tier: str | None = None) -> tuple[str, list]:
    """How many papers match: all words (in any form, through acronyms) by default, or one
    tier's papers."""
    if compiled.match is None:
        where = " AND ".join(compiled.where) or "TRUE"
        return f"SELECT count(*) FROM paper p WHERE {where}", list(compiled.params)
    where, params = _all_words_where(compiled) if tier is None else _tier_where(compiled, tier)[1:]
    return f"SELECT count(*) FROM paper p WHERE {where}", params


def ids_sql(compiled: CompiledQuery, tiers: Sequence[str] | None = None) -> tuple[str, list]:
    """As sqlite/fts.py's ids_sql (tierplan.ids_of_tiers joins the tiers)."""
    if compiled.match is None:
        return f"SELECT p.id FROM paper p WHERE {' AND '.join(compiled.where) or 'TRUE'}", list(compiled.params)

    def select(tier: str | None) -> tuple[str, list]:
        where, params = _all_words_where(compiled) if tier is None else _tier_where(compiled, tier)[1:]
        return f"SELECT p.id FROM paper p WHERE {where}", params

    return ids_of_tiers(tiers, select)


def venue_counts_sql(where: str = "TRUE") -> str:
    """(venue, year, papers) of the papers meeting `where`, newest year first, venues compared
    without case (citext). Grouped by the venue's text first, then the few groups by citext:
    hashing a citext value lower-cases it, most of the time of grouping every paper by it."""
    return ("SELECT coalesce(min(v), '?') AS venue, year, sum(n)::bigint AS papers FROM"
            f" (SELECT venue::text AS v, year, count(*) AS n FROM paper WHERE {where} GROUP BY 1, 2) AS g"
            " GROUP BY v::citext, year ORDER BY year DESC NULLS LAST, v::citext")


def facet_sql(ids: str, *, scan: bool) -> dict[str, str]:
    """As sqlite/fts.py's facet_sql (`scan` is SQLite's concern: the planner chooses here)."""
    return {
        "venues": venue_counts_sql(f"id IN ({ids})"),
        "statuses": ("SELECT status, count(*) AS papers FROM paper_reader WHERE reader = ?"
                     f" AND status != 'unread' AND paper_id IN ({ids}) GROUP BY status"),
        "ratings": ("SELECT rating, count(*) AS papers FROM paper_reader WHERE reader = ?"
                    f" AND rating IS NOT NULL AND paper_id IN ({ids}) GROUP BY rating ORDER BY rating DESC"),
        **people_and_files_sql(ids),
    }


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


class TsCompiler(Compiler):
    """The query compiler over PostgreSQL's two tsvector columns (this module's functions);
    it ranks consecutive tiers in one statement (a round trip saved per tier)."""

    ranks_tiers_together = True
    tier_conditions = staticmethod(tier_conditions)  # the ranked lists apply them to a list's papers
    compile_query = staticmethod(compile_query)
    tier_expression = staticmethod(tier_expression)
    search_sql = staticmethod(search_sql)
    tiers_search_sql = staticmethod(tiers_search_sql)
    count_sql = staticmethod(count_sql)
    ids_sql = staticmethod(ids_sql)
    facet_sql = staticmethod(facet_sql)
    titled_sql = staticmethod(titled_sql)

    def papers_holding_sql(self) -> str:
        return PAPERS_HOLDING


TS = TsCompiler()


def page_tsquery(query: Query) -> str | None:
    """`query`'s words as tsquery text over the pages of attached files (attachment_page's
    stemmed text_vector), as sqlite/fts.py's page_match: clauses ANDed, negated ones NOTed,
    a clause ORing a word with a filter left out. None: no words to look for."""
    wanted, unwanted = [], []
    skipped = connecting.optional(query.clauses)  # `versus`: a page need not hold it either
    for i, clause in enumerate(query.clauses):
        if i in skipped or not all(isinstance(option, Text) for option in clause.options):
            continue
        words = [found for option in clause.options if (found := tsquery_phrase(option)) is not None]
        if words:
            (unwanted if clause.negated else wanted).append("(" + " | ".join(words) + ")")
    if not wanted:
        return None
    return " & ".join(wanted) + "".join(f" & !{words}" for words in unwanted)
