"""A script opens a catalog file with SQLModel (catalog.models.engine, docs/python.md): it reads
papers with their tags, and its connection keeps the catalog's rules (foreign keys on, so a
paper deleted by a script takes its tags along; a busy timeout, so it waits for a writer)."""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session, select

from catalog.models import Paper, PaperTag, Tag, engine


def test_a_script_reads_tagged_papers_and_keeps_the_catalogs_rules(seeded, db_path):
    key = seeded.search("attention", limit=1, snippets=False)[0].key
    seeded.tag([key], add=["toread/soon"])
    made = engine(db_path)
    try:
        with Session(made) as session:
            found = session.exec(
                select(Paper.key, Tag.name).join(PaperTag, PaperTag.paper_id == Paper.id)
                .join(Tag, Tag.id == PaperTag.tag_id).where(Tag.name.startswith("toread"))).all()
            assert [tuple(row) for row in found] == [(key, "toread/soon")]
            assert session.exec(text("PRAGMA busy_timeout")).one()[0] > 0
            paper = session.exec(select(Paper).where(Paper.key == key)).one()
            session.delete(paper)
            session.commit()
            assert session.exec(select(PaperTag).where(PaperTag.paper_id == paper.id)).all() == []
    finally:
        made.dispose()
