"""TeX math and Markdown emphasis in abstracts and titles, as readable Unicode.

Abstracts arrive with Markdown emphasis and TeX math. The terminal shows them rendered
(`render`, or `render_styled` with bold and italic kept as styles), and search sees extra
ASCII spellings of the math (`search_extra`: MCR2 for MCR²). Pure and deterministic; only
the `$...$` spans go through pylatexenc, which is slow on whole abstracts.
"""

from __future__ import annotations

import logging
import operator
import re
import unicodedata
from functools import lru_cache

from catalog.text.terminal import safe

__all__ = ["render", "render_styled", "search_extra", "Styled"]

# Malformed TeX in imported abstracts is expected; pylatexenc would log a
# warning per bad span, and an unconfigured app prints those to stderr.
logging.getLogger("pylatexenc").setLevel(logging.ERROR)

# --- TeX math spans ---------------------------------------------------------

# Pandoc's rule: `$` opens before a non-space and closes after one, so "costs
# $5 and $10" stays text. (Pandoc also refuses a closing `$` before a digit;
# abstracts write `$\sim$100`, so that part is left out.) `$$..$$` is display.
# Patterns here start with their literal (lookbehinds come after it) so the
# regex engine can skip ahead to candidates: several times faster on long abstracts.
_MATH = re.compile(r"\$(?:\$(?P<d>[^$]+?)\$\$|(?<!\\\$)(?=\S)(?P<i>[^$]*?[^\s\\])\$)")

# TeX's logos, which pylatexenc's default macros drop ("The {\\TeX}book" would be "The book").
LOGOS = ("TeX", "LaTeX", "LaTeXe", "BibTeX", "XeTeX", "XeLaTeX", "LuaTeX", "LuaLaTeX", "pdfTeX",
         "pdfLaTeX", "AmSTeX", "AmSLaTeX", "ConTeXt", "MiKTeX", "METAFONT", "MF", "MP")


@lru_cache(maxsize=None)
def latex_converter(kind: str):
    """pylatexenc's converter, the one place it is set up, loaded on first use (commands that
    only search or list never convert TeX). "math": the inside of a `$...$` span, as text.
    "field": a BibTeX title, name or venue, its TeX logos kept, its math left as `$...$` for
    `render`, and spaces as TeX reads them."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    class Readable(LatexNodes2Text):
        """pylatexenc drops a macro it does not know (`$\\foo$` would be nothing, `\\nabla_w`
        in a title would lose the nabla); here one without a braced argument is kept as written.
        One with an argument gives way to it, as before (`\\mybold{x}` reads `x`)."""

        def macro_node_to_text(self, node):
            name = node.macroname
            args = node.nodeargd.argnlist if name in _MATH_ACCENTS and node.nodeargd else None
            if args and args[-1] is not None:
                # An accent over a macro kept as written would put the accent on each of its
                # letters, backslash too (`\̂f̂ôô`): the whole is kept as written instead.
                inner = self.nodelist_to_text([args[-1]])
                if "\\" in inner:
                    return f"\\{name}{{{inner}}}"
            if self.latex_context.get_macro_spec(name) is None and name.isalpha() \
                    and name not in _INVISIBLE and name not in _DECLARATIONS:
                rest = node.parsing_state.s[node.pos + node.len:] if node.parsing_state else ""
                rest = rest.lstrip()
                if not rest.startswith("{") or rest.startswith("{}"):
                    return "\\" + name + (" " if node.macro_post_space else "")
            return super().macro_node_to_text(node)

    if kind == "math":
        return Readable(math_mode="text")
    context = get_default_latex_context_db().filter_context()  # a copy to extend
    shown = {"LaTeXe": "LaTeX2e", "MF": "METAFONT", "MP": "MetaPost"}
    context.add_context_category("catalog-logos", prepend=True, macros=[
        MacroTextSpec(name, shown.get(name, name)) for name in LOGOS])
    return Readable(latex_context=context, math_mode="verbatim", strict_latex_spaces=True)


# Math accents, which pylatexenc puts on every character of their argument.
_MATH_ACCENTS = frozenset("hat tilde bar vec dot ddot check breve acute grave".split())
# Macros unknown to pylatexenc that only steer TeX (spacing, breaking, protection): nothing to read.
_INVISIBLE = frozenset("protect relax xspace nobreak noindent ignorespaces unskip null newline "
                       "linebreak pagebreak allowbreak smallskip medskip bigskip hfill vfill break "
                       "em sl sc itshape bfseries scshape slshape upshape mdseries normalfont "
                       "ttfamily rmfamily sffamily".split())


@lru_cache(maxsize=None)
def _macros():
    from pylatexenc import latexwalker

    return latexwalker.get_default_latex_context_db()

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
    if name in _DECLARATIONS or _macros().get_macro_spec(name) is not None:
        return m.group(0)
    return m.group(0) + "{}"


def _prepare(tex: str) -> str:
    """Fix the TeX quirks seen in abstracts before pylatexenc reads the span."""
    tex = re.sub("[\ue000-\ue003]", "", tex)
    tex = tex.replace("\\\\%", "\\%")  # `96\\%`: Markdown-escaped backslash
    tex = re.sub(r"(?<!\\)%", r"\\%", tex)  # a bare % would start a comment
    tex = tex.replace("\\*", "*").replace("\\|", "‖")
    tex = tex.replace("\\widetilde", "\\tilde").replace("\\widehat", "\\hat").replace("\\overline", "\\bar")
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


# Superscript symbols read without a caret: 25$^\circ$C is 25 °C, L$^\natural$ is L♮, A$^\top$ is Aᵀ.
_SUP_SYMBOLS = {"∘": "°", "○": "°", "°": "°", "♮": "♮", "♯": "♯", "♭": "♭", "†": "†", "‡": "‡",
                "⋆": "⋆", "⊤": "ᵀ", "″": "″", "‴": "‴"}


def _script(tex: str, table: dict[str, str], mark: str) -> str:
    """One `^`/`_` argument as Unicode super/subscript, else `^x` or `^{xy}`."""
    text = "".join(_math(tex).split())
    if mark == "^" and text in _SUP_SYMBOLS:
        return _SUP_SYMBOLS[text]
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


def _math(tex: str) -> str:
    """Readable Unicode for one math span (without its `$`). Cached: spans repeat."""
    return _math_marked(tex).translate(_FROM_PUA)


@lru_cache(maxsize=8192)
def _math_marked(tex: str) -> str:
    """_math, with scripts that have no Unicode form still marked by the private-use
    characters of _PUA (render_styled shows them as scripts; _math spells them `_{>0}`)."""
    tex = _prepare(tex)
    if not _balanced(tex):
        out = _crude(tex)
    else:
        try:
            out = latex_converter("math").latex_to_text(_scripts(tex))
        except Exception:  # pylatexenc is tolerant, but imported text is arbitrary
            out = _crude(tex)
        if "%s" in out and "%s" not in tex:  # a macro missing its arguments
            out = _crude(tex)
    out = out.replace("*", "∗").replace("'", "′")
    return " ".join(unicodedata.normalize("NFC", out).split())


# --- Markdown and text-mode TeX -------------------------------------------------

_TEXT_MACRO = re.compile(
    r"\\(?:emph|textbf|textit|texttt|textsc|textrm|textsf|textup|textnormal|"
    r"underline|mbox|url)\s*\{([^{}]*)\}"
)
# Emphasis kept for display by render_styled (private-use characters, like _PUA's).
_BOLD_ON, _BOLD_OFF, _ITALIC_ON, _ITALIC_OFF = "\ue010", "\ue011", "\ue012", "\ue013"
_MARKERS = re.compile("[\ue000-\ue003\ue010-\ue013]")


# Accents and special letters written as TeX (`{\\"u}`, `\\'e`, `\\v{s}`, `{\\ss}`): what BibTeX
# exports put in abstracts and titles. ingest/fields.py reads them with the same pattern.
ACCENT = re.compile(
    r"\{\\(?:[`'^\"~=.]|[uvHcdbkr](?![A-Za-z]))\s*(?:\{\w\}|\w)\}"
    r"|\\(?:[`'^\"~=.]|[uvHcdbkr](?![A-Za-z]))\s*(?:\{\w\}|\w)"
    r"|\{\\(?:ss|o|O|aa|AA|ae|AE|oe|OE|l|L|i|j)\}"
)


_ACCENT_HINT = re.compile(r"\\(?:[`'^\"~=.]|[uvHcdbkr](?![A-Za-z])|(?:ss|o|O|aa|AA|ae|AE|oe|OE|l|L|i|j)\})")


@lru_cache(maxsize=1024)
def accented(tex: str) -> str:
    """One ACCENT match as its letter (`\\"{o}` -> ö)."""
    try:
        return latex_converter("field").latex_to_text(tex)
    except Exception:  # pylatexenc is tolerant, but imported text is arbitrary
        return tex


# A text-mode macro that takes no argument (`\\textendash`, `\\ldots{}`, `\\ss`), with what ends
# it: `{}`, a control space, or the spaces TeX swallows after its name.
_SYMBOL = re.compile(r"\\([A-Za-z]+)(\{\}|\\ |[ \t]*)")
# `{\\em words}`: a font switch inside a group.
_DECLARED = re.compile(r"\{\\(em|it|itshape|sl|slshape|bf|bfseries|sc|scshape|tt|ttfamily|rm|rmfamily|"
                       r"sf|sffamily|upshape|normalfont)\s+([^{}]*)\}")
_DIGIT_DASH = re.compile(r"(?<=\d)--(?=\d)")  # pages and ranges: 1--5 is 1–5


@lru_cache(maxsize=None)
def _symbol(name: str) -> str | None:
    """The character pylatexenc gives a text-mode macro of no argument, or None."""
    from pylatexenc.latex2text import get_default_latex_context_db

    spec = get_default_latex_context_db().get_macro_spec(name)
    walked = _macros().get_macro_spec(name)
    if spec is None or not isinstance(spec.simplify_repl, str) or "%" in spec.simplify_repl:
        return None
    if walked is not None and getattr(walked.args_parser, "argspec", ""):
        return None  # \\cite{x} would read "<cit.>"; kept as written instead
    return spec.simplify_repl


def _symbol_text(m: re.Match[str]) -> str:
    found = _symbol(m[1])
    if found is None:
        return m[0]  # unknown: kept as written, readable
    end = m[2]
    if end == "\\ ":
        return found + " "
    # TeX swallows the spaces after a macro's name; an author who put one before it too
    # (`a \\ldots b`) meant the symbol to stand apart, a letter (`Stra\\ss e`) never does.
    before = m.string[m.start() - 1:m.start()]
    if end.strip(" \t") == "" and end and (not before or before.isspace()) and not found.isalpha():
        return found + " "
    return found


def _declared(m: re.Match[str], marked: bool) -> str:
    if not marked or m[1] in ("sc", "scshape", "tt", "ttfamily", "rm", "rmfamily", "sf", "sffamily",
                              "upshape", "normalfont"):
        return m[2]
    if m[1] in ("bf", "bfseries"):
        return _BOLD_ON + m[2] + _BOLD_OFF
    return _ITALIC_ON + m[2] + _ITALIC_OFF


def _macro_marked(m: re.Match[str]) -> str:
    name = m[0][1:m[0].index("{")].strip()
    if name == "textbf":
        return _BOLD_ON + m[1] + _BOLD_OFF
    if name in ("emph", "textit"):
        return _ITALIC_ON + m[1] + _ITALIC_OFF
    return m[1]
_FOOTNOTE = re.compile(r"\\footnote\s*\{([^{}]*)\}")
_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\((\S{1,500}?)\)")
_TEX_ESCAPES = re.compile(r"\\\\?([%&#$_*{}])")
# `**` may sit inside a word (`**R**easoning`); single `*` and `_` need word
# boundaries so `2*3*4` and snake_case survive. `.` stops at newlines, and the
# length bound keeps a line full of stray stars linear rather than quadratic.
_BOLD = re.compile(r"\*\*(?<!\\\*\*)(?!\s)(.{1,300}?)(?<![\s\\])\*\*")
_ITALIC = re.compile(r"\*(?<![\\\w*]\*)(?![\s*])(.{1,300}?)(?<![\s\\*])\*(?![\w*])")
_UNDERSCORE = re.compile(r"_(?<![\\\w]_)(_?)(?![\s_])(.{1,300}?)(?<![\s\\_])_\1(?!\w)")
# TeX's unbreakable space between two words or a word and math (`25~$^\circ$C`, `Fig.~2`);
# `~100` (about a hundred) stays.
_TIE = re.compile(r"(?<=[\w.,])~(?=[\w\x00\\])")
# Replacements by group: a C-level callable is faster than an r"\1"
# template, which Python 3.11 expands in Python for every match.
_GROUP1 = operator.itemgetter(1)
_GROUP2 = operator.itemgetter(2)


def _text_markup(s: str, marked: bool = False) -> str:
    """Markdown and text-mode TeX to plain text; `marked` keeps emphasis as _BOLD_ON ...
    _BOLD_OFF and _ITALIC_ON ... _ITALIC_OFF around the words (for render_styled)."""
    bold, italic, underscore = _GROUP1, _GROUP1, _GROUP2
    if marked:
        bold = lambda m: _BOLD_ON + m[1] + _BOLD_OFF  # noqa: E731
        italic = lambda m: _ITALIC_ON + m[1] + _ITALIC_OFF  # noqa: E731
        underscore = lambda m: ((_BOLD_ON, _BOLD_OFF) if m[1] else (_ITALIC_ON, _ITALIC_OFF))[0] \
            + m[2] + ((_BOLD_ON, _BOLD_OFF) if m[1] else (_ITALIC_ON, _ITALIC_OFF))[1]  # noqa: E731
    if "\\" in s:
        while True:  # innermost first: \underline{\textbf{C}}, \footnote{\url{...}}
            s, count = _TEXT_MACRO.subn(_macro_marked if marked else _GROUP1, s)
            s, footnotes = _FOOTNOTE.subn(r" (\1)", s)
            if footnotes:
                s = s.replace("  (", " (")
            if not count and not footnotes:
                break
        if "{\\" in s:
            s = _DECLARED.sub(lambda m: _declared(m, marked), s)
        if _ACCENT_HINT.search(s):  # a literal-first pattern: ACCENT's alternation scans slowly
            s = ACCENT.sub(lambda m: accented(m[0]), s)
        s = _SYMBOL.sub(_symbol_text, s)
    if "](" in s:  # Markdown link: the text, and the address if it differs
        s = _LINK.sub(lambda m: m[1] if m[1] == m[2] else f"{m[1]} ({m[2]})", s)
    if "*" in s:
        s = _ITALIC.sub(italic, _BOLD.sub(bold, s) if "**" in s else s)
    if "_" in s:
        s = _UNDERSCORE.sub(underscore, s)
    if "\\" in s:
        s = _TEX_ESCAPES.sub(_GROUP1, s)
    if "--" in s:
        s = _DIGIT_DASH.sub("–", s.replace("---", "—"))
    if "``" in s:  # TeX's quotes, as pylatexenc renders them in titles
        s = s.replace("``", "“").replace("''", "”")
    if "~" in s:
        s = _TIE.sub(" ", s)
    return s


def render(text: str) -> str:
    """Display text: math spans to Unicode, emphasis to plain text, no controls."""
    return _render(safe(text), marked=False)


def _render(text: str, marked: bool) -> str:
    if not (
        "$" in text or "*" in text or "_" in text or "\\" in text or "--" in text
        or "``" in text or "](" in text or "~" in text
    ):
        return text  # the common case: plain prose
    spans: list[str] = []
    math = _math_marked if marked else _math
    if "$" in text:
        # Math becomes \x00 placeholders (controls are already gone) so that
        # emphasis around or between spans still pairs up.
        def hold(m: re.Match[str]) -> str:
            spans.append(math(m.group("d") or m.group("i")))
            return "\x00"

        text = _MATH.sub(hold, text)
    text = _text_markup(text, marked)
    if spans:
        parts = text.split("\x00")
        text = "".join(p + s for p, s in zip(parts, spans)) + parts[-1]
    return text


Styled = tuple[str, list[tuple[int, int, str]]]  # text, and (start, end, kind) spans


def render_styled(text: str) -> Styled:
    """Like render, keeping what plain text loses: the text, and spans of kind "bold" and
    "italic" (Markdown `**x**`, `*x*`, `_x_`, \\textbf, \\emph) and "sub" and "sup" (math
    scripts with no Unicode form, such as the `>0` of `ℤ_{>0}`, shown without `_{}`)."""
    marked = _render(_MARKERS.sub("", safe(text)), marked=True)
    return _unmark(marked) if _MARKERS.search(marked) else (marked, [])


def _unmark(marked: str) -> Styled:
    """Text with render_styled's marks -> the text without them, and the spans they marked."""
    out: list[str] = []
    spans: list[tuple[int, int, str]] = []
    opened: dict[str, int] = {}
    length, i, n = 0, 0, len(marked)
    while i < n:
        ch = marked[i]
        if ch in (_BOLD_ON, _ITALIC_ON):
            opened["bold" if ch == _BOLD_ON else "italic"] = length
        elif ch in (_BOLD_OFF, _ITALIC_OFF):
            start = opened.pop("bold" if ch == _BOLD_OFF else "italic", None)
            if start is not None and start < length:
                spans.append((start, length, "bold" if ch == _BOLD_OFF else "italic"))
        elif ch in (_PUA["_"], _PUA["^"]):
            if i + 1 < n and marked[i + 1] == _PUA["{"]:  # a group, up to its closing mark
                depth, j = 0, i + 1
                while j < n:
                    depth += (marked[j] == _PUA["{"]) - (marked[j] == _PUA["}"])
                    if depth == 0:
                        break
                    j += 1
                inner, i = marked[i + 2:j], j
            else:  # a single character
                inner, i = marked[i + 1:i + 2], i + 1
            text, inner_spans = _unmark(inner)
            if not text:  # nothing to raise or lower: the character as typed
                text = "_" if ch == _PUA["_"] else "^"
            else:
                spans.append((length, length + len(text), "sub" if ch == _PUA["_"] else "sup"))
            spans.extend((a + length, b + length, kind) for a, b, kind in inner_spans)
            out.append(text)
            length += len(text)
        elif ch not in (_PUA["{"], _PUA["}"]):
            out.append(ch)
            length += 1
        i += 1
    return "".join(out), sorted(spans)


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
    for m in _MATH.finditer(safe(text)):
        seen.update(dict.fromkeys(_span_tokens(m.group("d") or m.group("i"))))
    return " ".join(seen)
