"""The Textual app behind `catalog tui`: app.py (a small App that opens screens/main.py),
search.py (the search's one state and its controller, and the worker that runs a search),
widgets/ (the search bar, the sidebar, the paper list and the reading pane, each reading its
own data), editing.py, sharing.py and discovering.py (parts of the screen that show nothing:
writes and undo, the browser, clipboard and files, `m`), messages.py (what workers post),
keys.py (every binding), keymap.py (the user's own keys, keys.toml), external_editor.py (a
note in $EDITOR, the app suspended), app.tcss (the one stylesheet)."""
