"""Papers from the web: adding them by identifier, filling in what they lack, downloading
their PDFs, and the papers they cite or that cite them. Catalog (library.py) makes one as
`catalog.web`; the services themselves are catalog/fetching/'s, adding and merging
catalog/importing/'s."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from catalog.errors import CatalogError
from catalog.results import Added, Enriched, Linked, LinkedPaper, PdfFetched


class Web:
    """One catalog's papers from the web. It is given the Catalog itself, whose search, get,
    exports and attached files it uses; one transaction of the store per step."""

    def __init__(self, catalog):
        self.catalog = catalog
        self.store = catalog.store

    @staticmethod
    def fetch_ahead(texts: Sequence[str]) -> list[str]:
        """Fetch what these identifiers name into the cache, touching no catalog: a command
        that would make a new catalog fails (offline: CatalogError) before making it. The
        errors of those that failed, one line each."""
        from catalog.importing import web

        return web.fetch_ahead(texts)

    def add_identifiers(self, texts: Sequence[str], *,
                        on_each: Callable[[Added], None] = lambda added: None) -> list[Added]:
        """Fetch the papers these DOIs, arXiv ids and links name (catalog/fetching/) and add
        them, or fill the empty fields of the papers already here; `on_each` hears of each as
        it is done (arXiv asks for three seconds between requests)."""
        from catalog.importing import web

        texts = [t for t in texts if t.strip()]
        if not texts:
            raise CatalogError("nothing to add: give a DOI, an arXiv id or a link")
        added = web.add(self.store, texts, on_each)
        if any(a.outcome in ("new", "updated") for a in added):
            from catalog.discover import related

            related.refresh_after_import(self.store, background=True)
        return added

    def enrich(self, query: str = "", *, dry_run: bool = False, updates: bool = False,
               on_each: Callable[[Enriched], None] = lambda e: None) -> list[Enriched]:
        """Look up the papers `query` selects that lack a title, authors or identifiers, and
        fill in what the web knows of them (catalog/importing/enrich.py says when a candidate
        is taken); `dry_run`: say what would change, change nothing. `updates`: look up the
        preprints instead (an arXiv id, no DOI) for the DOI of their published version."""
        from catalog.importing import enrich

        # the papers `catalog list QUERY` lists (a key, DOI or arXiv id alone names its paper)
        keys = [p.key for p in self.catalog.search(query, limit=10**9, snippets=False)] if query.strip() else None
        wanted = enrich.unpublished if updates else enrich.lacking
        wanting = [p for p in self.catalog.exchange.export_papers(keys=keys) if wanted(p)]
        done = enrich.enrich(self.store, wanting, dry_run=dry_run, updates=updates, on_each=on_each)
        if any(e.outcome == "filled" for e in done):
            from catalog.discover import related

            related.refresh_after_import(self.store, background=True)
        return done

    def fetch_pdfs(self, query: str = "", *,
                   on_each: Callable[[PdfFetched], None] = lambda p: None) -> list[PdfFetched]:
        """Download the PDF of each paper `query` selects that has none attached, from the link
        a service gave (paper_link) or arXiv's for its arXiv id, and attach it (a copy in the
        folder of files). Open-access links only: a publisher's page that is not a PDF fails."""
        import tempfile

        from catalog.fetching import settings
        from catalog.fetching.http import Client, Offline

        keys = [p.key for p in self.catalog.search(query, limit=10**9, snippets=False)] if query.strip() else None
        client, done = None, []
        for paper in self.catalog.exchange.export_papers(keys=keys):
            detail = self.catalog.get(paper.key)
            if any(a.name.lower().endswith(".pdf") for a in detail.attachments):
                done.append(PdfFetched(paper.key, "had one"))
            elif not (url := detail.pdf_url or (f"https://arxiv.org/pdf/{detail.arxiv_id}" if detail.arxiv_id else None)):
                done.append(PdfFetched(paper.key, "no link"))
            else:
                client = client or Client(settings.from_environment())
                try:
                    answer = client.download(url)
                    if answer.status != 200 or not answer.body.startswith(b"%PDF"):
                        raise CatalogError(f"{url} gave no PDF ({answer.status}, {answer.content_type or 'no type'})")
                    with tempfile.TemporaryDirectory() as folder:
                        path = Path(folder) / f"{paper.key}.pdf"
                        path.write_bytes(answer.body)
                        attachment, _ = self.catalog.files.attach_file(paper.key, path, link=False)
                    done.append(PdfFetched(paper.key, "attached", url, attachment.location))
                except Offline:
                    if not any(d.outcome == "attached" for d in done):
                        raise
                    done.append(PdfFetched(paper.key, "failed", url, error="offline; the rest were not tried"))
                    on_each(done[-1])
                    break
                except CatalogError as exc:
                    done.append(PdfFetched(paper.key, "failed", url, error=str(exc)))
            on_each(done[-1])
        return done

    def linked(self, key: str, *, citing: bool = False) -> Linked:
        """The papers paper `key` cites (or, `citing`, those citing it), from Semantic Scholar
        (references: else Crossref's deposited list), each with the key of the catalog's
        paper when it holds it."""
        from catalog.fetching import citations, settings
        from catalog.fetching.http import Client

        detail = self.catalog.get(key)
        key = detail.summary.key
        if not (detail.doi or detail.arxiv_id):
            raise CatalogError(f"paper {key} has no DOI or arXiv id to look it up by "
                               f"(catalog enrich {key} may find one)")
        client = Client(settings.from_environment())
        ask = citations.citations if citing else citations.references
        found, service = ask(client, detail.doi, detail.arxiv_id)
        with self.store.read() as tx:
            papers = tuple(LinkedPaper(_key_for(tx, p.doi, p.arxiv_id), p.title, p.authors, p.year, p.venue,
                                       p.doi, p.arxiv_id, p.abstract) for p in found)
        return Linked(key, citing, service, papers)


def _key_for(tx, doi: str | None, arxiv_id: str | None) -> str | None:
    """The key of the catalog's paper with this DOI or arXiv id, if it has one."""
    ids = (tx.papers.ids_with_doi(doi) if doi else []) or (tx.papers.ids_with_arxiv_id(arxiv_id) if arxiv_id else [])
    return tx.papers.key_of(ids[0]) if ids else None
