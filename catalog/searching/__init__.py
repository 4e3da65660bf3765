"""The query side: what users type -> a request (parsed once) -> the store -> what they see.

    query.py        the search language, parsed into a small tree that knows nothing of SQL
    request.py      a search's text parsed once: the query, what it names, its order
    identifiers.py  a whole query that names one paper (key, DOI, arXiv id)
    lookup.py       which papers a query or a key names, looked up in a transaction
    acronyms.py     acronyms the abstracts define, learned at import, expanded in searches
    glossary.py     the field's common acronyms (acronyms.tsv) and those users add, both ways
    suggest.py      did you mean: the index's words closest to a word that finds nothing
    pages.py        the text of attached PDFs in a search, below a paper's own text
    hits.py         a page of a search in a transaction: named papers, hits, pages, snippets
    highlight.py    which words of a text a query matched: highlighting and snippets
"""
