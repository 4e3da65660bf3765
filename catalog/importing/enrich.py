"""`catalog enrich`: give papers that lack a title, authors or identifiers what the web knows
of them, without ever taking another paper's.

A paper with a DOI or an arXiv id is looked up by it. One with neither is looked for by its
abstract's words on arXiv, then on OpenReview, and a candidate is taken only when its
abstract says the same thing: at least THRESHOLD of the word triples of the shorter abstract appear in the other.
The same paper's abstract in a conference list and on arXiv shares most of its triples (a
reworded sentence costs a few); another paper on the same topic shares words, but hardly any
triples. Only empty fields are filled: the paper's own abstract, a title or authors it has,
and everything the user set stay (importing/dedupe.py's merge).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence

from catalog.errors import CatalogError
from catalog.results import Enriched, ExportPaper
from catalog.store import Store

THRESHOLD = 0.5
CANDIDATES = 5  # arXiv results compared per paper
SEARCH_WORDS = 7  # the abstract's rarest-looking words searched for
FEWER_WORDS = 4  # searched for again when those find nothing
MIN_TRIPLES = 8  # an abstract shorter than this (in word triples) cannot be told from others

_WORD = re.compile(r"\w+")
# Words too common in abstracts to narrow a search.
_COMMON = frozenset("""about above after again against also among an and any are as at based be
because been before being below between both but by can could did do does doing during each
few for from further had has have having here how however if in into is it its itself more
most much must new no nor not novel of off on once only or other our out over own paper
propose proposed results same should show shows so some such than that the their them then
there these they this those through to too under until up upon using very via was we were
what when where which while who whom why will with within without would yet approach method
methods model models task tasks data learning work performance existing show demonstrate
""".split())


def lacking(paper: ExportPaper) -> bool:
    return not paper.title or not paper.authors or not (paper.doi or paper.arxiv_id)


def unpublished(paper: ExportPaper) -> bool:
    """A preprint whose published version the catalog does not know: an arXiv id, no DOI."""
    return bool(paper.arxiv_id) and not paper.doi


def words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _WORD.findall(folded)


def alike(a: str, b: str) -> float:
    """The share of the shorter abstract's word triples the other holds (0..1)."""
    ta, tb = _triples(a), _triples(b)
    if min(len(ta), len(tb)) < MIN_TRIPLES:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


def _triples(text: str) -> set[tuple[str, str, str]]:
    w = words(text)
    return set(zip(w, w[1:], w[2:]))


_MARKUP = re.compile(r"\$[^$]*\$|\\[A-Za-z]+|https?://\S+")


def search_words(abstract: str, n: int = SEARCH_WORDS) -> list[str]:
    """The `n` longest distinct uncommon words of the abstract, in the order they appear
    (not inside math, TeX commands or links, none with digits: arXiv's index spells those
    its own way)."""
    seen: dict[str, int] = {}
    for at, word in enumerate(words(_MARKUP.sub(" ", abstract))):
        if len(word) >= 5 and word not in _COMMON and word.isalpha() and word.isascii() and word not in seen:
            seen[word] = at
    chosen = sorted(seen, key=lambda w: (-len(w), seen[w]))[:n]
    return sorted(chosen, key=seen.__getitem__)


def enrich(store: Store, papers: Sequence[ExportPaper], *, dry_run: bool, updates: bool = False,
           on_each: Callable[[Enriched], None] = lambda e: None) -> list[Enriched]:
    """`updates`: the papers are preprints, asked about again (not from the cache): arXiv
    gives the DOI of a published version once the authors tell it."""
    from catalog.fetching import arxiv, settings
    from catalog.fetching.http import Client, Offline
    from catalog.fetching.identifiers import Identifier
    from catalog.fetching.lookup import fetch
    from catalog.importing.importer import merge_into
    from catalog.importing.web import digest, facts

    client = Client(settings.from_environment())
    done: list[Enriched] = []
    for paper in papers:
        try:
            if paper.arxiv_id or paper.doi:
                ident = Identifier("arxiv", paper.arxiv_id) if paper.arxiv_id else Identifier("doi", paper.doi)
                found = fetch(client, ident, fresh=updates)
                evidence = f"its {'arXiv id' if paper.arxiv_id else 'DOI'}"
            else:
                found, evidence = _by_text(client, arxiv, paper)
        except Offline:
            if not done:
                raise
            done.append(Enriched(paper.key, "failed", "offline; the rest were not looked up"))
            on_each(done[-1])
            break
        except CatalogError as exc:
            found, evidence = None, str(exc)
            done.append(Enriched(paper.key, "failed", evidence))
            on_each(done[-1])
            continue
        if found is None:
            done.append(Enriched(paper.key, "no match", evidence))
            on_each(done[-1])
            continue
        r = found.record
        if paper.venue and found.service == "arxiv":
            r.kind = None  # a paper of ICLR's list found on arXiv is still ICLR's, not a preprint
        other = _owner(store, r, paper.key)
        if other:
            done.append(Enriched(paper.key, "refused", f"{evidence}; but {other}", r.title, r.authors, found.origin))
            on_each(done[-1])
            continue
        filled = _would_fill(paper, r)
        if filled and not dry_run:
            with store.read() as tx:
                pid = tx.papers.paper_id(paper.key)
            filled = merge_into(store, pid, r, origin=found.origin, format=found.service,
                                sha256=digest(found), evidence=f"enrich: {evidence}", facts=facts(found))
        outcome = ("would fill" if dry_run else "filled") if filled else "unchanged"
        done.append(Enriched(paper.key, outcome, evidence, r.title, r.authors, found.origin, tuple(filled)))
        on_each(done[-1])
    return done


def _by_text(client, arxiv, paper: ExportPaper):
    """The arXiv paper whose abstract is this one's, or (None, why not)."""
    chosen = search_words(paper.abstract)
    if len(chosen) < 3 or len(_triples(paper.abstract)) < MIN_TRIPLES:
        return None, "abstract too short to look for"
    candidates = _search(client, arxiv, chosen)
    if not candidates:  # one of the words may be spelled otherwise there: fewer, longer ones
        candidates = _search(client, arxiv, search_words(paper.abstract, FEWER_WORDS))
    scored = sorted(((alike(paper.abstract, c.record.abstract), n, c)
                     for n, c in enumerate(candidates)), key=lambda t: (-t[0], t[1]))
    if not scored:
        return _on_openreview(client, paper.abstract, chosen) or (None, "arXiv found nothing with its words")
    score, _, best = scored[0]
    if score >= THRESHOLD:
        return best, f"abstracts {score:.2f} alike"
    # Conference papers that never went to arXiv are often on OpenReview, which keeps their
    # submitted abstract (ICLR's and many others' lists are made from it).
    found = _on_openreview(client, paper.abstract, chosen)
    if found is not None:
        return found
    return None, (f"closest on arXiv: {best.record.title!r} (abstracts {score:.2f} alike, "
                  f"below {THRESHOLD})")


def _on_openreview(client, abstract: str, chosen: list[str]):
    """(candidate, evidence) from OpenReview's search when one's abstract says the same; None
    otherwise, or when OpenReview cannot be asked (arXiv's answer stands)."""
    from catalog.fetching import openreview
    from catalog.fetching.http import FetchError, Offline
    from catalog.fetching.records import BadAnswer

    try:
        path, params = openreview.search_params(" ".join(chosen), CANDIDATES)
        answer = client.get("openreview", path, params, accept="application/json")
        candidates = openreview.found_notes(answer.body, answer.url) if answer.status == 200 else []
    except Offline:
        raise
    except (FetchError, BadAnswer):
        return None
    scored = sorted(((alike(abstract, c.record.abstract), n, c) for n, c in enumerate(candidates)),
                    key=lambda t: (-t[0], t[1]))
    if scored and scored[0][0] >= THRESHOLD:
        return scored[0][2], f"abstracts {scored[0][0]:.2f} alike (OpenReview)"
    return None


def _search(client, arxiv, chosen: list[str]):
    path, params = arxiv.search_params(" ".join(chosen), CANDIDATES)
    answer = client.get("arxiv", path, params, accept="application/atom+xml")
    if answer.status >= 400:
        from catalog.fetching.http import FetchError

        raise FetchError(f"arXiv's search refused the request ({answer.status})")
    return arxiv.entries(answer.body, answer.url)


def _owner(store: Store, record, key: str) -> str | None:
    """Another paper that already has the record's DOI or arXiv id: taking the record would
    make two papers one identity."""
    with store.read() as tx:
        for ids, label in ((tx.papers.ids_with_arxiv_id(record.arxiv_id) if record.arxiv_id else [], f"arXiv:{record.arxiv_id}"),
                           (tx.papers.ids_with_doi(record.doi) if record.doi else [], f"DOI {record.doi}")):
            others = [k for k in tx.papers.keys_of(ids).values() if k != key]
            if others:
                return f"{label} is paper {others[0]}'s"
    return None


def _would_fill(paper: ExportPaper, record) -> list[str]:
    from catalog.ingest.fields import title_key

    mine = {"title": paper.title, "authors": paper.authors, "venue": paper.venue, "year": paper.year,
            "doi": paper.doi, "arxiv_id": paper.arxiv_id, "url": paper.url, "kind": paper.kind}
    names = [f for f, v in mine.items() if v in (None, "") and getattr(record, f) not in (None, "")]
    if "title" in names and title_key(record.title) in {title_key(paper.headline), title_key(paper.user_title)}:
        names.remove("title")
    if not paper.abstract and record.abstract:
        names.append("abstract")
    return names
