"""Attached files of a catalog's papers: attaching, reading their text and marks into the
index and notes, detaching, renaming and finding them again. Catalog (library.py) makes one
as `catalog.files`; the folder, names and copies themselves are catalog/attachments/attaching.py's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from catalog import rules
from catalog.attachments import attaching
from catalog.errors import CatalogError
from catalog.results import (
    Attached, AttachmentView, FileFound, FileRenamed, PageSnippet, PaperFile, TextRead,
)
from catalog.searching import highlight, pages
from catalog.searching.lookup import resolve_key
from catalog.searching.query import RELEVANCE, QueryError
from catalog.searching.request import SearchRequest, request
from catalog.store import Store


class Files:
    """The files attached to one catalog's papers; one transaction of the store per step."""

    def __init__(self, store: Store):
        self.store = store

    def attach_file(self, key: str, path: Path, *, link: bool | None = None) -> Attached:
        """Attach the file at `path` to paper `key`: copied into the catalog's folder of files,
        or with `link` left where it is (None: $CATALOG_ATTACH). The same bytes attached to
        this paper before are that attachment again (not new).
        What web downloads and PDF imports call too."""
        path = attaching.readable(path)
        link = attaching.links_by_default() if link is None else link
        into = None if link else attaching.folder(self.store)
        sha256, size = attaching.fingerprint(path)
        with self.store.read() as tx:
            pid = resolve_key(tx, key)
            detail = tx.papers.detail(pid)
            if (known := tx.edits.attachment_with(pid, sha256)) is not None:
                return Attached(self._located(next(a for a in detail.attachments if a.id == known)), False)
        stored = str(path) if link else attaching.copy_in(path, into, attaching.file_name(detail, path.suffix),
                                                          sha256=sha256)
        try:
            with self.store.write() as tx:
                pid = resolve_key(tx, key)
                made = tx.edits.add_attachment(pid, stored="linked" if link else "managed", path=stored,
                                               name=path.name, sha256=sha256, size=size, added_at=rules.now())
                tx.edits.touch(pid)
                views = tx.papers.attachments_of(pid)
        except BaseException:
            if not link:
                attaching.remove(into / stored)  # the row never came: neither does the copy
            raise
        if made is None:  # attached meanwhile by another process: its copy stays, ours goes
            theirs = next(a for a in views if a.sha256 == sha256)
            if not link and theirs.path != stored:  # copy_in may have taken theirs (same name, same bytes)
                attaching.remove(into / stored)
            return Attached(self._located(theirs), False)
        return Attached(self._located(next(a for a in views if a.id == made)), True)

    def read_texts(self, progress: Callable[[AttachmentView, str], None] | None = None) -> list[TextRead]:
        """Read the text of every attached PDF not read yet, page by page, into the search
        index: each attachment with what reading gave. Each file
        is stored in a transaction of its own, so a run cut short keeps what it finished and the
        next run reads the rest. A file not on this machine is left for later. Loads pypdfium2."""
        from catalog.attachments import pdftext

        with self.store.read() as tx:
            waiting = tx.imports.unread_attachments()
        done = []
        for attachment in waiting:
            attachment = self._located(attachment)
            if not attachment.present:
                continue
            text = pdftext.read(Path(attachment.location))
            if text.state in ("text", "no text"):
                self._note_marks(attachment)  # before the text: a file read is a file done
            with self.store.write() as tx:
                tx.imports.set_attachment_text(attachment.id, text.state, text.pages if text.state == "text" else [])
            done.append(TextRead(attachment, text.state))
            if progress is not None:
                progress(attachment, text.state)
        return done

    def import_pdfs(self, files: Sequence[Path], *, link: bool | None = None,
                    progress: Callable[[object], None] | None = None) -> list:
        """Bring in PDFs: each matched to a paper already here (by its DOI or arXiv id, else
        its title and abstract) and attached to it, or made a new paper from its own text and
        attached to that (catalog/importing/pdfs.py); a FileReport each. Their text is indexed
        as they are attached; then those of files a run killed before their text was stored
        (the file itself counts as attached before, and is skipped)."""
        from catalog.importing import pdfs

        def attach(key: str, path: Path, text) -> AttachmentView:
            attachment, _ = self.attach_file(key, path, link=link)
            self._note_marks(attachment)  # before the text, as read_texts() does
            with self.store.write() as tx:
                tx.imports.set_attachment_text(attachment.id, text.state, text.pages)
            return attachment

        reports = pdfs.import_pdfs(self.store, files, attach, progress)
        self.read_texts()
        return reports

    def read_pdf_notes(self, key: str | None = None) -> int:
        """Add the highlights, underlines and comments made in attached PDFs (of paper `key`, or
        of every paper) to their papers' notes (catalog/attachments/pdfannots.py), each once: a mark whose
        note the paper has is not added again, and no note is ever changed or removed. How
        many notes were added. What attaching and importing do for each PDF; run again after
        annotating a PDF in a reader. Loads pypdfium2."""
        with self.store.read() as tx:
            found = ([(key, a) for a in tx.papers.attachments_of(resolve_key(tx, key))] if key is not None
                     else tx.papers.every_attachment())
        return sum(self._note_marks(self._located(a), key=paper) for paper, a in found)

    def _note_marks(self, attachment: AttachmentView, *, key: str | None = None) -> int:
        """One PDF's marks as notes of its paper, those not noted yet; how many were added."""
        from catalog.attachments import pdfannots

        attachment = attachment if attachment.location else self._located(attachment)
        if not (attachment.is_pdf and attachment.present):
            return 0
        marks = pdfannots.read(Path(attachment.location))
        if not marks:
            return 0
        with self.store.write() as tx:
            pid = tx.imports.paper_of_attachment(attachment.id)
            if pid is None:  # detached meanwhile
                return 0
            have = set(tx.edits.note_bodies(pid))
            new = [body for body in dict.fromkeys(rules.note_body(m.note()) for m in marks) if body not in have]
            for body in new:
                tx.edits.add_note(pid, body, rules.now())
            if new:
                tx.edits.touch(pid)
        return len(new)

    def pages_for(self, key: str, query: SearchRequest | str, limit: int = pages.PAGES_PER_PAPER
                  ) -> list[PageSnippet]:
        """The best pages of paper `key`'s files holding a search's words
        (the TUI's reading pane); [] for a search without words."""
        try:
            asked = query if isinstance(query, SearchRequest) else request(query, RELEVANCE)
        except QueryError:
            return []
        if not asked.query.has_text:
            return []
        with self.store.read() as tx:
            found = tx.search.pages(asked.query, limit, resolve_key(tx, key))
            terms = highlight.terms_of(asked.query, tx.search.acronyms_for(asked.query)) if found else None
        return [PageSnippet(hit.page, highlight.snippet(" ".join(hit.text.split()), terms)) for hit in found]

    def attachments(self, key: str) -> tuple[AttachmentView, ...]:
        """The paper's attachments, each with where it is and whether a file is there."""
        with self.store.read() as tx:
            found = tx.papers.attachments_of(resolve_key(tx, key))
        return tuple(self._located(a) for a in found)

    def detach(self, key: str, number: int, *, delete_file: bool = True) -> AttachmentView:
        """Detach attachment `number` (as `attachments` numbers them) from paper `key`; a copy in
        the folder of files is deleted after (with `delete_file`), a linked file never."""
        with self.store.write() as tx:
            pid = resolve_key(tx, key)
            found = tx.papers.attachments_of(pid)
            if not 1 <= number <= len(found):
                have = f"it has {len(found)}" if found else "it has none"
                raise CatalogError(f"paper {key} has no attached file {number} ({have})")
            gone = self._located(found[number - 1])
            tx.edits.remove_attachment(gone.id)
            tx.edits.touch(pid)
        if delete_file and gone.stored == "managed":
            attaching.remove(Path(gone.location))
        return gone

    def file_to_open(self, key: str) -> AttachmentView | None:
        """The file `catalog open` and `o` open: the first PDF that is there, else the first
        other file that is there; None when the paper has no file on this machine."""
        present = [a for a in self.attachments(key) if a.present]
        return next((a for a in present if a.is_pdf), present[0] if present else None)

    def missing_files(self) -> list[PaperFile]:
        """Every attached file that is not where the catalog keeps it."""
        return attaching.missing(self.store)

    def rename_files(self, key: str | None = None) -> list[FileRenamed]:
        """Give the copies in the folder of files (of paper `key`, or of every paper) the names
        their papers' details make now (a title or authors that came later, your own title);
        each copy renamed. A copy missing or a name taken is left alone."""
        with self.store.read() as tx:
            found = ([(key, a) for a in tx.papers.attachments_of(resolve_key(tx, key))] if key is not None
                     else tx.papers.every_attachment())
            found = [(paper, a) for paper, a in found if a.stored == "managed"]
            details = {paper: tx.papers.detail(resolve_key(tx, paper)) for paper in {p for p, _ in found}}
        if not found:
            return []
        into = attaching.folder(self.store)
        renamed = []
        for paper, a in found:
            wanted = attaching.file_name(details[paper], Path(a.path).suffix)
            if Path(a.path).stem.removesuffix(")").rsplit(" (", 1)[0] == Path(wanted).stem:
                continue  # its name already (maybe with a number a taken name got)
            try:
                fresh = attaching.move_within(into, a.path, wanted)
            except CatalogError:
                continue
            with self.store.write() as tx:
                tx.edits.move_attachment(a.id, fresh)
            renamed.append(FileRenamed(a.path, fresh))
        return renamed

    def find_files(self, folder: Path) -> list[FileFound]:
        """Find missing attached files in `folder` (and the folders inside it) by their bytes
        (sha256, files of the right size only): a linked file is linked where it was found, a
        copy that left the folder of files is copied back. Each found, with where."""
        missing = self.missing_files()
        sizes = {a.size for _, a in missing}
        wanted = {a.sha256: (key, a) for key, a in missing}
        found = []
        for path in sorted(Path(folder).expanduser().rglob("*")):
            if not wanted:
                break
            try:
                if not path.is_file() or path.stat().st_size not in sizes:
                    continue
                sha, _ = attaching.fingerprint(path)
            except (OSError, CatalogError):
                continue
            if sha not in wanted:
                continue
            key, attachment = wanted.pop(sha)
            if attachment.stored == "managed":
                into = attaching.folder(self.store)
                stored = attaching.copy_in(path, into, Path(attachment.path).name)
            else:
                stored = str(path.absolute())
            with self.store.write() as tx:
                tx.edits.move_attachment(attachment.id, stored)
            found.append(FileFound(key, attachment, path))
        return found

    def _located(self, attachment: AttachmentView) -> AttachmentView:
        return attaching.located(self.store, attachment)
