"""Chinese, Japanese and Korean text for full-text search.

unicode61 keeps a run of ideographs as one token, so `论文` would not find `论文列表`. Papers
carry their CJK text with a space between characters (in `search_extra`), and a CJK query
becomes a phrase of single characters, which finds two-character words anywhere.
"""

from __future__ import annotations

import re
from functools import cache


@cache
def _cjk() -> re.Pattern[str]:
    """CJK ideographs, kana and hangul. Compiled when first asked (text that is not ASCII):
    these ranges take milliseconds to compile, and most searches never need them."""
    return re.compile(
        "[\u1100-\u11ff\u2e80-\u2fdf\u3005-\u3007\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff"
        "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\uff66-\uff9f"
        "\U00020000-\U000323af]"
    )


def has_cjk(text: str) -> bool:
    """Whether text contains CJK ideographs, kana or hangul."""
    return not text.isascii() and _cjk().search(text) is not None


def cjk_spaced(text: str) -> str:
    """'GPT模型评测' -> 'GPT 模 型 评 测' (other text kept as is)."""
    if not has_cjk(text):
        return text
    out: list[str] = []
    for ch in text:
        if has_cjk(ch):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    return " ".join("".join(out).split())


def cjk_search_text(*parts: str | None) -> str:
    """The CJK-bearing parts of a paper's text, spaced for indexing; '' when there are none."""
    return " ".join(cjk_spaced(p) for p in parts if p and has_cjk(p))
