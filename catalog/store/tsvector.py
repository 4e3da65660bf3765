"""PostgreSQL's full-text index as the store sees it (migration 0009): the two stored vectors
of `paper` and their text search configurations, and ts_rank's weights. postgres/search.py
compiles queries over them, lists/postgres_build.py ranks them and lists/postgres.py reads them."""

from __future__ import annotations

CONFIG = "catalog_words"
STEMS = "catalog_stems"
# Each index: (column, text search configuration).
VECTORS = {"exact": ("search_vector", CONFIG), "stems": ("stem_vector", STEMS)}
# ts_rank's weights for D, C, B, A (abstract, authors/notes, tags, titles): SQLite's bm25
# weights (1, 2-3, 8, 10) scaled to ts_rank's 0..1.
WEIGHTS = "'{0.1, 0.25, 0.8, 1.0}'"
