"""Changes users make to papers and saved searches, each recorded as what it really changed
(results.TagsChanged, FieldChanged, NoteChanged, SavedSearchChanged, and
PaperEdited, catalog/parts/corrections.py's, PaperDeleted, catalog/parts/deleting.py's), and each taken back by
`revert` only where the catalog still holds what it wrote: another shell's or person's change
made since is left alone, and said so. The functions run inside a write transaction `tx`."""

from __future__ import annotations

from collections.abc import Sequence

from catalog.results import (
    Change, FieldChanged, NoteChanged, PaperDeleted, PaperEdited, SavedSearchChanged, TagsChanged,
)
from catalog.rules import USER_FIELDS, now


def change_tags(tx, pid: int, add: Sequence[str], remove: Sequence[str]) -> TagsChanged:
    """Add and remove tags on one paper; the change names only what really changed."""
    have = {name.casefold() for name in tx.edits.tags_of(pid)}
    added = tuple(dict.fromkeys(t for t in add if t.casefold() not in have))
    adding = {a.casefold() for a in added}
    removed = tuple(dict.fromkeys(t for t in remove if t.casefold() in have and t.casefold() not in adding))
    for name in added:
        tx.edits.add_tag(pid, name)
    for name in removed:
        tx.edits.remove_tag(pid, name)
    if added or removed:
        tx.edits.touch(pid)
    return TagsChanged(tx.papers.key_of(pid), added, removed)


def change_tags_of(tx, papers: Sequence[tuple[int, str, Sequence[str], Sequence[str]]]) -> list[TagsChanged]:
    """change_tags on many papers, each (id, key, add, remove) and each at most once, with the
    tag rows changed at once: a paper is indexed again once, not once per tag row."""
    names = list(dict.fromkeys(name for *_, add, remove in papers for name in (*add, *remove)))
    have: dict[int, set[str]] = {}
    for row in tx.edits.tags_on_papers(names):
        have.setdefault(row.paper_id, set()).add(row.name.casefold())
    done, adds, removes = [], [], []
    for pid, key, add, remove in papers:
        tags = have.get(pid, set())
        added = tuple(dict.fromkeys(t for t in add if t.casefold() not in tags))
        adding = {a.casefold() for a in added}
        removed = tuple(dict.fromkeys(t for t in remove if t.casefold() in tags and t.casefold() not in adding))
        adds += [(pid, name) for name in added]
        removes += [(pid, name) for name in removed]
        done.append(TagsChanged(key, added, removed))
    if adds or removes:
        tx.edits.change_tags(adds, removes)
    return done


def set_field(tx, pid: int, field: str, value) -> FieldChanged | None:
    """Set status, rating or the user's title; None when it already had that value."""
    before = tx.edits.user_field(pid, field)
    if before == value:
        return None
    tx.edits.set_user_field(pid, field, value)
    return FieldChanged(tx.papers.key_of(pid), field, before, value)


def add_note(tx, pid: int, body: str) -> NoteChanged:
    created = now()
    note_id = tx.edits.add_note(pid, body, created, created)
    tx.edits.touch(pid)
    return NoteChanged(tx.papers.key_of(pid), note_id, None, body, created)


def edit_note(tx, pid: int, note, body: str) -> NoteChanged:
    tx.edits.set_note(note.id, body)
    tx.edits.touch(pid)
    return NoteChanged(tx.papers.key_of(pid), note.id, note.body, body, note.created_at)


def delete_note(tx, pid: int, note) -> NoteChanged:
    tx.edits.delete_note(note.id)
    tx.edits.touch(pid)
    return NoteChanged(tx.papers.key_of(pid), note.id, note.body, None, note.created_at, note.author)


def save_search(tx, name: str, query: str | None) -> SavedSearchChanged:
    """Save (or with None delete) the search `name`."""
    before = tx.edits.saved_query(name)
    tx.edits.save_query(name, query)
    return SavedSearchChanged(name, before, query)


# --- taking a change back ---------------------------------------------------------------------

def revert_tags(tx, changes: Sequence[tuple[int, TagsChanged]]) -> list[TagsChanged]:
    """`revert` of tag changes on distinct papers (id, change), at once: what was done."""
    done = change_tags_of(tx, [(pid, change.key, change.removed, change.added) for pid, change in changes])
    return [inverse for inverse in done if inverse.added or inverse.removed]


def revert(tx, pid: int | None, change: Change) -> tuple[Change | None, str | None]:
    """Undo one change where the catalog still shows it: (what was done, or None; why not)."""
    if isinstance(change, TagsChanged):
        have = {name.casefold() for name in tx.edits.tags_of(pid)}
        inverse = change_tags(tx, pid, [t for t in change.removed if t.casefold() not in have],
                              [t for t in change.added if t.casefold() in have])
        return (inverse if inverse.added or inverse.removed else None), None
    if isinstance(change, FieldChanged):
        current = tx.edits.user_field(pid, change.field)
        if current == change.before:
            return None, None
        if current != change.after:
            return None, (f"the {USER_FIELDS[change.field]} of {change.key} was changed since "
                          f"(now {_shown(current)}): left as is")
        return set_field(tx, pid, change.field, change.before), None
    if isinstance(change, NoteChanged):
        return _revert_note(tx, pid, change)
    if isinstance(change, PaperDeleted):
        from catalog.parts import deleting

        return deleting.revert(tx, pid, change)
    if isinstance(change, PaperEdited):
        from catalog.parts import corrections

        return corrections.revert(tx, pid, change)
    current = tx.edits.saved_query(change.name)
    if current == change.before:
        return None, None
    if current != change.after:
        return None, f"saved search {change.name!r} was changed since: left as is"
    return save_search(tx, change.name, change.before), None


def _revert_note(tx, pid: int, change: NoteChanged) -> tuple[Change | None, str | None]:
    if change.after is None:  # deleted: put it back where it was
        note_id = tx.edits.add_note(pid, change.before, change.created_at, author=change.author or None)
        tx.edits.touch(pid)
        return NoteChanged(change.key, note_id, None, change.before, change.created_at, change.author), None
    current = tx.edits.note_body(change.note_id)
    if current is None:
        return None, (None if change.before is None
                      else f"a note on {change.key} was deleted since: not brought back")
    if current != change.after:
        return None, f"a note on {change.key} was edited since: left as is"
    if change.before is None:  # created: delete it
        tx.edits.delete_note(change.note_id)
    else:
        tx.edits.set_note(change.note_id, change.before)
    tx.edits.touch(pid)
    return NoteChanged(change.key, change.note_id, change.after, change.before, change.created_at), None


def _shown(value) -> str:
    return "none" if value is None else repr(value) if isinstance(value, str) else str(value)
