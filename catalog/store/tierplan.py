"""The search tiers a query's words make, planned once for both backends: which groups of
words the exact tier, the other-forms tier and the acronyms tier hold, which groups are this
form only (`=word`) or left out (`-word`, `-=word`), and one expression per word for papers
holding some of them. sqlite/fts.py and postgres/search.py call `plan_tiers` with their
`Syntax` (how a phrase and the operators are written, and their SQL for the exact index);
the rest of each compiler is its own."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from catalog.searching import connecting
from catalog.searching.query import Clause, Filter, Query, Text
from catalog.text.cjk import has_cjk

# Longest long form (in words) a query is checked against for acronyms.
MAX_LONG_WORDS = 6
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Syntax:
    """What a backend writes differently; the index names are those its CompiledQuery.exclude
    holds."""

    phrase: Callable[[Text], str | None]  # None: nothing in the text can be searched for
    clause_sql: Callable[[Clause, str], tuple[str, list]]  # filters or CJK words (reader's name)
    and_: str
    or_: str
    and_not: str  # joins the exact tier's words to the "(" of the `-=word`s it leaves out
    alone: Callable[[str], str]  # one word of a long form, as a group of its own
    exact_index: str
    stem_index: str
    in_exact: str  # condition on `paper p`: found in the exact index by a parameter
    not_matching: Callable[[str], str]  # condition on `paper p`: not found in an index by a parameter


def is_words(option: Text | Filter) -> bool:
    """Whether the index's tokenizer can find this option (CJK words are matched otherwise)."""
    return isinstance(option, Text) and not has_cjk(option.text)


def plan_tiers(query: Query, acronyms: Mapping[str, Sequence[str]], syntax: Syntax, out):
    """`out`, the backend's CompiledQuery (`out.reader` set), filled with `query`'s tiers.
    `acronyms`: what a word or phrase of the query also stands for, by its text as typed
    ("SAE" -> ["sparse autoencoder"], "large language model" -> ["LLM"]), from the store.
    Several words in a row that spell a long form are one group: `large language model`."""
    def any_of(phrases) -> str | None:
        found = [p for p in phrases if p]
        return "(" + syntax.or_.join(found) + ")" if found else None

    exact: list[str] = []
    forms: list[str] = []
    wide: list[str] = []
    negative: list[str] = []
    negative_exact: list[str] = []
    only_exact: list[str] = []
    clauses = list(query.clauses)
    # Connecting words (`versus`, `via`) are optional beside words naming a topic: a paper
    # needs the others only, and among papers holding some words they weigh little.
    optional = connecting.optional(clauses)
    i = 0
    while i < len(clauses):
        clause = clauses[i]
        if i in optional:
            text = clause.options[0]
            out.words.append(any_of([syntax.phrase(text)]))
            out.typed.append(out.words[-1])
            out.word_texts.append(text.text)
            out.connecting.append(True)
            i += 1
            continue
        if not all(is_words(o) for o in clause.options):
            sql, params = syntax.clause_sql(clause, out.reader)
            out.where.append(f"NOT {sql}" if clause.negated else sql)
            out.params.extend(params)
            i += 1
            continue
        group = any_of(syntax.phrase(o) for o in clause.options)
        if group is None:  # nothing searchable: finds nothing, and excludes nothing
            if not clause.negated:
                out.where.append("FALSE")
            i += 1
            continue
        if clause.negated:
            (negative_exact if any(o.exact for o in clause.options) else negative).append(group)
            i += 1
            continue
        exact.append(group)
        if any(o.exact for o in clause.options):
            only_exact.append(group)
            i += 1
            continue
        span, also = _long_form_at(clauses, i, acronyms)
        if span > 1:  # words spelling a long form: each word, or one of its short forms
            phrases = [p for j in range(i, i + span) if (p := syntax.phrase(clauses[j].options[0]))]
            groups = [syntax.alone(p) for p in phrases]
            exact.extend(groups[1:])
            forms.extend(groups)
            shorts = [p for a in also if (p := syntax.phrase(Text(a)))]
            wide.append("((" + syntax.and_.join(phrases) + ")" + "".join(syntax.or_ + p for p in shorts) + ")")
            # One word for papers holding some of the query's: the run, or a short form of it
            # ("mech interp" is in no paper, "mechanistic interpretability" is).
            out.words.append(wide[-1])
            out.typed.append(wide[-1])
            out.word_texts.append(" ".join(clauses[j].options[0].text for j in range(i, i + span)))
            out.connecting.append(False)
            i += span
            continue
        extra = [a for o in clause.options if not o.prefix for a in acronyms.get(o.text, ())]
        widened = any_of([syntax.phrase(o) for o in clause.options] + [syntax.phrase(Text(a)) for a in extra])
        forms.append(group)
        wide.append(widened)
        # Papers holding some of the words also count a compound's parts held apart: no paper
        # says "weight-based", papers on "open-weight" models "based" on them do.
        apart = [syntax.and_.join(parts) for o in clause.options if (parts := _parts(o, syntax))]
        out.words.append(any_of([widened, *("(" + a + ")" for a in apart)]) if apart else widened)
        out.typed.append(widened)
        out.word_texts.append(" OR ".join(o.text for o in clause.options))
        out.connecting.append(False)
        i += 1
    if exact:
        out.match = syntax.and_.join(exact)
        if negative_exact:
            out.match += syntax.and_not + "(" + syntax.or_.join(negative_exact) + ")"
        if forms:
            out.forms = syntax.and_.join(forms)
            if wide != forms:
                out.wide = syntax.and_.join(wide)
            for group in only_exact:  # this form only: the stemmed tiers filter on the exact index
                out.where.append(syntax.in_exact)
                out.params.append(group)
        if negative:
            out.exclude.append((syntax.stem_index, syntax.or_.join(negative)))
        if negative_exact and out.forms:
            out.exclude.append((syntax.exact_index, syntax.or_.join(negative_exact)))
        if out.connecting.count(False) < 2:  # one word naming a topic: no paper holds "some"
            out.words, out.word_texts, out.typed, out.connecting = [], [], [], []
    else:
        out.words, out.word_texts, out.typed, out.connecting = [], [], [], []
        for index, negated in ((syntax.stem_index, negative), (syntax.exact_index, negative_exact)):
            if negated:
                out.where.append(syntax.not_matching(index))
                out.params.append(syntax.or_.join(negated))
    return out


def ids_of_tiers(tiers: Sequence[str] | None,
                 select: Callable[[str | None], tuple[str, list]]) -> tuple[str, list]:
    """The ids of the papers these `tiers` (TIERS) find, as one subquery for both compilers'
    ids_sql: `select(tier)` is the backend's SELECT of one tier's ids (`select(None)`: of
    every paper holding all the words in some form, when there are no tiers). Each tier
    leaves out the papers of those before it, so the parts add up as the count's do."""
    if not tiers:
        return select(None)
    parts, params = [], []
    for tier in tiers:
        sql, tier_params = select(tier)
        parts.append(sql)
        params += tier_params
    return " UNION ALL ".join(parts), params


def acronym_candidates(query: Query) -> set[str]:
    """The texts of a query an acronym could widen: its words and phrases, and runs of plain
    words (a long form typed without quotes)."""
    out: set[str] = set()
    clauses = query.clauses
    for i, clause in enumerate(clauses):
        if clause.negated:
            continue
        for option in clause.options:
            if isinstance(option, Text) and not option.prefix and not option.exact and not has_cjk(option.text):
                out.add(option.text)
        for span in range(2, min(MAX_LONG_WORDS, len(clauses) - i) + 1):
            run = clauses[i:i + span]
            if not all(not c.negated and len(c.options) == 1 and isinstance(c.options[0], Text)
                       and not c.options[0].prefix and not c.options[0].exact for c in run):
                break
            out.add(" ".join(c.options[0].text for c in run))
    return out


def _parts(option: Text, syntax: Syntax) -> list[str]:
    """The words of a compound typed without quotes (`weight-based`, `GPT-2`), each as the
    backend writes it; [] for one word, a phrase, a prefix or `=word`."""
    if option.phrase or option.prefix or option.exact:
        return []
    words = _WORD.findall(option.text)
    return [p for w in words if (p := syntax.phrase(Text(w)))] if len(words) > 1 else []


def _long_form_at(clauses: list[Clause], i: int, acronyms: Mapping[str, Sequence[str]]) -> tuple[int, list[str]]:
    """(how many plain words from clause i spell a long form the acronyms know, its short forms);
    (1, []) when none do. The longest run wins."""
    for span in range(min(MAX_LONG_WORDS, len(clauses) - i), 1, -1):
        run = clauses[i:i + span]
        if all(not c.negated and len(c.options) == 1 and isinstance(c.options[0], Text)
               and not c.options[0].prefix and not c.options[0].exact and not has_cjk(c.options[0].text)
               for c in run):
            text = " ".join(c.options[0].text for c in run)
            if text in acronyms:
                return span, list(acronyms[text])
    return 1, []
