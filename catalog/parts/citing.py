"""What LaTeX cites from a catalog: the project .bib files kept current (catalog/export/bibfiles.py)
and the pattern cite keys are made by (catalog/ingest/citekeys.py). Catalog (library.py) makes one as
`catalog.citing`, given its `exchange`, whose export the .bib files are written from."""

from __future__ import annotations

from pathlib import Path

from catalog.export.bibfiles import PREFIX, BibFile, Synced, cited, render
from catalog.errors import CatalogError
from catalog.results import CiteKeyChange
from catalog.parts.exchange import Exchange
from catalog.searching.query import parse
from catalog.store import Store


class Citing:
    """One catalog's kept .bib files and cite keys; one transaction of the store per step."""

    def __init__(self, store: Store, exchange: Exchange):
        self.store = store
        self.exchange = exchange

    # --- project .bib files kept current ----------------------------------------------------

    def bib_add(self, path: Path, query: str, *, aux: Path | None = None) -> Synced:
        """Keep `path` a BibTeX file of the papers `query` selects (only those `aux` cites, with
        one), written now and again by bib_sync whenever its content would change."""
        parse(query)  # a query that cannot mean anything is refused before anything is kept
        target = Path(path).expanduser().resolve()
        found = BibFile(str(target), query, str(Path(aux).expanduser().resolve()) if aux else None)
        synced = self._bib_write(found)
        with self.store.write() as tx:
            tx.imports.set_setting(*found.as_setting())
        return synced

    def bib_remove(self, path: Path) -> bool:
        name = PREFIX + str(Path(path).expanduser().resolve())
        with self.store.write() as tx:
            known = tx.imports.setting(name) is not None
            tx.imports.set_setting(name, None)
        return known

    def bib_files(self) -> list[BibFile]:
        with self.store.read() as tx:
            return [BibFile.from_setting(n, v) for n, v in tx.imports.settings_starting(PREFIX)]

    def bib_sync(self) -> list[Synced]:
        """Rewrite each kept .bib file whose content changed; what each holds now."""
        return [self._bib_write(found) for found in self.bib_files()]

    def keep_current(self) -> None:
        """After a change, the kept .bib files that it changed are rewritten; one that cannot be
        (its folder gone) waits for `catalog bib sync`, which says why."""
        for found in self.bib_files():
            try:
                self._bib_write(found)
            except (CatalogError, OSError):
                pass

    def _bib_write(self, found: BibFile) -> Synced:
        from catalog.export import filewriter as files

        text, count = render(self.exchange.export_papers(found.query), cited(found.aux))
        target = Path(found.path)
        try:
            same = target.is_file() and target.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if not same:
            files.write_file(target, lambda out: out.write(text), force=True,
                             protected=files.database_files(self.store.path))
        return Synced(found.path, count, not same)

    # --- cite keys --------------------------------------------------------------------------

    def citekey_pattern(self, pattern: str | None = None) -> str:
        """The pattern new papers' cite keys are made by (docs/formats.md, "Cite keys"); with
        `pattern`, set it first (checked: CatalogError for one that is not a pattern)."""
        from catalog.ingest import citekeys

        if pattern is not None:
            citekeys.pattern_parts(pattern)
            with self.store.write() as tx:
                tx.imports.set_setting(citekeys.SETTING, pattern.replace(" ", ""))
        with self.store.read() as tx:
            return tx.imports.setting(citekeys.SETTING) or citekeys.PATTERN

    def regen_citekeys(self, query: str = "") -> list[CiteKeyChange]:
        """Make the cite keys of the papers `query` selects (all for "") again by the current
        pattern; a key a paper's file gave it stays. Each change, in search order."""
        from catalog.ingest import citekeys

        changes = []
        with self.store.write() as tx:
            pattern = tx.imports.setting(citekeys.SETTING) or citekeys.PATTERN
            ids = [hit.paper_id for hit in tx.search.page(parse(query), limit=-1, partial=False)]
            keys = citekeys.NextFree(tx.imports.citekeys_taken)
            for pid, paper in zip(ids, tx.papers.export_papers(ids)):
                own = citekeys.own_key([citekeys.FileKey(r.format, r.cite_key) for r in paper.records])
                base = own or citekeys.made_key(authors=paper.authors, year=paper.year,
                                                title=paper.title or paper.headline, venue=paper.venue,
                                                fallback="paper", pattern=pattern)
                new = keys.give(base, own is None, paper.cite_key)
                if new != paper.cite_key:
                    tx.imports.set_citekey(pid, new, own is None)
                    keys.moved(paper.cite_key, new)
                    changes.append((paper.key, paper.cite_key, new))
        return [CiteKeyChange(*change) for change in changes]
