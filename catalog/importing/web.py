"""Papers named by identifiers: fetched from the web (catalog/fetching/), stored through the
import pipeline. Each answer is one source (its URL, the service as format, the time), so
`catalog show` says where a paper came from, and the same answer stored again changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict

from catalog.errors import CatalogError
from catalog.results import Added
from catalog.store import Store

OnEach = Callable[[Added], None]


def add(store: Store, texts: Sequence[str], on_each: OnEach = lambda added: None) -> list[Added]:
    """Each identifier fetched and stored in turn. A text that names no paper is refused
    before anything is fetched; without a connection, the first attempt says so (CatalogError)
    and the rest are not tried."""
    from catalog.fetching import identifiers, settings
    from catalog.fetching.http import Client, Offline
    from catalog.fetching.lookup import fetch
    from catalog.importing.importer import import_records

    wanted = [(text, identifiers.parse(text)) for text in texts]
    client = Client(settings.from_environment())
    done: list[Added] = []
    for n, (text, identifier) in enumerate(wanted):
        try:
            fetched = fetch(client, identifier)
        except Offline as exc:
            if not done:
                raise
            done.extend(Added(t, "failed", error=str(exc)) for t, _ in wanted[n:])
            for added in done[n:]:
                on_each(added)
            break
        except CatalogError as exc:
            done.append(Added(text, "failed", error=str(exc)))
            on_each(done[-1])
            continue
        stored = import_records(store, [fetched.record], origin=fetched.origin,
                                format=fetched.service, sha256=digest(fetched), facts=facts(fetched))
        with store.read() as tx:
            papers = tx.papers.summaries(stored.ids[:1])
        outcome = "new" if stored.report.new else "updated" if stored.report.merged else "unchanged"
        done.append(Added(text, outcome, papers[0] if papers else None, fetched.origin,
                          tuple(stored.filled), fetched.pdf_url))
        on_each(done[-1])
    return done


def fetch_ahead(texts: Sequence[str]) -> list[str]:
    from catalog.fetching import identifiers, settings
    from catalog.fetching.http import Client, Offline
    from catalog.fetching.lookup import fetch

    client = Client(settings.from_environment())
    failed = []
    for text in texts:
        try:
            fetch(client, identifiers.parse(text))
        except Offline:
            raise
        except CatalogError as exc:
            failed.append(f"{text}: {exc}")
    return failed


def facts(fetched):
    """The links and notices of an answer, for paper_link and paper_notice."""
    from catalog.importing.importer import WebFacts

    return WebFacts([("pdf", fetched.pdf_url)] if fetched.pdf_url else [], list(fetched.notices))


def digest(fetched) -> str:
    """What makes two answers the same source: the service and the record they give (not the
    bytes: a feed's own timestamp changes with every request)."""
    record = asdict(fetched.record)
    record.pop("position"), record.pop("line")
    text = json.dumps({"service": fetched.service, "record": record, "pdf": fetched.pdf_url,
                       "notices": fetched.notices}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()
