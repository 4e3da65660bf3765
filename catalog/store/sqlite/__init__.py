"""The SQLite backend (the embedded default): store.py (SqliteStore and its transactions),
connection.py (pragmas, pool, transactions, stopping a statement), files.py (what is at a
path, new files, copies), migrations.py (schema revision, Alembic), fts.py (the FTS5 index and
the query compiler), maintenance.py and checkup.py (doctor), readonly.py (`catalog sql`)."""
