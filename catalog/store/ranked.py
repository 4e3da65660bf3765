"""Search through tiers of matches, the same on both backends: papers holding every word as
typed, then in other forms, then through acronyms, then (when few hold them all) papers holding
some of the words; counts, ids and facet counts of the same. The SQL comes from the backend's
pure compiler (`compiler`: sqlite/fts.py or postgres/search.py), which offers the same
functions (compile_query, tier_expression, search_sql, count_sql, ids_sql, facet_sql,
titled_sql, HOLDS_WORD); PostgreSQL's also ranks consecutive tiers in one statement
(tiers_search_sql), where each statement is a round trip to a server."""

from __future__ import annotations

from catalog.errors import StoreError
from catalog.searching.query import RELEVANCE, Query, QueryError, Sort, Text
from catalog.results import Facets, SearchHit
from catalog.store import rows

# Papers holding only some of the words are listed when fewer than this many hold them all.
SOME_BELOW = 50


def catalog_resized(seen: int, papers: int) -> bool:
    """Whether a catalog of `papers` has grown or shrunk by a quarter since its ranked lists'
    words were chosen at `seen` papers: then both backends choose them again."""
    return not 0.8 * seen <= papers <= 1.25 * seen


class RankedSearch:
    """Mixed into a backend's transaction, which provides `self.conn`, `self.user` and
    `compiler` (its query compiler module)."""

    compiler = None

    def search(self, query: Query, *, limit: int = 50, offset: int = 0,
               with_text: bool = False, partial: bool = True,
               sort: Sort = RELEVANCE) -> list[SearchHit]:
        """The page of papers `query` finds, best first (newest first without words) or in
        `sort`'s order. `with_text`: each hit carries its rendered abstract, for snippets.
        limit -1: all.

        Papers holding every word come first: in the form typed, then in other forms, then
        through acronyms. When fewer than SOME_BELOW papers hold them all, papers holding
        some of the words follow (`partial`), marked "some"; in another order than relevance,
        only the papers holding every word."""
        return [SearchHit(row["id"], rows.summary(row, match), row["text"], row["score"])
                for row, match in self._ranked_rows(query, limit, offset, with_text, partial, sort)]

    def search_ids(self, query: Query) -> list[int]:
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
        skip, matching_all = offset, 0
        done: set[str] = set()  # tiers ranked together with an earlier one
        # Worst first: the tiers backwards, each one worst first ("some" then comes first).
        tiers = self.compiler.TIERS[::-1] if sort.reverse else self.compiler.TIERS
        for position, tier in enumerate(tiers):
            need = limit - len(found_rows) if limit >= 0 else -1
            if need == 0:
                break
            if tier in done or self.compiler.tier_expression(compiled, tier) is None:
                continue
            if tier == "some" and not self._with_some(query, compiled, partial,
                                                      None if sort.reverse else matching_all):
                continue
            together = self._tiers_together(compiled, tiers[position:], need, skip, sort)
            if together:  # one statement for these tiers' page (a server: one round trip)
                page = self._run(*self.compiler.tiers_search_sql(compiled, together, limit=need,
                                                                 with_text=with_text), query)
                for n in range(len(together)):
                    found = [row for row in page if row["tier"] == n]
                    found_rows += [(row, "all") for row in found]
                    matching_all += len(found)  # exact unless the page is full (the walk ends)
                done.update(together)
                continue
            found = self.ranked_page_from_lists(compiled, tier, need, skip, with_text, sort)
            if found is None:  # no ranked list proves this page (sqlite/topk.py): rank every match
                sql, params = self.compiler.search_sql(compiled, limit=need, offset=skip,
                                                       with_text=with_text, tier=tier, sort=sort)
                found = self._run(sql, params, query)
            found_rows += [(row, "some" if tier == "some" else "all") for row in found]
            # Where the next tier starts: this one is exhausted (the page is not full yet).
            if found:
                size, skip = skip + len(found), 0
            elif skip:
                size = self._run(*self.compiler.count_sql(compiled, tier), query)[0][0]
                skip -= size
            else:
                size = 0
            matching_all += size
        return found_rows

    def _tiers_together(self, compiled: object, tiers, need: int, skip: int, sort: Sort) -> list[str]:
        """The tiers, from the first of `tiers` on, whose page one statement can rank (the
        compiler's `tiers_search_sql`, PostgreSQL's: a round trip saved per tier), when there
        are two or more: the first page, best first, of consecutive tiers of papers holding
        every word that no ranked list may serve. [] otherwise: tier by tier."""
        if (getattr(self.compiler, "tiers_search_sql", None) is None or skip or need < 0
                or sort.reverse or sort.field != "relevance"):
            return []
        together = []
        for tier in tiers:
            if tier == "some":
                break
            if self.compiler.tier_expression(compiled, tier) is None:
                continue
            if self.list_may_serve(compiled, tier):
                break
            together.append(tier)
        return together if len(together) > 1 else []

    # The lists of the best papers of frequent words: each backend keeps its own (sqlite/topk.py,
    # postgres/topk.py override these); without them a search ranks every match.

    def list_may_serve(self, compiled: object, tier: str) -> bool:
        """Whether a ranked list may serve this tier's page (then it is walked alone)."""
        return False

    def ranked_page_from_lists(self, compiled: object, tier: str, limit: int, offset: int,
                               with_text: bool, sort: Sort) -> list | None:
        """A tier's page read from the lists, or None: rank every match."""
        return None

    def stale_top_lists(self) -> list[str]:
        """The lists searches cannot read (doctor)."""
        return []

    def top_list_mismatches(self) -> list[str]:
        """The lists whose head differs from the full ranking (doctor)."""
        return []

    def compound_lists(self) -> tuple[list[str], list[str]]:
        """(the lists of ANDs and phrases kept, those a search will rank again): SQLite's are
        never followed after a change, so stale ones are no problem for doctor; PostgreSQL
        follows its lists like a word's (stale_top_lists)."""
        return [], []

    def drop_compound_lists(self, keys: list[str]) -> None:
        """Forget these lists of ANDs and phrases (doctor --fix)."""

    def top_lists_note(self) -> str | None:
        """What doctor says about the lists kept, beside its checks (None: nothing)."""
        return None

    def _with_some(self, query: Query, compiled: object, partial: bool,
                   matching_all: int | None) -> bool:
        """Whether papers holding only some of the words are listed: when asked (`partial`),
        fewer than SOME_BELOW papers hold them all (`matching_all`, counted when None) and
        every word is in some paper."""
        if not partial:
            return False
        if matching_all is None:
            matching_all = self.count(query)
        return matching_all < SOME_BELOW and not self._unknown_word(compiled)

    def count(self, query: Query, *, partial: bool = False) -> int:
        """Papers holding every word (in any form, or through acronyms); `partial`: all that
        `search` lists, with the papers holding only some of the words when those are few."""
        compiled = self._compile(query)
        if tiers := self._all_words_tiers(query, compiled):
            total = sum(self._run(*self.compiler.count_sql(compiled, tier), query)[0][0] for tier in tiers)
        else:
            total = self._run(*self.compiler.count_sql(compiled), query)[0][0]
        if (partial and total < SOME_BELOW and self.compiler.tier_expression(compiled, "some")
                and not self._unknown_word(compiled)):
            total += self._run(*self.compiler.count_sql(compiled, "some"), query)[0][0]
        return total

    def _all_words_tiers(self, query: Query, compiled: object) -> list[str]:
        """The tiers to take one by one for the papers holding every word: none, as one
        expression finds them all, unless a word is a prefix: a prefix of a word is not always
        a prefix of its stem (interpretab*: interpret)."""
        if compiled.match is None or not any(o.prefix for c in query.clauses for o in c.options
                                             if isinstance(o, Text)):
            return []
        return [t for t in self.compiler.TIERS[:-1] if self.compiler.tier_expression(compiled, t)]

    def _unknown_word(self, compiled: object) -> bool:
        """Whether a word of the query is in no paper (a typo, most likely: "did you mean"
        says more than papers holding the other words would)."""
        return any(not self._run(self.compiler.HOLDS_WORD, [word], Query())
                   for word in compiled.words)

    def _compile(self, query: Query) -> object:
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
        held = self.__dict__.get("_acronyms_held")
        if held is None or held[0] is not query:
            held = self._acronyms_held = (query, self._read_acronyms(query))
        return held[1]

    def _read_acronyms(self, query: Query) -> dict[str, list[str]]:
        from catalog.searching.acronyms import long_key, short_form, winners

        texts = self.compiler.acronym_candidates(query)
        if not texts:
            return {}
        shorts = {t: s for t in texts if (s := short_form(t))}
        keys = {t: k for t in texts if len(k := long_key(t)) >= 6 and not t.isalnum()}
        if not shorts and not keys:
            return {}
        won = winners(self.acronyms_named(sorted(set(shorts.values())), sorted(set(keys.values()))))
        out: dict[str, list[str]] = {}
        for text, short in shorts.items():
            if short.lower() in won:
                out[text] = [won[short.lower()][1]]
        by_key: dict[str, list[str]] = {}
        for short, (key, _) in won.items():
            by_key.setdefault(key, []).append(short)
        for text, key in keys.items():
            if key in by_key:
                out[text] = out.get(text, []) + [s.upper() for s in by_key[key]]
        return out

    def result_facets(self, query: Query, *, partial: bool = False) -> Facets:
        """Venue-year, status, rating and tag counts of the papers `query` finds (tags
        including their children), with the saved searches; `total`: how many it finds.
        The papers are those `count` counts: with `partial`, those `search` lists by relevance
        (papers holding some of the words too, when few hold them all). Statuses and ratings
        are this reader's."""
        compiled = self._compile(query)
        total, tiers = self.count(query), []
        if compiled.match is not None:
            some = (partial and self.compiler.tier_expression(compiled, "some") is not None
                    and self._with_some(query, compiled, partial, total))
            tiers = self._all_words_tiers(query, compiled)
            if some and not tiers:  # tier by tier, as count does
                tiers = [t for t in self.compiler.TIERS[:-1] if self.compiler.tier_expression(compiled, t)]
            if some:
                tiers.append("some")
                total += self._run(*self.compiler.count_sql(compiled, "some"), query)[0][0]
        ids, params = self.compiler.ids_sql(compiled, tiers)
        # Many results: scan the narrow indexes; few: look up each one's row.
        sql = self.compiler.facet_sql(ids, scan=total * 8 > self.paper_count())
        mine = [self.user, *params]  # statuses and ratings: this reader's
        run = lambda name: self._run(sql[name], params if name == "venues" else mine, query)  # noqa: E731
        others = tuple((r["status"], r["papers"]) for r in run("statuses"))
        unread = total - sum(n for _, n in others)
        return Facets(
            venues=tuple((r["venue"], r["year"], r["papers"]) for r in run("venues")),
            tags=self.tags_with_children((ids, params)),
            statuses=((("unread", unread),) if unread else ()) + others,
            ratings=tuple((r["rating"], r["papers"]) for r in run("ratings")),
            saved=self.saved_searches(), total=total)

    def papers_titled(self, title: str, limit: int = 20) -> list:
        """Rows (dedupe's FACT_COLUMNS) of papers whose real title holds `title` as a phrase."""
        built = self.compiler.titled_sql(title, limit)
        return [] if built is None else self._run(*built, Query(source=title))

    def _run(self, sql: str, params: list, query: Query) -> list:
        try:
            return self.conn.execute(sql, params).all()
        except StoreError as exc:
            # Quoting makes this unreachable; keep the promise of one line anyway.
            raise QueryError(f"cannot search for {query.source!r}: {str(exc).splitlines()[0]}") from None

