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
                                format=fetched.service, sha256=digest(fetched))
        with store.read() as tx:
            papers = tx.papers.summaries(stored.ids[:1])
        outcome = "new" if stored.report.new else "updated" if stored.report.merged else "unchanged"
        done.append(Added(text, outcome, papers[0] if papers else None, fetched.origin,
                          tuple(stored.filled), fetched.pdf_url))
        on_each(done[-1])
    return done


def digest(fetched) -> str:
    """What makes two answers the same source: the service and the record they give (not the
    bytes: a feed's own timestamp changes with every request)."""
    record = asdict(fetched.record)
    record.pop("position"), record.pop("line")
    text = json.dumps({"service": fetched.service, "record": record, "pdf": fetched.pdf_url}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()
