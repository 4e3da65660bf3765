"""The SQLite backend (the embedded default): store.py (SqliteStore and its transactions),
roles.py (the roles SQLite does its own way), connection.py (pragmas, pool, transactions,
stopping a statement), files.py (what is at a path, new files, copies), migrations.py (running
the schema's migrations), preparing.py (one process at a time makes, migrates and seeds a
file; the others wait), fts.py (the FTS5 query compiler), maintenance.py and checkup.py
(doctor), readonly.py (`catalog sql`). Its ranked lists are catalog/store/lists/'s."""
