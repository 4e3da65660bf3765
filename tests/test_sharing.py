"""A catalog shared on a PostgreSQL server, set up as docs/sharing.md says: the role `lab` (no
superuser) owns it, `ann` and `bob` are members. Who you are is the database role, never
CATALOG_USER; each role reads and changes only its own status, ratings and notes, however it
asks (the library, the CLI, `catalog sql`, psql); `catalog sql` cannot write or reach the
server's files, and refuses a superuser."""

from __future__ import annotations

import json
import os
import tempfile

import psycopg
import pytest
from click.testing import CliRunner

from catalog.cli import main
from catalog.errors import CatalogError, StoreError
from catalog.library import Catalog
from tests.conftest import OWNER, key_of
from tests.pg_server import as_role


@pytest.fixture
def shared(pg_server, pg_seeded_template, monkeypatch):
    """(url, as_): a copy of the seeded catalog `lab` shares with ann and bob; `as_(role)`
    opens it as that role (closed after the test). CATALOG_USER names someone else throughout."""
    monkeypatch.setenv("CATALOG_USER", "mallory")
    url = pg_server.create(template=pg_seeded_template, owner=OWNER)
    opened = []

    def as_(role: str) -> Catalog:
        opened.append(Catalog.open(as_role(url, role)))
        return opened[-1]

    yield url, as_
    for catalog in opened:
        catalog.close()
    pg_server.drop(url)


def _cli(url, role, *args, env=None):
    return CliRunner().invoke(main, ["--db", as_role(url, role), *args], env=env or {})


def _marks(url, reader):
    """{key: (status, rating)} of `reader`, read by the owner (whom row-level security exempts)."""
    with psycopg.connect(as_role(url, OWNER)) as conn:
        return {key: (status, rating) for key, status, rating in conn.execute(
            "SELECT p.key, r.status, r.rating FROM paper_reader r JOIN paper p ON p.id = r.paper_id"
            " WHERE r.reader = %s", (reader,))}


def _one_line_refusal(result) -> str:
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("catalog: ") and "Traceback" not in result.output, result.output
    return lines[0]


def test_a_role_reads_and_changes_only_its_own_marks(shared):
    url, as_ = shared
    ann, bob = as_("ann"), as_("bob")
    key, other = key_of(ann, "sparse attention"), key_of(ann, "diffusion model")
    bob.set_status([key, other], "read")
    bob.set_rating([key], 2)
    ann.set_rating([key], 5)
    assert (ann.get(key).summary.status, ann.get(key).summary.rating) == ("unread", 5)
    assert ann.search("status:read") == [] and [p.key for p in ann.search("rating:5")] == [key]
    assert dict(ann.facets("").statuses).get("read") is None and dict(ann.facets("").ratings) == {5: 1}
    # Even SQL in ann's own write transaction reaches only ann's rows.
    with ann.store.write() as tx:
        assert tx.conn.execute("UPDATE paper_reader SET rating = 1").rowcount == 1
    with pytest.raises(StoreError, match="row-level security"):
        with ann.store.write() as tx:
            tx.conn.execute("INSERT INTO paper_reader(paper_id, reader, status, updated_at)"
                            " VALUES (1, 'bob', 'skipped', now())")
    with ann.store.write() as tx:
        assert tx.conn.execute("DELETE FROM paper_reader").rowcount == 1
    assert _marks(url, "bob") == {key: ("read", 2), other: ("read", None)}
    assert _marks(url, "ann") == {} and _marks(url, "mallory") == {}
    assert sorted(p.key for p in bob.search("status:read")) == sorted([key, other])


def test_catalog_user_names_no_one_on_a_server(shared):
    url, as_ = shared
    key = key_of(as_("ann"), "sparse attention")
    as_("ann").set_rating([key], 4)
    assert _cli(url, "bob", "rate", key, "1", env={"CATALOG_USER": "ann"}).exit_code == 0
    shown = json.loads(_cli(url, "bob", "show", key, "--json", env={"CATALOG_USER": "ann"}).output)
    assert shown["rating"] == 1
    assert _marks(url, "ann") == {key: ("unread", 4)} and _marks(url, "bob") == {key: ("unread", 1)}
    added = _cli(url, "bob", "note", key, "signed by the role", env={"CATALOG_USER": "ann"})
    assert added.exit_code == 0
    assert [n.author for n in as_("ann").get(key).notes] == ["bob"]


def test_sql_and_psql_show_a_role_only_its_own_marks(shared):
    url, as_ = shared
    key = key_of(as_("ann"), "sparse attention")
    as_("ann").set_rating([key], 5)
    as_("bob").set_rating([key], 2)
    rows = json.loads(_cli(url, "ann", "sql", "--json", "SELECT reader, rating FROM paper_reader").output)
    assert rows == [{"reader": "ann", "rating": 5}]
    rows = json.loads(_cli(url, "bob", "sql", "--json", f"SELECT rating FROM papers WHERE key = '{key}'").output)
    assert rows == [{"rating": 2}]
    # A session that names someone else (the setting 0009's views read) is still itself.
    with psycopg.connect(as_role(url, "bob"), autocommit=True) as conn:
        conn.execute("SELECT set_config('catalog.user', 'ann', false)")
        assert conn.execute("SELECT rating FROM papers WHERE key = %s", (key,)).fetchall() == [(2,)]
        assert conn.execute("SELECT reader, rating FROM paper_reader").fetchall() == [("bob", 2)]
        assert conn.execute("UPDATE paper_reader SET rating = 1 WHERE reader = 'ann'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO paper_reader(paper_id, reader, updated_at) VALUES (1, 'ann', now())")
    assert _marks(url, "ann") == {key: ("unread", 5)}


def test_a_members_own_function_sees_only_their_marks_through_the_views(shared):
    """A view reads as its owner, whom row-level security exempts: a function of the member's
    own in a query on `papers` must still be shown only the member's rows."""
    url, as_ = shared
    key = key_of(as_("ann"), "sparse attention")
    as_("ann").set_rating([key], 5)
    as_("bob").set_rating([key], 1)
    seen = []
    with psycopg.connect(as_role(url, "ann"), autocommit=True) as conn:
        conn.add_notice_handler(lambda notice: seen.append(notice.message_primary))
        conn.execute("CREATE FUNCTION pg_temp.peek(v int) RETURNS bool LANGUAGE plpgsql COST 0.0001"
                     " AS $$ BEGIN RAISE NOTICE 'saw %', v; RETURN true; END $$")
        for scan in ("enable_bitmapscan", "enable_indexscan", "enable_indexonlyscan"):
            conn.execute(f"SET {scan} = off")  # the plan that filters paper_reader by the function first
        assert conn.execute("SELECT rating FROM papers WHERE rating IS NOT NULL AND pg_temp.peek(rating)"
                            ).fetchall() == [(5,)]
    assert seen == ["saw 5"]


def test_catalog_sql_refuses_every_write_and_every_way_out(shared):
    url, as_ = shared
    key = key_of(as_("bob"), "sparse attention")
    as_("bob").set_rating([key], 3)
    as_("bob").add_note(key, "bob's")
    marker = os.path.join(tempfile.mkdtemp(), "ran")
    refused = {}
    for statement in (
            "begin read write; update paper_reader set rating = 1; commit",
            "set transaction read write",
            "select set_config('transaction_read_only', 'off', true)",
            "update paper set year = 1900",
            "select 1; update paper set year = 1900",
            "delete from paper_reader",
            "with gone as (delete from note returning 1) select count(*) from gone",
            "select nextval('paper_id_seq')",
            f"copy (select 1) to program 'touch {marker}'",
            "alter system set work_mem = '1MB'",
            "select pg_read_file('postgresql.conf')",
            "select lo_import('postgresql.conf')"):
        refused[statement] = _one_line_refusal(_cli(url, "ann", "sql", statement))
    assert "BEGIN is not one" in refused["begin read write; update paper_reader set rating = 1; commit"]
    assert "COPY is not one" in refused[f"copy (select 1) to program 'touch {marker}'"]
    assert "read-only" in refused["update paper set year = 1900"]
    assert "one statement at a time" in refused["select 1; update paper set year = 1900"]
    assert "permission denied" in refused["select pg_read_file('postgresql.conf')"]
    assert _marks(url, "bob") == {key: ("unread", 3)} and not os.path.exists(marker)
    with psycopg.connect(as_role(url, OWNER)) as conn:
        assert conn.execute("SELECT count(*) FROM paper WHERE year = 1900").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM note").fetchone() == (1,)
    assert _cli(url, "ann", "sql", "SELECT count(*) AS n FROM papers").output == "n\n90\n"  # reading still works


def test_catalog_sql_refuses_a_superuser(shared, pg_server):
    url, _ = shared
    folder = tempfile.mkdtemp()
    os.chmod(folder, 0o777)  # the server's own user could write here
    marker = os.path.join(folder, "ran")
    for statement in ("select 1", f"copy (select 1) to program 'touch {marker}'",
                      "select pg_read_file('postgresql.conf')"):
        said = _one_line_refusal(CliRunner().invoke(main, ["--db", url, "sql", statement]))
        assert "superuser" in said and "docs/sharing.md" in said
    assert not os.path.exists(marker)


def test_a_role_edits_and_deletes_only_its_own_notes(shared):
    url, as_ = shared
    ann, bob = as_("ann"), as_("bob")
    key = key_of(ann, "sparse attention")
    bob.add_note(key, "bob's reading")
    ann.add_note(key, "ann's reading")
    with pytest.raises(CatalogError, match="that note is bob's"):
        ann.edit_note(key, 1, "rewritten by ann")
    with pytest.raises(CatalogError, match="that note is bob's"):
        ann.delete_note(key, 1)
    ann.edit_note(key, 2, "ann's reading, edited")
    with pytest.raises(StoreError, match="row-level security"):
        with ann.store.write() as tx:  # a note signed with someone else's name
            tx.conn.execute("INSERT INTO note(paper_id, body, author, created_at, updated_at)"
                            " VALUES (1, 'forged', 'bob', now(), now())")
    assert [(n.author, n.body) for n in bob.get(key).notes] == [("bob", "bob's reading"),
                                                                 ("ann", "ann's reading, edited")]


def test_a_member_never_deletes_a_paper(shared):
    url, as_ = shared
    key = key_of(as_("bob"), "sparse attention")
    as_("bob").set_rating([key], 4)
    with psycopg.connect(as_role(url, "ann")) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("DELETE FROM paper")  # the cascade would take bob's marks along
    assert as_("ann").stats().papers == 90 and _marks(url, "bob") == {key: ("unread", 4)}


def test_a_members_backup_holds_their_own_marks_the_owners_everyones(shared, tmp_path):
    import sqlite3

    url, as_ = shared
    key = key_of(as_("ann"), "sparse attention")
    as_("ann").set_rating([key], 5)
    as_("bob").set_rating([key], 1)
    readers = {}
    for role in ("ann", OWNER):
        as_(role).admin.backup(tmp_path / f"{role}.db")
        with sqlite3.connect(tmp_path / f"{role}.db") as conn:
            readers[role] = sorted(r for r, in conn.execute("SELECT reader FROM paper_reader"))
    assert readers == {"ann": ["ann"], OWNER: ["ann", "bob"]}


def test_the_owner_shares_the_catalog_with_the_commands(pg_server, tmp_path):
    url = pg_server.create(owner=OWNER)
    try:
        assert _cli(url, OWNER, "db", "upgrade").exit_code == 0  # an empty catalog, made by its owner
        said = _one_line_refusal(_cli(url, "ann", "list"))
        assert "not shared with ann: its owner (lab) can run `catalog share add-member ann`" in said
        assert "no role 'carol'" in _one_line_refusal(_cli(url, OWNER, "share", "add-member", "carol"))
        assert "ann is now a member" in _cli(url, OWNER, "share", "add-member", "ann").stderr
        assert "ann was already a member" in _cli(url, OWNER, "share", "add-member", "ann").stderr
        assert "only the catalog's owner (lab) adds members; you are ann" in _one_line_refusal(
            _cli(url, "ann", "share", "add-member", "bob"))
        assert _cli(url, "ann", "share").output.split("\n") == ["lab  owner", "ann  member (you)", ""]
        assert _cli(url, "ann", "saved", "add", "mine", "tag:x").exit_code == 0  # a member writes
        assert "ann is no longer a member" in _cli(url, OWNER, "share", "remove-member", "ann").stderr
        assert "not shared with ann" in _one_line_refusal(_cli(url, "ann", "list"))
        assert json.loads(_cli(url, OWNER, "share", "members", "--json").output) == {
            "owner": "lab", "members": [], "you": "lab"}
    finally:
        pg_server.drop(url)
    Catalog.open(tmp_path / "c.db").close()
    on_a_file = CliRunner().invoke(main, ["--db", str(tmp_path / "c.db"), "share", "add-member", "ann"])
    assert "is a catalog file, one person's" in _one_line_refusal(on_a_file)


def test_an_older_catalog_is_upgraded_by_its_owner_only(shared):
    from catalog.store import schema
    from catalog.store.postgres import migrations as pg

    url, as_ = shared
    pg.downgrade(as_role(url, OWNER), "0013")
    with pytest.raises(CatalogError, match=r"has schema 0013.*only its owner \(lab\) can upgrade it"):
        as_("ann")
    assert as_(OWNER).admin.schema_revision() == schema.SCHEMA_REVISION
    assert as_("ann").search("sparse attention")
