"""The Textual app behind `catalog tui`."""
