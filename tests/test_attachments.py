"""Attached files: attach (copied into the folder of files, or linked), the same bytes twice,
detach, files, open (a PDF before the link), and doctor's missing files; on both backends
for what the store keeps, and a member detaching only their own files on a server."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from catalog.library import Catalog, CatalogError
from tests.conftest import opened

PDF = b"%PDF-1.4\n% a paper\n"


@pytest.fixture
def a_pdf(tmp_path: Path) -> Path:
    path = tmp_path / "downloads" / "2401.00001v2.pdf"
    path.parent.mkdir()
    path.write_bytes(PDF)
    return path


@pytest.fixture
def opener(tmp_path: Path, monkeypatch) -> Path:
    """$CATALOG_OPENER as a command that writes each path it gets to the file returned, and
    prints to its own output (which must reach no terminal)."""
    log = tmp_path / "opener.log"
    monkeypatch.setenv("CATALOG_OPENER",
                       f"""sh -c 'echo "$1" >> "$0"; echo OPENER-NOISE; echo OPENER-ERR >&2' {shlex.quote(str(log))} %s""")
    return log


def with_link(catalog: Catalog, tmp_path: Path) -> str:
    """The key of a paper with a DOI (the seeds' papers have no link)."""
    bib = tmp_path / "one.bib"
    bib.write_text("@article{a, title={Rate Reduction for Linked Papers}, author={Ann Smith},"
                   " year={2024}, doi={10.1000/rate.1}, abstract={We reduce the rate of linked papers.}}\n")
    assert not catalog.import_paths([bib]).errors
    return catalog.search("10.1000/rate.1", limit=1)[0].key


def first_key(catalog: Catalog) -> str:
    return catalog.search("steering vector", limit=1)[0].key


def test_attach_copies_into_the_folder_beside_the_catalog_under_a_readable_name(seeded, db_path, a_pdf):
    key = first_key(seeded)
    attachment, new = seeded.files.attach_file(key, a_pdf)
    assert new
    copy = Path(attachment.location)
    assert copy.parent == db_path.with_name("catalog-files")
    assert copy.name.startswith("2026 - ") and copy.name.endswith(".pdf")
    assert copy.read_bytes() == PDF
    assert a_pdf.exists()  # the original stays
    assert [a.name for a in seeded.get(key).attachments] == ["2401.00001v2.pdf"]


def test_the_same_bytes_attached_again_change_nothing(seeded, db_path, a_pdf, tmp_path):
    key = first_key(seeded)
    first, _ = seeded.files.attach_file(key, a_pdf)
    again = tmp_path / "again.pdf"
    again.write_bytes(PDF)
    second, new = seeded.files.attach_file(key, again)
    assert not new and second.id == first.id
    assert len(seeded.files.attachments(key)) == 1
    assert len(list(db_path.with_name("catalog-files").iterdir())) == 1


def test_a_linked_file_stays_where_it_is_and_doctor_reports_it_gone(seeded, db_path, a_pdf, run_cli):
    key = first_key(seeded)
    attachment, _ = seeded.files.attach_file(key, a_pdf, link=True)
    assert attachment.stored == "linked" and attachment.location == str(a_pdf)
    assert not db_path.with_name("catalog-files").exists()
    assert run_cli("doctor").exit_code == 0
    a_pdf.unlink()
    assert seeded.files.attachments(key)[0].present is False
    doctor = run_cli("doctor")
    assert doctor.exit_code == 1
    assert f"{key}: file 1 (2401.00001v2.pdf) is missing: {a_pdf}" in doctor.output
    assert "salvage" not in doctor.output  # not a damaged database
    assert "MISSING" in run_cli("files", key).output


def test_detach_deletes_a_copy_only_when_told(seeded, a_pdf, run_cli):
    key = first_key(seeded)
    copy = Path(seeded.files.attach_file(key, a_pdf)[0].location)
    refused = run_cli("detach", key)  # no terminal to ask on, no --yes
    assert refused.exit_code == 1 and "--yes" in refused.output
    assert copy.exists() and len(seeded.files.attachments(key)) == 1
    done = run_cli("detach", key, "1", "--yes")
    assert done.exit_code == 0, done.output
    assert not copy.exists() and seeded.files.attachments(key) == ()
    assert a_pdf.exists()


def test_detach_never_deletes_a_linked_file(seeded, a_pdf, run_cli):
    key = first_key(seeded)
    seeded.files.attach_file(key, a_pdf, link=True)
    assert run_cli("detach", key).exit_code == 0
    assert a_pdf.exists() and seeded.files.attachments(key) == ()


def test_detach_a_number_the_paper_does_not_have_is_one_line(seeded, a_pdf, run_cli):
    key = first_key(seeded)
    seeded.files.attach_file(key, a_pdf)
    result = run_cli("detach", key, "2", "--yes")
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "no attached file 2" in result.output
    assert len(seeded.files.attachments(key)) == 1


@pytest.mark.parametrize("what", ["missing", "folder"])
def test_attaching_what_is_not_a_file_is_one_line_and_attaches_nothing(seeded, tmp_path, run_cli, what):
    key = first_key(seeded)
    target = tmp_path / "nothing.pdf" if what == "missing" else tmp_path
    result = run_cli("attach", key, str(target))
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "Traceback" not in result.output
    assert seeded.files.attachments(key) == ()


def test_files_lists_them_as_text_and_json(seeded, a_pdf, run_cli, tmp_path):
    key = first_key(seeded)
    seeded.files.attach_file(key, a_pdf)
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    assert run_cli("attach", "--link", key, str(notes)).exit_code == 0
    listed = json.loads(run_cli("files", key, "--json").output)
    assert [(f["number"], f["name"], f["stored"], f["size"]) for f in listed] == [
        (1, "2401.00001v2.pdf", "managed", len(PDF)), (2, "notes.txt", "linked", 4)]
    assert "2. notes.txt" in run_cli("files", key).output
    assert json.loads(run_cli("show", key, "--json").output)["attachments"][1]["path"] == str(notes)


def test_open_opens_the_pdf_first_and_the_opener_prints_nowhere(seeded, a_pdf, run_cli, opener, browser, capfd,
                                                               tmp_path):
    key = with_link(seeded, tmp_path)
    copy = seeded.files.attach_file(key, a_pdf)[0].location
    result = run_cli("open", key)
    assert result.exit_code == 0, result.output
    assert opened(opener) == [copy] and opened(browser) == []
    seen = capfd.readouterr()
    assert "OPENER" not in seen.out + seen.err + result.output
    assert run_cli("open", key, "--link").exit_code == 0
    assert len(opened(browser)) == 1 and opened(opener) == [copy]


def test_open_without_an_opener_is_one_line(seeded, a_pdf, run_cli, monkeypatch):
    key = first_key(seeded)
    seeded.files.attach_file(key, a_pdf)
    monkeypatch.delenv("CATALOG_OPENER", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    result = run_cli("open", key)
    assert result.exit_code == 1 and "no program to open" in result.output and "Traceback" not in result.output


def test_open_a_paper_whose_file_is_gone_opens_its_link(seeded, a_pdf, run_cli, opener, browser, tmp_path):
    key = with_link(seeded, tmp_path)
    seeded.files.attach_file(key, a_pdf, link=True)
    a_pdf.unlink()
    assert run_cli("open", key).exit_code == 0
    assert opened(opener) == [] and len(opened(browser)) == 1


def test_attachments_are_kept_on_both_backends(seeded_any, a_pdf, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_FILES", str(tmp_path / "lab-files"))
    key = first_key(seeded_any)
    attachment, new = seeded_any.files.attach_file(key, a_pdf)
    assert new and Path(attachment.location).parent == tmp_path / "lab-files"
    assert not seeded_any.files.attach_file(key, a_pdf)[1]
    assert [a.sha256 for a in seeded_any.get(key).attachments] == [attachment.sha256]
    seeded_any.files.detach(key, 1)
    assert seeded_any.files.attachments(key) == () and not Path(attachment.location).exists()


def test_on_a_server_members_detach_only_their_own_files(pg_server, people, backend, a_pdf, tmp_path, monkeypatch):
    if backend != "postgresql":
        pytest.skip("a file is one person's")
    monkeypatch.setenv("CATALOG_FILES", str(tmp_path / "lab-files"))
    ann, bob = people("ann"), people("bob")
    assert not ann.import_paths([Path(__file__).resolve().parent.parent / "seeds"]).errors
    key = first_key(ann)
    ann.files.attach_file(key, a_pdf)
    assert [a.added_by for a in bob.files.attachments(key)] == ["ann"]  # bob sees it
    with pytest.raises(CatalogError, match="attached by ann"):
        bob.files.detach(key, 1)
    assert len(ann.files.attachments(key)) == 1


def test_a_server_without_a_folder_of_files_says_so(pg_server, people, backend, a_pdf, monkeypatch):
    if backend != "postgresql":
        pytest.skip("a file's folder is beside it")
    monkeypatch.delenv("CATALOG_FILES", raising=False)
    ann = people("ann")
    assert not ann.import_paths([Path(__file__).resolve().parent.parent / "seeds"]).errors
    with pytest.raises(CatalogError, match="CATALOG_FILES"):
        ann.files.attach_file(first_key(ann), a_pdf)
    assert ann.files.attach_file(first_key(ann), a_pdf, link=True)[1]


def test_has_pdf_and_has_files_find_papers_with_attachments(seeded_any, a_pdf, tmp_path, monkeypatch):
    monkeypatch.setenv("CATALOG_FILES", str(tmp_path / "files"))
    with_pdf, with_file = first_key(seeded_any), seeded_any.search("sparse autoencoders", limit=1)[0].key
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    seeded_any.files.attach_file(with_pdf, a_pdf)
    seeded_any.files.attach_file(with_file, notes, link=True)
    assert [p.key for p in seeded_any.search("has:pdf", limit=100)] == [with_pdf]
    assert sorted(p.key for p in seeded_any.search("has:files", limit=100)) == sorted([with_pdf, with_file])
    assert with_pdf not in [p.key for p in seeded_any.search("-has:pdf", limit=100)]


def test_doctor_finds_a_moved_file_by_its_bytes(seeded, a_pdf, tmp_path, run_cli):
    key = first_key(seeded)
    seeded.files.attach_file(key, a_pdf, link=True)
    moved = tmp_path / "elsewhere" / "deeper" / "renamed.pdf"
    moved.parent.mkdir(parents=True)
    (tmp_path / "elsewhere" / "same-size.pdf").write_bytes(b"x" * len(PDF))  # same size, other bytes
    a_pdf.rename(moved)
    assert run_cli("doctor").exit_code == 1
    result = run_cli("doctor", "--find-files", str(tmp_path / "elsewhere"))
    assert result.exit_code == 0, result.output
    assert f"found {key}'s file 1 (2401.00001v2.pdf) at {moved}" in result.stderr
    assert seeded.files.attachments(key)[0].location == str(moved)


def test_copies_are_renamed_when_the_paper_gets_a_title(seeded, a_pdf, db_path, run_cli):
    key = first_key(seeded)
    old = Path(seeded.files.attach_file(key, a_pdf)[0].location)
    seeded.set_title(key, "Steering Away From Evaluation Awareness")
    [attachment] = seeded.files.attachments(key)
    assert Path(attachment.location).name == "2026 - Steering Away From Evaluation Awareness.pdf"
    assert attachment.present and not old.exists()
    assert run_cli("files", key, "--rename").stderr == ""  # nothing left to rename


def test_a_copy_left_by_a_killed_attach_is_used_not_copied_again(seeded, a_pdf, db_path, monkeypatch):
    key = first_key(seeded)
    real_write = seeded.store.write

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # killed after the copy, before the row

    monkeypatch.setattr(seeded.store, "write", killed)
    with pytest.raises(KeyboardInterrupt):
        seeded.files.attach_file(key, a_pdf)
    monkeypatch.setattr(seeded.store, "write", real_write)
    folder = db_path.with_name("catalog-files")
    assert list(folder.iterdir()) == []  # the copy of a failed attach is removed
    name = next(iter(seeded.files.attach_file(key, a_pdf)[0].location.rsplit("/", 1)[1:]))
    (folder / name).unlink()
    # As if the process died before it could remove the copy: the copy is there, no row.
    seeded.files.detach(key, 1)
    (folder / name).write_bytes(PDF)
    attachment, new = seeded.files.attach_file(key, a_pdf)
    assert new and [p.name for p in folder.iterdir()] == [name] == [Path(attachment.location).name]


def test_a_file_attached_meanwhile_by_another_process_keeps_its_copy(seeded, a_pdf, db_path, monkeypatch):
    """Two processes attach the same file to the same paper at once (two imports of one
    folder): the second finds the first's copy under the same name, and its row. It must leave
    that copy alone, since the first's attachment is that file."""
    from catalog.store.edits import EditQueries

    key = first_key(seeded)
    first, _ = seeded.files.attach_file(key, a_pdf)
    monkeypatch.setattr(EditQueries, "attachment_with", lambda self, paper_id, sha256: None)  # looked before it committed
    second, new = seeded.files.attach_file(key, a_pdf)
    assert not new and second.id == first.id
    assert Path(first.location).exists() and Path(first.location).read_bytes() == a_pdf.read_bytes()


def test_a_copy_killed_midway_leaves_no_half_file_under_a_papers_name(seeded, a_pdf, db_path, monkeypatch):
    """The bytes go to a hidden temporary file and take their name whole: a kill midway (here
    the temporary file of a process that is gone) leaves no half file named like a paper, the
    next attach takes the plain name and removes what the dead process left."""
    import subprocess
    import sys

    from catalog.attachments import attaching

    folder = db_path.with_name("catalog-files")
    folder.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    leftover = folder / f"{attaching._TEMP_PREFIX}{attaching._HOST}-{gone.stdout.strip()}-0a0b0c0d.part"
    leftover.write_bytes(a_pdf.read_bytes()[:100])  # half a copy
    attachment, new = seeded.files.attach_file(first_key(seeded), a_pdf)
    assert new and [p.name for p in folder.iterdir()] == [Path(attachment.location).name]
    assert "(2)" not in attachment.location and Path(attachment.location).read_bytes() == a_pdf.read_bytes()


def test_a_folder_without_hard_links_still_takes_copies(seeded, a_pdf, db_path, monkeypatch):
    import os

    def no_links(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")  # as on FAT or some network shares

    monkeypatch.setattr(os, "link", no_links)
    attachment, new = seeded.files.attach_file(first_key(seeded), a_pdf)
    assert new and Path(attachment.location).read_bytes() == a_pdf.read_bytes()
    assert [p.name for p in db_path.with_name("catalog-files").iterdir()] == [Path(attachment.location).name]
