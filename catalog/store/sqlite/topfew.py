"""A frequent word or prefix with filters few papers pass (issue 16): `model tag:toread`.

A word's ranked list (topk.py) serves a filtered page when the filtered list still fills it;
a filter few papers pass leaves it short (of a tag's 500 papers at 1M, 143 match `model`, a
handful of them among its best 1,000), and the full query then ranks every match of the word
(573,681 for `model`) to check the filter on each: 160-180 ms.

When the filters leave few papers (counted with a LIMIT, so a filter many papers pass stops
early: at most one paper per FEW_PER_MATCH matches of the word), every one of them that
matches is scored instead, so the page is exact with no bound: the listed ones have their
score in the list (rescored after changes, topand's _list_now), the others are tokenized again
in topand's temporary FTS5 table (which also says which of them hold the word or prefix) and
scored by bm25() of topk.py bit for bit, with the word's IDF from its list's count. Not asked
of FTS5: bm25 through FTS5 recounts the word's papers for every id (4.4 s for those 500 papers
at 1M), and seeking a prefix's papers by id merges its whole match list on each (minutes).
When anything cannot be computed exactly, the full query runs.
"""

from __future__ import annotations

from catalog.store.sqlite.fts import CompiledQuery
from catalog.store.sqlite.topk import _term

# Tokenizing a paper again costs 0.06-0.2 ms at 1M papers, ranking a match in full 0.3-4 us:
# a paper for every 500 matches spends at most about what the full query would (model's
# 573,681 matches: up to 1,147 papers, ~70 ms at most against 160-180 ms).
FEW_PER_MATCH = 0.002


class FewFiltered:
    """Mixed into the SQLite transaction with TopLists (topk.py) and AndPages (topand.py)."""

    def few_filtered_rows(self, key: str, matches: int, compiled: CompiledQuery, limit: int, offset: int,
                          with_text: bool) -> list | None:
        """The exact tier's page of one word or prefix (`key`, its list matching `matches`
        papers) under filters few papers pass, every filtered match scored; None when the
        filters pass too many or a score cannot be computed exactly."""
        term = _term(key)
        most = int(matches * FEW_PER_MATCH)
        if not compiled.where or term is None or most < 1:
            return None
        ids = [r[0] for r in self.conn.execute(
            f"SELECT p.id FROM paper p WHERE {' AND '.join(compiled.where)} LIMIT ?",
            [*compiled.params, most + 1]).all()]
        if len(ids) > most:
            return None
        found = self._list_now(key)  # topand.py: the list's papers, scored now, and the IDF
        if found is None:
            return None
        ranked, _, _, weight = found
        known = dict(ranked)
        scores = {pid: known[pid] for pid in ids if pid in known}
        rest = [pid for pid in ids if pid not in known]
        if rest:
            papers, tokens = self._totals()
            if not papers:
                return None
            text = self._text_terms(rest, [term], [weight], [{}], tokens / papers)
            if text is None:
                return None
            scores.update(text)  # those holding the word (the others do not match)
        ranked = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))
        return self._proven_page(ranked, None, compiled, limit, offset, with_text)
