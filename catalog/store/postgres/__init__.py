"""The PostgreSQL backend: a catalog shared on a server (psycopg 3). Imported only for a
postgresql:// location, so the SQLite paths never load psycopg."""
