"""The links papers carry: web pages only (http and https), written as the URL grammar allows.

A DOI (`doi:10.1145/x`, a bare `10.1145/x`) or an arXiv id (`arXiv:1706.03762`) where a link
belongs becomes its https page, and so does a host name without a scheme (`www.example.org/x`,
`hdl.handle.net/1765/1`, as people write them in BibTeX). Every other scheme (`file:`,
`javascript:`, `data:`, `ftp:`...) is refused, and so is text that is no address at all
(`paper.pdf`): `xdg-open file:///.../x.desktop` launches a program. Characters RFC 3986 does
not allow where they stand (spaces, quotes, braces, backslashes, non-ASCII) are
percent-encoded, so a link is one word to any program.

Readers keep one FileLinks per file: it picks each record's link and tells, in one warning for
the whole file, which links were left out and where. Opening a link checks it again
(catalog/desktop/browser.py): a catalog made before these checks may hold anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from catalog.text.terminal import safe


class NotALink(ValueError):
    """Text where a link belongs that is not a web link; the message says what it is."""


# RFC 3986: what may stand unencoded in each part of a URL.
_UNRESERVED = r"A-Za-z0-9._~\-"
_SUB_DELIMS = "!$&'()*+,;="
_HOST = re.compile(rf"[{_UNRESERVED}{re.escape(_SUB_DELIMS)}%]*|\[[0-9A-Fa-f:.]+\]")
_PCHAR = f"{_UNRESERVED}{re.escape(_SUB_DELIMS)}:@%"  # `%` of an escape (_BAD_PERCENT does the rest)
_NOT_IN = {
    "userinfo": re.compile(rf"[^{_UNRESERVED}{re.escape(_SUB_DELIMS)}:%]"),
    "path": re.compile(rf"[^{_PCHAR}/]"),
    "query": re.compile(rf"[^{_PCHAR}/?]"),
}
_BAD_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_WEB = re.compile(r"(?i)(https?)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?")
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_ARXIV = re.compile(r"(?i)(?:arxiv:)?(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z.-]+/\d{7}(?:v\d+)?)")
_HOST_NAME = re.compile(r"(?:[A-Za-z0-9-]+\.)+([A-Za-z]{2,})(?::\d+)?(?:[/?#]\S*)?")
_FILE_SUFFIXES = {"pdf", "ps", "djvu", "epub", "html", "htm", "txt", "doc", "docx", "bib", "tex", "md", "png", "jpg"}
_ONE_SLASH = re.compile(r"(?i)(https?):/(?=[^/])")  # `https:/www.x.org`, a slash short
# Most links need nothing done: an http(s) link with a lower-case host and only characters
# RFC 3986 allows (`#` once) is returned as it is.
_PLAIN = re.compile(r"https?://[a-z0-9.-]+(?::\d+)?(?:/[A-Za-z0-9._~!$&'()*+,;=:@/%-]*)?"
                    r"(?:\?[A-Za-z0-9._~!$&'()*+,;=:@/?%-]*)?(?:#[A-Za-z0-9._~!$&'()*+,;=:@/?%-]*)?")
_TEX_LINK = re.compile(r"\\(?:url|href)\s*\{((?:[^{}]|\{[^{}]*\})*)\}")


def web_link(value: object) -> str | None:
    """The http or https link `value` names, encoded as RFC 3986 asks; None when it is empty.
    NotALink when it is anything else: another scheme, or text that is no address."""
    text = " ".join(safe(str(value or "")).split())
    if m := _TEX_LINK.search(text):  # howpublished = {\url{https://...}}
        text = m[1].strip()
    if not text:
        return None
    text = text.split()[0]  # a link, then a note ("https://x.org (accessed 2020)")
    if text[0] == "<" and text[-1] == ">":  # <https://x.org>
        text = text[1:-1]
    if text.startswith("//") and len(text) > 2:  # protocol-relative (ScienceDirect's RIS `UR`)
        text = "https:" + text
    scheme = _SCHEME.match(text)
    name = scheme[1].lower() if scheme else ""
    if name in ("http", "https"):
        if _PLAIN.fullmatch(text) and "%" not in text:
            return text
        return _encoded(_ONE_SLASH.sub(r"\1://", text, 1))
    rest = text[scheme.end():] if scheme else text
    if name in ("doi", "") and _DOI.fullmatch(rest):
        return "https://doi.org/" + _encode(rest, "path")
    if name in ("arxiv", "") and (m := _ARXIV.fullmatch(rest)):
        return "https://arxiv.org/abs/" + m[1]
    if (m := _HOST_NAME.fullmatch(text)) and m[1].lower() not in _FILE_SUFFIXES:  # not `paper.pdf`
        return _encoded("https://" + text)
    raise NotALink(f"{name}:" if scheme else "not a web address")


def _encoded(text: str) -> str:
    m = _WEB.fullmatch(text)
    if m is None:
        raise NotALink("not a web address")
    scheme, authority, path, query, fragment = m.groups()
    userinfo, at, host = authority.rpartition("@")
    ipv6 = host.rfind("]") + 1  # [::1]:8080
    host, colon, port = host[:ipv6 or None], *host[ipv6:].partition(":")[1:]
    if not ipv6:
        host, colon, port = host.partition(":")
    if port and not port.isdigit():
        raise NotALink("not a web address")
    host = _idna(host)
    if not host or not _HOST.fullmatch(host):
        raise NotALink("not a web address")
    out = f"{scheme.lower()}://"
    out += (_encode(userinfo, "userinfo") + at) if at else ""
    out += host.lower() + (colon + port) + _encode(path, "path")
    out += ("?" + _encode(query, "query")) if query is not None else ""
    out += ("#" + _encode(fragment, "query")) if fragment is not None else ""
    return out


def _idna(host: str) -> str:
    """An internationalised host name in its ASCII form (`例え.jp` -> `xn--r8jz45g.jp`)."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return ""


def _encode(text: str, part: str) -> str:
    """`text` with every character `part` does not allow percent-encoded (as UTF-8); `%`
    stays where it starts an escape (`%20`) and is encoded elsewhere."""
    text = _BAD_PERCENT.sub("%25", text)
    return _NOT_IN[part].sub(lambda m: "".join(f"%{b:02X}" for b in m[0].encode("utf-8")), text)


@dataclass
class FileLinks:
    """The links of one file's records: each record's first web link, and the links left out."""

    name: str
    left_out: list[tuple[int, str]] = field(default_factory=list)  # (line, what it was)

    def pick(self, candidates: Iterable[object], line: int) -> str | None:
        """The first web link among `candidates` (a record's link fields, best first); each
        link tried before it that is not one is noted for the warning."""
        for candidate in candidates:
            try:
                found = web_link(candidate)
            except NotALink as exc:
                self.left_out.append((line, str(exc)))
                continue
            if found:
                return found
        return None

    def warnings(self) -> list[str]:
        """One warning for the whole file (at the first line concerned), or none."""
        if not self.left_out:
            return []
        first = self.left_out[0][0]
        kinds = ", ".join(dict.fromkeys(what for _, what in self.left_out))
        if len(self.left_out) == 1:
            return [f"{self.name}:{first}: a link ({kinds}) is left out: only http and https links "
                    "are kept; the paper is imported"]
        lines = sorted({line for line, _ in self.left_out})
        shown = ", ".join(map(str, lines[:5])) + (", ..." if len(lines) > 5 else "")
        return [f"{self.name}:{first}: {len(self.left_out)} links ({kinds}) are left out: only http and "
                f"https links are kept; their papers are imported (lines {shown})"]
