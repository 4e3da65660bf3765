"""Tags as a vocabulary: rename, merge and delete a tag across the catalog, with undo, from the
library, the CLI (`catalog tags ...`, `catalog tags undo`) and on both backends."""

from __future__ import annotations

from click.testing import CliRunner

from catalog.cli import main
from tests.conftest import SEEDS, key_of


def _keys(catalog, *queries):
    return [key_of(catalog, q) for q in queries]


def _tags(catalog, key):
    return set(catalog.get(key).summary.tags)


def test_rename_takes_the_children_along_and_undo_brings_them_back(seeded_any):
    a, b, c = _keys(seeded_any, "sparse attention", "MCR2", "steering vector")
    seeded_any.tag([a], add=["project", "toread"])
    seeded_any.tag([b], add=["project/thesis"])
    seeded_any.tag([c], add=["projects"])  # not below `project`: left alone
    edit = seeded_any.vocabulary.rename("project", "work")
    assert (_tags(seeded_any, a), _tags(seeded_any, b), _tags(seeded_any, c)) == (
        {"work", "toread"}, {"work/thesis"}, {"projects"})
    assert {t.name for t in seeded_any.tags()} == {"work", "work/thesis", "toread", "projects"}
    assert sorted(p.key for p in seeded_any.search("tag:work")) == sorted([a, b])
    seeded_any.undo(edit)
    assert (_tags(seeded_any, a), _tags(seeded_any, b)) == ({"project", "toread"}, {"project/thesis"})
    assert not seeded_any.search("tag:work")


def test_merge_joins_tags_and_undo_leaves_a_later_tag_alone(seeded_any):
    a, b, c = _keys(seeded_any, "sparse attention", "MCR2", "steering vector")
    seeded_any.tag([a], add=["ml"])
    seeded_any.tag([b], add=["ML-methods", "learning"])
    edit = seeded_any.vocabulary.merge(["ml", "ml-methods"], "learning")
    assert (_tags(seeded_any, a), _tags(seeded_any, b)) == ({"learning"}, {"learning"})
    assert [t.name for t in seeded_any.tags()] == ["learning"]
    seeded_any.tag([c], add=["learning"])  # after the merge: not the merge's to take back
    seeded_any.undo(edit)
    assert (_tags(seeded_any, a), _tags(seeded_any, b), _tags(seeded_any, c)) == (
        {"ml"}, {"ML-methods", "learning"}, {"learning"})


def test_delete_takes_a_tag_and_its_children_off_every_paper(seeded_any):
    a, b = _keys(seeded_any, "sparse attention", "MCR2")
    seeded_any.tag([a], add=["old", "keep"])
    seeded_any.tag([b], add=["old/part"])
    edit = seeded_any.vocabulary.delete("old")
    assert (_tags(seeded_any, a), _tags(seeded_any, b)) == ({"keep"}, set())
    seeded_any.undo(edit)
    assert (_tags(seeded_any, a), _tags(seeded_any, b)) == ({"old", "keep"}, {"old/part"})


def test_the_cli_renames_merges_deletes_and_undoes(db_path, tmp_path, seeded):
    key = key_of(seeded, "sparse attention")
    seeded.tag([key], add=["draft/intro"])
    seeded.close()
    env = {"CATALOG_STATE_DIR": str(tmp_path / "state")}

    def run(*args):
        return CliRunner().invoke(main, ["--db", str(db_path), *args], env=env)

    renamed = run("tags", "rename", "draft", "paper")
    assert renamed.exit_code == 0 and "1 paper changed" in renamed.output
    assert "paper/intro" in run("tags").output
    undone = run("tags", "undo")
    # It says what it undid, and that undo again redoes it (it said "Undone: 1 paper changed
    # (catalog tags undo takes it back)", the same words as the rename's).
    assert undone.exit_code == 0
    assert "Undone: paper/intro back to draft/intro on 1 paper (catalog tags undo redoes it)" in undone.output
    listed = run("tags").output
    assert "draft/intro" in listed and "paper/intro" not in listed
    redone = run("tags", "undo")  # undo again: redo
    assert redone.exit_code == 0 and "Undone: draft/intro back to paper/intro on 1 paper" in redone.output
    assert "paper/intro" in run("tags").output
    assert run("tags", "delete", "paper").exit_code == 0
    assert "No tags yet" in run("tags").output


def test_the_cli_refuses_bad_tag_changes_in_one_line(db_path, tmp_path, seeded):
    key = key_of(seeded, "sparse attention")
    seeded.tag([key], add=["ml"])
    seeded.close()
    env = {"CATALOG_STATE_DIR": str(tmp_path / "state")}
    for args, says in ((("rename", "nothing", "x"), "no paper is tagged 'nothing'"),
                       (("rename", "ml", "ML"), "same tag"),
                       (("rename", "ml", "ml/sub"), "below itself"),
                       (("merge", "ml"), "usage"),
                       (("rename", "ml", "two words"), "invalid tag"),
                       (("undo",), "no tag rename")):
        result = CliRunner().invoke(main, ["--db", str(db_path), "tags", *args], env=env)
        assert result.exit_code != 0 and says in result.output, (args, result.output)
        assert "Traceback" not in result.output
    assert "ml" in CliRunner().invoke(main, ["--db", str(db_path), "tags"], env=env).output


def test_a_members_rename_undo_takes_back_only_that_rename(people):
    ann = people("ann")
    ann.import_paths([SEEDS])
    bob = people("bob")
    a, b = _keys(ann, "sparse attention", "MCR2")
    ann.tag([a], add=["reading-group"])
    edit = ann.vocabulary.rename("reading-group", "journal-club")
    bob.tag([b], add=["journal-club"])  # another member, meanwhile
    assert _tags(bob, a) == {"journal-club"}  # tags are shared: bob sees ann's rename
    ann.undo(edit)
    assert (_tags(ann, a), _tags(ann, b)) == ({"reading-group"}, {"journal-club"})


def test_a_rename_reindexes_every_paper_and_merges_into_a_tag_some_carry(seeded_any):
    keys = [p.key for p in seeded_any.search("", limit=40, snippets=False)]
    seeded_any.tag(keys[:30], add=["oldname"])
    seeded_any.tag(keys[:6], add=["oldname/part"])
    seeded_any.tag(keys[25:35], add=["newname"])  # five carry both: one newname each after
    edit = seeded_any.vocabulary.rename("oldname", "newname")
    assert seeded_any.count("oldname") == 0  # the words of tags are searched: indexed again
    assert seeded_any.count("newname") == seeded_any.count("tag:newname") == 35
    assert sorted(p.key for p in seeded_any.search("tag:newname/part", limit=50)) == sorted(keys[:6])
    assert {t.name: t.count for t in seeded_any.tags()} == {"newname": 35, "newname/part": 6}
    changed = {c.key: (c.added, c.removed) for c in edit.changes}
    assert changed[keys[0]] == (("newname", "newname/part"), ("oldname", "oldname/part"))
    assert changed[keys[26]] == ((), ("oldname",)) and len(changed) == 30
    seeded_any.undo(edit)
    assert seeded_any.count("tag:oldname") == 30 and seeded_any.count("tag:newname") == 10


def test_a_rename_costs_the_same_statements_for_5_papers_as_for_40(seeded, monkeypatch):
    """Set-based: no statement per paper (5,000 papers took 10.6 s one paper at a time)."""
    from catalog.store.sqlite.connection import Connection

    keys = [p.key for p in seeded.search("", limit=45, snippets=False)]
    seeded.tag(keys[:5], add=["few"])
    seeded.tag(keys[5:45], add=["many"])
    counted = []
    execute = Connection.execute
    monkeypatch.setattr(Connection, "execute", lambda self, *a: counted.append(1) or execute(self, *a))
    statements = []
    for old, new in (("few", "few2"), ("many", "many2")):
        counted.clear()
        seeded.vocabulary.rename(old, new)
        statements.append(len(counted))
    assert statements[0] == statements[1]
    assert seeded.count("tag:many2") == 40


def test_a_rename_into_a_used_tag_undoes_only_its_papers_and_leaves_later_tags(seeded_any):
    keys = [p.key for p in seeded_any.search("", limit=8, snippets=False)]
    seeded_any.tag(keys[:4], add=["draft"])
    seeded_any.tag(keys[4:8], add=["final"])  # carries the new name already: not this rename's
    edit = seeded_any.vocabulary.rename("draft", "final")
    seeded_any.tag(keys[:1], add=["draft"])  # tagged again since: left alone
    undone = seeded_any.undo(edit)
    assert sorted(p.key for p in undone.papers) == sorted(keys[:4])
    assert seeded_any.count("tag:draft") == 4 and sorted(p.key for p in seeded_any.search("tag:final")) == sorted(keys[4:])
    again = seeded_any.undo(undone)  # a redo
    assert seeded_any.count("tag:final") == 8 and seeded_any.count("tag:draft") == 1
    assert {c.key for c in again.changes} == set(keys[:4])


def test_an_undo_and_a_tagging_index_each_paper_once_however_many_tags_change(seeded, db_path):
    """Each write of a paper's tags indexes its text again: a rename's undo on 5,000 papers
    wrote 12,000 times (once per tag row) and took 16-20 s."""
    import sqlite3
    from collections import Counter

    keys = [p.key for p in seeded.search("", limit=20, snippets=False)]
    seeded.tag(keys, add=["topic"])
    seeded.tag(keys[:10], add=["topic/a", "topic/b"])
    edit = seeded.vocabulary.rename("topic", "subject")
    with sqlite3.connect(db_path) as raw:  # every write of a paper's tags, from here on
        raw.executescript("""CREATE TABLE written(paper_id INTEGER);
            CREATE TRIGGER written AFTER UPDATE OF tags_text ON paper BEGIN
                INSERT INTO written VALUES (new.id); END;""")
    undone = seeded.undo(edit)
    assert len(undone.changes) == 20 and seeded.count("tag:topic") == 20 and seeded.count("subject") == 0
    assert seeded.count("tag:topic/b") == 10
    seeded.tag(keys, add=["more", "again"], remove=["topic/a"])
    assert seeded.count("tag:more") == seeded.count("again") == 20 and seeded.count("tag:topic/a") == 0
    with sqlite3.connect(db_path) as raw:
        written = Counter(pid for (pid,) in raw.execute("SELECT paper_id FROM written"))
    assert len(written) == 20 and set(written.values()) == {2}  # the undo once, the tagging once
