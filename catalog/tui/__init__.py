"""The Textual app behind `catalog tui`: app.py (a small App that opens screens/main.py),
loading.py and editing.py (reads and writes in thread workers, mixed into the screen),
messages.py (what workers post), keys.py (every binding), app.tcss (the one stylesheet)."""
