"""What the ranked lists read of FTS5's records (catalog/store/lists/records.py) against the
supported ways to learn the same, on one catalog, alternating, p50 of each:

    python -m benchmarks.fts5records CATALOG.db [--repeats 5] [--papers 1000]

- the collection's totals (papers, tokens) bm25 averages over: the averages record, against
  fts5vocab's counts of every term (and the papers counted);
- the lengths of a list's papers: the docsize records, against their text tokenized again in
  a temporary FTS5 table and its instances counted through fts5vocab;
- the bm25 scores of 100 papers of `model`'s list (built first: `benchmarks.topk --build`):
  recomputed from the frequency and length the list keeps, against FTS5's bm25() asked paper
  by paper (`MATCH model AND rowid = ?`).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from pathlib import Path

from benchmarks.measure import ms, percentiles


def _time(action, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - start)
    return percentiles(times)[0], result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("db", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--papers", type=int, default=1000)
    args = parser.parse_args()
    from catalog.store.lists.records import IndexRecords
    from catalog.store.lists.scoring import bm25, idf
    from catalog.store.sqlite.connection import Connection
    from catalog.store.sqlite.fts import FTS_COLUMNS

    raw = sqlite3.connect(args.db, isolation_level=None)
    raw.row_factory = sqlite3.Row
    conn = Connection(raw)
    records = IndexRecords(conn)
    ids = [r[0] for r in raw.execute("SELECT rowid FROM paper_fts WHERE paper_fts MATCH 'model'"
                                     " ORDER BY rank LIMIT ?", (args.papers,))]
    raw.execute("CREATE VIRTUAL TABLE temp.v_row USING fts5vocab(main, paper_fts, 'row')")
    columns = ", ".join(FTS_COLUMNS)
    raw.execute(f"CREATE VIRTUAL TABLE temp.again USING fts5({columns},"
                " tokenize='unicode61 remove_diacritics 2', content='')")
    raw.execute("CREATE VIRTUAL TABLE temp.again_words USING fts5vocab(temp, again, 'instance')")

    def vocab_totals():
        papers = raw.execute("SELECT count(*) FROM paper").fetchone()[0]
        return papers, raw.execute("SELECT sum(cnt) FROM temp.v_row").fetchone()[0]

    def retokenized_lengths():
        raw.execute("INSERT INTO temp.again(again) VALUES ('delete-all')")
        raw.execute(f"INSERT INTO temp.again(rowid, {columns}) SELECT id, {columns}"
                    " FROM paper WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),))
        return {r[0]: r[1] for r in raw.execute("SELECT doc, count(*) FROM temp.again_words GROUP BY doc")}

    listed = raw.execute("SELECT paper_id, freq, length FROM term_top WHERE term = '(\"model\")'"
                         " ORDER BY position LIMIT 100").fetchall()
    state = raw.execute("SELECT matches FROM term_top_state WHERE term = '(\"model\")'").fetchone()

    def fts5_scores():
        weights = ", ".join(str(w) for w in FTS_COLUMNS.values())
        return [raw.execute(f"SELECT bm25(paper_fts, {weights}) FROM paper_fts WHERE paper_fts MATCH 'model'"
                            " AND rowid = ?", (r[0],)).fetchone()[0] for r in listed]

    def recomputed_scores():
        papers, tokens = records.totals()
        weight = idf(papers, state[0])
        return [bm25(weight, r[1], r[2], tokens / papers) for r in listed]

    pairs = [("totals", records.totals, vocab_totals),
             (f"lengths of {len(ids)} papers", lambda: records.lengths(ids), retokenized_lengths),
             ("bm25 of 100 papers", recomputed_scores, fts5_scores)]
    print(f"| {args.db.name} | records (lists/records.py) p50 | supported way p50 | ratio | same |")
    print("| --- | --- | --- | --- | --- |")
    for label, ours, supported in pairs:
        mine, found = _time(ours, args.repeats)
        theirs, other = _time(supported, args.repeats)
        same = found == other
        print(f"| {label} | {ms(mine)} | {ms(theirs)} | {theirs / max(mine, 1e-9):.0f}x | {same} |")
    raw.close()


if __name__ == "__main__":
    main()
