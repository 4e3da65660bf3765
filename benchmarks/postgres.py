"""PostgreSQL against SQLite on the same corpus: `catalog import` (whole processes, alternated
so the machine's load falls on both alike) and typical queries in-process (first 50 results
with snippets), on a throwaway server (tests/pg_server.py) or CATALOG_TEST_POSTGRES. On
PostgreSQL every ranked list is built first (timed), and each query runs with the lists and
without (ranking every match), alternated with SQLite.

    python -m benchmarks.postgres [N] [ROUNDS]
    python -m benchmarks.postgres imports N ROUNDS [CHECKOUT]   # imports only
    python -m benchmarks.postgres queries URL ROUNDS [CHECKOUT [URL2]]  # queries on catalogs you have
    python -m benchmarks.postgres rls N ROUNDS                   # row-level security's cost
    python -m benchmarks.postgres ranking URL SAMPLE             # ranking a list, two ways
    python -m benchmarks.postgres passes URL ROUNDS              # the lists, one by one and in passes
    python -m benchmarks.postgres vectors URL N ROUNDS           # COPY: generated vectors or a trigger's
    python -m benchmarks.postgres tags URL N ROUNDS              # tagging N papers: before 0020 and after

`imports` alternates `catalog import` into a new SQLite file and a new PostgreSQL database
ROUNDS times (with CHECKOUT, e.g. a worktree of main, that checkout's PostgreSQL import too,
with this Python), and prints each time and the ratios to SQLite's median.

`queries` times QUERIES (and the ANDs and phrases of SEVERAL) on an existing PostgreSQL
catalog, each round in a fresh process of this checkout and (with CHECKOUT) of that one,
alternated, that one on URL2 when given (a catalog its own import made): the first search of
each query (a cold connection; an AND or phrase of frequent words, a prefix or a word a list
was left for ranks its own list then) and the median of 7 after it. Before each round the
ranked lists are put back as they were when the benchmark began (copied into two tables of
its own, dropped at the end): run it on catalogs just imported, and every round starts as the
import left them.

`rls` measures what row-level security on `paper_reader` (migration 0014) costs the searches,
facet counts and stats that read a person's marks: a catalog of N papers owned by one role,
READERS people with marks on a share MARKED of the papers each, read as a member role; each
round times every RLS_QUERIES search, facets and stats with the policy on and off (the owner
switches it), alternated, and the ratio of the medians is printed.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.corpus import write_paper_lists

# Papers holding the word in the generated 100k corpus: raphasor 31, debias 799, decomposition
# 1,593 (rare); influence 10,489, graph 28,904, model 51,319 (frequent; lists on PostgreSQL).
QUERIES = ["raphasor", "debias", "decomposition", "influence", "graph", "sparse attention", "venue:ICML year:>=2020 graph", "tag:x OR status:read",
           '"language model"', "model*", "tr*", "infl*", "year:2018 -graph"]
# ANDs and phrases of frequent words: sparse 6,089, attention 8,262 papers.
SEVERAL = ["sparse attention", '"language model"', "graph neural network", "language model",
           "sparse attention venue:ICML", '"language model" year:>=2020']
_PROBE = """
import statistics, sys, time
from catalog.library import Catalog
catalog = Catalog.open(sys.argv[1])
for query in sys.argv[2:]:
    start = time.perf_counter(); catalog.search(query, limit=50); first = time.perf_counter() - start
    times = []
    for _ in range(7):
        start = time.perf_counter(); catalog.search(query, limit=50); times.append(time.perf_counter() - start)
    print(f"{query}\t{first * 1000:.1f}\t{statistics.median(times) * 1000:.1f}", flush=True)
catalog.close()
"""


def _import(location, files, checkout: Path | None = None) -> float:
    """`catalog import` as a process (this checkout's, or `checkout`'s: run in that folder,
    whose `catalog` package comes first); the discovery refresh it would start afterwards is
    not part of the import."""
    env = {**os.environ, "CATALOG_DISCOVER_REFRESH": "off"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "catalog", "--db", str(location), "import", *map(str, files)],
                   check=True, capture_output=True, cwd=checkout, env=env)
    return time.perf_counter() - start


def imports(n: int, rounds: int, checkout: str | None = None) -> dict[str, list[float]]:
    """SQLite, PostgreSQL (and `checkout`'s PostgreSQL) imports of the same N papers, alternated."""
    from tests.pg_server import Server

    server = Server().start()
    sides = {"sqlite": None, "postgresql": None}
    if checkout:
        sides[f"postgresql ({checkout})"] = Path(checkout).resolve()
    times: dict[str, list[float]] = {name: [] for name in sides}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            files = write_paper_lists(n, Path(tmp) / "lists")
            for r in range(rounds):
                for name, other in sides.items():
                    if name == "sqlite":
                        location = Path(tmp) / f"c{r}.db"
                    else:
                        location = server.create()
                    times[name].append(_import(location, files, other))
                    print(f"round {r + 1} {name}: {times[name][-1]:.1f} s", flush=True)
                    if name != "sqlite":
                        server.drop(location)
    finally:
        server.stop()
    base = statistics.median(times["sqlite"])
    for name, taken in times.items():
        print(f"import {n} papers, {name}: {', '.join(f'{t:.1f}' for t in taken)} s;"
              f" median {statistics.median(taken):.1f} s, {statistics.median(taken) / base:.2f}x sqlite")
    return times


def _time(catalog, query: str) -> tuple[float, float]:
    """(the first search's ms, the median of 5 after it): on PostgreSQL the first search of a
    prefix or a word below RANKED_AHEAD ranks its list."""
    start = time.perf_counter()
    catalog.search(query, limit=50)
    first = time.perf_counter() - start
    times = []
    for _ in range(5):
        start = time.perf_counter()
        catalog.search(query, limit=50)
        times.append(time.perf_counter() - start)
    return first * 1000, statistics.median(times) * 1000


def _compare(db, url) -> None:
    """Each query on SQLite, on PostgreSQL ranking every match, and from its lists, alternated."""
    from catalog.library import Catalog
    from catalog.store import lists

    sqlite, postgres = Catalog.open(db), Catalog.open(url)
    try:
        start = time.perf_counter()
        built, _ = postgres.store.lists.refresh(budget=None)
        print(f"postgresql ranked lists: {built} built in {time.perf_counter() - start:.1f} s")
        for query in QUERIES:
            lists.ENABLED = False
            full = _time(postgres, query)[1]
            lists.ENABLED = True
            first, listed = _time(postgres, query)
            print(f"{query!r:36} sqlite {_time(sqlite, query)[1]:6.1f} ms   postgresql {full:6.1f} ms,"
                  f" with lists {listed:6.1f} ms (its first search {first:6.1f} ms)")
    finally:
        sqlite.close()
        postgres.close()


def main(n: int = 100_000, rounds: int = 1) -> None:
    from tests.pg_server import Server

    server = Server().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            files = write_paper_lists(n, Path(tmp) / "lists")
            imports = {"sqlite": [], "postgresql": []}
            for r in range(rounds):
                db = Path(tmp) / f"c{r}.db"
                imports["sqlite"].append(_import(db, files))
                url = server.create()
                imports["postgresql"].append(_import(url, files))
            for name, times in imports.items():
                print(f"import {n} papers {name}: {', '.join(f'{t:.1f}' for t in times)} s")
            print(f"postgresql / sqlite: {statistics.median(imports['postgresql']) / statistics.median(imports['sqlite']):.2f}")
            _compare(db, url)
    finally:
        server.stop()


_ALL = list(dict.fromkeys([*SEVERAL, *QUERIES]))


def queries(url: str, rounds: int, checkout: str | None = None, checkout_url: str | None = None) -> None:
    """QUERIES and SEVERAL on the catalog at `url`: this checkout and `checkout` alternated
    (on `checkout_url` when given: a catalog that checkout imported), each round a fresh
    process on lists as the catalog's import left them."""
    import psycopg

    sides = {"this": (None, url), **({checkout: (Path(checkout).resolve(), checkout_url or url)} if checkout else {})}
    for _, where in sides.values():
        _keep_imported_lists(where)
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        for r in range(rounds):
            for name, (folder, where) in sides.items():
                _restore_imported_lists(where)
                out = subprocess.run([sys.executable, "-c", _PROBE, where, *_ALL], cwd=folder,
                                     check=True, capture_output=True, text=True).stdout
                for line in out.splitlines():
                    query, first, median = line.split("\t")
                    results.setdefault((query, name), []).append((float(first), float(median)))
                print(f"round {r + 1} {name} done", flush=True)
    finally:
        for _, where in sides.values():
            with psycopg.connect(where, autocommit=True) as conn:
                _restore_imported_lists(where)
                conn.execute("DROP TABLE IF EXISTS bench_rank_top, bench_rank_top_state")
    for query in _ALL:
        cells = []
        for name in sides:
            runs = results[(query, name)]
            cells.append(f"{name}: first {', '.join(f'{f:.1f}' for f, _ in runs)} ms,"
                         f" then {', '.join(f'{m:.1f}' for _, m in runs)} ms")
        print(f"{query!r:34} " + " | ".join(cells))


def _keep_imported_lists(url: str) -> None:
    """A copy of the catalog's ranked lists as they are (run on a catalog just imported), in
    two tables of the benchmark's own, once."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for table in ("rank_top", "rank_top_state"):
            if conn.execute("SELECT to_regclass(%s)", (f"bench_{table}",)).fetchone()[0] is None:
                conn.execute(f"CREATE TABLE bench_{table} AS SELECT * FROM {table}")


def _restore_imported_lists(url: str) -> None:
    """The lists back to the copy: those searches ranked since are gone, those the import
    left to a first search are that again."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        for table in ("rank_top", "rank_top_state"):
            conn.execute(f"DELETE FROM {table}")
            conn.execute(f"INSERT INTO {table} SELECT * FROM bench_{table}")


# What reads paper_reader (status:, rating:, their facet counts, the rating sort), and two
# searches that do not, as a control.
RLS_QUERIES = ["status:read", "status:queued graph", "rating:>=4", "model -status:read", "tag:x OR status:read",
               "venue:ICML status:reading year:>=2020", "graph", "influence"]
READERS, MARKED = 10, 0.05


def _rls_work(catalog) -> dict[str, float]:
    """Median ms of each RLS_QUERIES search (a page of 50), of facets and of stats."""
    work = {f"search {q!r}": lambda q=q: catalog.search(q, limit=50, snippets=False) for q in RLS_QUERIES}
    work["search '' sorted by rating"] = lambda: catalog.search("", limit=50, sort="rating", snippets=False)
    work["facets ''"] = lambda: catalog.facets("")
    work["facets 'graph'"] = lambda: catalog.facets("graph")
    work["stats"] = catalog.stats
    return {name: _median_ms(call) for name, call in work.items()}


def _median_ms(call, repeats: int = 7) -> float:
    call()  # warm
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def rls(n: int, rounds: int) -> None:
    import psycopg

    from catalog.library import Catalog
    from tests.pg_server import Server, as_role

    server = Server().start()
    server.ensure_roles("lab", "ann")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            url = as_role(server.create(owner="lab"), "lab")
            _import(url, write_paper_lists(n, Path(tmp) / "lists"))
            owner = Catalog.open(url)
            owner.admin.add_member("ann")
            owner.store.lists.refresh(budget=None)
            owner.close()
            readers = ["ann"] + [f"reader{k}" for k in range(1, READERS)]
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(
                    "INSERT INTO paper_reader(paper_id, reader, status, rating, updated_at)"
                    " SELECT p.id, r.name, (ARRAY['queued', 'reading', 'read', 'skipped'])[1 + (p.id + r.k) %% 4],"
                    " CASE WHEN (p.id + r.k) %% 3 = 0 THEN 1 + (p.id * 7 + r.k) %% 5 END, now()"
                    " FROM paper p CROSS JOIN unnest(%s::text[]) WITH ORDINALITY AS r(name, k)"
                    " WHERE random() < %s", (readers, MARKED))
                conn.execute("VACUUM ANALYZE paper_reader")
                marks = conn.execute("SELECT count(*) FROM paper_reader").fetchone()[0]
            print(f"{n} papers, {READERS} readers, {marks} marks; read as member ann, RLS on and off, {rounds} rounds")
            ann = Catalog.open(as_role(url, "ann"))
            runs: dict[str, dict[str, list[float]]] = {"on": {}, "off": {}}
            try:
                for r in range(rounds):
                    for mode in ("on", "off") if r % 2 == 0 else ("off", "on"):
                        with psycopg.connect(url, autocommit=True) as conn:
                            switch = "ENABLE" if mode == "on" else "DISABLE"
                            conn.execute(f"ALTER TABLE paper_reader {switch} ROW LEVEL SECURITY")
                        for name, ms in _rls_work(ann).items():
                            runs[mode].setdefault(name, []).append(ms)
            finally:
                ann.close()
            for name in runs["on"]:
                on, off = statistics.median(runs["on"][name]), statistics.median(runs["off"][name])
                print(f"{name:48} RLS on {on:7.1f} ms   off {off:7.1f} ms   on/off {on / off:5.2f}")
    finally:
        server.stop()


# A list's ranking as it was: the window counting the matches ran over their rows (vectors and
# all: spilled to disk for a frequent word), not over their scores.
_RANK_OVER_ROWS = ("WITH q AS (SELECT %s::tsquery AS q) SELECT p.id, -ts_rank({weights}, p.{column}, q.q, 1) AS score,"
                   " count(*) OVER () AS matches FROM paper p, q WHERE p.{column} @@ q.q ORDER BY score, p.id LIMIT %s")


def ranking(url: str, sample: int) -> None:
    """SAMPLE of the lists at `url` (spread from most matches to fewest), each ranked as
    lists/postgres_build.py does and with the window over the rows, alternated: total seconds."""
    import psycopg

    from catalog.store.lists import postgres_build as pg_build
    from catalog.store.postgres.connection import Connection
    from catalog.store.tsvector import VECTORS, WEIGHTS

    taken = {"now": 0.0, "over rows": 0.0}
    with psycopg.connect(url, autocommit=True) as conn:
        ranked = pg_build.PostgresListBuilder(Connection(conn))
        keys = [r[0] for r in conn.execute("SELECT key FROM rank_top_state WHERE weights = %s ORDER BY matches DESC, key",
                                           (WEIGHTS,))]
        chosen = keys[::max(1, len(keys) // sample)]
        for n, key in enumerate(chosen):
            index, tsquery = key.split(" ", 1)
            rows = {}
            for way in ("now", "over rows") if n % 2 == 0 else ("over rows", "now"):
                start = time.perf_counter()
                if way == "now":
                    made = ranked.rank(key)
                    rows[way] = [(i, s) for s, i in made.papers]
                else:
                    sql = _RANK_OVER_ROWS.format(weights=WEIGHTS, column=VECTORS[index][0])
                    rows[way] = [(r[0], r[1]) for r in conn.execute(sql, (tsquery, pg_build.LIST_SIZE))]
                taken[way] += time.perf_counter() - start
            assert rows["now"] == rows["over rows"], key
    print(f"{len(chosen)} lists ranked: now {taken['now']:.1f} s, with the window over the rows"
          f" {taken['over rows']:.1f} s ({taken['now'] / taken['over rows']:.2f}x), the same rows")


def passes(url: str, rounds: int) -> None:
    """The lists kept at `url` (those an import ranks ahead), ranked one by one (as each
    refresh did) and in passes of many per index (lists/postgres_build.py's rank_many), alternated
    ROUNDS times, in read transactions (nothing is written): seconds each way, the same lists."""
    from catalog.library import Catalog
    from catalog.store.lists.postgres_upkeep import _passes

    catalog = Catalog.open(url)
    taken: dict[str, list[float]] = {"one by one": [], "in passes": []}
    try:
        with catalog.store.read() as tx:
            keys = tx.lists.maintenance().keys()
        for r in range(rounds):
            made = {}
            for way in ("one by one", "in passes") if r % 2 == 0 else ("in passes", "one by one"):
                start = time.perf_counter()
                with catalog.store.read() as tx:
                    if way == "one by one":
                        made[way] = [tx.lists.builder.rank(key) for key in keys]
                    else:
                        made[way] = [one for group in _passes(keys, one_by_one=False)
                                     for one in tx.lists.builder.rank_many(group)]
                taken[way].append(time.perf_counter() - start)
                print(f"round {r + 1} {way}: {taken[way][-1]:.1f} s", flush=True)
            same = {m.key: m for m in made["one by one"]} == {m.key: m for m in made["in passes"]}
            print(f"round {r + 1}: {len(keys)} lists, {'the same' if same else 'DIFFERENT'}", flush=True)
    finally:
        catalog.close()
    one, many = statistics.median(taken["one by one"]), statistics.median(taken["in passes"])
    print(f"{len(keys)} lists: one by one {one:.1f} s, in passes {many:.1f} s ({many / one:.2f}x), medians")


_VECTOR_COLUMNS = ("key, fingerprint, abstract, abstract_text, search_extra, headline, title, user_title, authors,"
                   " venue, year, doi, arxiv_id, url, tags_text, notes_text, added_at, updated_at, kind")
# The eight fields catalog_vector() reads, with their weights (migration 0009).
_FIELDS = (("user_title", "A"), ("title", "A"), ("headline", "A"), ("tags_text", "B"), ("authors", "C"),
           ("notes_text", "C"), ("abstract_text", "D"), ("search_extra", "D"))


def _trigger_function() -> str:
    """A trigger making both vectors as the generated columns do, each field's words split once."""
    def vector(config: str) -> str:
        return " || ".join(f"setweight(to_tsvector('{config}', w_{f}), '{w}')" for f, w in _FIELDS)

    words = " ".join(f"w_{f} text := catalog_words(NEW.{f});" for f, _ in _FIELDS)
    return (f"CREATE FUNCTION bench_vectors() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE {words} BEGIN"
            f" NEW.search_vector := {vector('catalog_words')}; NEW.stem_vector := {vector('catalog_stems')};"
            " RETURN NEW; END $$")


def vectors(url: str, n: int, rounds: int) -> None:
    """N papers of the catalog at `url` copied (COPY, as imports load papers) into two scratch
    tables with both vectors' GIN indexes: one with the generated columns (each vector splits
    every field's words), one with plain columns a BEFORE trigger fills (each field split once
    for both), alternated ROUNDS times: the seconds, and whether the vectors are the same."""
    import psycopg

    from catalog.store.tsvector import VECTORS

    generated = ", ".join(
        f"ADD COLUMN {column} tsvector GENERATED ALWAYS AS (catalog_vector('{config}', user_title, title, headline,"
        " tags_text, authors, notes_text, abstract_text, search_extra)) STORED" for column, config in VECTORS.values())
    plain = ", ".join(f"ADD COLUMN {column} tsvector" for column, _ in VECTORS.values())
    setup = [
        "CREATE TABLE bench_generated (LIKE paper INCLUDING DEFAULTS INCLUDING STORAGE)",
        f"ALTER TABLE bench_generated DROP COLUMN search_vector, DROP COLUMN stem_vector, {generated}",
        "CREATE TABLE bench_trigger (LIKE paper INCLUDING DEFAULTS INCLUDING STORAGE)",
        f"ALTER TABLE bench_trigger DROP COLUMN search_vector, DROP COLUMN stem_vector, {plain}",
        _trigger_function(),
        "CREATE TRIGGER bench_vectors BEFORE INSERT ON bench_trigger FOR EACH ROW EXECUTE FUNCTION bench_vectors()",
        *(f"CREATE INDEX ON bench_{t} USING gin ({c})" for t in ("generated", "trigger") for c in ("search_vector", "stem_vector")),
    ]
    taken: dict[str, list[float]] = {"generated": [], "trigger": []}
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in setup:
            conn.execute(statement)
        try:
            step = max(1, conn.execute("SELECT count(*) FROM paper").fetchone()[0] // n)
            rows = conn.execute(f"SELECT {_VECTOR_COLUMNS} FROM paper WHERE id %% %s = 0 LIMIT %s", (step, n)).fetchall()
            for r in range(rounds):
                for way in ("generated", "trigger") if r % 2 == 0 else ("trigger", "generated"):
                    conn.execute(f"TRUNCATE bench_{way}")
                    start = time.perf_counter()
                    with conn.transaction(), conn.cursor() as cursor:
                        with cursor.copy(f"COPY bench_{way} ({_VECTOR_COLUMNS}) FROM STDIN") as copy:
                            for row in rows:
                                copy.write_row(row)
                    taken[way].append(time.perf_counter() - start)
                print(f"round {r + 1}: generated {taken['generated'][-1]:.2f} s, trigger {taken['trigger'][-1]:.2f} s",
                      flush=True)
            differ = conn.execute("SELECT count(*) FROM bench_generated g JOIN bench_trigger t USING (key)"
                                  " WHERE g.search_vector <> t.search_vector OR g.stem_vector <> t.stem_vector").fetchone()[0]
        finally:
            conn.execute("DROP TABLE IF EXISTS bench_generated, bench_trigger")
            conn.execute("DROP FUNCTION IF EXISTS bench_vectors()")
    gen, trig = statistics.median(taken["generated"]), statistics.median(taken["trigger"])
    print(f"{n} papers: generated {gen:.2f} s, trigger {trig:.2f} s ({trig / gen:.2f}x), medians;"
          f" {differ} papers with other vectors")


def _on_database(url: str, name: str) -> str:
    """A libpq URL (postgresql://user@host/db?options) naming another database."""
    head, _, options = url.partition("?")
    return head.rsplit("/", 1)[0] + "/" + name + ("?" + options if options else "")


# The tag changes timed by `tags`: (what, tags added, tags removed), in this order.
_TAG_CHANGES = (("two tags added", ("bench-a", "bench-b"), ()), ("two tags removed", (), ("bench-a", "bench-b")),
                ("one tag added", ("bench-a",), ()), ("one tag removed", (), ("bench-a",)))


def _change_tags_before(conn, adds, removes) -> None:
    """PostgresEdits.change_tags before migration 0020: the tag rows changed in a statement
    each (0019's row trigger writing the paper once per row), then `updated_at` written."""
    from catalog.rules import now

    if adds:
        pids, names = [pid for pid, _ in adds], [name for _, name in adds]
        conn.execute("INSERT INTO tag(name) SELECT DISTINCT unnest(?::citext[]) ON CONFLICT DO NOTHING", (names,))
        conn.execute("INSERT INTO paper_tag(paper_id, tag_id) SELECT a.pid, t.id FROM unnest(?::int[], ?::citext[])"
                     " AS a(pid, name) JOIN tag t ON t.name = a.name ON CONFLICT DO NOTHING", (pids, names))
    if removes:
        conn.execute("DELETE FROM paper_tag pt USING unnest(?::int[], ?::citext[]) AS r(pid, name), tag t"
                     " WHERE t.name = r.name AND pt.tag_id = t.id AND pt.paper_id = r.pid",
                     ([pid for pid, _ in removes], [name for _, name in removes]))
    ids = sorted({pid for pid, _ in (*adds, *removes)})
    conn.execute("UPDATE paper SET updated_at = ? WHERE id = ANY(?::int[])", (now(), ids))


def tags(url: str, n: int, rounds: int) -> None:
    """The store's tag change (what `catalog tag` and the TUI's `t` on marks call) on N papers
    of the catalog at `url`, in two copies of it: one at 0019 changed as before
    (_change_tags_before: the tag-row trigger writes a paper once per tag row, then its
    `updated_at` once more), one at 0020 by PostgresEdits.change_tags (each paper written
    once), alternated ROUNDS times; each change is one transaction, timed with its commit.
    Prints the medians, and whether both copies' vectors came out the same."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    from catalog.store.postgres import migrations as pg
    from catalog.store.postgres.connection import Connection
    from catalog.store.postgres.roles import PostgresEdits

    admin = _on_database(url, "postgres")
    source = conninfo_to_dict(url)["dbname"]
    copies = {"0019": f"bench_tags_{os.getpid()}_0019", "0020": f"bench_tags_{os.getpid()}_0020"}
    with psycopg.connect(admin, autocommit=True) as conn:
        for name in copies.values():
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
    urls = {revision: _on_database(url, name) for revision, name in copies.items()}
    taken: dict[tuple[str, str], list[float]] = {}
    digests: dict[str, str] = {}
    try:
        pg.upgrade(urls["0020"])
        pg.downgrade(urls["0019"], "0019")
        for r in range(rounds):
            for revision in ("0019", "0020") if r % 2 == 0 else ("0020", "0019"):
                with psycopg.connect(urls[revision], autocommit=True) as raw:
                    conn = Connection(raw)
                    step = max(1, conn.execute("SELECT count(*) FROM paper").scalar() // n)
                    ids = conn.execute("SELECT id FROM paper WHERE id % ? = 0 ORDER BY id LIMIT ?", (step, n)).scalars()
                    change = PostgresEdits(conn, "").change_tags if revision == "0020" else (
                        lambda adds, removes: _change_tags_before(conn, adds, removes))
                    for what, add, remove in _TAG_CHANGES:
                        start = time.perf_counter()
                        conn.execute("BEGIN")
                        change([(pid, t) for pid in ids for t in add], [(pid, t) for pid in ids for t in remove])
                        conn.commit()
                        taken.setdefault((what, revision), []).append(time.perf_counter() - start)
                        if r == 0 and what == "two tags added":
                            digests[revision] = conn.execute(  # updated_at differs: the moment each ran
                                "SELECT md5(string_agg(search_vector::text || stem_vector::text || tags_text, ','"
                                " ORDER BY id)) FROM paper").scalar()
                print(f"round {r + 1} {revision}: " + ", ".join(
                    f"{what} {taken[(what, revision)][-1]:.2f} s" for what, _, _ in _TAG_CHANGES), flush=True)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            for name in copies.values():
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    for what, _, _ in _TAG_CHANGES:
        before, after = statistics.median(taken[(what, "0019")]), statistics.median(taken[(what, "0020")])
        print(f"{what} on {n:,} papers: before {before:.2f} s, after {after:.2f} s ({after / before:.2f}x), medians")
    print("vectors after two tags added: " + ("the same" if digests["0019"] == digests["0020"] else "DIFFERENT"))


if __name__ == "__main__":
    if sys.argv[1:2] == ["tags"]:
        tags(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1:2] == ["vectors"]:
        vectors(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif sys.argv[1:2] == ["passes"]:
        passes(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1:2] == ["ranking"]:
        ranking(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1:2] == ["rls"]:
        rls(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1:2] == ["queries"]:
        queries(sys.argv[2], int(sys.argv[3]), *sys.argv[4:6])
    elif sys.argv[1:2] == ["imports"]:
        imports(int(sys.argv[2]), int(sys.argv[3]), *sys.argv[4:5])
    else:
        main(*(int(a) for a in sys.argv[1:]))
