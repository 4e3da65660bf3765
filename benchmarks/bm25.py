"""The reference engine for ranking quality: Tantivy's BM25 with its English stemmer (`en_stem`,
Snowball English) ranking the papers that match ANY word of the query.

It indexes what catalog's search reads from an untitled paper's abstract: the rendered text and
the ASCII spellings of its math (`search_extra`: MCR² is also MCR2). Query words are taken as
plain words (punctuation, `-` and `:` are not syntax), as a user of a search box means them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

_WORD = re.compile(r"\w+")


class Baseline:
    def __init__(self, documents: Mapping[str, str]):
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("key", stored=True, tokenizer_name="raw")
        builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
        self._index = tantivy.Index(builder.build())
        writer = self._index.writer(heap_size=15_000_000, num_threads=1)
        for key, text in documents.items():
            writer.add_document(tantivy.Document(key=key, body=text))
        writer.commit()
        writer.wait_merging_threads()
        self._index.reload()

    def search(self, query: str, limit: int = 10) -> list[str]:
        words = _WORD.findall(query)
        if not words:
            return []
        parsed = self._index.parse_query(" ".join(words), ["body"])  # words are OR'ed
        searcher = self._index.searcher()
        return [searcher.doc(address)["key"][0] for _, address in searcher.search(parsed, limit).hits]


def documents(db: Path) -> dict[str, str]:
    """Every paper's searchable abstract text, by key, read through the public Catalog API."""
    from catalog.library import Catalog
    from catalog.text.tex import search_extra

    catalog = Catalog.open(db)
    try:
        out = {}
        for summary in catalog.search("", limit=1_000_000, snippets=False):
            paper = catalog.get(summary.key)
            out[summary.key] = "\n".join(
                filter(None, (paper.title, paper.abstract_text, search_extra(paper.abstract))))
        return out
    finally:
        catalog.close()
