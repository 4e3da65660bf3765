"""A deterministic corpus of seed-like abstracts, as paper-list files and as JSONL.

Sentences come from the bundled seeds, recombined and varied with invented method names,
numbers and domain words, so vocabulary and length look like real abstracts (with the
seeds' Markdown and TeX) while every abstract is distinct.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
VENUES = ["ICML", "ICLR", "NeurIPS", "ACL", "CVPR", "AAAI", "COLT", "UAI", "AISTATS", "KDD"]
YEARS = list(range(2016, 2027))
DOMAIN = ("graph", "protein", "robotic", "speech", "tabular", "medical", "climate", "code",
          "video", "molecular", "financial", "legal", "multilingual", "satellite", "causal")
SYLLABLES = ("ra", "zo", "ki", "mu", "te", "vex", "lo", "qua", "din", "sor", "pha", "neu", "tri")


def _sentences() -> list[str]:
    pool = []
    for path in sorted(SEEDS.glob("*.txt")):
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")[1:]
        for paragraph in paragraphs:
            pool.extend(s for s in re.split(r"(?<=[.!?])\s+", paragraph.strip()) if len(s) > 20)
    return pool


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).upper()


def abstracts(n: int, seed: int = 7):
    """Yields (venue, year, abstract) n times, the same every run."""
    rng = random.Random(seed)
    pool = _sentences()
    for i in range(n):
        name = _name(rng)
        opening = (f"We introduce {name}, a {rng.choice(DOMAIN)} method for "
                   f"{rng.choice(DOMAIN)} data that scales to {rng.randint(2, 999)}k examples.")
        body = rng.sample(pool, rng.randint(4, 7))
        tail = f"On {rng.choice(DOMAIN)} benchmarks {name} improves accuracy by {rng.randint(1, 40)}.{rng.randint(0, 9)}% (run {i})."
        yield rng.choice(VENUES), rng.choice(YEARS), " ".join([opening, *body, tail])


KINDS = ("Proceedings of the", "Journal of", "Workshop on", "Transactions on", "Letters in")
FIRST = ("Ada", "Bo", "Chen", "Dana", "Eli", "Femi", "Gita", "Hiro", "Ines", "Jun", "Kofi", "Lea")


def wide_venues(count: int, seed: int = 11) -> list[str]:
    """`count` distinct venue names, as a real library's are many (3,000+ in 16,000 papers)."""
    rng = random.Random(seed)
    names: set[str] = set()
    while len(names) < count:
        names.add(f"{rng.choice(KINDS)} {_name(rng).title()} {rng.choice(DOMAIN).title()} {rng.randint(1, 99)}")
    return sorted(names)


def wide_records(n: int, venues: int, authors: int, seed: int = 7):
    """Yields n records (venue, year, abstract, authors) over `venues` venues and `authors`
    authors, a few venues common and most rare (a long tail, as in a real library)."""
    rng = random.Random(seed + 1)
    names = wide_venues(venues)
    people = [f"{_name(rng).title()}, {rng.choice(FIRST)}" for _ in range(authors)]
    for i, (_, year, abstract) in enumerate(abstracts(n, seed)):
        # Every venue at least once, then a long tail: low indices far more often.
        venue = names[i] if i < len(names) else names[min(int(rng.paretovariate(0.6)) - 1, len(names) - 1)]
        yield venue, year, abstract, [people[rng.randrange(authors)] for _ in range(rng.randint(1, 5))]


def write_wide_jsonl(n: int, path: Path, venues: int = 5_000, authors: int = 100_000) -> Path:
    """A wide corpus as JSONL: `venues` venues, `authors` authors (catalog import reads it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for venue, year, abstract, names in wide_records(n, venues, authors):
            f.write(json.dumps({"venue": venue, "year": year, "abstract": abstract,
                                "authors": " and ".join(names)}) + "\n")
    return path


def write_paper_lists(n: int, folder: Path, per_file: int = 25_000) -> list[Path]:
    """Paper-list text files of at most `per_file` abstracts each (one venue and year per file)."""
    folder.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    handle = None
    for i, (venue, year, abstract) in enumerate(abstracts(n)):
        if i % per_file == 0:
            if handle:
                handle.close()
            file_venue, file_year = VENUES[len(files) % len(VENUES)], YEARS[len(files) % len(YEARS)]
            files.append(folder / f"{len(files):04d}_{file_venue}_{file_year}.txt")
            handle = files[-1].open("w", encoding="utf-8")
            handle.write(f"{file_venue} {file_year} Papers\n\n")
        handle.write(abstract + "\n\n")
    if handle:
        handle.close()
    return files


def write_jsonl(n: int, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for venue, year, abstract in abstracts(n):
            f.write(json.dumps({"venue": venue, "year": year, "abstract": abstract}) + "\n")
    return path


# A wide library: what a real one holds and the seed-shaped corpus does not (thousands of
# venues, tens of thousands of authors, cite keys, a dozen BibTeX fields per entry).
WIDE_VENUES, WIDE_AUTHORS = 3000, 40000
_KINDS = ("Workshop on", "Conference on", "Symposium on", "Journal of", "Transactions on", "Letters on")
_TOPICS = ("Learning", "Vision", "Language", "Systems", "Robotics", "Theory", "Data", "Security", "Graphics",
           "Networks", "Optimization", "Retrieval", "Speech", "Biology", "Databases", "Hardware")


def _person(rng: random.Random) -> str:
    return (_name(rng).capitalize() + " " + "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize())


def write_wide_bibtex(n: int, folder: Path, per_file: int = 10_000, seed: int = 11) -> list[Path]:
    """BibTeX files of a wide library of `n` papers: the corpus's abstracts, each with a title,
    2-8 authors of WIDE_AUTHORS, one of WIDE_VENUES venues (a booktitle or a journal), a year,
    DOI, URL, keywords, pages, publisher and a cite key; the same every run."""
    rng = random.Random(seed)
    venues = [f"{rng.choice(_KINDS)} {rng.choice(DOMAIN).capitalize()} {rng.choice(_TOPICS)} ({_name(rng)} {i})"
              for i in range(WIDE_VENUES)]
    people = [_person(rng) for _ in range(WIDE_AUTHORS)]
    folder.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    handle = None
    for i, (_, year, abstract) in enumerate(abstracts(n, seed=seed)):
        if i % per_file == 0:
            if handle:
                handle.close()
            files.append(folder / f"wide{len(files):03d}.bib")
            handle = files[-1].open("w", encoding="utf-8")
        venue = rng.choice(venues)
        authors = " and ".join(rng.sample(people, rng.randint(2, 8)))
        first = abstract.split(".")[0].removeprefix("We introduce ")
        title = f"{first[:1].upper()}{first[1:120]}: {rng.choice(_TOPICS)} at Scale {i}"
        field = "journal" if venue.startswith(("Journal", "Transactions", "Letters")) else "booktitle"
        kind = "article" if field == "journal" else "inproceedings"
        body = (f"  title = {{{title}}},\n  author = {{{authors}}},\n  {field} = {{{venue}}},\n"
                f"  year = {{{year}}},\n  doi = {{10.5555/wide.{seed}.{i}}},\n"
                f"  url = {{https://example.org/wide/{i}}},\n  keywords = {{{rng.choice(DOMAIN)}, {rng.choice(_TOPICS).lower()}}},\n"
                f"  pages = {{{rng.randint(1, 900)}--{rng.randint(901, 999)}}},\n  publisher = {{{rng.choice(_TOPICS)} Press}},\n"
                f"  abstract = {{{abstract.replace('{', '(').replace('}', ')')}}}\n")
        handle.write(f"@{kind}{{wide{i},\n{body}}}\n\n")
    if handle:
        handle.close()
    return files
