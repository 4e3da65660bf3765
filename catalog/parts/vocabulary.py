"""A catalog's tags as a vocabulary: rename, merge and delete a tag on every paper carrying it.

A tag names its children too, as `tag:project` finds `project/thesis`: renaming `project` to
`work` makes `project/thesis` `work/thesis`, merging `ml` into `learning` makes `ml/x`
`learning/x`, and deleting `project` takes `project/thesis` off as well. Each operation is
recorded per paper as the tags it removed and added (results.TagsChanged), so
`Catalog.undo` takes it back like any other change: a paper tagged again since keeps that.
On a server tags are shared by the members: a rename there is seen by everyone, and its undo
takes back only what this rename did.

Reached as `catalog.vocabulary` (given the Catalog, whose kept .bib files follow the tags)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from catalog import rules
from catalog.errors import CatalogError
from catalog.results import Edit, TagsChanged
from catalog.store.rows import TagOnPaper



def renamed(name: str, old: str, new: str | None) -> str | None:
    """`name` after renaming `old` (and its children) to `new`: unchanged when not under `old`,
    None when deleted (`new` None). Tags compare without case."""
    folded, under = name.casefold(), old.casefold()
    if folded != under and not folded.startswith(under + "/"):
        return name
    return None if new is None else new + name[len(old):]


class Vocabulary:
    """Tags across the catalog: rename, merge, delete; each returns an Edit `Catalog.undo` takes back."""

    def __init__(self, catalog):  # the Catalog (not imported: it imports this part)
        self.catalog = catalog

    def rename(self, old: str, new: str) -> Edit:
        """Rename tag `old` (and `old/...`) to `new` on every paper; into a tag that exists already,
        the two become one."""
        old, new = rules.tag_name(old), rules.tag_name(new)
        if old.casefold() == new.casefold():
            raise CatalogError(f"tags compare without case: {old!r} and {new!r} are the same tag")
        if new.casefold().startswith(old.casefold() + "/"):
            raise CatalogError(f"cannot rename {old!r} to {new!r}, a tag below itself")
        return self._retag({old: new})

    def merge(self, names: Sequence[str], into: str) -> Edit:
        """Every paper tagged with one of `names` (or below one) is tagged `into` instead."""
        into = rules.tag_name(into)
        olds = [n for n in dict.fromkeys(rules.tag_name(n) for n in names) if n.casefold() != into.casefold()]
        if not olds:
            raise CatalogError(f"name tags to merge into {into!r} other than itself")
        for old in olds:
            if into.casefold().startswith(old.casefold() + "/"):
                raise CatalogError(f"cannot merge {old!r} into {into!r}, a tag below it")
        return self._retag(dict.fromkeys(olds, into))

    def delete(self, name: str) -> Edit:
        """Take tag `name` (and `name/...`) off every paper."""
        return self._retag({rules.tag_name(name): None})

    def _retag(self, renames: dict[str, str | None]) -> Edit:
        store = self.catalog.store
        with store.write() as tx:
            # Every tag row the renames reach (a tag's children are rows of their own).
            moves = {t.name: after for t in tx.papers.tag_counts()
                     for after in [_after(t.name, renames)] if after != t.name}
            on = tx.edits.tags_on_papers([*moves, *{new for new in moves.values() if new}])
            if not any(row.name in moves for row in on):
                raise CatalogError(f"no paper is tagged {_names(renames)} (`catalog tags` lists the tags)")
            done = _changes(on, moves)
            # Set-based, in the store: one change per paper took 10.6 s for a tag on 5,000
            # papers. A new name differing from an old one only in case is refused above, so
            # the old and new tag rows never fold together.
            tx.edits.rename_tags(list(moves.items()))
            tx.edits.drop_unused_tags()
            ids = list(dict.fromkeys(row.paper_id for row in on if row.name in moves))
            edit = Edit(tuple(done), tuple(tx.papers.summaries(ids)))
        self.catalog.citing.keep_current()
        return edit


def _after(tag: str, renames: dict[str, str | None]) -> str | None:
    """The tag after the first rename that reaches it (itself when none does)."""
    for old, new in renames.items():
        after = renamed(tag, old, new)
        if after != tag:
            return after
    return tag


def _changes(on: Iterable[TagOnPaper], moves: dict[str, str | None]) -> list[TagsChanged]:
    """What the renames change on each paper, as Catalog.undo takes it back: the old names it
    carried, and the new ones it did not carry already."""
    papers: dict[int, tuple[str, list[str], set[str]]] = {}
    for row in on:
        _, removed, have = papers.setdefault(row.paper_id, (row.key, [], set()))
        have.add(row.name.casefold())
        if row.name in moves:
            removed.append(row.name)
    done = []
    for key, removed, have in papers.values():
        added = [new for new in dict.fromkeys(moves[old] for old in removed) if new and new.casefold() not in have]
        if removed:
            done.append(TagsChanged(key, tuple(added), tuple(removed)))
    return done


def _names(renames: dict) -> str:
    return " or ".join(repr(n) for n in renames)
