"""The words of a catalog's searches: which no paper holds, what to type instead ("did you
mean"), and the acronyms users add (catalog/searching/glossary.py). Catalog (library.py)
makes one as `catalog.words`; the matching itself is catalog/searching/suggest.py's."""

from __future__ import annotations

from catalog import rules
from catalog.errors import CatalogError
from catalog.results import AddedAcronym, MissingWords, Suggestion
from catalog.searching.lookup import understood
from catalog.searching.query import Clause, Query, QueryError, Text
from catalog.searching.request import SearchRequest, as_request
from catalog.store import Store


# At most this many words no paper holds are corrected at once; more, and the query is
# likelier another language or a list of names than a search with typos.
MAX_CORRECTED = 2


class Words:
    """One catalog's search words; one transaction of the store per call. Keeps the index's
    words for suggestions in memory while the index is unchanged."""

    def __init__(self, store: Store):
        self.store = store
        self._words = None  # the index's words (catalog/searching/suggest.py), once read

    def missing_words(self, query: SearchRequest | str) -> MissingWords | None:
        """The words of a search (as typed) that no paper holds in any form, and those some
        paper holds: the search lists what those find, marked partial. None when every word
        is found or none is, for one word, and for text that cannot run."""
        try:
            asked = as_request(query)
        except QueryError:
            return None
        if not asked.query.has_text:
            return None
        with self.store.read() as tx:
            words = tx.search.word_papers(asked.query)
        missing = tuple(dict.fromkeys(w.word for w in words if not w.papers))
        held = tuple(dict.fromkeys(w.word for w in words if w.papers))
        apart = tuple(dict.fromkeys(w.word for w in words if not w.papers and w.apart))
        return MissingWords(missing, held, apart) if missing and (held or apart) else None

    def suggest(self, query: SearchRequest | str) -> list[Suggestion]:
        """For each word of a search that (almost) no paper holds, the index's closest words
        that many more papers hold ("did you mean interpretability?"); [] when every word is
        found, and for a key, DOI or arXiv id."""
        return self._suggestions(query)[0]

    def correction(self, query: SearchRequest | str) -> str | None:
        """The search's text with its words no paper holds (one, or two: `atention sinkz`)
        each replaced by the closest word papers do hold (`watermarkng` -> `watermarking`,
        `atention sink` -> `attention sink`), when every other word is in some paper and each
        of those has a correction; None otherwise."""
        suggestions, unknown = self._suggestions(query)
        typo = [s for s in suggestions if s.word in unknown]
        if not unknown or len(typo) != len(set(unknown)):
            return None
        from catalog.searching.suggest import corrected

        return corrected(as_request(query).text, typo)

    def _suggestions(self, query: SearchRequest | str) -> tuple[list[Suggestion], list[str]]:
        """(suggest's answer, the words as typed that no paper holds, when they are at most
        MAX_CORRECTED and the search's other words are all found; else [])."""
        from catalog.searching import suggest

        try:
            asked = as_request(query)
        except QueryError:
            return [], []
        words = suggest.words_of(asked.query, asked.completing)
        if not words:
            return [], []
        with self.store.read() as tx:
            if understood(tx, asked)[1]:  # a key, DOI or arXiv id names a paper
                return [], []
            # A word an acronym stands in for ("mech" of "mech interp") is no typo.
            known = {w.lower() for text in tx.search.acronyms_for(asked.query) for w in text.split()}
            words = [(typed, folded) for typed, folded in words if typed.lower() not in known]
            papers = {folded: tx.search.papers_with_word(folded, suggest.RARE + 1) for _, folded in words}
            rare = [(typed, folded) for typed, folded in words if papers[folded] <= suggest.RARE]
            # A word on a page of an attached PDF is no typo: the search finds that page.
            on_pages = _on_pages(tx, [typed for typed, _ in rare])
            rare = [(typed, folded) for typed, folded in rare if typed not in on_pages]
            if not rare:
                return [], []
            held = tx.search.word_papers(asked.query)  # [] for one word
            others_found = sum(1 for w in held if not w.papers) <= MAX_CORRECTED
            word_list = self._word_list(tx)
        found = ((typed, suggest.closest(folded, papers[folded], word_list)) for typed, folded in rare)
        suggestions = [Suggestion(typed, alternatives) for typed, alternatives in found if alternatives]
        unknown = [typed for typed, folded in rare if not papers[folded]] if others_found else []
        return suggestions, unknown

    def _word_list(self, tx):
        """The index's words: kept in memory while the index is unchanged, and in the cache
        folder for the next process (reading them from a large index takes long)."""
        from catalog.searching import suggest

        stamp = tx.search.vocabulary_stamp()
        if self._words is not None and self._words.stamp == stamp:
            return self._words
        folder = self.store.cache_dir() / "vocabulary"
        words = suggest.WordList.load(folder, stamp)
        if words is None:
            words = suggest.WordList.build(stamp, tx.search.vocabulary())
            words.save(folder)
        self._words = words
        return words

    def acronyms(self) -> list[AddedAcronym]:
        """The acronyms users added, by short form."""
        with self.store.read() as tx:
            return tx.edits.added_acronyms()

    def add_acronym(self, short: str, long: str) -> bool:
        """Searches for `short` also find `long` and the other way round, over what the
        abstracts define and the bundled glossary; whether it was not there yet."""
        short, long, key = _acronym(short, long)
        with self.store.write() as tx:
            return tx.edits.add_acronym(short, key, long)

    def remove_acronym(self, short: str, long: str | None = None) -> int:
        """Remove an added acronym's long forms (all, or `long`); how many. CatalogError when
        none was added."""
        short = rules.user_line(short)
        key = None if long is None else _acronym(short, long)[2]
        with self.store.write() as tx:
            removed = tx.edits.remove_acronyms(short, key)
        if not removed:
            what = short if long is None else f"{short} = {rules.user_line(long)}"
            raise CatalogError(f"no acronym {what} was added (`catalog acronyms` lists them)")
        return removed


def _on_pages(tx, words: list[str]) -> set[str]:
    """Those of `words` (as typed) that a page of an attached file holds, in any form."""
    return {word for word in words if tx.search.pages(Query([Clause((Text(word),))]), 1)}


def _acronym(short: str, long: str) -> tuple[str, str, str]:
    """(short form, long form, the long form as compared) as stored, or CatalogError."""
    from catalog.searching.acronyms import long_key

    short, long = rules.user_line(short), rules.user_line(long)
    if not any(c.isalnum() for c in short) or len(short) > 40 or len(short.split()) > 4:
        raise CatalogError(f"{short!r} is no short form: up to 4 words and 40 characters, with a letter or digit")
    key = long_key(long)
    if len(key) < 2 or len(long) > 200:
        raise CatalogError(f"{long!r} is no long form: words with letters, up to 200 characters")
    if key == long_key(short):
        raise CatalogError(f"{short!r} and {long!r} are the same words")
    return short, long, key
