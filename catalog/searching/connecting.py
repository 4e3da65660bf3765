"""Connecting words: the words of a query that join its topics rather than name one (`versus`,
`via`, `using`, `towards`). The index keeps them (a title's "via" is searchable),
so a search required them like any word, and a paper that happened to say "versus" outranked
the papers on exactly the query's topics. In a query with other words they are optional:
store/tierplan.py leaves them out of what a paper must hold, and the papers holding some of
the words weigh them by their rarity, never above the query's lightest other word
(docs/query.md, "Connecting words")."""

from __future__ import annotations

from catalog.searching.query import Clause, Text
from catalog.text.cjk import has_cjk

CONNECTING = frozenset("""
    versus vs via towards toward using through throughout without within across beyond
    between among amongst against upon based""".split())
# Not "the", "of", "a", "we": nearly every abstract holds them, so requiring them changes
# nothing, and the ranked lists of frequent words (store/lists/) serve ANDs of them.


def is_connecting(clause: Clause) -> bool:
    """Whether `clause` is one plain connecting word (`via`), which a query of other words
    does not require; `=via`, `"via"`, `via*`, `-via` and `via OR using` are required as
    typed."""
    if clause.negated or len(clause.options) != 1:
        return False
    option = clause.options[0]
    return (isinstance(option, Text) and not option.phrase and not option.prefix and not option.exact
            and option.text.lower() in CONNECTING)


def optional(clauses: list[Clause]) -> set[int]:
    """The places of `clauses` holding a connecting word a paper (or a page) need not hold:
    all of them when some other clause names a topic (words, not negated, not CJK); none
    otherwise (`via`, `via venue:ICML`: the word is what is asked for)."""
    found = {i for i, c in enumerate(clauses) if is_connecting(c)}
    topical = any(i not in found and not c.negated
                  and all(isinstance(o, Text) and not has_cjk(o.text) for o in c.options)
                  for i, c in enumerate(clauses))
    return found if topical else set()
