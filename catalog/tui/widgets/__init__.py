"""Widgets of the catalog screen, one per module: the search bar, the facets sidebar, the
paper list (a virtual list) with its rows, and the detail pane."""
