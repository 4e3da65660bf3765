"""Papers from the web: the only package that opens network connections.

settings.py   where each service lives (and $CATALOG_WEB_BASE, which points them all at one
              server: a mirror, or the tests' replay server), who we are (User-Agent, contact)
http.py       one polite client: rate limits per service, retries on 429/503, timeouts, and
              an on-disk cache of responses so a second run asks nothing
identifiers.py  what the user typed (a DOI, arXiv id, or a link) -> which service to ask
arxiv.py crossref.py datacite.py openreview.py
              one parser per service: response bytes -> a PaperRecord and its links
lookup.py     an identifier -> the paper's record, asking the services in turn
citations.py  a paper's references and citing papers (Semantic Scholar, Crossref's lists)

Nothing here touches the database: catalog/library.py hands what it fetched to the import
pipeline, so a fetched paper merges with papers already there as an imported one does.
Commands that do not fetch never import this package (tests/test_fetching.py checks).
"""
