"""Ranked lists on PostgreSQL (catalog/store/lists/postgres.py, migration 0011): a page read from
a list is the full ranking's page (ids and scores), before and after edits and imports, and a
list that cannot prove a page is not read."""

from __future__ import annotations

import pytest

from catalog.parts import doctor
from catalog.library import Catalog
from catalog.searching.query import parse
from catalog.store import lists
from catalog.store.lists import postgres as pg_lists, postgres_build as pg_build, postgres_upkeep as pg_upkeep
from catalog.store.postgres import search

QUERIES = ["model", "models", "learning -model", "model venue:ICLR year:>=2026"]


def _hits(catalog, query, limit, offset):
    """(paper id, score) of the page; the lists the search ranked of its own kept after it, as
    Catalog.search keeps them."""
    with catalog.store.read() as tx:
        hits = [(h.paper_id, h.score) for h in tx.search.page(parse(query), limit=limit, offset=offset)]
        made = tx.lists.to_keep()
    catalog.store.lists.keep(made)
    return hits


def _full(catalog, query, limit, offset, monkeypatch):
    monkeypatch.setattr(lists, "ENABLED", False)
    try:
        return _hits(catalog, query, limit, offset)
    finally:
        monkeypatch.setattr(lists, "ENABLED", True)


def _pages(catalog, monkeypatch):
    out = {}
    for query in QUERIES:
        for limit, offset in ((10, 0), (5, 7)):
            listed = _hits(catalog, query, limit, offset)
            out[(query, limit, offset)] = listed, _full(catalog, query, limit, offset, monkeypatch)
    return out


@pytest.fixture
def pg_seeded(pg_server, pg_seeded_template, monkeypatch):
    monkeypatch.setattr(pg_build, "MIN_MATCHES", 40)  # a few dozen lists, all ranked ahead
    monkeypatch.setattr(pg_build, "RANKED_AHEAD", 40)
    monkeypatch.setattr(pg_build, "LIST_SIZE", 12)  # short lists: filters and pages run past them
    monkeypatch.setattr(pg_lists, "WINDOW", 1)
    url = pg_server.create(template=pg_seeded_template)
    catalog = Catalog.open(url)
    yield catalog
    catalog.close()
    pg_server.drop(url)


def _reads(monkeypatch):
    """Counts the pages served from a list."""
    served = []
    original = pg_lists.PostgresRankedLists.page

    def spy(self, *args, **kwargs):
        rows = original(self, *args, **kwargs)
        served.append(rows is not None)
        return rows

    monkeypatch.setattr(pg_lists.PostgresRankedLists, "page", spy)
    return served


def test_pages_from_lists_are_the_full_rankings_before_and_after_edits(pg_seeded, monkeypatch, tmp_path):
    catalog = pg_seeded
    assert catalog.store.lists.behind()
    assert "none yet" in doctor.run(catalog.store).notes[0]
    built, stale = catalog.store.lists.refresh(budget=0)  # words chosen, none ranked yet
    assert built == 0 and stale > 0 and catalog.store.lists.behind()
    assert f"; {stale} out of date; " in doctor.run(catalog.store).notes[0]
    built, stale = catalog.store.lists.refresh(budget=None)
    assert built > 0 and stale == 0 and not catalog.store.lists.behind()
    [note] = doctor.run(catalog.store).notes
    assert note.startswith(f"ranked lists: {built} words in 40+ papers, each listing its best 12 by ts_rank; ")
    assert note.endswith(" more words and prefixes get theirs at their first search")  # the prefixes
    served = _reads(monkeypatch)
    for key, (listed, full) in _pages(catalog, monkeypatch).items():
        assert listed == full, key
    assert sum(served) >= 4  # the lists answered most pages
    assert doctor.run(catalog.store).found == []

    # Edits change some papers' vectors: the lists follow them (a tag, a note, a title, an import).
    best = catalog.search("learning", limit=1)[0].key
    low = catalog.search("model", limit=60)[-1].key
    catalog.tag([low], add=["model"])  # the tag weighs more: it climbs into the list's head
    catalog.add_note(best, "learning learning learning")
    catalog.set_title(best, "Nothing of the kind")
    (tmp_path / "more.txt").write_text("ICLR 2026 Papers\n\nA model of learning models for model data.\n",
                                       encoding="utf-8")
    catalog.import_paths([tmp_path / "more.txt"])
    served.clear()
    for key, (listed, full) in _pages(catalog, monkeypatch).items():
        assert listed == full, key
    assert sum(served) >= 4
    assert low in [p.key for p in catalog.search("model", limit=12)]  # within the list's length now
    assert doctor.run(catalog.store).found == []

    # More changes than a list follows: it is not read (the full ranking answers) until ranked again.
    monkeypatch.setattr(pg_lists, "CHANGE_LIMIT", 2)
    served.clear()
    for key, (listed, full) in _pages(catalog, monkeypatch).items():
        assert listed == full, key
    assert not any(served)
    report = doctor.run(catalog.store)
    assert any(f.check == "ranked lists" and "out of date" in f.problem for f in report.found)
    assert doctor.run(catalog.store, fix=True).healthy
    served.clear()
    for key, (listed, full) in _pages(catalog, monkeypatch).items():
        assert listed == full, key
    assert sum(served) >= 4


def test_upgrade_from_0010_keeps_user_data_and_adds_empty_lists(pg_server, pg_seeded_template):
    """A catalog at 0010 with tags, notes and marks: 0011 adds the (empty) lists' tables and
    triggers, and changes nothing users wrote; a downgrade takes them away again."""
    import psycopg

    from catalog.store.postgres import migrations as pg

    url = pg_server.create(template=pg_seeded_template)
    try:
        catalog = Catalog.open(url)
        key = catalog.search("model", limit=1)[0].key
        catalog.tag([key], add=["week1"])
        catalog.add_note(key, "read the proof")
        catalog.set_rating([key], 4)
        catalog.close()
        pg.downgrade(url, "0010")
        tables = "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'rank_top%'"
        mine = "SELECT p.key, p.tags_text, p.notes_text, r.rating FROM paper p JOIN paper_reader r ON r.paper_id = p.id"
        with psycopg.connect(url) as conn:
            assert conn.execute(tables).fetchone() == (0,)
            before = conn.execute(mine).fetchall()
        catalog = Catalog.open(url)  # upgrades
        assert catalog.search("tag:week1 has:notes rating:4")[0].key == key
        catalog.close()
        with psycopg.connect(url) as conn:
            assert conn.execute(tables).fetchone() == (3,)
            assert conn.execute("SELECT count(*) FROM rank_top_state").fetchone() == (0,)
            assert conn.execute(mine).fetchall() == before == [(key, "week1", "read the proof", 4)]
    finally:
        pg_server.drop(url)


TIER_QUERIES = ["models", "transformers", "SAE", "language models", "model venue:ICLR", "learning -model",
                "interpretab*", "policies", "=models"]


def test_tiers_ranked_in_one_statement_are_the_walk_tier_by_tier(pg_seeded, monkeypatch):
    """A server ranks a word's exact form, other forms and acronyms in one statement (one
    round trip, not one per tier plus a look at each tier's list): the same papers, scores
    and order as tier by tier, at any page size and offset, with filters and `-word`s."""
    from catalog.store.postgres import search
    from catalog.store.ranked import RankedSearch

    combined = []
    original = search.tiers_search_sql
    monkeypatch.setattr(search.TsCompiler, "tiers_search_sql",
                        staticmethod(lambda *a, **k: combined.append(a[1]) or original(*a, **k)))
    together = {}
    for query in TIER_QUERIES:
        for limit, offset in ((3, 0), (50, 0), (4, 2)):
            together[(query, limit, offset)] = _hits(pg_seeded, query, limit, offset)
    assert ["exact", "forms"] in combined and ["exact", "forms", "wide"] in combined
    assert len(together[("transformers", 50, 0)]) > len(_hits(pg_seeded, "=transformers", 50, 0))  # other forms too
    monkeypatch.setattr(RankedSearch, "_tiers_together", lambda *a: [])
    for (query, limit, offset), hits in together.items():
        assert hits == _hits(pg_seeded, query, limit, offset), (query, limit, offset)


def test_a_rare_word_is_three_statements_on_a_server(pg_seeded, monkeypatch):
    """The acronyms its reader added (any word may be one: `catalog acronyms add`), its lists'
    states in one statement, its tiers' page in another (it was four before lists were read in
    one). The acronyms stay a statement of their own: the states are keyed by the tiers'
    expressions, which the acronyms make, so folding them in would mean compiling the query
    before knowing them and again whenever one applies, the lists reaching into search."""
    from catalog.store.postgres.connection import Connection

    statements = []
    original = Connection.execute
    monkeypatch.setattr(Connection, "execute", lambda self, sql, *a: statements.append(sql) or original(self, sql, *a))
    with pg_seeded.store.read() as tx:
        statements.clear()
        assert tx.search.page(parse("transformers"), limit=50)
        assert len(statements) == 3, statements
        assert "acronym_added" in statements[0] and "acronym_added" not in " ".join(statements[1:])



def test_the_acronyms_abstracts_define_and_those_added_are_one_statement(pg_seeded, monkeypatch):
    """Words that may be a long form (`sparse autoencoders`: SAE, as the seeds' abstracts
    define it) read what the abstracts define and what the reader added in one statement
    (it was two), and search finds through both."""
    from catalog.store.postgres.connection import Connection

    pg_seeded.words.add_acronym("SPAEN", "sparse autoencoders")
    statements = []
    original = Connection.execute
    monkeypatch.setattr(Connection, "execute", lambda self, sql, *a: statements.append(sql) or original(self, sql, *a))
    with pg_seeded.store.read() as tx:
        statements.clear()
        also = tx.search.acronyms_for(parse("sparse autoencoders"))
    read = [sql for sql in statements if "acronym" in sql]
    assert len(read) == 1 and "acronym_added" in read[0], statements
    assert {"SAE", "SPAEN"} <= {form for forms in also.values() for form in forms}, also

# In the seeds: `the`, `model`, `models` are frequent words as written, `learn` and `model` as stems.
SEVERAL = ["the model", '"the model"', "the model venue:ICLR", "the model -learning", "learning models"]


def _compound_keys(catalog):
    with catalog.store.read() as tx:
        return {k for k in tx.lists.maintenance().keys() if pg_lists.of_several(k)}


def test_several_frequent_words_get_their_own_list_at_their_first_search(pg_seeded, monkeypatch):
    """An AND or a phrase of frequent words (no word's list bounds its ranking) gets a list of
    its own at its first search, which reads its page from it, as later searches do: the
    full ranking's pages (ids and scores), before and after edits. None is ranked while
    another writer holds the catalog; the oldest go past SEVERAL_LISTS."""
    import psycopg

    from catalog.store.postgres.store import WRITE_LOCK

    catalog = pg_seeded
    catalog.store.lists.refresh(budget=None)
    with psycopg.connect(catalog.store.url, autocommit=True) as other:  # an import, say
        other.execute(f"SELECT pg_advisory_lock({WRITE_LOCK})")
        catalog.search("the model", limit=5)
        assert _compound_keys(catalog) == set()
    served = _reads(monkeypatch)

    def pages():
        for query in SEVERAL:
            for limit, offset in ((10, 0), (5, 7)):
                assert _hits(catalog, query, limit, offset) == _full(catalog, query, limit, offset, monkeypatch), query

    pages()  # each first search ranks its list and reads its page from it
    assert served[0]  # the very first search of `the model`
    kept = _compound_keys(catalog)
    # Searches with filters or `-word`s read lists but rank none; `learning` is not frequent.
    assert kept == {"exact 'the' & 'model'", "exact 'the' <-> 'model'"}
    served.clear()
    pages()
    assert sum(served) >= 4
    assert doctor.run(catalog.store).notes[0].startswith("ranked lists: ")
    assert f"and {len(kept)} searches of several of them" in doctor.run(catalog.store).notes[0]

    low = catalog.search("the model", limit=60)[-1].key
    catalog.add_note(low, "The model: the model, the model.")  # it climbs to the head
    catalog.set_title(catalog.search('"the model"', limit=1)[0].key, "Nothing of the kind")
    pages()
    assert low in [p.key for p in catalog.search("the model", limit=10)]
    assert doctor.run(catalog.store).found == []

    kept = _compound_keys(catalog)
    catalog.store.lists.refresh(budget=None)  # words chosen again: these lists stay, ranked anew
    assert _compound_keys(catalog) == kept and not catalog.store.lists.behind()

    monkeypatch.setattr(pg_build, "SEVERAL_LISTS", 1)
    catalog.search("model the", limit=5)
    assert _compound_keys(catalog) == {"exact 'model' & 'the'"}


def test_no_words_list_bounds_the_rank_of_several_words(pg_server):
    """Why an AND or a phrase needs a list of its own: ts_rank scores several words by the
    distances between all their positions (tsrank.c, calc_rank_and), so a paper low in each
    word's list (both words in its abstract, side by side) outranks one at the head of both
    (both in its title, far apart). At 100k papers 33 of `sparse attention`'s best 50 are
    in neither word's best 1,000."""
    import psycopg

    rank = f"SELECT ts_rank({search.WEIGHTS}, %s::tsvector, %s::tsquery, 1)"
    side_by_side = "'sparse':1,3,5,7,9 'attention':2,4,6,8,10 'x':11,12,13,14,15,16,17,18,19,20"
    in_the_title = "'sparse':1A 'attention':20A 'x':2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"
    with psycopg.connect(pg_server.base_url) as conn:
        def score(vector, query):
            return conn.execute(rank, (vector, query)).fetchone()[0]

        assert score(side_by_side, "sparse") < score(in_the_title, "sparse")
        assert score(side_by_side, "attention") < score(in_the_title, "attention")
        assert score(side_by_side, "sparse & attention") > 10 * score(in_the_title, "sparse & attention")


def test_a_reader_who_may_not_write_gets_the_same_pages_and_asks_the_server_once(pg_seeded, monkeypatch):
    """A lab member with a read-only role: the searches of several frequent words rank every
    match, as before lists, with the same pages; the refusal to keep a list is met once per
    process, not at every search (each one an error in the server's log)."""
    import uuid

    import psycopg

    from catalog.store.postgres.store import PostgresStore

    catalog = pg_seeded
    catalog.store.lists.refresh(budget=None)
    role = "reader_" + uuid.uuid4().hex[:8]
    with psycopg.connect(catalog.store.url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {role} LOGIN")
        admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}")
    tried = []
    original = PostgresStore.write_at_once

    def spy(self, *args):
        tried.append(args)
        return original(self, *args)

    monkeypatch.setattr(PostgresStore, "write_at_once", spy)
    reader = Catalog.open(catalog.store.url.replace("postgres@", f"{role}@", 1))
    try:
        for query in ("the model", '"the model"', "model the"):
            assert _hits(reader, query, 10, 0) == _full(catalog, query, 10, 0, monkeypatch), query
        assert len(tried) == 1
        assert _compound_keys(catalog) == set()
    finally:
        reader.close()
        with psycopg.connect(catalog.store.url, autocommit=True) as admin:
            admin.execute(f"DROP OWNED BY {role}")
            admin.execute(f"DROP ROLE {role}")


def _keys(catalog):
    with catalog.store.read() as tx:
        return set(tx.lists.maintenance().keys())


def test_words_and_prefixes_not_ranked_ahead_get_a_list_at_their_first_search(pg_seeded, monkeypatch):
    """Imports rank ahead only the words in RANKED_AHEAD papers; a word in fewer (but in
    MIN_MATCHES) and a prefix get their list at their first search, which reads its page from
    it, as later searches (everyone's) do: the full ranking's pages, ids and scores, before and
    after edits. A rare word or prefix, or a search with filters, keeps none; a refresh (an
    import's) sends those out of date back to their next first search, ranking none."""
    catalog = pg_seeded
    monkeypatch.setattr(pg_build, "RANKED_AHEAD", 1000)  # more papers than the seeds have
    assert catalog.store.lists.refresh(budget=None) == (0, 0) and _keys(catalog) == set()
    with catalog.store.read() as tx:  # other forms: lists for words ranked ahead only (a later tier reads them)
        waiting = [r[0] for r in tx.conn.execute("SELECT key FROM rank_top_state WHERE weights = ?",
                                                 (pg_lists.AT_FIRST_SEARCH,)).all()]
    assert "exact 'model'" in waiting and "exact 'mod':*" in waiting
    assert not any(key.startswith("stems ") for key in waiting)
    served = _reads(monkeypatch)
    queries = ["model", "mod*", "learn*", "model venue:ICLR", "transformers", "interpretab*"]

    def pages():
        for query in queries:
            for limit, offset in ((10, 0), (5, 7)):
                assert _hits(catalog, query, limit, offset) == _full(catalog, query, limit, offset, monkeypatch), query

    pages()
    assert served[0]  # the very first search of `model` read its page from the list it ranked
    assert _keys(catalog) == {"exact 'model'", "exact 'mod':*", "exact 'learn':*"}
    assert pg_lists.of_prefix("exact 'mod':*") and not pg_lists.of_prefix("exact 'model'")
    served.clear()
    pages()
    assert sum(served) >= 6  # every page of the three, now from the lists kept
    assert "1 words in 40+ papers, 2 prefixes" in doctor.run(catalog.store).notes[0]

    low = catalog.search("mod*", limit=60)[-1].key
    catalog.set_title(low, "Modular models of modes")  # a title weighs more: it climbs to the head
    pages()
    assert low in [p.key for p in catalog.search("mod*", limit=12)]
    assert doctor.run(catalog.store).found == []
    monkeypatch.setattr(pg_lists, "CHANGE_LIMIT", 0)
    assert catalog.store.lists.refresh(budget=None) == (0, 0) and _keys(catalog) == set()
    pages()
    assert _keys(catalog) == {"exact 'model'", "exact 'mod':*", "exact 'learn':*"}


def test_lists_ranked_in_one_pass_are_those_ranked_one_by_one(pg_seeded, monkeypatch):
    """A refresh without a time budget ranks the lists of an index together, in one pass over
    the papers that keeps only those above a cut read from a sample of the pages: the same
    papers, scores and match counts as each list ranked alone, for words, a prefix, a phrase
    and a word no paper holds; where the sample's cut proves too tight, that list is ranked
    alone."""
    catalog = pg_seeded
    with catalog.store.read() as tx, monkeypatch.context() as words_in:
        words_in.setattr(pg_build, "MIN_MATCHES", 40)
        words = [key for key, _ in tx.lists.maintenance().words()
                 if key.startswith("exact ") and not pg_lists.of_prefix(key)]
    keys = words[:5] + ["exact 'mod':*", "exact 'language' <-> 'model'", "exact 'zzzqx'"]
    alone_calls = []
    original = pg_build.PostgresListBuilder.rank

    def alone(self, key, size=None):
        alone_calls.append(key)
        return original(self, key, size)

    def rank(size):
        with catalog.store.read() as tx:
            expected = [original(tx.lists.builder, key, size) for key in keys]
            monkeypatch.setattr(pg_build.PostgresListBuilder, "rank", alone)
            try:
                return tx.lists.builder.rank_many(keys, size), expected
            finally:
                monkeypatch.setattr(pg_build.PostgresListBuilder, "rank", original)

    monkeypatch.setattr(pg_build, "SAMPLE_ABOVE", 1)  # the seeds are few: cut them anyway
    monkeypatch.setattr(pg_build, "SAMPLE_SHARE", 1.0)  # every page: the cut is the 22nd best
    monkeypatch.setattr(pg_build, "SAMPLE_MARGIN", 1.0)
    many, expected = rank(12)
    assert many == expected and alone_calls == []
    assert [len(made.papers) for made in many][:5] == [12] * 5 and many[-1].matches == 0
    assert max(made.matches for made in many) > 22  # the cut left out papers
    monkeypatch.setattr(pg_build, "SAMPLE_MARGIN", 0.0)  # a cut at the 10th best of 40 wanted
    many, expected = rank(40)
    assert many == expected
    assert alone_calls == [made.key for made in expected if made.matches > 10]


def test_prefixes_get_their_list_ahead_the_largest_from_the_import_the_rest_after(pg_seeded, monkeypatch):
    """Prefixes whose words are in PREFIX_AHEAD papers get their list ahead, as words in
    RANKED_AHEAD do: an import's refresh (`typed`) ranks those of three letters and more in
    PREFIX_AT_IMPORT papers, so such a prefix's very first search reads its page from a list
    (the full ranking's page, ids and scores) and ranks none; the others (fewer papers, or one
    or two letters) are left to the refresher. Prefixes matching the same words are ranked once
    and get the same list."""
    catalog = pg_seeded
    words, same = _as_if_grown(catalog, monkeypatch)
    matches = dict(words)
    prefixes = [key for key, _ in words if pg_lists.of_prefix(key)]
    later = [key for key in prefixes if len(key.split("'")[1]) < 3 or matches[key] < matches["exact 'mod':*"]]
    assert "exact 'le':*" in later and len(prefixes) > len(later)
    ranked = []
    many = pg_build.PostgresListBuilder.rank_many
    monkeypatch.setattr(pg_build.PostgresListBuilder, "rank_many",
                        lambda self, keys, size: ranked.extend(keys) or many(self, keys, size))
    built, left = catalog.store.lists.refresh(budget=None, typed=True)
    assert left == len(later) and catalog.store.lists.left() == len(later)
    with catalog.store.read() as tx:
        assert set(tx.lists.maintenance().stale()) == set(later)
    served = _reads(monkeypatch)
    at_import = [key.split("'")[1] + "*" for key in prefixes if key not in later]
    for query in ["mod*", *at_import[:3]]:
        for limit, offset in ((10, 0), (5, 7)):
            served.clear()
            with catalog.store.read() as tx:
                listed = [(h.paper_id, h.score) for h in tx.search.page(parse(query), limit=limit, offset=offset)]
                assert tx.lists.to_keep() == []  # nothing ranked at the first search
            assert served and served[0], (query, limit, offset)  # the page came from the prefix's list
            assert listed == _full(catalog, query, limit, offset, monkeypatch), query

    waiting = next(key for key in later if len(key.split("'")[1]) >= 3)  # left to the refresher
    with catalog.store.read() as tx:  # until it comes, the prefix's first search ranks the list
        tx.search.page(parse(waiting.split("'")[1] + "*"), limit=10, offset=0)
        made = tx.lists.to_keep()
    assert [one.key for one in made] == [waiting]
    catalog.store.lists.keep(made)
    later.remove(waiting)
    assert catalog.store.lists.refresh(budget=None) == (len(later), 0)  # the refresher's
    assert catalog.store.lists.left() == 0
    copy, first = next((key, one) for key, one in same.items() if key != one and (key in later) == (one in later))
    with catalog.store.read() as tx:
        rows = [[(r["paper_id"], r["score"]) for r in tx.conn.execute(
            "SELECT paper_id, score FROM rank_top WHERE key = ? ORDER BY position", (key,)).all()] for key in (copy, first)]
    assert rows[0] and rows[0] == rows[1]
    assert (first in ranked) != (copy in ranked)  # one ranking, written twice


def test_the_refresher_ranks_the_lists_typing_reads_before_one_and_two_letter_prefixes(pg_seeded, monkeypatch):
    """What an import leaves to the refresher is ranked, and written, in the order searches as
    you type need it: the prefixes of three letters and more (`infl*`) first, the one- and
    two-letter prefixes (`tr*`, read only when typed with `*`, and in the most papers) last,
    so that a refresher cut short has served the typed prefixes first."""
    catalog = pg_seeded
    words, same = _as_if_grown(catalog, monkeypatch)
    matches = dict(words)
    catalog.store.lists.refresh(budget=None, typed=True)  # the import's
    with catalog.store.read() as tx:
        left = tx.lists.maintenance().stale()
    short = [key for key in left if len(key.split("'")[1]) < 3]
    assert short and len(short) < len(left)
    # Some short prefixes are in more papers than longer ones: ranked most papers first, they came first.
    assert max(matches[key] for key in short) > min(matches[key] for key in left if key not in short)
    ranked = []  # the keys ranked, in order (a prefix matching a ranked one's words is copied)
    rank, many = pg_build.PostgresListBuilder.rank, pg_build.PostgresListBuilder.rank_many
    monkeypatch.setattr(pg_build.PostgresListBuilder, "rank",
                        lambda self, key, size=None: ranked.append(key) or rank(self, key, size))
    monkeypatch.setattr(pg_build.PostgresListBuilder, "rank_many",
                        lambda self, keys, size: ranked.extend(keys) or many(self, keys, size))
    assert catalog.store.lists.refresh(budget=None) == (len(left), 0)  # the refresher's
    # Every typed prefix ranked, or copied from a typed one matching the same words (`ap*`, if
    # it matches what `app*` does, is copied from `app*`'s ranking, not `app*` from `ap*`'s).
    typed_ranked = {same.get(key, key) for key in ranked if key not in short}
    assert {same.get(key, key) for key in left if key not in short} <= typed_ranked
    first_short = min(ranked.index(key) for key in short if key in ranked)
    assert not set(ranked[first_short:]) - set(short), ranked


def _as_if_grown(catalog, monkeypatch) -> tuple[list[tuple[str, int]], dict[str, str]]:
    """The seeded catalog's lists as a grown catalog's import would leave them to rank: most
    prefixes ahead, those in as many papers as `mod*` ranked at the import. Its words with
    their papers, and the prefixes matching the same words (words_alike)."""
    catalog.store.lists.refresh(budget=None)  # more papers than the seeds: every prefix at its first search
    monkeypatch.setattr(pg_build, "PREFIX_AHEAD", 40)  # now most to be ranked ahead, as in a grown catalog
    monkeypatch.setattr(pg_upkeep, "IMPORT_SHARE", 0)
    with catalog.store.read() as tx:
        words, same = tx.lists.builder.words_alike()
    monkeypatch.setattr(pg_upkeep, "PREFIX_AT_IMPORT", dict(words)["exact 'mod':*"])
    return words, same
