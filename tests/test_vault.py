"""The Markdown vault export (issue 17, item 15): one file per paper for Obsidian and Logseq,
regenerated above a marker line, the user's own writing below it kept."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from catalog.export.vault import MARKER
from catalog.library import Catalog

PAPERS = [
    {"title": "Attention: is \"all\" you need? #1 [draft]", "authors": ["Ashish Vaswani", "Noam Shazeer"],
     "venue": "NeurIPS", "year": 2017, "kind": "conference", "doi": "10.5555/attention",
     "arxiv_id": "1706.03762",
     "abstract": "We propose the *Transformer*, with $\\mathcal{O}(n^2)$ attention.\n\nA second paragraph: "
                 "---\nnot a YAML fence."},
    {"abstract": "A paper list abstract about $\\ell_1$ sparse coding and its many uses, without a title at all.",
     "venue": "ICLR", "year": 2024},
]


def front_matter(text: str) -> dict:
    assert text.startswith("---\n")
    head, _, _ = text[4:].partition("\n---\n")
    return yaml.safe_load(head)


@pytest.fixture
def catalog(tmp_path):
    source = tmp_path / "papers.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in PAPERS))
    catalog = Catalog.open(tmp_path / "catalog.db")
    catalog.import_paths([source])
    yield catalog
    catalog.close()


def keys(catalog) -> dict[str, str]:
    return {(p.title or "untitled"): p.key for p in catalog.exchange.export_papers("")}


def test_one_markdown_file_per_paper_with_front_matter(catalog, tmp_path):
    attention = keys(catalog)[PAPERS[0]["title"]]
    catalog.tag([attention], ["toread", "project/thesis"])
    catalog.set_status([attention], "reading")
    catalog.set_rating([attention], 4)
    catalog.add_note(attention, "Check **section 3**.\n\n- the proof\n---\nstill the note")
    vault = tmp_path / "vault"
    report = catalog.exchange.export("", "vault", vault)
    assert report.papers == 2
    assert sorted(p.name for p in vault.iterdir()) == sorted(f"{k}.md" for k in keys(catalog).values())
    text = (vault / f"{attention}.md").read_text(encoding="utf-8")
    meta = front_matter(text)
    assert meta == {
        "key": attention, "title": PAPERS[0]["title"], "aliases": [PAPERS[0]["title"]],
        "authors": ["Ashish Vaswani", "Noam Shazeer"], "venue": "NeurIPS", "year": 2017,
        "kind": "conference", "doi": "10.5555/attention", "arxiv": "1706.03762", "url": None,
        "tags": ["project/thesis", "toread"], "status": "reading", "rating": 4}
    assert "We propose the Transformer, with 𝒪(n²) attention." in text  # rendered, like `show`
    assert "Check **section 3**.\n\n- the proof\n---\nstill the note" in text  # your Markdown as written
    assert text.rstrip().endswith(MARKER)
    untitled = (vault / f"{keys(catalog)['untitled']}.md").read_text(encoding="utf-8")
    meta = front_matter(untitled)
    assert (meta["title"], meta["authors"], meta["tags"], meta["rating"], meta["status"],
            meta["kind"]) == (meta["aliases"][0], [], [], None, "unread", None)
    assert "ℓ₁ sparse coding" in untitled


def test_re_export_updates_the_top_and_keeps_what_you_wrote_below_the_marker(catalog, tmp_path):
    vault = tmp_path / "vault"
    catalog.exchange.export("", "vault", vault)
    attention = keys(catalog)[PAPERS[0]["title"]]
    path = vault / f"{attention}.md"
    mine = "\n## My reading notes\n\nLinks to [[other-note]] and a YAML-looking line:\n---\nkey: not mine\n"
    path.write_text(path.read_text(encoding="utf-8") + mine, encoding="utf-8")
    catalog.tag([attention], ["read-later"])
    catalog.set_title(attention, "Transformers")
    report = catalog.exchange.export("", "vault", vault)
    assert (report.papers, report.unchanged) == (2, 1)
    text = path.read_text(encoding="utf-8")
    assert front_matter(text)["tags"] == ["read-later"]
    assert front_matter(text)["aliases"] == ["Transformers", PAPERS[0]["title"]]
    assert text.endswith(MARKER + "\n" + mine)
    assert text.count(MARKER) == 1


def test_unchanged_files_are_not_rewritten(catalog, tmp_path):
    vault = tmp_path / "vault"
    catalog.exchange.export("", "vault", vault)
    stamps = {p.name: p.stat().st_mtime_ns for p in vault.iterdir()}
    for p in vault.iterdir():
        os.utime(p, ns=(1, 1))
    report = catalog.exchange.export("", "vault", vault)
    assert report.unchanged == 2
    assert {p.name: p.stat().st_mtime_ns for p in vault.iterdir()} == dict.fromkeys(stamps, 1)


def test_a_file_without_the_marker_is_left_alone(catalog, tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    attention = keys(catalog)[PAPERS[0]["title"]]
    (vault / f"{attention}.md").write_text("my own file, no marker\n")
    report = catalog.exchange.export("", "vault", vault)
    assert (vault / f"{attention}.md").read_text() == "my own file, no marker\n"
    assert report.skipped == (f"{vault / (attention + '.md')}: no catalog marker line; left as it is",)


def test_vault_from_the_command_line(run_cli, tmp_path, catalog):
    vault = tmp_path / "notes"
    attention = keys(catalog)[PAPERS[0]["title"]]
    catalog.tag([attention], ["toread"])
    result = run_cli("export", "tag:toread", "--format", "vault", str(vault))
    assert result.exit_code == 0, result.output
    assert "Exported 1 paper to" in result.stderr and "(vault)" in result.stderr
    assert [p.name for p in vault.iterdir()] == [f"{attention}.md"]
    result = run_cli("export", "--format", "vault", "-o", str(vault))
    assert result.exit_code == 0 and sorted(p.name for p in vault.iterdir()) == sorted(
        f"{k}.md" for k in keys(catalog).values())
    result = run_cli("export", "--format", "vault")
    assert result.exit_code != 0 and "say which folder" in result.stderr
    (tmp_path / "file.md").write_text("x")
    result = run_cli("export", "--format", "vault", str(tmp_path / "file.md"))
    assert result.exit_code == 1 and "is not a folder" in result.stderr and "Traceback" not in result.output
