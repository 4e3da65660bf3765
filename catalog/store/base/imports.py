"""The imports role (`tx.imports`): sources, new papers, deduplication's lookups, acronyms,
derived text, settings."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime

from catalog.store.rows import DerivedRow, KeptRow, KnownSource, PaperFacts, Setting, ValueOwner
from catalog.results import AttachmentView
from catalog.store.base.role import Role


class Imports(Role):
    """Importing: sources, new papers and their keys, provenance, deduplication's lookups, the
    acronyms abstracts define, and the text derived from abstracts."""

    @abstractmethod
    def source_with(self, sha256: str) -> KnownSource | None: ...

    @abstractmethod
    def papers_from(self, source_id: int) -> int: ...

    @abstractmethod
    def add_links(self, links: Iterable[tuple[int, str, str, int]]) -> None:
        """(paper id, relation, url, source id) of each link a service gave (paper_link)."""

    @abstractmethod
    def add_notices(self, notices: Iterable[tuple[int, str, str, str, str | None, int]]) -> None:
        """(paper id, kind, notice DOI, label, date, source id) of each notice (paper_notice)."""

    @abstractmethod
    def paper_ids_from(self, source_id: int) -> list[int]:
        """The papers a source gave, in the order they stood in it."""

    @abstractmethod
    def add_source(self, *, path: str, sha256: str, venue: str | None, year: int | None,
                   format: str, imported_at: datetime, warnings: str) -> int: ...

    @abstractmethod
    def set_source_warnings(self, source_id: int, warnings: str) -> None:
        """What a streamed file warned of, found after its source was added (as add_source's)."""

    @abstractmethod
    def max_paper_id(self) -> int: ...

    @abstractmethod
    def insert_papers(self, papers: Sequence[tuple], keys: Sequence[str], stamp) -> list[int]: ...

    @abstractmethod
    def bulk_load(self) -> AbstractContextManager:
        """Within this write transaction, make many inserts into `paper` cheap."""

    @abstractmethod
    def index_papers_from(self, first_id: int) -> None:
        """Index the papers bulk_load inserted, from `first_id` on."""

    def ids_copied(self) -> None:
        """After rows arrived with their ids (copying.py): what the backend needs then."""

    @abstractmethod
    def existing_keys(self, keys: Iterable[str]) -> set[str]: ...

    @abstractmethod
    def fingerprint_taken(self, fingerprint: str, *, other_than: int | None = None) -> bool: ...

    @abstractmethod
    def add_provenance(self, places: Iterable[tuple[int, int, int]]) -> None: ...

    @abstractmethod
    def citekeys_taken(self, keys: Iterable[str]) -> set[str]:
        """Those of these cite keys some paper has, in lower case."""

    @abstractmethod
    def add_citekeys(self, rows: Iterable[tuple[int, str, bool]]) -> None:
        """(paper id, cite key, whether the catalog made it) of papers that have none."""

    @abstractmethod
    def set_citekey(self, paper_id: int, key: str, generated: bool) -> None:
        """Give a paper this cite key (its old one, if any, is replaced)."""

    @abstractmethod
    def citekey_of(self, paper_id: int) -> str | None: ...

    @abstractmethod
    def setting(self, name: str) -> str | None:
        """A catalog_setting's value (`citekey_pattern`), or None."""

    @abstractmethod
    def set_setting(self, name: str, value: str | None) -> None:
        """Set a catalog_setting (None: remove it)."""

    @abstractmethod
    def settings_starting(self, prefix: str) -> list[Setting]:
        """The settings whose name starts with `prefix`, by name."""

    @abstractmethod
    def set_authors(self, authors: Iterable[tuple[int, str | None]]) -> None:
        """(paper id, its authors string) of papers whose authors are new: their people rows."""

    @abstractmethod
    def add_kept_records(self, rows: Iterable[tuple]) -> None:
        """(source id, position, paper id, entry type, cite key, fields JSON) of each record."""

    @abstractmethod
    def kept_rows(self, paper_id: int) -> list[KeptRow]:
        """Each record kept for the paper."""

    @abstractmethod
    def set_kept_fields(self, source_id: int, position: int, fields: str) -> None:
        """Replace a kept record's fields (a hand edit of the paper's fields follows into it)."""

    @abstractmethod
    def papers_with_values(self, column: str, values: Iterable[str]) -> list[ValueOwner]: ...

    @abstractmethod
    def paper_facts(self, ids: Iterable[int]) -> dict[int, PaperFacts]: ...

    @abstractmethod
    def paper_columns(self, paper_id: int, columns: Sequence[str]) -> dict[str, object]: ...

    @abstractmethod
    def missing_fields(self, ids: Iterable[int], fields: Sequence[str]) -> list[dict[str, object]]: ...

    @abstractmethod
    def update_paper(self, paper_id: int, changes: dict[str, object]) -> None: ...

    @abstractmethod
    def add_acronyms(self, pairs: Sequence[tuple[str, str, str, int]]) -> None: ...

    @abstractmethod
    def mark_ordinary_words(self, words: Sequence[str]) -> None: ...

    @abstractmethod
    def paper_of_attachment(self, attachment_id: int) -> int | None: ...

    @abstractmethod
    def unread_attachments(self) -> list[AttachmentView]:
        """AttachmentViews of the attached PDFs whose text was not read yet, oldest first."""

    @abstractmethod
    def set_attachment_text(self, attachment_id: int, state: str, pages: Sequence[str]) -> None:
        """An attachment's text, page by page (replacing any it had), and what reading it gave."""

    @abstractmethod
    def papers_to_rederive(self) -> list[int]:
        """Ids of papers whose abstract was edited by hand since their text was derived."""

    @abstractmethod
    def rederived(self, ids: Iterable[int]) -> None: ...

    @abstractmethod
    def derived_rows(self, ids: Iterable[int] | None = None) -> list[DerivedRow]: ...

    @abstractmethod
    def set_derived(self, paper_id: int, *, abstract_text: str, headline: str, search_extra: str,
                    fingerprint: str) -> None: ...
