"""fingerprints from the escape-insensitive normalisation; keys stay

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 21:30:00

A fingerprint now hashes the text with what a BibTeX export and import may change folded
away: escapes undone, accent macros as letters, braces that only protect capitals dropped
(catalog/ingest/fields.py, fold_tex). `12\\%` and `12%` are one paper, and a BibTeX export
imported elsewhere finds the same fingerprint and gives the same key. Only text holding a
backslash or a brace can hash differently, so only those papers are looked at (6 of the 90
bundled seeds change: those that write `\\%`).

Keys never change: a key is a paper's identity (your notes, annotations files and scripts use
it). A paper keeps the key it has; only its fingerprint, which merging and `catalog doctor`
compare, is recomputed. A paper whose fingerprint was not derived from its own text (another
paper had that text first) keeps it, and so does one whose new fingerprint another paper has.
A new catalog built from the same files gives such a paper the key of its folded text, which
is the key older versions gave the unescaped text (and what a BibTeX export always gave it).
"""
import hashlib
import re
import unicodedata
from typing import Sequence, Union

from alembic import op


revision: str = "0005"
down_revision: Union[str, None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# Frozen copies of catalog/ingest/fields.py's fold_tex and of text.normalize (those may
# change; these never do). Accent macros become a letter and a combining mark here, which
# normalisation composes as pylatexenc's letters are.
_SIMPLE_ESCAPES = {
    r"\&": "&", r"\%": "%", r"\_": "_", r"\#": "#", r"\$": "$", r"\{": "\x01", r"\}": "\x02",
    r"\textbackslash{}": "\\", r"\textasciitilde{}": "~", r"\textasciicircum{}": "^",
    r"\textbraceleft{}": "\x01", r"\textbraceright{}": "\x02",
}
_SIMPLE_RE = re.compile("|".join(re.escape(k) for k in sorted(_SIMPLE_ESCAPES, key=len, reverse=True)))
_ACCENT = re.compile(
    r"\{\\(?:[`'^\"~=.]|[uvHcdbkr](?![A-Za-z]))\s*(?:\{\w\}|\w)\}"
    r"|\\(?:[`'^\"~=.]|[uvHcdbkr](?![A-Za-z]))\s*(?:\{\w\}|\w)"
    r"|\{\\(?:ss|o|O|aa|AA|ae|AE|oe|OE|l|L|i|j)\}"
)
_ACCENT_PARTS = re.compile(r"\{?\\([`'^\"~=.]|[uvHcdbkr]|ss|o|O|aa|AA|ae|AE|oe|OE|l|L|i|j)\s*\{?(\w?)\}?\}?")
_MARKS = {"`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304", "u": "\u0306",
          ".": "\u0307", '"': "\u0308", "r": "\u030a", "H": "\u030b", "v": "\u030c", "d": "\u0323",
          "c": "\u0327", "k": "\u0328", "b": "\u0331"}
_LETTERS = {"ss": "ß", "o": "ø", "O": "Ø", "aa": "å", "AA": "Å", "ae": "æ", "AE": "Æ", "oe": "œ",
            "OE": "Œ", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ"}
_PROTECTING_BRACES = re.compile(r"(?<![\\\w}\]^_])\{([^{}\\$]*)\}")


def _accent(m) -> str:
    name, letter = _ACCENT_PARTS.fullmatch(m[0]).groups()
    return letter + _MARKS[name] if name in _MARKS and letter else _LETTERS.get(name, m[0])


def _tidy(value: str) -> str:
    value = value.strip()
    if "\\" not in value and "{" not in value:
        return value
    parts = re.split(r"(\$[^$]*\$)", value)  # math spans stay as written
    for i in range(0, len(parts), 2):
        part = _ACCENT.sub(_accent, parts[i])
        while True:
            part, n = _PROTECTING_BRACES.subn(r"\1", part)
            if not n:
                break
        parts[i] = part
    return "".join(parts)


def _fold(value: str) -> str:
    for _ in range(8):  # until nothing changes
        if "\\" not in value and "{" not in value:
            return value
        folded = _SIMPLE_RE.sub(lambda m: _SIMPLE_ESCAPES[m[0]], value).replace("\x01", "{").replace("\x02", "}")
        folded = _tidy(folded)
        if folded == value:
            return value
        value = folded
    return value


def _normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold()).split())


def _old(basis: str) -> str:
    return hashlib.sha256(_normalize(basis).encode()).hexdigest()[:32]


def _new(basis: str) -> str:
    return hashlib.sha256(_normalize(_fold(basis)).encode()).hexdigest()[:32]


_CANDIDATES = """SELECT id, fingerprint, abstract, title, doi, arxiv_id FROM paper
    WHERE instr(abstract, '\\') OR instr(abstract, '{') OR instr(title, '\\') OR instr(title, '{')"""


def _bases(abstract, title, doi, arxiv_id) -> list[str]:
    """What the fingerprint may have hashed: an identifying abstract, else the title, identifier
    and abstract (catalog/importing/dedupe.py). Trying both needs no copy of which abstracts identify."""
    ident = doi or (f"arxiv:{arxiv_id}" if arxiv_id else "")
    out = [abstract] if abstract else []
    out.append(" ".join(filter(None, (title, ident, abstract))))
    return out


def _refingerprint(from_, to) -> None:
    bind = op.get_bind()
    for pid, fp, abstract, title, doi, arxiv_id in bind.exec_driver_sql(_CANDIDATES).all():
        basis = next((b for b in _bases(abstract, title, doi, arxiv_id) if from_(b) == fp), None)
        if basis is None or to(basis) == fp:
            continue  # not derived from this text (made unique, or set by a merge), or unchanged
        taken = bind.exec_driver_sql("SELECT 1 FROM paper WHERE fingerprint = ?", (to(basis),)).first()
        if not taken:
            bind.exec_driver_sql("UPDATE paper SET fingerprint = ? WHERE id = ?", (to(basis), pid))


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":  # PostgreSQL catalogs came later, already folded
        _refingerprint(_old, _new)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _refingerprint(_new, _old)
