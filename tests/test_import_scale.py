"""Large imports stay linear: many papers sharing a made cite key (a venue's papers without
authors) each get their own, continuing across files and past the blocks of suffixes asked
of the database at once, as a few papers' keys do."""

from __future__ import annotations

from pathlib import Path


def _paper_list(path: Path, header: str, abstracts: list[str]) -> Path:
    path.write_text(header + "\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    return path


def _cite_keys(catalog) -> list[str]:
    return [p.cite_key for p in catalog.exchange.export_papers("")]


def test_papers_sharing_a_made_key_each_get_the_next_suffix_across_files(empty_any, tmp_path):
    empty_catalog = empty_any  # both backends: the keys starting with one are read with LIKE
    first = _paper_list(tmp_path / "a.txt", "ICML 2026 Papers",
                        [f"Sparse probes number {i} find feature {i * 7919 % 1000} in layer {i}." for i in range(70)])
    second = _paper_list(tmp_path / "b.txt", "ICML 2026 Papers",
                         [f"Sparse heads number {i} read token {i * 104729 % 1000} late." for i in range(3)])
    assert empty_catalog.import_paths([first]).files[0].new == 70
    assert empty_catalog.import_paths([second]).files[0].new == 3
    keys = _cite_keys(empty_catalog)
    assert len(keys) == 73 and None not in keys and len(set(keys)) == 73
    expected = ["icml2026-sparse"] + [f"icml2026-sparse{chr(ord('a') + n)}" for n in range(26)] \
        + [f"icml2026-sparse{n}" for n in range(27, 73)]
    assert sorted(keys) == sorted(expected)


def test_file_keys_differing_only_in_case_take_suffixes(empty_catalog, tmp_path):
    bib = tmp_path / "refs.bib"
    entries = [f"@article{{{key},\n  title = {{Paper {n} on matrices {n * 31}}},\n  year = 2020,\n"
               f"  abstract = {{We study matrices of kind {n} and rank {n * 17}.}}\n}}\n"
               for n, key in enumerate(["Smith2020", "smith2020", "SMITH2020", "smith2020_x"])]
    bib.write_text("\n".join(entries), encoding="utf-8")
    report = empty_catalog.import_paths([bib])
    assert report.files[0].new == 4
    assert sorted(k.lower() for k in _cite_keys(empty_catalog)) == \
        ["smith2020", "smith2020-2", "smith2020-3", "smith2020_x"]
    assert sum("is another paper's already" in w for w in report.files[0].warnings) == 2


def test_one_files_batches_share_what_they_learned_of_keys(empty_catalog, tmp_path, monkeypatch):
    """A file read in several batches (small ones here) gives the next suffix in each, never
    one an earlier batch of the same file gave."""
    from catalog.importing import prepare

    monkeypatch.setattr(prepare, "BATCH", 7)
    source = _paper_list(tmp_path / "c.txt", "ICLR 2025 Papers",
                         [f"Dense probes number {i} find feature {i * 7919 % 1000} in layer {i}." for i in range(40)])
    assert empty_catalog.import_paths([source]).files[0].new == 40
    keys = _cite_keys(empty_catalog)
    assert sorted(keys) == sorted(["iclr2025-dense"] + [f"iclr2025-dense{chr(ord('a') + n)}" for n in range(26)]
                                  + [f"iclr2025-dense{n}" for n in range(27, 40)])
