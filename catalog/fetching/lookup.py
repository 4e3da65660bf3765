"""An identifier -> the paper's record, from the service that is the authority for it: arXiv
for arXiv ids, Crossref for DOIs (DataCite when Crossref does not know the DOI), OpenReview
for its notes."""

from __future__ import annotations

from catalog.fetching import arxiv, crossref, datacite, openreview
from catalog.fetching.http import Client, FetchError, Response
from catalog.fetching.identifiers import Identifier
from catalog.fetching.records import BadAnswer, Fetched


class NotFound(FetchError):
    """The services answered, and none knows this identifier."""


def fetch(client: Client, identifier: Identifier, *, fresh: bool = False) -> Fetched:
    """`fresh`: not from the cache (a preprint's record gains the DOI of its published version)."""
    if identifier.kind == "arxiv":
        answer = _get(client, "arxiv", *arxiv.path_and_params(identifier.value), fresh=fresh)
        # arXiv answers a malformed id with 400 and an error entry saying what is wrong
        body = answer.body if answer.status == 400 else _ok(answer, identifier) if answer.status != 404 else b""
        found = arxiv.entries(body, answer.url) if body else []
        if not found:
            raise NotFound(f"arXiv has no paper {identifier.value}")
        return found[0]
    if identifier.kind == "openreview":
        answer = _get(client, "openreview", *openreview.path(identifier.value))
        return openreview.note(_ok(answer, identifier), answer.url, identifier.value)
    answer = _get(client, "crossref", *crossref.path(identifier.value, client.settings.contact))
    if answer.status != 404:
        return crossref.work(_ok(answer, identifier), answer.url)
    answer = _get(client, "datacite", *datacite.path(identifier.value))
    if answer.status == 404:
        raise NotFound(f"neither Crossref nor DataCite knows the DOI {identifier.value}")
    return datacite.doi_record(_ok(answer, identifier), answer.url)


def _get(client: Client, service: str, path: str, params: dict[str, str], fresh: bool = False) -> Response:
    accept = "application/atom+xml" if service == "arxiv" else "application/json"
    return client.get(service, path, params, accept=accept, fresh=fresh)


def _ok(answer: Response, identifier: Identifier) -> bytes:
    if answer.status == 404:
        raise NotFound(f"{identifier}: not found")
    if answer.status >= 400:
        from urllib.parse import urlsplit

        raise FetchError(f"{urlsplit(answer.url).netloc} refused {identifier} ({answer.status})")
    return answer.body


__all__ = ["BadAnswer", "FetchError", "NotFound", "fetch"]
