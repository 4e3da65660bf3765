"""SQLModel tables: the catalog's schema as Python classes, for Alembic and for scripts.

What is generated from these models: the tables, columns, constraints and indexes (Alembic's
autogenerate compares them with the migrations; `alembic check` reports no drift). What is not:
the full-text index (an FTS5 table), its triggers, the `papers`, `paper_tags` and
`paper_notes` views and the re-derive queue, which the migrations create by hand
(catalog/store/sqlite/fts.py holds their names). The program itself runs on plain
connections (catalog/store/); docs/python.md shows a script that uses these models.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import (
    CheckConstraint, Column, ForeignKey, Index, Integer, String, UniqueConstraint, text,
)
from sqlalchemy.dialects.postgresql import CITEXT
from sqlalchemy.engine import Engine
from sqlmodel import Field, SQLModel

from catalog.rules import STATUSES


def utcnow() -> datetime:
    """Now, in UTC. SQLModel stores aware datetimes as UTC without an offset: the same text the
    catalog writes (catalog/rules.py's now() is that moment without its zone)."""
    return datetime.now(timezone.utc)


# Case-insensitive text: SQLite's NOCASE collation, PostgreSQL's citext (venue:icml, tags).
NOCASE = String(collation="NOCASE").with_variant(CITEXT(), "postgresql")


def engine(location: str | Path) -> Engine:
    """An engine on a catalog for scripts: a file path, or a postgresql:// URL. On SQLite,
    foreign keys on (so deleting a paper takes its tags and notes) and a busy timeout, so a
    script waits while the TUI or an import writes."""
    from catalog.store import script_engine

    return script_engine(location)


class Paper(SQLModel, table=True):
    __tablename__ = "paper"
    __table_args__ = (
        # Listings run newest year first; with rowid as the implicit last column these
        # indexes hand rows over already in that order, so LIMIT stops early.
        Index("ix_paper_venue_year", "venue", "year"),
        Index("ix_paper_year", "year"),
        # Partial: most papers are without DOI or own title; only the others are looked up,
        # and a bulk import pays nothing for them.
        Index("ix_paper_doi", "doi", sqlite_where=text("doi IS NOT NULL"),
              postgresql_where=text("doi IS NOT NULL")),
        Index("ix_paper_arxiv_id", "arxiv_id", sqlite_where=text("arxiv_id IS NOT NULL"),
              postgresql_where=text("arxiv_id IS NOT NULL")),
        Index("ix_paper_user_title", "user_title", sqlite_where=text("user_title IS NOT NULL"),
              postgresql_where=text("user_title IS NOT NULL")),
    )

    id: int | None = Field(default=None, primary_key=True)
    # Short key users type (`catalog show k3x9q2m`): derived from the content, so the same on
    # every machine; lengthened only when two papers would collide.
    key: str = Field(sa_column=Column(String, nullable=False, unique=True))
    # Hash of the normalised abstract (or title when there is no abstract): the dedupe key.
    fingerprint: str = Field(sa_column=Column(String, nullable=False, unique=True))
    abstract: str = ""  # as imported, Markdown and TeX included
    abstract_text: str = ""  # abstract rendered for display and search (math as Unicode)
    search_extra: str = ""  # ASCII spellings of math (MCR2, MCR 2) so users can type them
    headline: str = ""  # derived short title for papers that have none
    title: str | None = None  # the paper's real title, when a source knows it
    user_title: str | None = None  # the user's own title; wins over the others
    authors: str | None = None
    venue: str | None = Field(default=None, sa_type=NOCASE)  # venue:icml works
    year: int | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    # What kind of publication: article (a journal's), conference, chapter, book, thesis,
    # masters, report, preprint; NULL when no source said (catalog/ingest/kinds.py).
    kind: str | None = None
    # Kept up to date by triggers on paper_tag and note, so FTS5 can index them with the paper.
    tags_text: str = Field(default="", sa_column_kwargs={"server_default": ""})
    notes_text: str = Field(default="", sa_column_kwargs={"server_default": ""})
    added_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Source(SQLModel, table=True):
    """One imported file."""

    __tablename__ = "source"
    __table_args__ = (UniqueConstraint("sha256", name="uq_source_sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    path: str
    sha256: str
    venue: str | None = None
    year: int | None = None
    format: str = "paperlist"
    imported_at: datetime = Field(default_factory=utcnow)
    # Entries the import skipped, one per line as "LINE: what" (reported again on re-import).
    warnings: str = Field(default="", sa_column_kwargs={"server_default": ""})


class Provenance(SQLModel, table=True):
    """Where a paper was seen: which file, which position in it."""

    __tablename__ = "provenance"

    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    )
    source_id: int = Field(
        sa_column=Column(Integer, ForeignKey("source.id", ondelete="CASCADE"), primary_key=True)
    )
    position: int = Field(primary_key=True)


class Tag(SQLModel, table=True):
    """A tag; `project/thesis` is a child of `project`."""

    __tablename__ = "tag"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(NOCASE, nullable=False, unique=True))


class PaperTag(SQLModel, table=True):
    __tablename__ = "paper_tag"

    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    )
    tag_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("tag.id", ondelete="CASCADE"), primary_key=True, index=True
        )
    )


class Note(SQLModel, table=True):
    __tablename__ = "note"

    id: int | None = Field(default=None, primary_key=True)
    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    body: str
    # Who wrote it (on a server the database role, its default there, and only its writer edits or
    # deletes it; in a file CATALOG_USER, else the login name); notes are shared, each signed.
    author: str = Field(default="", sa_column_kwargs={"server_default": ""})
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class PaperReader(SQLModel, table=True):
    """One person's reading status and rating of a paper. Only papers someone has marked
    (a status other than unread, or a rating) have a row; no row reads as unread, unrated.
    On a server `reader` is a database role, and each role reads and writes only its own rows
    (row-level security, migration 0014)."""

    __tablename__ = "paper_reader"
    __table_args__ = (
        CheckConstraint(
            f"status IN ({', '.join(repr(s) for s in STATUSES)})", name="ck_paper_reader_status"
        ),
        CheckConstraint("rating IS NULL OR rating BETWEEN 1 AND 5", name="ck_paper_reader_rating"),
        # Filters (status:read, rating:>=4) and facet counts look up one reader's rows.
        Index("ix_paper_reader_status", "reader", "status"),
        Index("ix_paper_reader_rating", "reader", "rating"),
    )

    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    )
    reader: str = Field(sa_column=Column(String, primary_key=True))
    status: str = Field(default="unread", sa_column_kwargs={"server_default": "unread"})
    rating: int | None = None
    updated_at: datetime = Field(default_factory=utcnow)


class Setting(SQLModel, table=True):
    """Facts about the catalog itself: `owner` (SQLite: whose reading status the views show
    and whom the program takes you for when CATALOG_USER is not set), `seeded`."""

    __tablename__ = "catalog_setting"

    name: str = Field(primary_key=True)
    value: str


class SavedSearch(SQLModel, table=True):
    """A named query (a smart list in the TUI)."""

    __tablename__ = "saved_search"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_column=Column(String, nullable=False, unique=True))
    query: str
    created_at: datetime = Field(default_factory=utcnow)


class PaperMerge(SQLModel, table=True):
    """A record that joined a paper already seen (in its file or in the catalog): which file and
    position, on what evidence, the fields only it gave, and what it said (JSON), so
    `catalog split` can make it a paper of its own again. The paper's first record has none."""

    __tablename__ = "paper_merge"

    id: int | None = Field(default=None, primary_key=True)
    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    source_id: int = Field(
        sa_column=Column(Integer, ForeignKey("source.id", ondelete="CASCADE"), nullable=False)
    )
    position: int
    evidence: str  # "same DOI 10.1000/x", "same arXiv id ...", "same abstract", "same title"
    filled: str = ""  # space-separated names of the fields the paper took from this record
    record: str  # JSON: the record's title, authors, venue, year, doi, arxiv_id, url, kind, abstract
    merged_at: datetime = Field(default_factory=utcnow)


class KeptRecord(SQLModel, table=True):
    """A record of a structured file (BibTeX, RIS, JSON, CSV) as the file wrote it: its entry
    type, its own key (the cite key) and every field in file order, a JSON array of
    [name, value] pairs ([name, value, "bare"] for a BibTeX value written with a macro).
    Exports in its format write it back; the `paper_fields` view has a row per field."""

    __tablename__ = "kept_record"
    __table_args__ = (
        Index("ix_kept_record_cite_key", "cite_key", sqlite_where=text("cite_key IS NOT NULL"),
              postgresql_where=text("cite_key IS NOT NULL")),
    )

    source_id: int = Field(
        sa_column=Column(Integer, ForeignKey("source.id", ondelete="CASCADE"), primary_key=True)
    )
    position: int = Field(primary_key=True)
    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    entry_type: str | None = None
    cite_key: str | None = Field(default=None, sa_type=NOCASE)
    fields: str  # JSON


class PaperAuthor(SQLModel, table=True):
    """One author of a paper, in order (catalog/ingest/people.py): the name as shown, the family name,
    and the forms `author:` compares (accents and case folded)."""

    __tablename__ = "paper_author"
    __table_args__ = (Index("ix_paper_author_name", "name"),)

    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    )
    position: int = Field(primary_key=True)
    name: str
    family: str
    folded: str
    folded_family: str
    folded_short: str


class CiteKey(SQLModel, table=True):
    """A paper's cite key, the one exports and \\cite{} use: its file's key, or one generated
    once when it was first imported; unique across papers, compared without case."""

    __tablename__ = "citekey"
    __table_args__ = (UniqueConstraint("key", name="uq_citekey_key"),)

    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    )
    key: str = Field(sa_column=Column(NOCASE, nullable=False))
    generated: bool = False  # made by the catalog (from authors, year, title), not its file


class Topic(SQLModel, table=True):
    """A paper's place in the topics of a list (`catalog topics`): one row per paper. `scope`
    names the list: "" for the whole catalog, else the query text; grouping it again replaces
    its rows. `number` is 1 for the largest topic; `rank` orders a topic's papers (1: closest
    to its centre)."""

    __tablename__ = "topic"

    scope: str = Field(sa_column=Column(String, primary_key=True))
    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True,
                         index=True)
    )
    number: int
    label: str
    rank: int


class Acronym(SQLModel, table=True):
    """An acronym the abstracts define ("Sparse Autoencoders (SAEs)"), learned at import
    (catalog/searching/acronyms.py): a search for either form also finds the other. A short form
    with several long forms stands for the one most papers define it with."""

    __tablename__ = "acronym"

    short: str = Field(sa_column=Column(NOCASE, primary_key=True))  # singular: SAE
    long_key: str = Field(primary_key=True, index=True)  # the long form as compared (acronyms.long_key)
    long: str  # as the first papers wrote it
    papers: int = 0  # how many papers define it so
    ordinary: bool = False  # abstracts also use the short form as a lowercase word: never expanded


class AddedAcronym(SQLModel, table=True):
    """An acronym a user added (`catalog acronyms add`): it wins over those the abstracts define
    and the field's common ones bundled with catalog (catalog/searching/glossary.py)."""

    __tablename__ = "acronym_added"

    short: str = Field(sa_column=Column(NOCASE, primary_key=True))  # as typed: LoRA, KV cache
    long_key: str = Field(primary_key=True)  # the long form as compared (acronyms.long_key)
    long: str  # as typed
    added_at: datetime = Field(default_factory=utcnow)


class Attachment(SQLModel, table=True):
    """A file attached to a paper (catalog/attachments/attaching.py): a copy in the catalog's folder of
    files ('managed', `path` relative to it) or a file left in place ('linked', `path`
    absolute). `sha256` and `size` as attached; `pages` and `text_state` once its text was
    read (catalog/attachments/pdftext.py). On a server `added_by` is the member's role, and only they
    detach it (row-level security, migration 0015)."""

    __tablename__ = "attachment"
    __table_args__ = (
        CheckConstraint("stored IN ('managed', 'linked')", name="ck_attachment_stored"),
        UniqueConstraint("paper_id", "sha256", name="uq_attachment_paper_sha256"),
    )

    id: int | None = Field(default=None, primary_key=True)
    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), nullable=False, index=True)
    )
    stored: str
    path: str
    name: str  # the file's name when it was attached
    sha256: str = Field(index=True)
    size: int
    pages: int | None = None
    text_state: str | None = None  # 'text', 'no text', 'encrypted', 'unreadable'; NULL: not read
    added_by: str = Field(default="", sa_column_kwargs={"server_default": ""})
    added_at: datetime = Field(default_factory=utcnow)


class AttachmentPage(SQLModel, table=True):
    """The text of one page of an attachment, searched (FTS5's page_fts, PostgreSQL's
    text_vector) as a lower-weight part of the index."""

    __tablename__ = "attachment_page"
    __table_args__ = (UniqueConstraint("attachment_id", "page", name="uq_attachment_page"),)

    id: int | None = Field(default=None, primary_key=True)
    attachment_id: int = Field(
        sa_column=Column(Integer, ForeignKey("attachment.id", ondelete="CASCADE"), nullable=False)
    )
    page: int
    text: str


class PaperLink(SQLModel, table=True):
    """A link a web service gave for a paper, by relation (`pdf`), with the answer it came in."""

    __tablename__ = "paper_link"

    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    )
    rel: str = Field(primary_key=True)
    url: str = Field(primary_key=True)
    source_id: int = Field(
        sa_column=Column(Integer, ForeignKey("source.id", ondelete="CASCADE"), nullable=False)
    )


class PaperNotice(SQLModel, table=True):
    """A notice about a paper (a retraction, withdrawal, correction) a service knows of."""

    __tablename__ = "paper_notice"

    paper_id: int = Field(
        sa_column=Column(Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True)
    )
    kind: str = Field(primary_key=True)  # Crossref's type: retraction, withdrawal, correction, ...
    doi: str = Field(primary_key=True)  # the notice's DOI
    label: str = Field(default="", sa_column_kwargs={"server_default": ""})
    updated: str | None = None  # YYYY-MM-DD
    source_id: int = Field(
        sa_column=Column(Integer, ForeignKey("source.id", ondelete="CASCADE"), nullable=False)
    )
