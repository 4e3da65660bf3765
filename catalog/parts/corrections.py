"""Correcting a paper's own fields by hand: title, authors, venue, year, DOI, URL.

An edit writes the paper's columns (with the search text that follows a title or authors, and
the authors as people), and the same values into the paper's kept records, so an export in
the record's format writes what the user wrote, not what the file said (export/kept.py). It
also takes the edited fields out of what each merge says it filled, so `catalog split` never
blanks a correction; and enrichment fills only empty fields, so it never overwrites one.
Each edit is a results.PaperEdited that `Catalog.undo` takes back where the paper still
holds what the edit wrote. Reached as `catalog.corrections`."""

from __future__ import annotations

import json

from catalog import rules
from catalog.errors import CatalogError
from catalog.results import Edit, PaperEdited


FIELDS = ("title", "authors", "venue", "year", "doi", "url")
# The paper columns an edit reads to write them back (with what follows a title or authors).
_COLUMNS = ("title", "authors", "venue", "year", "doi", "arxiv_id", "url", "abstract", "abstract_text",
            "headline", "user_title", "fingerprint")


def checked(field: str, text: str | None):
    """A value as typed (a string, None or "" to clear) as the paper stores it; CatalogError
    with one line when it cannot be one."""
    from catalog.ingest import fields

    if field not in FIELDS:
        raise CatalogError(f"no field {field!r}: a paper's fields are {', '.join(FIELDS)}")
    text = " ".join(rules.user_line(text or "").split())
    if not text:
        return None
    if field == "year":
        year = fields.year(text) if text.isdigit() else None
        if year is None:
            raise CatalogError(f"{text!r} is not a year (like 2024)")
        return year
    if field == "doi":
        doi = fields.doi(text)
        if doi is None:
            raise CatalogError(f"{text!r} is not a DOI (like 10.1000/xyz123)")
        return doi
    if field == "url":
        if not text.lower().startswith(("http://", "https://")) or " " in text:
            raise CatalogError(f"{text!r} is not a link (http:// or https://)")
        return text
    if field == "authors":  # "A B, C D", "A B and C D" or "A B; C D" -> the catalog's "A B, C D"
        import re

        names = [n.strip() for n in re.split(r",|;|\band\b", text) if n.strip()]
        return ", ".join(names)
    return text


class Corrections:
    def __init__(self, catalog):  # the Catalog (not imported: it imports this part)
        self.catalog = catalog

    def edit(self, key: str, values: dict[str, str | None]) -> Edit:
        """Set these fields (as typed; empty clears one) on paper `key`."""
        from catalog.searching.lookup import resolve_key

        wanted = {field: checked(field, text) for field, text in values.items()}
        if not wanted:
            raise CatalogError(f"say which field to change: {', '.join(FIELDS)}")
        with self.catalog.store.write() as tx:
            pid = resolve_key(tx, key)
            change = _apply(tx, pid, wanted)
            edit = Edit((change,) if change else (), tuple(tx.papers.summaries([pid])))
        if change:
            self.catalog.citing.keep_current()
        return edit


def _apply(tx, pid: int, wanted: dict[str, object]) -> PaperEdited | None:
    current = tx.imports.paper_columns(pid, _COLUMNS)
    changed = {f: v for f, v in wanted.items() if current[f] != v}
    if not changed:
        return None
    before = tuple((f, current[f]) for f in changed)
    kept_before, kept_after = _write(tx, pid, current, changed)
    return PaperEdited(tx.papers.key_of(pid), before, tuple(changed.items()), kept_before, kept_after)


def _write(tx, pid: int, current: dict, changed: dict[str, object]):
    """Write `changed` to the paper, its kept records and its merges; the kept records'
    fields before and after."""
    from catalog.export.kept import with_edit
    from catalog.importing.dedupe import save
    from catalog.rules import now

    columns = dict(changed)
    current.update(changed)
    if "title" in changed and not current["abstract"]:
        columns["headline"] = current["headline"] = current["title"] or ""  # an untitled paper's label
    save(tx, pid, columns, current, now())
    if "authors" in changed:
        tx.imports.set_authors([(pid, changed["authors"])])
    kept_before, kept_after = [], []
    for kept in tx.imports.kept_rows(pid):
        fields = json.loads(kept.fields)
        for field, value in changed.items():
            fields = with_edit(kept.format, fields, field, value)
        rewritten = json.dumps(fields, ensure_ascii=False)
        if rewritten != kept.fields:
            tx.imports.set_kept_fields(kept.source_id, kept.position, rewritten)
            kept_before.append((kept.source_id, kept.position, kept.fields))
            kept_after.append((kept.source_id, kept.position, rewritten))
    for merge in tx.merges.merges_into(pid):  # a split gives back what merges filled: not these
        filled = merge.filled.split()
        if set(filled) & changed.keys():
            tx.merges.set_merge(merge.id, filled=" ".join(f for f in filled if f not in changed))
    return tuple(kept_before), tuple(kept_after)


def revert(tx, pid: int, change: PaperEdited) -> tuple[PaperEdited | None, str | None]:
    """Undo an edit where the paper still holds what it wrote (changes.revert's way)."""
    current = tx.imports.paper_columns(pid, _COLUMNS)
    after = dict(change.after)
    moved = [f for f, v in after.items() if current[f] != v]
    if moved:
        return None, (f"the {', '.join(moved)} of {change.key} {'was' if len(moved) == 1 else 'were'} "
                      "changed since: left as is")
    back = dict(change.before)
    save_before = {f: current[f] for f in back}
    from catalog.importing.dedupe import save
    from catalog.rules import now

    current.update(back)
    columns = dict(back)
    if "title" in back and not current["abstract"]:
        columns["headline"] = current["headline"] = current["title"] or ""
    save(tx, pid, columns, current, now())
    if "authors" in back:
        tx.imports.set_authors([(pid, back["authors"])])
    now_kept = {(k.source_id, k.position): k.fields for k in tx.imports.kept_rows(pid)}
    restored = []
    for (source_id, position, stored), (_, _, wrote) in zip(change.kept_before, change.kept_after):
        if now_kept.get((source_id, position)) == wrote:
            tx.imports.set_kept_fields(source_id, position, stored)
            restored.append((source_id, position))
    kept_after = tuple(k for k in change.kept_before if (k[0], k[1]) in restored)
    kept_before = tuple(k for k in change.kept_after if (k[0], k[1]) in restored)
    return PaperEdited(change.key, tuple(save_before.items()), tuple(back.items()), kept_before, kept_after), None
