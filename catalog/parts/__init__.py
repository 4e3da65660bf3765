"""Catalog's composed parts (library.py makes each when first used; no mixins), one module
per attribute, and what they alone share.

    files.py        catalog.files: attached files, their text and marks, finding them again
    web.py          catalog.web: papers from the web (add, enrich, PDFs, references)
    exchange.py     catalog.exchange: exports, and the annotations file (annotations.py)
    citing.py       catalog.citing: kept .bib files (export/bibfiles.py), cite keys (ingest/citekeys.py)
    words.py        catalog.words: missing words, "did you mean", acronyms users add
    saved.py        catalog.saved: saved searches
    triaging.py     catalog.triage: triage counts and order
    discovery.py    catalog.discovery: similar papers, recommendations, topics
    admin.py        catalog.admin: backups, copies, read-only SQL, members of a shared catalog
    vocabulary.py   catalog.vocabulary: rename, merge, delete a tag across the catalog
    corrections.py  catalog.corrections: a paper's own fields, by hand
    deleting.py     catalog.deleting: deleting papers, every row kept for undo
    statistics.py   catalog.statistics: the counts charts draw (charts.py draws them as text)
    changes.py      what an edit really changed, and undoing it (Catalog.undo)
    doctor.py       `catalog doctor`: what is wrong with a catalog file, and repairing it
"""
