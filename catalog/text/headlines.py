"""Headlines: a short display title for a paper that has none, from its abstract.

Leads with the method's name when the abstract coins one ("We introduce PLASH, an attention
block ..." -> "PLASH: an attention block ..."). Otherwise it says what the paper contributes:
what it proposes ("we develop a pruning-based method that ..."), else what it finds ("we show
that sparse expert activation acts as a noise filter"), else what it studies ("we study
d-dimensional mean estimation in the shuffle model"); failing all, the first sentence, shortened.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from catalog.text.tex import render

HEADLINE_MAX = 90
HEADLINE_WORDS = 12  # a phrase to scan, not a sentence to read
HEADLINE_MIN_WORDS = 4

# "we further propose", "this paper introduces", "we for the first time present"
_INTRO = re.compile(
    r"\b(?:we|paper|work|study|article)\b(?:\s+[\w-]+){0,6}?\s+"
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
# ahead; a plain `.` is found faster still, so text without ! or ? uses that.
_SENTENCE_END = re.compile(r"[.!?]\s+(?=[A-Z\"“(\[])")
_PERIOD_END = re.compile(r"\.\s+(?=[A-Z\"“(\[])")
_ABBREV = re.compile(r"\b(?:e\.g|i\.e|etc|vs|al|cf|Fig|Eq|approx|resp)\.$")
_ABBREV_ENDS = ("e.g.", "i.e.", "etc.", "vs.", "al.", "cf.", "Fig.", "Eq.", "approx.", "resp.")
_STRAY = re.compile(r"\\[A-Za-z]+|[$*\\]")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)
_DANGLING = frozenset(
    "the a an of to for and or in on at with by via that which whose as from into its their".split()
)
# Where a headline too long for HEADLINE_WORDS may end: before a clause, a conjunction or a
# comma; before a preposition (never between a participle and its own, "inspired | by");
# before "of" only when neither is there.
_STRONG_CUT = re.compile(
    r",\s|\s(?:[—–]|--)\s|\s(?=(?:that|which|whose|where|while|when|whereas|although|because|since|"
    r"yet|but|and|so|thus|thereby|while|using|via|through|based|by|as|than)\s)"
)
_WEAK_CUT = re.compile(
    r"(?<!ed)\s(?=(?:in|on|for|to|with|without|across|from|at|under|over|into|within|between|"
    r"among|against|beyond|toward|towards|per|during|after|before)\s)"
)
_OF_CUT = re.compile(r"\s(?=of\s)")
_PAREN_ASIDE = re.compile(r"\s*\([^()]{0,60}\)")
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
    r"[;:(]|\s—|\s--\s|,\s(?=(?:which|that|where|whose|while|and|but|as|with|i\.e\.)\s)"
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


# What a paper contributes when it coins no name (see _contribution). The subject comes
# first, as in _INTRO: "we further show that", "this work demonstrates how".
_FILLER = r"(?:\s+(?:first|further|also|then|here|now|finally|\w+ly|,))*"
_FINDING = re.compile(
    r"\b(?:we|paper|work|study)\b" + _FILLER + r"\s+"
    r"(?:show|find|demonstrate|prove|reveal|observe|discover|establish|argue|confirm)(?:s|ed)?"
    r"\s+(?:that\s+|(?=how\s))(?P<obj>.+)",
    re.I,
)
_STUDY = re.compile(
    r"\b(?:we|paper|work|article)\b" + _FILLER + r"\s+"
    r"(?:stud(?:y|ies)|investigates?|analy[sz]es?|explores?|examines?|characterizes?|"
    r"revisits?|formalizes?)\s+(?P<obj>.+)",
    re.I,
)
_CONTRIBUTION_WORDS = ("show", "find", "demonstrat", "prove", "reveal", "observe", "discover",
                       "establish", "argue", "confirm", "stud", "investigat", "analy", "explor",
                       "examin", "characteriz", "revisit", "formaliz")
# "the first", "a novel", "a simple yet effective": true of every paper, telling of none.
_BOILERPLATE = re.compile(
    r"^(?:(?:the|a|an)\s+)?(?:(?:first|novel|new|simple|yet|effective|general)\s*,?\s+)*", re.I
)
# "for a broad class of problems, training on ..." -> "training on ..."; "(design) and prove
# the correctness of ..." -> "the correctness of ..."
_LEAD_PHRASE = re.compile(r"^,?\s*(?:(?:for|in|under|on|across|with|at|by)\b[^,]{0,60},|and\s+\w+)\s*", re.I)
# Where a contribution's phrase ends: an aside, or a second verb ("revisit X and observe that")
_ASIDE = re.compile(r",?\s+(?:i\.e\.|e\.g\.|such as)(?=[\s,])|\s+and\s+(?:observe|show|find|prove|demonstrate)\b")
_WEAK_END = frozenset("is are was were be been".split())
_VAGUE_START = frozenset(
    "this that these those it they them our its their such there here recently previously "
    "solution answer result results problem case same opposite former latter".split()
)
# A sentence that adds to the main contribution rather than stating it.
_SECONDARY_OPENINGS = ("however", "moreover", "furthermore", "finally", "additionally",
                       "in addition", "besides", "next", "then", "also", "to explain")


def _secondary(sentence: str) -> bool:
    low = sentence[:200].lower()
    return low.startswith(_SECONDARY_OPENINGS) or (
        "we also" in low or "we further" in low or "we additionally" in low)


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
    """At most HEADLINE_WORDS words and `limit` characters, ending where a phrase does: before
    a clause ("that", "which", a comma), else before a preposition, else (a run of words with
    neither) after the last whole word that fits. Never a "…": a headline says a whole thing."""
    s = " ".join(s.split()).rstrip(" .")
    if _fits(s, limit):
        return s
    if "(" in s:  # asides go first: "Vision–language models (VLMs) align ..."
        s = " ".join(_PAREN_ASIDE.sub("", s).split())
        if _fits(s, limit):
            return s
    # The longest phrase that fits: a clause and a prepositional phrase end alike well
    # ("a systematic approach for identifying | and characterizing X | in Y": the second).
    for boundaries in ((_STRONG_CUT, _WEAK_CUT), (_OF_CUT,)):
        cuts = [m.start() for boundary in boundaries for m in boundary.finditer(s)
                if _fits(s[: m.start()], limit) and _words(_trim_end(s[: m.start()])) >= HEADLINE_MIN_WORDS]
        if cuts:
            return _trim_end(s[: max(cuts)])
    words = s.split()[:HEADLINE_WORDS]
    while words and not _fits(" ".join(words), limit):
        words.pop()
    return _trim_end(" ".join(words)) or s[: limit].rstrip()


def _fits(s: str, limit: int) -> bool:
    # "Name: description" counts the name as one word.
    return len(s) <= limit and _words(s) <= HEADLINE_WORDS


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


def _contribution(obj: str) -> str | None:
    """A headline from what a paper proposes, finds or studies (the words after the verb),
    or None when they say too little ("we show that this holds", "we propose it")."""
    obj = _LEAD_PHRASE.sub("", obj, count=1)
    obj = _BOILERPLATE.sub("", obj, count=1)
    obj = _ASIDE.split(obj, maxsplit=1)[0]
    if end := _DESC_END.search(obj):
        obj = obj[: end.start()]
    if len(obj) > HEADLINE_MAX:  # a whole phrase reads better than a cut one
        commas = [i for i in range(len(obj[:HEADLINE_MAX])) if obj[i] == "," and _words(obj[:i]) >= 4]
        obj = obj[: commas[-1]] if commas else obj
    obj = _trim_end(obj.strip().rstrip("."))
    words = obj.split()
    if len(words) < 4 or words[0].lower().strip("\"“") in _VAGUE_START:
        return None
    words = _fit(obj).split()
    while len(words) > 4 and words[-1] in _WEAK_END:  # "... among textual expressions is"
        words.pop()
    obj = " ".join(words)
    if obj[:1] in "\"“":
        return obj[0] + _cap(obj[1:])
    return _cap(obj)


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
    # When no name is coined: (rank, headline) of the best contribution sentence so far. A
    # proposal (4) beats a finding (3), which beats what is studied (2); a sentence that only
    # adds to the contribution ("Furthermore, we ...") ranks below those (1 and 0).
    best: tuple[int, str] | None = None
    for raw in _sentences(text):
        # Cheap tests first, on the raw sentence: the words they look for
        # hold no whitespace, the only thing that collapsing it changes.
        intro = _has_intro_verb(raw)
        naming = "call" in raw or "term" in raw or "name" in raw or "dub" in raw
        contributes = (best is None or best[0] < 3) and _may_contribute(raw)
        if not (intro or naming or contributes or first is None):
            continue
        sentence = " ".join(raw.split())
        if first is None:
            first = sentence
        found = None
        if intro and (m := _INTRO.search(sentence)):
            found = _from_object(m["obj"])
            rank = 1 if _secondary(sentence) else 4
            if not found and (best is None or best[0] < rank) and (c := _contribution(m["obj"])):
                best = (rank, c)
        if not found and naming and _may_name(sentence):
            found = _from_naming(sentence)
        if found:
            return _shorten(found)
        if contributes and (m := _FINDING.search(sentence)):
            rank = 0 if _secondary(sentence) else 3
            if (best is None or best[0] < rank) and (c := _contribution(m["obj"])):
                best = (rank, c)
        elif contributes and (best is None or best[0] < 2) and (m := _STUDY.search(sentence)):
            if c := _contribution(m["obj"]):
                best = (2, c)
    return _shorten(best[1] if best else first or "")


def _may_contribute(sentence: str) -> bool:
    """Whether _FINDING or _STUDY may match: a subject and a verb they need (most sentences
    of an abstract have no "we", "paper", "work" or "study": those are skipped first)."""
    if not ("We " in sentence or "we " in sentence or "paper" in sentence or " work" in sentence
            or "study" in sentence or "WE " in sentence or "Work" in sentence):
        return False
    low = sentence.lower()
    if not low.isascii():  # under re.I, ı and İ match i and ſ matches s
        low = low.replace("ı", "i").replace("i\u0307", "i").replace("ſ", "s")
    return any(word in low for word in _CONTRIBUTION_WORDS)
