"""Search through tiers of matches, the same on both backends: papers holding every word as
typed, then in other forms, then through acronyms, then papers holding some of the words (the
rarest words weighing most, so a query with a word no paper holds still finds what its other
words find); counts, ids and facet counts of the same. The SQL comes from the backend's
pure compiler (compiler.py's interface: sqlite/fts.py, postgres/search.py); a tier's page
comes from a ranked list when one proves it (the transaction's `lists`). PostgreSQL's compiler
also ranks consecutive tiers in one statement, where each statement is a round trip."""

from __future__ import annotations

import math
from collections.abc import Sequence

from catalog.errors import StoreError
from catalog.searching.query import RELEVANCE, Query, QueryError, Sort, Text
from catalog.results import AuthorCount, Facets, RatingCount, SearchHit, StatusCount, VenueCount
from catalog.store import rows
from catalog.store.base import Papers, RankedLists, Search
from catalog.store.rows import AcronymRow, PaperFacts, WordPapers, paper_facts
from catalog.store.compiler import CompiledQuery, Compiler

# How rare a word is, for ranking papers holding some of the words, is counted up to this
# many papers: commoner words weigh alike, and a frequent word is not counted through a large
# catalog (what ranking that tier costs is bounded by the page, not by the word).
RARITY_CAP = 10_000


class RankedSearch(Search):
    """The Search role: the tiers walked with the backend's `compiler`, pages from `lists`
    where they prove them; a backend adds the index's words (papers_with_word, vocabulary)."""

    def __init__(self, conn, user: str, compiler: Compiler, papers: Papers, lists: RankedLists):
        super().__init__(conn, user)
        self.compiler = compiler
        self.papers = papers
        self.lists = lists
        self._acronyms_held: tuple[Query, dict[str, list[str]]] | None = None
        self._papers_held: tuple[Query, list[int]] | None = None

    def page(self, query: Query, *, limit: int = 50, offset: int = 0,
             with_text: bool = False, partial: bool = True,
             sort: Sort = RELEVANCE) -> list[SearchHit]:
        """The page of papers `query` finds, best first (newest first without words) or in
        `sort`'s order. `with_text`: each hit carries its rendered abstract, for snippets.
        limit -1: all.

        Papers holding every word come first: in the form typed, then in other forms, then
        through acronyms. Then papers holding some of the words (`partial`), marked "some":
        those holding the rarest words first; in another order than relevance, only the
        papers holding every word."""
        return [SearchHit(row["id"], rows.summary(row, match), row["text"], row["score"])
                for row, match in self._ranked_rows(query, limit, offset, with_text, partial, sort)]

    def ids(self, query: Query) -> list[int]:
        """The ids of every paper holding all of `query`'s words, in search order (no
        summaries built: at 100k papers that halves the time)."""
        return [row["id"] for row, _ in self._ranked_rows(query, -1, 0, False, False, RELEVANCE)]

    def _ranked_rows(self, query: Query, limit: int, offset: int, with_text: bool, partial: bool,
                     sort: Sort) -> list[tuple[object, str | None]]:
        """The rows of `search`'s page, each with its match ("all", "some", None listing)."""
        compiled = self._compile(query)
        if compiled.match is None or sort.field != "relevance":
            sql, params = self.compiler.search_sql(compiled, limit=limit, offset=offset,
                                                   with_text=with_text, sort=sort,
                                                   tiers=self._all_words_tiers(query, compiled))
            match = None if compiled.match is None else "all"
            return [(row, match) for row in self._run(sql, params, query)]
        found_rows: list[tuple[object, str | None]] = []
        skip = offset
        done: set[str] = set()  # tiers ranked together with an earlier one
        # Worst first: the tiers backwards, each one worst first ("some" then comes first).
        tiers = self.compiler.TIERS[::-1] if sort.reverse else self.compiler.TIERS
        for position, tier in enumerate(tiers):
            need = limit - len(found_rows) if limit >= 0 else -1
            if need == 0:
                break
            if tier in done or self.compiler.tier_expression(compiled, tier) is None:
                continue
            if tier == "some" and not self._with_some(query, compiled, partial):
                continue
            together = self._tiers_together(compiled, tiers[position:], need, skip, sort)
            if together:  # one statement for these tiers' page (a server: one round trip)
                page = self._run(*self.compiler.tiers_search_sql(compiled, together, limit=need,
                                                                 with_text=with_text), query)
                for n in range(len(together)):
                    found = [row for row in page if row["tier"] == n]
                    found_rows += [(row, "all") for row in found]
                done.update(together)
                continue
            found = self.lists.page(compiled, tier, need, skip, with_text, sort)
            if found is None:  # no ranked list proves this page: rank every match
                sql, params = self.compiler.search_sql(compiled, limit=need, offset=skip,
                                                       with_text=with_text, tier=tier, sort=sort)
                found = self._run(sql, params, query)
            found_rows += [(row, "some" if tier == "some" else "all") for row in found]
            # Where the next tier starts: this one is exhausted (the page is not full yet).
            if found:
                skip = 0
            elif skip:
                skip -= self._run(*self.compiler.count_sql(compiled, tier), query)[0][0]
        return found_rows

    def _tiers_together(self, compiled: CompiledQuery, tiers: Sequence[str], need: int, skip: int,
                        sort: Sort) -> list[str]:
        """The tiers, from the first of `tiers` on, whose page one statement can rank (the
        compiler's `tiers_search_sql`, PostgreSQL's: a round trip saved per tier), when there
        are two or more: the first page, best first, of consecutive tiers of papers holding
        every word that no ranked list may serve. [] otherwise: tier by tier."""
        if (not self.compiler.ranks_tiers_together or skip or need < 0
                or sort.reverse or sort.field != "relevance"):
            return []
        together = []
        for tier in tiers:
            if tier == "some":
                break
            if self.compiler.tier_expression(compiled, tier) is None:
                continue
            if self.lists.may_serve(compiled, tier):
                break
            together.append(tier)
        return together if len(together) > 1 else []

    def _with_some(self, query: Query, compiled: CompiledQuery, partial: bool) -> bool:
        """Whether papers holding only some of the words are listed: when asked (`partial`),
        the query has several words and one of them is in some paper. Readies `compiled`'s
        "some" tier: the words no paper holds left out, the others weighted by rarity."""
        if not partial or self.compiler.tier_expression(compiled, "some") is None:
            return False
        papers = self._papers_holding(query, compiled)
        light = compiled.connecting or [False] * len(papers)
        kept = [i for i, n in enumerate(papers) if n]
        if all(light[i] for i in kept):  # a connecting word lists no paper on its own
            return False
        everyone = max(self._largest_id(), *papers)
        weights = [round(math.log(1 + everyone / papers[i]), 1) for i in kept]
        # A connecting word weighs by its rarity too, but never more than the lightest word
        # naming a topic: the one paper saying "versus" is not the one on the topics.
        lightest = min(w for w, i in zip(weights, kept) if not light[i])
        compiled.weights = [min(w, lightest) if light[i] else w for w, i in zip(weights, kept)]
        compiled.words = [compiled.words[i] for i in kept]
        compiled.word_texts = [compiled.word_texts[i] for i in kept]
        compiled.typed = [compiled.typed[i] for i in kept]
        compiled.connecting = [light[i] for i in kept]
        return True

    def word_papers(self, query: Query) -> list[WordPapers]:
        """Each word of a query of several words, as typed, with how many papers hold it in
        any form (up to RARITY_CAP), connecting words (`via`) left out; [] for one word. A word no paper holds is left out of the
        papers holding some of the words, and named; a compound no paper holds is named though
        papers holding its parts apart are listed."""
        compiled = self._compile(query)
        if self.compiler.tier_expression(compiled, "some") is None:
            return []
        sql = self.compiler.papers_holding_sql()
        out = []
        light = compiled.connecting or [False] * len(compiled.words)
        for text, word, typed, n, connecting in zip(compiled.word_texts, compiled.words, compiled.typed,
                                                    self._papers_holding(query, compiled), light):
            if connecting:  # never required, so never named as missing
                continue
            as_typed = n if not n or typed == word else self._run(sql, [typed, RARITY_CAP], query)[0][0]
            out.append(WordPapers(text, as_typed, n - as_typed))
        return out

    def _papers_holding(self, query: Query, compiled: CompiledQuery) -> list[int]:
        """How many papers hold each of the query's words (up to RARITY_CAP); kept for the
        same query (its page, count and facets ask alike)."""
        held = self._papers_held
        if held is None or held[0] is not query:
            sql = self.compiler.papers_holding_sql()
            held = self._papers_held = (query, [self._run(sql, [word, RARITY_CAP], query)[0][0]
                                                for word in compiled.words])
        return held[1]

    def _largest_id(self) -> int:
        """About how many papers there are (ids grow as papers come), from the primary key."""
        return self.conn.execute("SELECT coalesce(max(id), 0) FROM paper").scalar()

    def count(self, query: Query, *, partial: bool = False) -> int:
        """Papers holding every word (in any form, or through acronyms); `partial`: all that
        `search` lists, with the papers holding only some of the words when those are few."""
        compiled = self._compile(query)
        if tiers := self._all_words_tiers(query, compiled):
            total = sum(self._run(*self.compiler.count_sql(compiled, tier), query)[0][0] for tier in tiers)
        else:
            total = self._run(*self.compiler.count_sql(compiled), query)[0][0]
        if self._with_some(query, compiled, partial):
            total += self._run(*self.compiler.count_sql(compiled, "some"), query)[0][0]
        return total

    def _all_words_tiers(self, query: Query, compiled: CompiledQuery) -> list[str]:
        """The tiers to take one by one for the papers holding every word: none, as one
        expression finds them all, unless a word is a prefix: a prefix of a word is not always
        a prefix of its stem (interpretab*: interpret)."""
        if compiled.match is None or not any(o.prefix for c in query.clauses for o in c.options
                                             if isinstance(o, Text)):
            return []
        return [t for t in self.compiler.TIERS[:-1] if self.compiler.tier_expression(compiled, t)]

    def _compile(self, query: Query) -> CompiledQuery:
        return self.compiler.compile_query(query, self._acronyms_for(query), self.user)

    def acronyms_for(self, query: Query) -> dict[str, list[str]]:
        """What the query's words and runs of words also stand for (the acronyms search
        widens them by): for marking those forms in snippets and the reading pane."""
        return self._acronyms_for(query)

    def _acronyms_for(self, query: Query) -> dict[str, list[str]]:
        """What the query's words and runs of words also stand for, by the acronyms the
        abstracts define: "SAE" -> ["Sparse Autoencoders"], "large language model" -> ["LLM"].
        Asked again for the same query (a search, then its snippets), the answer is kept: one
        round trip less on a server."""
        held = self._acronyms_held
        if held is None or held[0] is not query:
            held = self._acronyms_held = (query, self._read_acronyms(query))
        return held[1]

    def _read_acronyms(self, query: Query) -> dict[str, list[str]]:
        """The acronyms the query's texts name, those the abstracts define and those its
        reader added, widened with the field's common ones (searching/glossary.py)."""
        from catalog.searching import glossary
        from catalog.searching.acronyms import long_key, short_form, winners

        texts = self.compiler.acronym_candidates(query)
        if not texts:
            return {}
        shorts = {t: s for t in texts if (s := short_form(t))}
        keys = {t: k for t in texts if len(k := long_key(t)) >= 6 and not t.isalnum()}
        learned, added = self._acronyms_named(sorted(set(shorts.values())), sorted(set(keys.values())))
        won = winners(learned)
        as_short = {text: [won[short.lower()][1]] for text, short in shorts.items() if short.lower() in won}
        by_key: dict[str, list[str]] = {}
        for short, (key, _) in won.items():
            by_key.setdefault(key, []).append(short)
        as_long = {text: [s.upper() for s in by_key[key]] for text, key in keys.items() if key in by_key}
        return glossary.widen(texts, as_short, as_long, glossary.curated(),
                              glossary.Glossary([glossary.Entry(short, long) for short, long in added]) if added else None)

    def _acronyms_named(self, shorts: Sequence[str],
                        long_keys: Sequence[str]) -> tuple[list[AcronymRow], list[tuple[str, str]]]:
        """(the acronyms the abstracts define of these short forms (any case), with every short
        form one of these long forms has; (short, long) of every acronym the reader added), in
        one statement: on a server, one round trip."""
        added = "SELECT short, long_key, long, NULL AS papers, NULL AS ordinary, 1 AS added FROM acronym_added"
        if shorts or long_keys:
            shorts, long_keys = list(shorts) or [""], list(long_keys) or [""]
            short_marks, key_marks = ", ".join("?" * len(shorts)), ", ".join("?" * len(long_keys))
            found = self.conn.execute(
                "SELECT short, long_key, long, papers, ordinary, 0 AS added FROM acronym WHERE short IN"
                f" (SELECT short FROM acronym WHERE short IN ({short_marks})"
                f" UNION SELECT short FROM acronym WHERE long_key IN ({key_marks}))"
                f" UNION ALL {added}", [*shorts, *long_keys]).all()
        else:
            found = self.conn.execute(added).all()
        learned = [AcronymRow(r["short"], r["long_key"], r["long"], r["papers"], bool(r["ordinary"]))
                   for r in found if not r["added"]]
        return learned, [(r["short"], r["long"]) for r in found if r["added"]]

    def facets(self, query: Query, *, partial: bool = False) -> Facets:
        """Venue-year, status, rating and tag counts of the papers `query` finds (tags
        including their children); `total`: how many it finds (the saved searches are the
        caller's to add).
        The papers are those `count` counts: with `partial`, those `search` lists by relevance
        (papers holding some of the words too). Statuses and ratings
        are this reader's."""
        compiled = self._compile(query)
        total, tiers = self.count(query), []
        if compiled.match is not None:
            some = self._with_some(query, compiled, partial)
            tiers = self._all_words_tiers(query, compiled)
            if some and not tiers:  # tier by tier, as count does
                tiers = [t for t in self.compiler.TIERS[:-1] if self.compiler.tier_expression(compiled, t)]
            if some:
                tiers.append("some")
                total += self._run(*self.compiler.count_sql(compiled, "some"), query)[0][0]
        ids, params = self.compiler.ids_sql(compiled, tiers)
        # Many results: scan the narrow indexes; few: look up each one's row.
        sql = self.compiler.facet_sql(ids, scan=total * 8 > self.papers.paper_count())
        mine = [self.user, *params]  # statuses and ratings: this reader's
        run = lambda name: self._run(  # noqa: E731
            sql[name], params if name in ("venues", "authors", "files") else mine, query)
        others = tuple(StatusCount(r["status"], r["papers"]) for r in run("statuses"))
        unread = total - sum(s.papers for s in others)
        files = run("files")[0]
        return Facets(
            authors=tuple(AuthorCount(r["name"], r["papers"]) for r in run("authors")),
            with_pdf=files["pdf"], with_files=files["files"],
            venues=tuple(VenueCount(r["venue"], r["year"], r["papers"]) for r in run("venues")),
            tags=self.papers.tags_with_children((ids, params)),
            statuses=((StatusCount("unread", unread),) if unread else ()) + others,
            ratings=tuple(RatingCount(r["rating"], r["papers"]) for r in run("ratings")),
            saved=(), total=total)

    def vocabulary_stamp(self) -> str:
        """Changes when papers are imported or their text changes, from indexes alone (no
        count of the papers: that reads the whole table). Tags and notes written since are
        left out of suggestions until then."""
        newest = self.conn.execute("SELECT coalesce(max(id), 0) FROM paper").scalar()
        sources = self.conn.execute("SELECT count(*) AS n, coalesce(max(id), 0) AS newest FROM source").one()
        titled = self.conn.execute("SELECT count(*) AS n, coalesce(CAST(max(updated_at) AS TEXT), '') AS newest"
                                   " FROM paper WHERE user_title IS NOT NULL").one()
        return f"{newest}/{sources['n']}/{sources['newest']}/{titled['n']}/{titled['newest']}"

    def titled(self, title: str, limit: int = 20) -> list[PaperFacts]:
        """The facts of papers whose real title holds `title` as a phrase."""
        built = self.compiler.titled_sql(title, limit)
        return [] if built is None else [paper_facts(row) for row in self._run(*built, Query(source=title))]

    def _run(self, sql: str, params: list, query: Query) -> list:
        try:
            return self.conn.execute(sql, params).all()
        except StoreError as exc:
            # Quoting makes this unreachable; keep the promise of one line anyway.
            raise QueryError(f"cannot search for {query.source!r}: {str(exc).splitlines()[0]}") from None

