"""The import pipeline: files -> plain records (catalog/ingest/) -> papers in the store.

    reader.py     reads the files ahead of the importer, in this process or in a worker
    prepare.py    the Python half: each file's records prepared for storing
    importer.py   each file in one write transaction, papers deduplicated
    identity.py   a new paper's fingerprint and short key
    dedupe.py     which paper a record is, and what it adds to one already there
    merges.py     the record of merges, and undoing them (`catalog split`)
    derived.py    text derived from an abstract, refreshed after hand edits
"""
