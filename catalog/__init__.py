"""catalog: a personal research-paper catalog for the terminal.

Data flows one way: a file -> ingest/ (one reader per format) -> prepare.py and reader.py
(records become rows, in a worker for large imports) -> importer.py with dedupe.py and
merges.py -> store/ -> the database; and query text -> query.py (a query tree) -> store/ ->
results/ dataclasses -> cli/ or tui/. library.py (Catalog) is what the CLI and the TUI
call; store/ holds every SQL statement.
"""
