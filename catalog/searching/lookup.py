"""Which papers a query or a key names, looked up in a transaction of the store.

catalog/searching/identifiers.py says what text names (a key or key prefix, a DOI, an arXiv id: pure
functions); this module finds those papers: `resolve_key` for a key typed by the user (with
"did you mean" when there is none), `understood` for a search request whose whole text is a
key, DOI or arXiv id (that paper first, then what the text finds), `as_one_query` for counts
over the same list. Nothing here parses: the request holds its query. Catalog (library.py)
calls these; they hold no SQL.
"""

from __future__ import annotations

from catalog import rules
from catalog.errors import CatalogError
from catalog.searching.query import Clause, Filter, Query
from catalog.searching.request import SearchRequest


def resolve_key(tx, key: str) -> int:
    """A paper id from a key or an unambiguous key prefix; else an error with suggestions."""
    typed = rules.typed_key(key)
    found = tx.papers.paper_id(typed) if typed else None
    if found is not None:
        return found
    if typed:
        matches = tx.papers.keys_starting(typed, 6)
        if len(matches) == 1:
            return matches[0].paper_id
        if matches:
            raise CatalogError(f"key {key!r} is ambiguous: {', '.join(m.key for m in matches[:5])}")
    close = _close_keys(typed, tx.papers.all_keys())
    hint = f"; did you mean {', '.join(close)}?" if close else "; `catalog search` finds keys"
    raise CatalogError(f"no paper with key {key!r}{hint}")


def _close_keys(typed: str, keys: list[str]) -> list[str]:
    """Up to three keys that share at least half their characters with `typed`, closest first
    (rapidfuzz, as "did you mean" for words uses; imported only on a miss)."""
    from rapidfuzz import fuzz, process

    return [key for key, _, _ in process.extract(typed, keys, scorer=fuzz.ratio, score_cutoff=50, limit=3)]


def understood(tx, asked: SearchRequest) -> tuple[Query, list[int]]:
    """The query to run, and the papers a request whose whole text is a key, DOI or arXiv id
    names (they come first; the query then leaves them out, so no paper is shown twice).

    A full key always names its paper. A key prefix of 4+ characters names the one paper
    whose key starts with it, but only when the word finds nothing as text: a word that is
    also a key prefix (`graph`) searches as usual. A DOI or arXiv id is also searched as a
    phrase (abstracts that cite it: the request's query). A cite key (`vaswani2017attention`,
    `rame72`, which reads as a key prefix too) names the papers that have it or had it."""
    found, parsed = asked.named, asked.query
    if found is None:
        return parsed, []
    if found.kind == "key":
        pid = tx.papers.paper_id(found.value)
        if pid is None:
            matches = tx.papers.keys_starting(found.value, 2)
            if len(matches) == 1 and not _finds_text(tx, found.value, asked.text.strip().endswith("*")):
                named = [matches[0].paper_id]
            elif matches:
                return parsed, []
            else:  # `rame72` reads as a key prefix too: it may be a cite key
                named = tx.papers.ids_with_citekey(asked.text.strip())
        else:
            named = [pid]
    elif found.kind == "citekey":
        named = tx.papers.ids_with_citekey(found.value)
    else:
        named = tx.papers.ids_with_doi(found.value) if found.kind == "doi" else tx.papers.ids_with_arxiv_id(found.value)
    if named:
        parsed = Query(parsed.clauses + [Clause((Filter("key", "=", key),), negated=True)
                                         for key in map(tx.papers.key_of, named)], source=asked.text)
    return parsed, named


def as_one_query(tx, asked: SearchRequest) -> Query:
    """The request as one query finding what `search` lists: the papers a key, DOI or arXiv
    id names, or what its text finds (for counts over the whole list, such as facets)."""
    parsed, named = understood(tx, asked)
    if not named:
        return parsed
    texts = [option for clause in parsed.clauses if not clause.negated for option in clause.options]
    keys = tuple(Filter("key", "=", tx.papers.key_of(pid)) for pid in named)
    return Query([Clause(keys + tuple(texts))], source=asked.text)


def _finds_text(tx, word: str, prefix: bool) -> bool:
    """Whether a one-word query finds any paper as text, without ranking them all."""
    return tx.search.papers_with_word(word, 1, prefix=prefix) > 0
