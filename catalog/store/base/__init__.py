"""The storage seam: what a backend gives the rest of the program, declared by role.

A `Store` is one catalog (a SQLite file, or a PostgreSQL database). It hands out transactions:
`read()` (one consistent snapshot) and `write()` (holds the write lock from its first
statement). A `Transaction` is a set of role objects, each with one job:

    tx.papers     reading papers: keys, summaries, details, export records, overviews
    tx.edits      what users write: tags, marks, titles, notes, saved searches, annotations,
                  papers deleted and brought back
    tx.imports    sources, new papers, deduplication's lookups, acronyms, derived text
    tx.merges     the records an import merged into a paper, and splitting them off again
    tx.search     the query language's answers: pages, counts, facets, the index's words
    tx.discovery  texts for the discovery model, stored topics, the papers it learns from
    tx.upkeep     doctor's checks and repairs
    tx.lists      the ranked lists of frequent words (catalog/store/lists/)

Each role is an abstract class in a module of its own here (base/papers.py, edits.py,
imports.py, merges.py, search.py, discovery.py, upkeep.py, lists.py; the Store and Transaction
in store.py), imported from this package. The shared modules (store/papers.py, edits.py,
imports.py, merges.py, discovery.py, ranked.py) implement them in SQL both backends run, and a
backend composes its transaction from those and its own (sqlite/, postgres/). Role objects return the
dataclasses of catalog/results/ or the named results of rows.py, read by column name. Nothing
outside the store sees a connection, a cursor or SQL.

Modelled on harlequin's adapters (HarlequinAdapter / Connection / Cursor): a small abstract
seam with one implementation per backend, and tests parametrized over backends.
"""

from catalog.store.base.role import Role
from catalog.store.base.papers import Papers
from catalog.store.base.edits import Edits
from catalog.store.base.imports import Imports
from catalog.store.base.merges import Merges
from catalog.store.base.search import Search
from catalog.store.base.discovery import Discovery
from catalog.store.base.upkeep import Upkeep
from catalog.store.base.lists import ListMaintenance, RankedLists, RankedListUpkeep
from catalog.store.base.store import Transaction, Store
