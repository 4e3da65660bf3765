"""catalog.ingest.paperlist: the header, paragraphs, line numbers, and every kind of bad input."""

from __future__ import annotations

import os
import re
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from catalog.ingest import paperlist
from catalog.ingest.paperlist import PaperList, read_paper_list
from catalog.ingest.records import IngestError, PaperRecord

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
SEED_HEADERS = {
    "000_9448e25e42d5aa58.txt": ("ICML", 2026, 15),
    "001_97e54f16b7965872.txt": ("ICML", 2026, 19),
    "002_c7f0239386db841b.txt": ("ICML", 2026, 19),
    "003_8596193238abb38b.txt": ("ICLR", 2026, 19),
    "004_c3ffcda92da5cac6.txt": ("ICLR", 2026, 19),
}
ABSTRACT_A = "We study analogical reasoning in transformers."
ABSTRACT_B = "A second abstract, about influence functions."


def write(tmp_path: Path, data: bytes, name: str = "list.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def parse(tmp_path: Path, data: bytes, **overrides: object) -> tuple[PaperList, list[PaperRecord]]:
    paper_list = read_paper_list(write(tmp_path, data), **overrides)  # type: ignore[arg-type]
    return paper_list, list(paper_list.records)


def error(tmp_path: Path, data: bytes, **overrides: object) -> IngestError:
    with pytest.raises(IngestError) as caught:
        parse(tmp_path, data, **overrides)
    return caught.value


def abstracts(records: list[PaperRecord]) -> list[str]:
    return [r.abstract for r in records]


# --- the real seeds -------------------------------------------------------------------


def test_seeds_give_91_records_with_venue_and_year_per_file():
    files = sorted(SEEDS.glob("*.txt"))
    assert [f.name for f in files] == sorted(SEED_HEADERS)
    total = 0
    for path in files:
        venue, year, count = SEED_HEADERS[path.name]
        paper_list = read_paper_list(path)
        records = list(paper_list.records)
        assert (paper_list.venue, paper_list.year) == (venue, year)
        assert len(records) == count
        assert [r.position for r in records] == list(range(1, count + 1))
        assert all((r.venue, r.year) == (venue, year) for r in records)
        assert records[0].line == 3  # header, blank line, first abstract
        assert all(r.abstract and r.abstract == r.abstract.strip() and "\n" not in r.abstract for r in records)
        lines = path.read_text(encoding="utf-8").split("\n")
        assert all(lines[r.line - 1].strip() == r.abstract for r in records)  # one line per abstract in the seeds
        total += len(records)
    assert total == 91


# --- the header -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        "ICML 2026 Papers",
        "ICML 2026 Paper",
        "ICML 2026 论文列表",
        "ICML 2026 論文列表",
        "ICML 2026论文列表",
        "ICML 2026 Accepted Papers",
        "ICML 2026 accepted papers",
        "ICML 2026 ACCEPTED PAPERS",
        "ICML 2026 paper list",
        "ICML 2026 Papers List",
        "ICML 2026 List of Papers",
        "ICML 2026 papers",
        "ICML 2026",
        "ICML 2026 Papers:",
        "  ICML\t2026\u00a0Papers \u3000 ",
        "ICML\u30002026\u3000论文列表\u3000",
        "ICML ２０２６ 论文列表",  # full-width digits, as a Chinese input method types them
    ],
)
def test_header_wordings_and_spacing(tmp_path, header):
    paper_list, records = parse(tmp_path, f"{header}\n\n{ABSTRACT_A}\n".encode())
    assert (paper_list.venue, paper_list.year) == ("ICML", 2026)
    assert abstracts(records) == [ABSTRACT_A]
    assert (records[0].venue, records[0].year, records[0].line, records[0].position) == ("ICML", 2026, 3, 1)


@pytest.mark.parametrize(
    ("header", "venue", "year"),
    [
        ("NeurIPS 2025 Papers", "NeurIPS", 2025),
        ("ACL-Findings 2024 Papers", "ACL-Findings", 2024),
        ("ML4H 2023 Papers", "ML4H", 2023),
        ("3DV 2025 Papers", "3DV", 2025),
        ("R&D 1999 papers", "R&D", 1999),
        ("Proc. ICML Workshops 2026 Papers", "Proc. ICML Workshops", 2026),
        ("icml 2026 PAPERS", "icml", 2026),  # kept as written
        ("Findings of EMNLP 1900 Papers", "Findings of EMNLP", 1900),
        ("ICLR 2099 Papers", "ICLR", 2099),
    ],
)
def test_header_venue_kept_as_written(tmp_path, header, venue, year):
    paper_list, _ = parse(tmp_path, f"{header}\n\n{ABSTRACT_A}\n".encode())
    assert (paper_list.venue, paper_list.year) == (venue, year)


def test_header_with_utf8_bom(tmp_path):
    paper_list, records = parse(tmp_path, b"\xef\xbb\xbfICML 2026 Papers\n\n" + ABSTRACT_A.encode() + b"\n")
    assert paper_list.venue == "ICML"
    assert records[0].abstract == ABSTRACT_A


def test_header_after_leading_blank_lines(tmp_path):
    paper_list, records = parse(tmp_path, f"\n \n\u3000\nICML 2026 Papers\n\n{ABSTRACT_A}\n".encode())
    assert (paper_list.venue, records[0].line) == ("ICML", 6)


def test_header_directly_followed_by_an_abstract(tmp_path):
    _, records = parse(tmp_path, f"ICML 2026 Papers\n{ABSTRACT_A}\n\n{ABSTRACT_B}".encode())
    assert [(r.abstract, r.line) for r in records] == [(ABSTRACT_A, 2), (ABSTRACT_B, 4)]


@pytest.mark.parametrize("header", ["ICML 1899 Papers", "ICML 2100 Papers"])
def test_header_year_out_of_range(tmp_path, header):
    err = error(tmp_path, f"{header}\n\n{ABSTRACT_A}\n".encode())
    assert err.line == 1
    assert "outside 1900-2099" in err.message
    # the caller's year replaces it
    paper_list, records = parse(tmp_path, f"{header}\n\n{ABSTRACT_A}\n".encode(), year=2020)
    assert (paper_list.venue, paper_list.year, abstracts(records)) == ("ICML", 2020, [ABSTRACT_A])


def test_overrides_replace_the_header(tmp_path):
    data = f"ICML 2026 Papers\n\n{ABSTRACT_A}\n".encode()
    paper_list, records = parse(tmp_path, data, venue="NeurIPS", year=2025)
    assert (paper_list.venue, paper_list.year) == ("NeurIPS", 2025)
    assert (records[0].venue, records[0].year, abstracts(records)) == ("NeurIPS", 2025, [ABSTRACT_A])
    assert parse(tmp_path, data, venue=" ICLR ")[0].venue == "ICLR"
    assert (parse(tmp_path, data, year=2024)[0].venue, parse(tmp_path, data, year=2024)[0].year) == ("ICML", 2024)


def test_override_year_out_of_range(tmp_path):
    err = error(tmp_path, f"ICML 2026 Papers\n\n{ABSTRACT_A}\n".encode(), year=3000)
    assert "outside 1900-2099" in err.message


def test_no_header_with_both_overrides_reads_first_paragraph_as_abstract(tmp_path):
    paper_list, records = parse(tmp_path, f"{ABSTRACT_A}\n\n{ABSTRACT_B}\n".encode(), venue="ICML", year=2026)
    assert (paper_list.venue, paper_list.year) == ("ICML", 2026)
    assert [(r.abstract, r.position, r.line, r.venue, r.year) for r in records] == [
        (ABSTRACT_A, 1, 1, "ICML", 2026),
        (ABSTRACT_B, 2, 3, "ICML", 2026),
    ]


@pytest.mark.parametrize("overrides", [{}, {"venue": "ICML"}, {"year": 2026}])
def test_no_header_without_both_overrides(tmp_path, overrides):
    long_first_line = "Understanding reasoning in large language models is complicated by evaluations."
    err = error(tmp_path, f"{long_first_line}\n\n{ABSTRACT_B}\n".encode(), **overrides)
    assert err.line == 1
    assert 'expected a header like "ICML 2026 Papers" (or pass --venue and --year)' in err.message
    assert 'found "Understanding reasoning in large language models is complic…"' in err.message
    assert str(err).startswith(f"{tmp_path / 'list.txt'}:1: ")


@pytest.mark.parametrize(
    "header", ["ICML Papers", "ICML'26 Papers", "ICML 2026 Papers (oral)", "ICML/W 2026 Papers", "2026 Papers"]
)
def test_near_miss_headers_are_not_headers(tmp_path, header):
    err = error(tmp_path, f"{header}\n\n{ABSTRACT_A}\n".encode())
    assert err.line == 1 and "expected a header like" in err.message and header in err.message


# --- line endings, blank lines, paragraphs -----------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings(tmp_path, newline):
    text = newline.join(["ICML 2026 Papers", "", "first line", "wrapped here", "", "", ABSTRACT_B, ""])
    paper_list, records = parse(tmp_path, text.encode())
    assert paper_list.venue == "ICML"
    assert [(r.abstract, r.line, r.position) for r in records] == [
        ("first line wrapped here", 3, 1),
        (ABSTRACT_B, 7, 2),
    ]


def test_mixed_line_endings_count_lines_like_an_editor(tmp_path):
    data = b"ICML 2026 Papers\r\n\rone\ntwo\r\r\nthree\n\r\nfour"
    _, records = parse(tmp_path, data)
    assert [(r.abstract, r.line) for r in records] == [("one two", 3), ("three", 6), ("four", 8)]


def test_hard_wrapped_paragraphs_joined_with_one_space(tmp_path):
    text = "ICML 2026 Papers\n\n  Deep   networks\t\n\tgeneralise \u3000\nwell.\n\nNext  one.\n"
    _, records = parse(tmp_path, text.encode())
    # each line's ends are stripped and lines joined by one space; inside a line text is kept as written
    assert abstracts(records) == ["Deep   networks generalise well.", "Next  one."]


@pytest.mark.parametrize("blank", [" ", "\t", "\u3000", "\u00a0", " \t\u3000\u00a0 ", "\u2028", "\x0c"])
def test_whitespace_only_lines_separate_paragraphs(tmp_path, blank):
    text = f"ICML 2026 Papers\n{blank}\n{ABSTRACT_A}\n{blank}\n{blank}\n{ABSTRACT_B}{blank}\n{blank}"
    _, records = parse(tmp_path, text.encode())
    assert [(r.abstract, r.line) for r in records] == [(ABSTRACT_A, 3), (ABSTRACT_B, 6)]


def test_no_trailing_newline_and_trailing_blank_lines(tmp_path):
    assert abstracts(parse(tmp_path, f"ICML 2026 Papers\n\n{ABSTRACT_A}".encode())[1]) == [ABSTRACT_A]
    assert abstracts(parse(tmp_path, f"ICML 2026 Papers\n\n{ABSTRACT_A}\n\n\n  \n".encode())[1]) == [ABSTRACT_A]


def test_control_characters_are_stripped_from_abstracts(tmp_path):
    data = (
        b"ICML 2026 Papers\n\n"
        b"NUL\x00here, bell\x07, DEL\x7f, tab\tkept\n"
        b"vertical\x0btab\x1fsep, \xc2\x85NEL\n\n"
        b"\x01\x02\n\n"
        b"last\xef\xbb\xbf\n"
    )
    _, records = parse(tmp_path, data)
    assert abstracts(records) == ["NULhere, bell, DEL, tab\tkept vertical tab sep,  NEL", "last"]
    assert [r.line for r in records] == [3, 8]  # a line of only control characters is blank


def test_records_is_a_lazy_iterator(tmp_path):
    paper_list = read_paper_list(write(tmp_path, f"ICML 2026 Papers\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n".encode()))
    assert iter(paper_list.records) is paper_list.records
    assert next(paper_list.records).abstract == ABSTRACT_A
    assert next(paper_list.records).position == 2
    with pytest.raises(StopIteration):
        next(paper_list.records)


def test_file_is_closed_when_done_or_closed(tmp_path):
    path = write(tmp_path, f"ICML 2026 Papers\n\n{ABSTRACT_A}\n".encode())
    before = len(os.listdir("/proc/self/fd"))
    paper_list = read_paper_list(path)
    assert len(os.listdir("/proc/self/fd")) == before + 1
    list(paper_list.records)
    assert len(os.listdir("/proc/self/fd")) == before
    with read_paper_list(path) as paper_list:
        assert paper_list.venue == "ICML"
    assert len(os.listdir("/proc/self/fd")) == before
    with pytest.raises(IngestError):
        read_paper_list(write(tmp_path, b"no header here\n"))
    assert len(os.listdir("/proc/self/fd")) == before


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"", b"\xef\xbb\xbf", b"\xff\xfe"])
def test_empty_file(tmp_path, data):
    err = error(tmp_path, data)
    assert err.message == "file is empty" and err.line is None


def test_blank_file(tmp_path):
    assert error(tmp_path, b"\n \r\n\t\n\xe3\x80\x80\n").message.startswith("file is empty")


@pytest.mark.parametrize("data", [b"ICML 2026 Papers", b"ICML 2026 Papers\n", b"ICML 2026 Papers\r\n\r\n \n\t\n"])
def test_header_only(tmp_path, data):
    err = error(tmp_path, data)
    assert err.message == "no abstracts after the header" and err.line == 1


@pytest.mark.parametrize(
    ("data", "hint"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "PNG image"),
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"word/document.xml", "zip archive"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\n", "PDF"),
        (b"ICML 2026 Papers\n\nabstract \x00 with NULs \x00 in the first \x00 8 KB\n", "NUL bytes"),
        (b"\x00" * 10_000, "NUL bytes"),
        (bytes(range(1, 32)) * 40, "control characters"),
        ("ICML 2026 Papers\n\nabstract\n".encode("utf-16-le"), "UTF-16 without a byte-order mark"),
    ],
)
def test_binary_files(tmp_path, data, hint):
    err = error(tmp_path, data)
    assert err.message.startswith("binary file, expected a UTF-8 text paper list")
    assert hint in err.message


def test_latin1_file_names_line_and_byte(tmp_path):
    text = "ICML 2026 Papers\n\nfirst\n\nsecond\n\nCaf\xe9 is a word on line 7.\n\nlast\n"
    with pytest.raises(IngestError) as caught:  # from read_paper_list: the first 8 KB are decoded at once
        parse(tmp_path, text.encode("latin-1"))
    assert caught.value.line == 7
    assert caught.value.message == "not valid UTF-8 (byte 0xe9); save the file as UTF-8"
    assert str(caught.value) == f"{tmp_path / 'list.txt'}:7: not valid UTF-8 (byte 0xe9); save the file as UTF-8"


def test_invalid_utf8_in_the_header_raises_from_read_paper_list(tmp_path):
    err = error(tmp_path, "Journ\xe9es 2026 Papers\n\nabstract\n".encode("latin-1"))
    assert (err.line, err.message) == (1, "not valid UTF-8 (byte 0xe9); save the file as UTF-8")


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_invalid_utf8_far_into_the_file_after_many_chunks(tmp_path, newline):
    line = b"x" * 99
    body = newline.join([line] * 30_000)  # about 3 MB: several 1 MiB reads
    data = b"ICML 2026 Papers" + newline + newline + body + newline + b"bad \xff here" + newline
    paper_list = read_paper_list(write(tmp_path, data))
    with pytest.raises(IngestError) as caught:
        list(paper_list.records)
    assert caught.value.line == 30_003
    assert "(byte 0xff)" in caught.value.message


def test_truncated_utf8_at_end_of_file(tmp_path):
    err = error(tmp_path, b"ICML 2026 Papers\n\nabstract\n\nends mid-character \xe2\x82")
    assert (err.line, err.message) == (5, "not valid UTF-8 (bytes 0xe2 0x82); save the file as UTF-8")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_with_bom_are_decoded(tmp_path, encoding):
    text = f"ICML 2026 论文列表\r\n\r\n{ABSTRACT_A}\r\nwrapped 中文\r\n\r\n{ABSTRACT_B}\r\n"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    paper_list, records = parse(tmp_path, data)
    assert (paper_list.venue, paper_list.year) == ("ICML", 2026)
    assert [(r.abstract, r.line) for r in records] == [(f"{ABSTRACT_A} wrapped 中文", 3), (ABSTRACT_B, 6)]


def test_malformed_utf16_names_the_line(tmp_path):
    data = b"\xff\xfe" + "ICML 2026 Papers\n\nok\n\n".encode("utf-16-le") + b"\x00\xd8" + "x\n".encode("utf-16-le")
    err = error(tmp_path, data)
    assert err.line == 5 and err.message.startswith("not valid UTF-16 (bytes 0x00 0xd8)")


def test_paragraph_at_the_limit_is_accepted(tmp_path):
    words = ("word " * 40_000).strip()  # 199,999 characters
    _, records = parse(tmp_path, f"ICML 2026 Papers\n\n{words}x\n\nend\n".encode())
    assert [len(r.abstract) for r in records] == [200_000, 3]
    _, records = parse(tmp_path, f"ICML 2026 Papers\n\n{words[:-2]}\nx\n".encode())  # wrapped: 199,997 + 1 + 1
    assert len(records[0].abstract) == 199_999


@pytest.mark.parametrize("wrapped", [False, True])
def test_huge_paragraph_names_its_line_and_length(tmp_path, wrapped):
    text = ("word " * 40_000).strip() + " x"  # 200,001 characters
    body = text.replace(" ", "\n") if wrapped else text  # one word a line: joined back with single spaces
    data = f"ICML 2026 Papers\n\n{ABSTRACT_A}\n\n{body}\n\n{ABSTRACT_B}\n".encode()
    paper_list = read_paper_list(write(tmp_path, data))
    records = paper_list.records
    assert next(records).abstract == ABSTRACT_A
    with pytest.raises(IngestError) as caught:
        next(records)
    assert caught.value.line == 5
    assert caught.value.message == "paragraph is 200,001 characters; an abstract should be under 200,000"


@pytest.mark.parametrize("shape", ["one line", "wrapped", "spaces then text"])
def test_huge_paragraph_memory_stays_bounded(tmp_path, shape):
    size = 12_000_000
    if shape == "one line":
        body = b"a" * size
    elif shape == "wrapped":
        body = (b"a" * 79 + b"\n") * (size // 80)
    else:
        body = b" " * size + b"text"
    expected = {"one line": size, "wrapped": size - 1, "spaces then text": 4}[shape]
    path = write(tmp_path, b"ICML 2026 Papers\n\n" + body + b"\n\nafter\n")
    tracemalloc.start()
    try:
        paper_list = read_paper_list(path)
        if shape == "spaces then text":
            records = list(paper_list.records)
            assert [(r.abstract, r.line) for r in records] == [("text", 3), ("after", 5)]
        else:
            with pytest.raises(IngestError) as caught:
                list(paper_list.records)
            assert caught.value.line == 3
            assert caught.value.message.startswith(f"paragraph is {expected:,} characters")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000, f"peak {peak:,} bytes for a {len(body):,}-byte paragraph"


def test_a_line_of_blanks_too_long_to_buffer_is_still_blank(tmp_path):
    data = b"ICML 2026 Papers\n\n" + ABSTRACT_A.encode() + b"\n" + b" " * 2_000_000 + b"\n" + ABSTRACT_B.encode()
    _, records = parse(tmp_path, data)
    assert [(r.abstract, r.line) for r in records] == [(ABSTRACT_A, 3), (ABSTRACT_B, 5)]


def test_huge_first_line_is_not_a_header(tmp_path):
    data = b"lorem ipsum " * 100_000 + b"\n\n" + ABSTRACT_A.encode()
    err = error(tmp_path, data)
    assert err.line == 1 and 'found "lorem ipsum lorem ipsum' in err.message
    err = error(tmp_path, data, venue="ICML", year=2026)
    assert (err.line, err.message) == (1, "paragraph is 1,199,999 characters; an abstract should be under 200,000")


def test_utf16_file_full_of_nul_characters_is_binary(tmp_path):
    assert "binary file" in error(tmp_path, b"\xff\xfe" + bytes(4000)).message


def test_directory(tmp_path):
    err = error_for_path(tmp_path)
    assert err.message == "cannot read file: Is a directory"


def test_missing_file(tmp_path):
    err = error_for_path(tmp_path / "nope.txt")
    assert err.message == "cannot read file: No such file or directory"
    assert str(err) == f"{tmp_path / 'nope.txt'}: cannot read file: No such file or directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file(tmp_path):
    path = write(tmp_path, b"ICML 2026 Papers\n\nabstract\n")
    path.chmod(0)
    assert error_for_path(path).message == "cannot read file: Permission denied"


def error_for_path(path: Path) -> IngestError:
    with pytest.raises(IngestError) as caught:
        read_paper_list(path)
    return caught.value


# --- properties --------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
@example(data=b"\xff\xfe\x00")
@example(data=b"\xfe\xff\xd8\x00")
@example(data=b"ICML 2026\r")
@example(data=b"\x00\x00\xfe\xff\x00\x11\x00\x00")
def test_arbitrary_bytes_parse_or_raise_ingest_error(tmp_path, data):
    for overrides in ({}, {"venue": "X", "year": 2000}):
        try:
            paper_list, records = parse(tmp_path, data, **overrides)
        except IngestError:
            continue
        assert all(isinstance(r.abstract, str) and r.abstract for r in records)
        assert [r.position for r in records] == list(range(1, len(records) + 1))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=300).map(lambda b: b"ICML 2026 Papers\n" + b.replace(b"\x00", b"")))
def test_arbitrary_bytes_after_a_header(tmp_path, data):
    try:
        parse(tmp_path, data)
    except IngestError:
        pass


INLINE = ["a", "word", "abstract", " ", "   ", "\t", "\u3000", "\xa0", "\x07", "\x0b", "\x1f", "\x85", "\x9f",
          "\ufeff", "é", "中文", "😀", "\u2028", "\x7f"]  # fmt: skip
BREAKS = ["\n", "\n", "\r\n", "\r"]
BODIES = st.lists(
    st.tuples(st.lists(st.sampled_from(INLINE), max_size=25).map("".join), st.sampled_from(BREAKS)), max_size=12
).map(lambda lines: "".join(text + brk for text, brk in lines))
_CONTROL = {
    c: (" " if chr(c).isspace() else None) for c in [*range(0, 9), *range(0x0B, 0x20), *range(0x7F, 0xA0), 0xFEFF]
}


def reference(body: str, first_line: int, limit: int) -> tuple[list[tuple[str, int]], tuple[str, int] | None]:
    """The whole-file reading of a paper list body: (abstract, line) pairs, then the error if any."""
    lines = re.split(r"\r\n|\r|\n", body)
    if lines[-1] == "":
        lines.pop()
    paragraphs: list[tuple[str, int]] = []
    current: list[str] = []
    start = 0
    for number, raw in enumerate(lines + [""], first_line):
        text = raw.translate(_CONTROL).strip()
        if text:
            if not current:
                start = number
            current.append(text)
        elif current:
            paragraphs.append((" ".join(current), start))
            current = []
    for i, (text, line) in enumerate(paragraphs):
        if len(text) > limit:
            message = f"paragraph is {len(text):,} characters; an abstract should be under {limit:,}"
            return paragraphs[:i], (message, line)
    return paragraphs, None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=BODIES,
    end=st.sampled_from(["", "tail", "  "]),
    chunk=st.integers(1, 40),
    long_line=st.integers(1, 30),
    limit=st.integers(16, 60),  # the header line itself must fit
)
def test_streaming_matches_a_whole_file_reading(tmp_path, monkeypatch, body, end, chunk, long_line, limit):
    """Tiny reads, tiny long-line threshold and a tiny limit give what reading the whole file gives."""
    body += end  # the last line may have no break
    monkeypatch.setattr(paperlist, "_SNIFF_BYTES", 16)  # the header below is 16 bytes
    monkeypatch.setattr(paperlist, "_CHUNK_BYTES", chunk)
    monkeypatch.setattr(paperlist, "_LONG_LINE_CHARS", long_line)
    monkeypatch.setattr(paperlist, "MAX_ABSTRACT_CHARS", limit)
    expected, expected_error = reference(body, 2, limit)
    path = write(tmp_path, b"ICML 2026 Papers\n" + body.encode())
    if not expected and expected_error is None:
        with pytest.raises(IngestError, match="no abstracts after the header"):
            read_paper_list(path)
        return
    got: list[tuple[str, int]] = []
    got_error = None
    try:
        for record in read_paper_list(path).records:
            got.append((record.abstract, record.line))
            assert record.position == len(got)
    except IngestError as exc:
        got_error = (exc.message, exc.line)
    assert (got, got_error) == (expected, expected_error)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(
        st.sampled_from([b"ok", b"", b" ", b"caf\xc3\xa9", b"\xe9", b"\xc3", b"\xf0\x9f\x98", b"\xff\xfe"]),
        min_size=1,
        max_size=30,
    ),
    newline=st.sampled_from([b"\n", b"\r\n", b"\r"]),
    chunk=st.integers(1, 20),
)
def test_decode_errors_name_the_right_line(tmp_path, monkeypatch, lines, newline, chunk):
    monkeypatch.setattr(paperlist, "_SNIFF_BYTES", 16)
    monkeypatch.setattr(paperlist, "_CHUNK_BYTES", chunk)
    data = b"ICML 2026 Papers" + newline + newline.join(lines)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        expected_line = len(re.split(rb"\r\n|\r|\n", data[: exc.start]))
        expected_byte = f"0x{data[exc.start]:02x}"
    else:
        return
    with pytest.raises(IngestError) as caught:
        paper_list = read_paper_list(write(tmp_path, data))
        list(paper_list.records)
    assert caught.value.line == expected_line
    assert caught.value.message.startswith(f"not valid UTF-8 (byte {expected_byte}") or caught.value.message.startswith(
        f"not valid UTF-8 (bytes {expected_byte}"
    )
