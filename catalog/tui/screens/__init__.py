"""Screens: main.py (the catalog screen: layout, state, handlers), and the dialogs pushed over
it (pickers, prompts, the tag and note editors, export, help, confirmations), and the tags
(tags.py: rename, merge, delete), a paper's fields (fields.py) and statistics (stats.py)."""
