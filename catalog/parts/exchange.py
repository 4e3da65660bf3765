"""Exports and annotations: what leaves a catalog (or comes back) as a file. Catalog
(library.py) makes one as `catalog.exchange` with its store, which it reads and writes, one
transaction per operation; the
formats themselves are catalog/export/ (one module each) and catalog/parts/annotations.py."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from catalog.errors import CatalogError
from catalog.searching.identifiers import identify
from catalog.searching.lookup import understood
from catalog.searching.request import request
from catalog.results import AnnotationsReport, ExportPaper, ExportReport

if TYPE_CHECKING:
    from catalog.export.filewriter import Protected
    from catalog.store import Store


class Exchange:
    """A catalog's exports and annotations (`catalog.exchange`)."""

    def __init__(self, store: Store):
        self.store = store

    def export_papers(self, query: str = "", *, keys: Sequence[str] | None = None) -> list[ExportPaper]:
        """The papers `query` selects (all for ""), in search order, with everything exports
        write; or those with these `keys`, in their order (a key no paper has is left out)."""
        with self.store.read() as tx:
            if keys is not None:
                ids = [pid for pid in map(tx.papers.paper_id, keys) if pid is not None]
            else:
                # As `catalog search` reads it: a key, DOI, arXiv id or cite key typed as the whole
                # query names its paper (first), then what the words find.
                parsed, named = understood(tx, request(query))
                ids = named + [hit.paper_id for hit in tx.search.page(parsed, limit=-1, partial=False)]
            return tx.papers.export_papers(ids)

    def export(self, query: str, fmt: str, path: Path | None = None, *, stream: TextIO | None = None,
               keys: Sequence[str] | None = None, force: bool = False) -> ExportReport:
        """Write the selected papers (or those with these `keys`, in their order) as `fmt` to
        `path` (catalog/export/filewriter.py: an existing file only with `force`; a folder for
        "vault") or to `stream`."""
        from catalog import export
        from catalog.export import filewriter as files

        if fmt == "vault":
            return self._export_vault(query, path, keys)
        try:
            write = export.writer(fmt)
        except export.ExportError as exc:
            raise CatalogError(str(exc)) from None
        own = self._own_files()
        if path is not None:  # refused before the papers are read
            files.target_for(path, force=force, protected=own)
        papers = self.export_papers(query, keys=keys)
        if not papers and keys is None and identify(query) is not None:
            # A key, DOI, arXiv id or cite key no paper has (a typo): an empty file would look
            # like an export that worked. Words that match nothing still give an empty document.
            raise CatalogError(f"no paper matches {query.strip()!r}; nothing written "
                               f"(`catalog search {query.strip()}` suggests others)")
        if path is None:
            write(papers, stream if stream is not None else sys.stdout)
        else:
            files.write_file(path, lambda out: write(papers, out), force=force, protected=own)
        return ExportReport(len(papers), fmt, str(path) if path else None)

    def _export_vault(self, query: str, folder: Path | None, keys: Sequence[str] | None) -> ExportReport:
        """One Markdown file per paper in `folder` (docs/formats.md, "Markdown vault")."""
        from catalog.export import vault

        if folder is None:
            raise CatalogError("say which folder: catalog export --format vault DIR")
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise CatalogError(f"cannot write a vault to {folder}: it is not a folder")
        if not folder.parent.is_dir():
            raise CatalogError(f"cannot write a vault to {folder}: folder {folder.parent} does not exist")
        papers = self.export_papers(query, keys=keys)
        try:
            report = vault.write(papers, folder, protected=self._own_files())
        except OSError as exc:
            raise CatalogError(f"cannot write the vault in {folder}: {exc.strerror or exc}") from None
        except CatalogError as exc:
            raise CatalogError(f"nothing in {folder} was changed: {exc}") from None
        if report.left:
            raise CatalogError(f"the vault in {folder} is only partly updated: {len(report.left)} "
                               f"{'note was' if len(report.left) == 1 else 'notes were'} not written ("
                               + "; ".join(report.left) + ")")
        return ExportReport(len(papers), "vault", str(folder), report.unchanged, tuple(report.skipped))

    def _own_files(self) -> Protected:
        """The files of this catalog that nothing may be written over."""
        from catalog.export.filewriter import database_files

        return database_files(self.store.path)

    def export_annotations(self, path: Path | None = None, *, stream: TextIO | None = None,
                           force: bool = False) -> int:
        """Write your annotations (docs/formats.md) to `path` (catalog/export/filewriter.py: an
        existing file only with `force`), or to `stream`; returns how many papers they cover."""
        import json

        from catalog.parts import annotations
        from catalog.export import filewriter as files

        own = self._own_files()
        if path is not None:  # refused before the annotations are read
            files.target_for(path, force=force, protected=own)
        with self.store.read() as tx:
            document = annotations.collect(tx)
        dump = lambda out: out.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")  # noqa: E731
        if path is None:
            dump(stream if stream is not None else sys.stdout)
        else:
            files.write_file(path, dump, force=force, protected=own)
        return len(document["papers"])

    def import_annotations(self, path: Path, *, theirs: bool = False) -> AnnotationsReport:
        """Merge an annotations file in one write transaction (all of it, or nothing)."""
        import json

        from catalog.parts import annotations

        try:
            document = json.loads(Path(path).read_text(encoding="utf-8-sig"))
        except OSError as exc:
            raise CatalogError(f"cannot read {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise CatalogError(f"{path} is not UTF-8 text (expected an annotations JSON file)") from None
        except json.JSONDecodeError as exc:
            raise CatalogError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        document = annotations.check(document, str(path))
        with self.store.write() as tx:
            return annotations.merge(tx, document, theirs=theirs)

