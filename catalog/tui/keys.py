"""The app's keys in one list: the footer, the help screen and the command palette read it."""

from __future__ import annotations

from textual.binding import Binding

# Actions on the paper under the cursor (or on every marked paper).
PAPER_ACTIONS = frozenset({
    "tag", "status", "rate", "note", "note_in_editor", "title", "fields", "delete", "browse", "browse_link", "copy",
})
# Actions whose keys are typed text while the search bar has focus.
NOT_WHILE_TYPING = PAPER_ACTIONS | {
    "undo", "redo", "saved_searches", "saved", "toggle_sidebar", "refresh", "help", "quit",
    "focus_search", "export", "zoom", "focus_sidebar", "triage", "similar", "cycle_sort", "attach",
    "add_paper", "references", "stats", "accept_correction",
}

BINDINGS = [
    Binding("slash", "focus_search", "Search", key_display="/",
            tooltip="Jump to the search bar (escape comes back)", id="search"),
    Binding("escape", "back", "List", show=False,
            tooltip="From the search bar or the detail pane back to the list", id="back"),
    Binding("t", "tag", "Tag", tooltip="Add or remove tags, on every marked paper if any",
            id="tag"),
    Binding("s", "status", "Status", tooltip="unread, queued, reading, read or skipped",
            id="status"),
    Binding("r", "rate", "Rate", tooltip="1 to 5 stars; 0 clears", id="rate"),
    Binding("n", "note", "Note", tooltip="Write a note, or edit one", id="note"),
    Binding("N", "note_in_editor", "Note in $EDITOR", show=False,
            tooltip="Write or edit a note in your own editor ($VISUAL, else $EDITOR)", id="note-editor"),
    Binding("E", "fields", "Fields", show=False,
            tooltip="Correct the paper's title, authors, venue, year, DOI or URL (exports write them)",
            id="fields"),
    Binding("D", "delete", "Delete", show=False,
            tooltip="Delete the paper (the marked ones after asking) with its tags, notes and marks; "
                    "u brings it back", id="delete"),
    Binding("e", "title", "Title", show=False, tooltip="Give the paper your own title", id="title"),
    Binding("u", "undo", "Undo",
            tooltip="Take back your last change (tags, status, rating, a note, a title, a saved "
                    "search); changes made since by others stay", id="undo"),
    Binding("U,ctrl+r", "redo", "Redo", key_display="U", show=False,
            tooltip="Make the change u took back again", id="redo"),
    Binding("S,ctrl+s", "save_search", "Save search", key_display="S", show=False,
            tooltip="Keep the query as a named smart list in the sidebar", id="save-search"),
    Binding("o", "browse", "Open", show=False,
            tooltip="Open the paper's PDF ($CATALOG_OPENER, else the desktop's viewer), else its page "
                    "(its URL, DOI or arXiv page) in your browser ($BROWSER)",
            id="browse"),
    # `O` sorts (issue 14), so the link has L.
    Binding("L", "browse_link", "Link", show=False,
            tooltip="Open the paper's page (its URL, DOI or arXiv page) in your browser, even when it has a PDF",
            id="browse-link"),
    Binding("a", "attach", "Attach", show=False,
            tooltip="Attach a file (a PDF first) to the paper: its path, completed as you type",
            id="attach"),
    Binding("A", "add_paper", "Add paper", key_display="A", show=False,
            tooltip="Add a paper from the web by its DOI, arXiv id or link (arXiv, Crossref, "
                    "DataCite, OpenReview); it is then selected", id="add-paper"),
    Binding("C", "references", "References", key_display="C", show=False,
            tooltip="The papers it cites (c there: those citing it), from Semantic Scholar or "
                    "Crossref; enter or a goes to one, or adds it with its identifiers", id="references"),
    Binding("y", "copy", "Copy", show=False,
            tooltip="Copy to the clipboard: y again the key, b BibTeX, c \\cite{}, m Markdown, "
                    "l link (of every marked paper if any)", id="copy"),
    Binding("m", "similar", "Similar", show=False,
            tooltip="More like this: the papers most like the one under the cursor, and why "
                    "(enter goes to one)", id="similar"),
    Binding("x", "export", "Export", show=False,
            tooltip="Write the marked papers, or all the results, to a file in any export format "
                    "or to a Markdown vault (a folder)",
            id="export"),
    Binding("z", "zoom", "Zoom", show=False,
            tooltip="The reading pane fills the screen; z or escape gives the list back", id="zoom"),
    Binding("g", "saved_searches", "Saved searches", show=False,
            tooltip="Pick a saved search to run; g again (gg) goes to the first paper",
            id="saved-searches"),
    *(Binding(str(i), f"saved({i})", f"Saved search {i}", show=False,
              tooltip="Run the saved search with this number", id=f"saved-{i}")
      for i in range(1, 10)),
    Binding("Y", "accept_correction", "Did you mean", show=False,
            tooltip="Yes: search the correction the list offers (\"did you mean …?\"); ctrl+o comes back",
            id="did-you-mean"),
    # Vim's jump list keys; ctrl+i is tab wherever the terminal does not tell them apart
    # (tmux, xterm), and tab moves the focus, so alt+left and alt+right (a browser's) work too.
    Binding("ctrl+o,alt+left", "walk(-1)", "Back", key_display="ctrl+o", show=False,
            tooltip="Back to the search before (a typed one, or what a jump replaced: a similar "
                    "paper's enter, a facet, a saved search), its order and the paper the cursor was on",
            id="jump-back"),
    Binding("ctrl+i,alt+right", "walk(1)", "Forward", key_display="ctrl+i", show=False,
            tooltip="Forward again to the search ctrl+o came back from (alt+right too)",
            id="jump-forward"),
    Binding("T", "triage", "Triage", show=False,
            tooltip="Triage mode: the results (or the marked papers) one at a time, a key per "
                    "decision; resumes where it stopped", id="triage"),
    Binding("ctrl+t", "tags", "Tags", show=False,
            tooltip="Every tag: rename, merge or delete one across the catalog (u undoes)", id="tags"),
    Binding("i", "stats", "Statistics", show=False,
            tooltip="Charts: papers per year, top venues, ratings, papers read per week, a tag "
                    "over the years", id="stats"),
    Binding("O", "cycle_sort", "Sort", show=False,
            tooltip="Sort by relevance, year, rating, title or date added, in turn (clicking a "
                    "column header sorts by it; again reverses)", id="sort"),
    Binding("b", "toggle_sidebar", "Sidebar", show=False, tooltip="Show or hide the facets",
            id="sidebar"),
    Binding("f", "focus_sidebar", "Facets", show=False,
            tooltip="Jump to the facets (showing them if hidden); escape comes back", id="facets"),
    Binding("R,f5", "refresh", "Refresh", show=False,
            tooltip="Search again now (changes made elsewhere also show by themselves within a second)",
            id="refresh"),
    Binding("question_mark", "help", "Help", key_display="?", tooltip="This list of keys",
            id="help"),
    Binding("q", "quit", "Quit", show=False, tooltip="Leave catalog", id="quit"),
]

# Paper keys on an empty list, and what each would have done (said when one is pressed).
EMPTY_VERBS = {"tag": "tag", "status": "set a status on", "rate": "rate", "note": "write a note on",
               "note_in_editor": "write a note on", "fields": "correct", "delete": "delete",
               "title": "give a title to", "browse": "open", "copy": "copy", "similar": "find papers like",
               "triage": "triage", "references": "list the references of"}


def why_not(key: str, query: str) -> str | None:
    """Why `key`, a paper's key, does nothing on an empty list of `query`'s results (None for
    the other keys)."""
    action = next((b.action for b in BINDINGS if key in b.key.split(",")), "")
    verb = EMPTY_VERBS.get(action)
    if verb is None:
        return None
    query = query.strip()
    reason = f"no papers match {query}" if query else "the catalog is empty (catalog import PATH)"
    return f"No paper to {verb}: {reason}"

# Triage mode (screens/triage.py): one paper at a time, one key per decision, then the next.
TRIAGE_DECISIONS = frozenset({"decide", "rate_now", "tag_now", "later"})
TRIAGE_BINDINGS = [
    Binding("q", "decide('queued')", "Queue", tooltip="Status queued (to read later), then the "
            "next paper", id="triage-queue"),
    Binding("r", "decide('reading')", "Reading", tooltip="Status reading (reading it now)",
            id="triage-reading"),
    Binding("d", "decide('read')", "Read", show=False, tooltip="Status read (done already)",
            id="triage-read"),
    Binding("s", "decide('skipped')", "Skip", tooltip="Status skipped: not for you",
            id="triage-skip"),
    Binding("1", "rate_now(1)", "Rate", key_display="1-5", tooltip="1 to 5 stars, then the next paper",
            id="triage-rate-1"),
    *(Binding(str(i), f"rate_now({i})", f"Rate {i}", show=False, id=f"triage-rate-{i}")
      for i in range(2, 6)),
    Binding("t", "tag_now", "Tag", tooltip="Add or remove tags (the tag dialog), then the next "
            "paper", id="triage-tag"),
    Binding("n", "later", "Later", tooltip="No decision now: it comes again after the others "
            "(] in the text too)", id="triage-later"),
    Binding("p,backspace", "previous", "Back", key_display="p", show=False,
            tooltip="The paper before ([ in the text too)", id="triage-back"),
    Binding("u", "undo", "Undo", tooltip="Take back the last decision and show that paper again",
            id="triage-undo"),
    Binding("o", "browse", "Open", show=False,
            tooltip="Open the paper's page in your browser", id="triage-open"),
    Binding("escape", "leave", "Leave", tooltip="Back to the list; T on the same results resumes "
            "here", id="triage-leave"),
    Binding("question_mark", "help", "Help", key_display="?", show=False,
            tooltip="The triage keys", id="triage-help"),
]
