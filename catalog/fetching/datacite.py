"""DataCite's REST API, one DOI: https://support.datacite.org/docs/api-get-doi (dois/{doi})."""

from __future__ import annotations

from urllib.parse import quote

from catalog.fetching.records import BadAnswer, Fetched, authors, json_of, paper
from catalog.ingest import fields

_KINDS = {"JournalArticle": "article", "ConferencePaper": "conference", "BookChapter": "chapter",
          "Book": "book", "Dissertation": "thesis", "Report": "report", "Preprint": "preprint"}


def path(doi: str) -> tuple[str, dict[str, str]]:
    return f"/dois/{quote(doi, safe='/')}", {}


def doi_record(body: bytes, origin: str) -> Fetched:
    data = json_of(body, "api.datacite.org").get("data")
    attributes = data.get("attributes") if isinstance(data, dict) else None
    if not isinstance(attributes, dict):
        raise BadAnswer("api.datacite.org answered without a DOI record")
    doi = fields.doi(attributes.get("doi"))
    people = []
    for p in attributes.get("creators") or []:
        if isinstance(p, dict):
            given, family = p.get("givenName"), p.get("familyName")
            people.append(f"{given} {family}" if given and family else str(p.get("name") or ""))
    titles = [t for t in attributes.get("titles") or [] if isinstance(t, dict) and t.get("title")]
    title = next((t["title"] for t in titles if not t.get("titleType")), titles[0]["title"] if titles else None)
    abstract = next((d.get("description") for d in attributes.get("descriptions") or []
                     if isinstance(d, dict) and d.get("descriptionType") == "Abstract"), None)
    container = attributes.get("container") if isinstance(attributes.get("container"), dict) else {}
    types = attributes.get("types") if isinstance(attributes.get("types"), dict) else {}
    publisher = attributes.get("publisher")
    if isinstance(publisher, dict):  # newer answers give {"name": ...}
        publisher = publisher.get("name")
    record = paper({
        "title": title,
        "abstract": abstract if isinstance(abstract, str) else None,
        "authors": authors(people),
        "venue": fields.venue(container.get("title") or publisher),
        "year": fields.year(attributes.get("publicationYear")),
        "doi": doi,
        "kind": _KINDS.get(str(types.get("resourceTypeGeneral"))),
        "url": attributes.get("url"),
    }, f"DOI {doi}")
    return Fetched(record, "datacite", origin)
