"""Display text: headlines, TeX/Markdown to Unicode, search tokens, normalisation.

Abstracts arrive with Markdown emphasis and TeX math. The terminal shows them
rendered, search sees extra ASCII spellings of the math, and deduplication
compares a normalised form. Everything here is pure and deterministic.
"""

from __future__ import annotations

import logging
import operator
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

__all__ = ["headline", "render", "search_extra", "normalize", "has_cjk", "strip_control"]

HEADLINE_MAX = 90

# Malformed TeX in imported abstracts is expected; pylatexenc would log a
# warning per bad span, and an unconfigured app prints those to stderr.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)

# --- control characters ---------------------------------------------------

_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[\x20-\x7e]?"  # two-byte escapes, or a lone ESC
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_BYTES = bytes([*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f])  # ASCII ones


def strip_control(text: str) -> str:
    """Remove ANSI escape sequences and C0/C1 controls, keeping newline and tab."""
    # Most imported text needs no regex at all. ASCII text (isascii() is O(1))
    # is checked by deleting control bytes, 2x faster than isprintable().
    if text.isascii():
        data = text.encode("ascii")
        if len(data.translate(None, _CONTROL_BYTES)) == len(data):
            return text
    elif text.isprintable() or not _CONTROL.search(text):
        return text
    return _CONTROL.sub("", _ANSI.sub("", text))


# --- TeX math spans ---------------------------------------------------------

# Pandoc's rule: `$` opens before a non-space and closes after one, so "costs
# $5 and $10" stays text. (Pandoc also refuses a closing `$` before a digit;
# abstracts write `$\sim$100`, so that part is left out.) `$$..$$` is display.
# Patterns here start with their literal (lookbehinds come after it) so the
# regex engine can skip ahead to candidates: 5-10x faster on long abstracts.
_MATH = re.compile(r"\$(?:\$(?P<d>[^$]+?)\$\$|(?<!\\\$)(?=\S)(?P<i>[^$]*?[^\s\\])\$)")



@lru_cache(maxsize=None)
def _pylatexenc():
    """(converter, macro database), loaded on first use: commands that only search or list
    never convert TeX, and the import costs 20 ms."""
    from pylatexenc import latexwalker
    from pylatexenc.latex2text import LatexNodes2Text

    return LatexNodes2Text(math_mode="text"), latexwalker.get_default_latex_context_db()

# Characters with a Unicode super/subscript form; a script renders that way
# only when every character has one (no q subscript, no C superscript).
_SUP = dict(zip(
    "0123456789+-−=()′∗" "abcdefghijklmnoprstuvwxyz" "ABDEGHIJKLMNOPRTUVW" "αβγδθφχ",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾′∗" "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ" "ᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ" "ᵅᵝᵞᵟᶿᵠᵡ",
    strict=True,
))
_SUB = dict(zip(
    "0123456789+-−=()" "aehijklmnoprstuvx" "βγρφχ",
    "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎" "ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ" "ᵦᵧᵨᵩᵪ",
    strict=True,
))

# Script fallbacks like `_{>0}` travel through pylatexenc as private-use
# characters, so it neither treats them as TeX nor drops the braces.
_PUA = {"^": "\ue000", "_": "\ue001", "{": "\ue002", "}": "\ue003"}
_FROM_PUA = str.maketrans({v: k for k, v in _PUA.items()})
_TEX_ESCAPE = str.maketrans({"%": r"\%", "&": r"\&", "#": r"\#", **_PUA})

# Size and style switches eat no argument but must not gain a space either.
_DECLARATIONS = frozenset(
    "tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge "
    "displaystyle textstyle scriptstyle scriptscriptstyle bf it rm sf tt cal "
    "left right big Big bigg Bigg bigl bigr Bigl Bigr middle limits nolimits".split()
)
_SPACED_MACRO = re.compile(r"\\([A-Za-z]+)(?=\s)")
_MACRO = re.compile(r"\\(?:[A-Za-z]+|.?)", re.S)
_BINOM = re.compile(r"\\binom\s*(\{[^{}]*\}|[^\s{}\\])\s*(\{[^{}]*\}|[^\s{}\\])")


def _keep_space(m: re.Match[str]) -> str:
    # TeX swallows the space after `\to`; `\to{}` keeps the author's spacing
    # ("a → b", not "a →b"). Only for macros that take no argument.
    name = m.group(1)
    if name in _DECLARATIONS or _pylatexenc()[1].get_macro_spec(name) is not None:
        return m.group(0)
    return m.group(0) + "{}"


def _prepare(tex: str) -> str:
    """Fix the TeX quirks seen in abstracts before pylatexenc reads the span."""
    tex = re.sub("[\ue000-\ue003]", "", tex)
    tex = tex.replace("\\\\%", "\\%")  # `96\\%`: Markdown-escaped backslash
    tex = re.sub(r"(?<!\\)%", r"\\%", tex)  # a bare % would start a comment
    tex = tex.replace("\\*", "*").replace("\\|", "‖")
    tex = tex.replace("\\widetilde", "\\tilde").replace("\\widehat", "\\hat")
    tex = _BINOM.sub(r"(\1 choose \2)", tex)
    return _SPACED_MACRO.sub(_keep_space, tex)


def _balanced(tex: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\.", "", tex):
        depth += (ch == "{") - (ch == "}")
        if depth < 0:
            return False
    return depth == 0


def _group_end(tex: str, start: int) -> int:
    """Index just past the `}` matching the `{` at start (or len(tex))."""
    depth, i = 0, start
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            i += 2
            continue
        depth += (ch == "{") - (ch == "}")
        i += 1
        if depth == 0:
            return i
    return len(tex)


def _script(tex: str, table: dict[str, str], mark: str) -> str:
    """One `^`/`_` argument as Unicode super/subscript, else `^x` or `^{xy}`."""
    text = "".join(_math(tex).split())
    if all(ch in table for ch in text):
        return "".join(table[ch] for ch in text)
    if len(text) == 1:
        return (_PUA[mark] + text).translate(_TEX_ESCAPE)
    return (mark + "{" + text + "}").translate(_TEX_ESCAPE)


def _scripts(tex: str) -> str:
    """Replace every `^`/`_` (at any depth) by its rendered script."""
    out, i, n = [], 0, len(tex)
    while i < n:
        ch = tex[i]
        if ch == "\\":  # keep `\_`, `\^`, `\{` and macro names intact
            m = _MACRO.match(tex, i)
            out.append(m.group(0))
            i = m.end()
            continue
        if ch not in "^_":
            out.append(ch)
            i += 1
            continue
        j = i + 1
        while j < n and tex[j] == " ":
            j += 1
        if j >= n:
            break
        if tex[j] == "{":
            end = _group_end(tex, j)
            arg = tex[j + 1 : end - 1] if tex[end - 1 : end] == "}" else tex[j + 1 : end]
        elif tex[j] == "\\":
            end = _MACRO.match(tex, j).end()
            arg = tex[j:end]
        else:
            end, arg = j + 1, tex[j]
        if out and re.search(r"\\[A-Za-z]+$", out[-1]):
            out.append("{}")  # or `\sum` + `ᵢ` would read as one macro name
        out.append(_script(arg, _SUP if ch == "^" else _SUB, ch))
        i = end
    return "".join(out)


def _crude(tex: str) -> str:
    """Last resort for spans pylatexenc cannot read: drop commands and braces."""
    return re.sub(r"\\[A-Za-z]+|[{}\\]", "", tex)


@lru_cache(maxsize=8192)
def _math(tex: str) -> str:
    """Readable Unicode for one math span (without its `$`). Cached: spans repeat."""
    tex = _prepare(tex)
    if not _balanced(tex):
        out = _crude(tex)
    else:
        try:
            out = _pylatexenc()[0].latex_to_text(_scripts(tex))
        except Exception:  # pylatexenc is tolerant, but imported text is arbitrary
            out = _crude(tex)
        if "%s" in out and "%s" not in tex:  # a macro missing its arguments
            out = _crude(tex)
    out = out.translate(_FROM_PUA).replace("*", "∗").replace("'", "′")
    return " ".join(unicodedata.normalize("NFC", out).split())


# --- Markdown and text-mode TeX -------------------------------------------------

_TEXT_MACRO = re.compile(
    r"\\(?:emph|textbf|textit|texttt|textsc|textrm|textsf|textup|textnormal|"
    r"underline|mbox|url)\s*\{([^{}]*)\}"
)
_FOOTNOTE = re.compile(r"\\footnote\s*\{([^{}]*)\}")
_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\((\S{1,500}?)\)")
_TEX_ESCAPES = re.compile(r"\\\\?([%&#$_*{}])")
# `**` may sit inside a word (`**R**easoning`); single `*` and `_` need word
# boundaries so `2*3*4` and snake_case survive. `.` stops at newlines, and the
# length bound keeps a line full of stray stars linear rather than quadratic.
_BOLD = re.compile(r"\*\*(?<!\\\*\*)(?!\s)(.{1,300}?)(?<![\s\\])\*\*")
_ITALIC = re.compile(r"\*(?<![\\\w*]\*)(?![\s*])(.{1,300}?)(?<![\s\\*])\*(?![\w*])")
_UNDERSCORE = re.compile(r"_(?<![\\\w]_)(_?)(?![\s_])(.{1,300}?)(?<![\s\\_])_\1(?!\w)")
# Replacements by group: a C-level callable is ~2x faster than an r"\1"
# template, which Python 3.11 expands in Python for every match.
_GROUP1 = operator.itemgetter(1)
_GROUP2 = operator.itemgetter(2)


def _text_markup(s: str) -> str:
    if "\\" in s:
        s = _FOOTNOTE.sub(r" (\1)", s).replace("  (", " (")
        while True:  # innermost first: \underline{\textbf{C}}
            s, count = _TEXT_MACRO.subn(_GROUP1, s)
            if not count:
                break
    if "](" in s:  # Markdown link: the text, and the address if it differs
        s = _LINK.sub(lambda m: m[1] if m[1] == m[2] else f"{m[1]} ({m[2]})", s)
    if "*" in s:
        s = _ITALIC.sub(_GROUP1, _BOLD.sub(_GROUP1, s) if "**" in s else s)
    if "_" in s:
        s = _UNDERSCORE.sub(_GROUP2, s)
    if "\\" in s:
        s = _TEX_ESCAPES.sub(_GROUP1, s)
    if "---" in s:
        s = s.replace("---", "—")
    if "``" in s:
        s = s.replace("``", '"').replace("''", '"')
    return s


def render(text: str) -> str:
    """Display text: math spans to Unicode, emphasis to plain text, no controls."""
    text = strip_control(text)
    if not (
        "$" in text or "*" in text or "_" in text or "\\" in text or "---" in text
        or "``" in text or "](" in text
    ):
        return text  # the common case: plain prose
    spans: list[str] = []
    if "$" in text:
        # Math becomes \x00 placeholders (controls are already gone) so that
        # emphasis around or between spans still pairs up.
        def hold(m: re.Match[str]) -> str:
            spans.append(_math(m.group("d") or m.group("i")))
            return "\x00"

        text = _MATH.sub(hold, text)
    text = _text_markup(text)
    if spans:
        parts = text.split("\x00")
        text = "".join(p + s for p, s in zip(parts, spans)) + parts[-1]
    return text


# --- search tokens ----------------------------------------------------------------


def _ascii_words(rendered: str) -> list[str]:
    # NFKD turns ℤ, 𝒪, ², ₁ into Z, O, 2, 1; Greek letters become names.
    out = []
    for ch in unicodedata.normalize("NFKD", rendered):
        if unicodedata.combining(ch):
            continue
        if "\u0370" <= ch <= "\u03ff":
            name = unicodedata.name(ch, "")
            if "LETTER" in name:
                ch = " " + name.rsplit(" ", 1)[-1].lower() + " "
        out.append(ch)
    return re.findall(r"[A-Za-z0-9]+", "".join(out))


@lru_cache(maxsize=8192)
def _span_tokens(tex: str) -> tuple[str, ...]:
    tokens = []
    for word in _ascii_words(_math(tex)):
        tokens.append(word)  # MCR2
        parts = re.findall(r"[A-Za-z]+|[0-9]+", word)
        if len(parts) > 1:
            tokens.extend(parts)  # MCR 2
    return tuple(tokens)


def search_extra(text: str) -> str:
    """ASCII spellings of the math in text (`MCR2 MCR 2`, `epsilon`), for FTS."""
    if "$" not in text:
        return ""
    seen: dict[str, None] = {}
    for m in _MATH.finditer(strip_control(text)):
        seen.update(dict.fromkeys(_span_tokens(m.group("d") or m.group("i"))))
    return " ".join(seen)


# --- comparison and scripts --------------------------------------------------------


# What str.split() splits ASCII text on, besides the space.
_ASCII_SPACES_BUT_SPACE = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"


def normalize(text: str) -> str:
    """Key for deduplication: NFKC, casefolded, whitespace collapsed."""
    # Casefolding can produce text that is no longer NFKC, hence the second pass. ASCII is
    # already NFKC and casefolds to ASCII, so it skips both (most abstracts).
    if text.isascii():
        lowered = text.lower()
        # Without other whitespace or double spaces only the ends can need collapsing (most
        # abstracts): a few substring tests are 5x faster than split and join.
        if "  " not in lowered and not any(ch in lowered for ch in _ASCII_SPACES_BUT_SPACE):
            return lowered.strip(" ")
        return " ".join(lowered.split())
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.split())


_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U000323af]"
)


def printable(value: object) -> str:
    """Any value as text for a terminal: control characters and escape sequences removed."""
    return strip_control(str(value)) if value is not None else ""


def stars(rating: int | None) -> str:
    return "★" * rating + "☆" * (5 - rating) if rating else ""


def has_cjk(text: str) -> bool:
    """Whether text contains CJK ideographs, kana or hangul."""
    return not text.isascii() and _CJK.search(text) is not None


# --- headline ----------------------------------------------------------------------

# "we further propose", "this paper introduces", "we for the first time present"
_INTRO = re.compile(
    r"\b(?:we|paper|work|study|article)\b(?:\s+[\w-]+){0,4}?\s+"
    r"(?:propose|introduce|present|develop|design)(?:s|d|ed)?\s+(?P<obj>.+)",
    re.I,
)
_NAMING = re.compile(
    r"\b(?:which\s+we\s+(?:call|term|name|dub)|we\s+(?:call|term|dub)|"
    r"named|called|dubbed|termed|namely,?)\s+(?P<rest>.+)"
)
_NAME_END = re.compile(r"[,;.()]|\s(?:which|that|to|for|and|with|as|in|is|was)\s")
_OBJECT = re.compile(r"\b(?:we|paper|work)\s+(?:(?:further|then|also|first)\s+)?\w+\s+(.*)$", re.I)
_SELF = re.compile(r"\b(?:we|our|this (?:paper|work))\b", re.I)
# A sentence ends at . ! or ? before whitespace and a capital, quote or bracket.
# Patterns start with what they match (no lookbehind) so the engine can skip
# ahead; a plain `.` is found 4x faster still, so text without ! or ? uses that.
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z\"“(\[])")
_PERIOD_END = re.compile(r"\.\s+(?=[A-Z\"“(\[])")
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|etc|vs|al|cf|Fig|Eq|approx|resp)\.$")
_ABBREV_ENDS = ("e.g.", "i.e.", "etc.", "vs.", "al.", "cf.", "Fig.", "Eq.", "approx.", "resp.")
_STRAY = re.compile(r"\\[A-Za-z]+|[$*\\]")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_DANGLING = frozenset(
    "the a an of to for and or in on at with by via that which whose as from into its their".split()
)
# Where a description can end and still read whole: before a relative clause
# or a participle ("a framework that ...", "a mechanism inspired by ..."), but
# never between a participle and its preposition ("inspired | by").
_CLAUSE_CUT = re.compile(
    r"(?<!ed)\s(?=(?:that|which|whose|where|while|by|via|using|through|with|based|"
    r"grounded|inspired|designed|tailored|guided|driven|trained|built)\s)"
)
# A description ends at a colon, bracket or dash, or at a comma that opens a
# new clause; a comma between adjectives ("grounded, unified framework") stays.
_DESC_END = re.compile(
    r"[;:(]|\s—|,\s(?=(?:which|that|where|whose|while|and|but|as|with|i\.e\.)\s)"
)

# The shapes a coined name takes right after "we propose":
# "the local Bayesian influence function (BIF)", "GUDA (Group Unlearning-...)",
# "a novel SAE architecture—Temporal SAE—", "PLASH, an attention block",
# "the Reasoning Score, which ...", "Continuized-HiPPO Operator."
_LONG_ACR = re.compile(
    r"^(?:(?:the|a|an)\s+)?(?P<long>[^,;:()]{2,80}?)\s*\((?P<acr>[^()\s,;]{1,20})\)"
)
_ACR_LONG = re.compile(
    r"^(?:the\s+)?(?P<acr>[^()\s,;:]{1,20})\s*[:(]\s*(?P<long>[^():]{3,100})\)"
)
_DASHED = re.compile(
    r"^(?P<desc>(?:a|an|the)\s[^—]{3,60}?)\s*—\s*(?P<name>[^—,]{2,40}?)\s*—"
)
_APPOSITIVE = re.compile(
    r"^(?:the\s+)?(?P<name>[^,;:()]{2,60}?),\s+(?P<app>(?:a|an|the|one|two|three)\s[^;]*)"
)
_WHICH = re.compile(r"^(?:the\s+)?(?P<name>[^,;:()]{2,50}?),?\s+(?P<rest>which\s.*)")
_BARE = re.compile(
    r"^(?:the\s+)?(?P<name>[^,;:().]{2,50}?)\s*(?:[,;:.(]|\s(?:for|to|that|which)\s|$)"
)


def _is_acronym(token: str) -> bool:
    upper = sum(c.isupper() for c in token)
    return upper >= 2 or (upper == 1 and any(c.isdigit() for c in token))


def _distinctive(name: str) -> bool:
    """A coined name: some word has an inner capital (PLASH, HiPPO, RMSNorm)."""
    return any(any(c.isupper() for c in w[1:]) for w in re.split(r"[\s-]+", name))


def _cap(s: str) -> str:
    if "a" <= s[:1] <= "z" and not s[1:2].isupper():  # not α -> Α, not mRNA
        return s[0].upper() + s[1:]
    return s


def _words(s: str) -> int:
    return len(s.split())


def _shorten(s: str, limit: int = HEADLINE_MAX) -> str:
    """Cut at a word boundary, drop dangling words like 'of', mark with …."""
    s = " ".join(s.split()).rstrip(" .")
    if len(s) <= limit:
        return s
    cut = s[: limit - 1]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return _trim_end(cut) + "…"


def _trim_end(s: str) -> str:
    """Drop trailing punctuation and words that cannot end a phrase ('of the')."""
    while True:
        s = s.rstrip(" ,;:—–-")
        head, _, last = s.rpartition(" ")
        if not head or last.lower() not in _DANGLING:
            return s
        s = head


def _fit(s: str) -> str:
    """Too long? End at a clause boundary if that keeps most of the room:
    it reads better than a mid-phrase "…" (which _shorten adds otherwise)."""
    if len(s) <= HEADLINE_MAX:
        return s
    cuts = [m.start() for m in _CLAUSE_CUT.finditer(s) if 45 <= m.start() <= HEADLINE_MAX]
    return s[: cuts[-1]] if cuts else s


def _titled(name: str, desc: str) -> str:
    """`Name: description`, the description ending where its phrase does."""
    name = _cap(name.strip())
    if ";" in desc or ":" in desc or "(" in desc or "—" in desc or "," in desc:
        if end := _DESC_END.search(desc):  # (each of its matches has one of those)
            desc = desc[: end.start()]
    desc = desc.strip().rstrip(".")
    return _fit(f"{name}: {desc}") if desc else name


def _from_object(obj: str) -> str | None:
    """Headline from what follows 'we propose': the coined name if there is one.

    Each pattern is tried only when obj holds a character it needs (long
    objects make the lazy patterns slow); obj has its whitespace collapsed.
    """
    if "(" in obj and (m := _LONG_ACR.match(obj)):
        if _is_acronym(m["acr"]) and _words(m["long"]) <= 8:
            return f"{m['acr']}: {_cap(m['long'].strip())}"
    if ")" in obj and (m := _ACR_LONG.match(obj)):
        if _is_acronym(m["acr"]) and _words(m["long"]) >= 2:
            return f"{m['acr']}: {_cap(m['long'].strip())}"
    if "—" in obj and (m := _DASHED.match(obj)):
        return _titled(m["name"], m["desc"])
    if "," in obj and (m := _APPOSITIVE.match(obj)) and not _ARTICLE.match(m["name"]):
        if _words(m["name"]) <= 6:
            return _titled(m["name"], m["app"])
    # _WHICH and _BARE keep only a name with a capital, and a name ends within
    # 54 characters ("the " and 50); islower() is False if any is uppercase.
    if obj[:60].islower():
        return None
    if "which" in obj and (m := _WHICH.match(obj)) and not _ARTICLE.match(m["name"]):
        if _words(m["name"]) <= 5 and any(c.isupper() for c in m["name"]):
            return _fit(f"{_cap(m['name'])}, {m['rest']}")
    if (m := _BARE.match(obj)) and _words(m["name"]) <= 5 and _distinctive(m["name"]):
        return _cap(m["name"])
    return None


def _from_naming(sentence: str) -> str | None:
    """'a framework, named FOO, that ...' or 'which we call foo'."""
    m = _NAMING.search(sentence)
    if not m or not _SELF.search(sentence):
        return None
    rest = m["rest"]
    if "(" in rest and (n := _LONG_ACR.match(rest)):
        if _is_acronym(n["acr"]) and _words(n["long"]) <= 8:
            return f"{n['acr']}: {_cap(n['long'].strip())}"
    if ")" in rest and (n := _ACR_LONG.match(rest)):
        if _is_acronym(n["acr"]) and _words(n["long"]) >= 2:
            return f"{n['acr']}: {_cap(n['long'].strip())}"
    name = _NAME_END.split(rest, maxsplit=1)[0]
    if not name.strip() or _words(name) > 6:
        return None
    before = re.sub(r"[\s,(]*(?:which\s+we|we)?[\s,(]*$", "", sentence[: m.start()])
    # The description is the object of "we identify ..." or else the last
    # noun phrase ("a framework, named X").
    if obj := _OBJECT.search(before):
        desc = obj[1]
    else:
        articles = list(re.finditer(r"\b(?:a|an|the)\s", before))
        desc = before[articles[-1].start() :] if articles else ""
    return _titled(name, desc if 0 < _words(desc) <= 10 else "")


def _sentences(text: str) -> Iterator[str]:
    """The sentences of text, lazily (a headline is nearly always in the first few).

    A sentence ending in an abbreviation ("e.g.", "et al.") runs on into the
    next. Whitespace is left as it is: the caller collapses what it examines.
    """
    start = pos = 0
    search = (_SENTENCE_END if "!" in text or "?" in text else _PERIOD_END).search
    while m := search(text, pos):
        end = m.start() + 1
        if text.endswith(_ABBREV_ENDS, pos, end) and _ABBREV.search(text[pos:end]):
            pos = m.end()  # the next piece belongs to this sentence
            continue
        yield text[start:end]
        start = pos = m.end()
    yield text[start:]


def _has_intro_verb(sentence: str) -> bool:
    """Whether the sentence holds a verb _INTRO needs, in any case."""
    low = sentence.lower()
    if not low.isascii():  # under re.I, ı and İ match i and ſ matches s
        low = low.replace("ı", "i").replace("i\u0307", "i").replace("ſ", "s")
    return (
        "propose" in low or "introduce" in low or "present" in low
        or "develop" in low or "design" in low
    )


def _may_name(sentence: str) -> bool:
    """Whether _NAMING can match: every alternative holds one of these once the
    sentence's whitespace is collapsed ("which we call" holds "we call")."""
    return (
        "named" in sentence or "called" in sentence or "dubbed" in sentence
        or "termed" in sentence or "namely" in sentence or "we call" in sentence
        or "we term" in sentence or "we name" in sentence or "we dub" in sentence
    )


def headline(abstract: str, *, rendered: str | None = None) -> str:
    """A short display title for a paper that has none (empty for empty text).

    Leads with the method's name when the abstract coins one ("We introduce
    PLASH, an attention block ..." -> "PLASH: an attention block ..."),
    otherwise it is the first sentence, shortened. A caller that already has
    `render(abstract)` passes it as `rendered` to save rendering twice.
    """
    text = render(abstract) if rendered is None else rendered
    # Rendering keeps a lone `$` or `*`; a headline should show neither.
    if "$" in text or "*" in text or "\\" in text:
        text = _STRAY.sub("", text)
    first = None
    for raw in _sentences(text):
        # Cheap tests first, on the raw sentence: the words they look for
        # hold no whitespace, the only thing that collapsing it changes.
        intro = _has_intro_verb(raw)
        naming = "call" in raw or "term" in raw or "name" in raw or "dub" in raw
        if not (intro or naming or first is None):
            continue
        sentence = " ".join(raw.split())
        if first is None:
            first = sentence
        found = None
        if intro and (m := _INTRO.search(sentence)):
            found = _from_object(m["obj"])
        if not found and naming and _may_name(sentence):
            found = _from_naming(sentence)
        if found:
            return _shorten(found)
    return _shorten(first or "")
