"""English for a statement, from templates: at least three surface forms per construct, picked by the seed.

Every form says exactly what the FOL says. Forms that only read well for some signs ("Every wumpus
is a yumpus" needs a positive noun phrase; "No wumpus is a yumpus" a negative consequent) are
added to the three that read well for any sign, never substituted for them. A negated literal is
written with exactly one negation word (``not``, ``no`` or ``never``), so negation words count
negated literals, whatever the form; ``but not both`` marks every exclusive or.
"""

from __future__ import annotations

from green_agent.generated.rng import Stream
from green_agent.generated.statements import Fact, Lit, Rule, SomeFact, Statement
from green_agent.generated.vocabulary import article


def _is(lit: Lit) -> str:
    """``is a wumpus``, ``is not brumpy``."""
    word = lit.word
    thing = f"{article(word.text)} {word.text}" if word.noun else word.text
    return f"is {thing}" if lit.positive else f"is not {thing}"


def _are(lit: Lit) -> str:
    """``are wumpuses``, ``are not brumpy``."""
    return f"are {_bare_plural(lit)}" if lit.positive else f"are not {_bare_plural(lit)}"


def _bare_plural(lit: Lit) -> str:
    """``wumpuses``, ``brumpy``: what ``are`` is followed by, without the sign."""
    return lit.word.plural if lit.word.noun else lit.word.text


def _kind(lit: Lit, plural: bool = False) -> str:
    """A noun phrase for a positive literal: ``wumpus``, ``brumpy thing`` (``wumpuses``, ``brumpy things``)."""
    word = lit.word
    if word.noun:
        return word.plural if plural else word.text
    return f"{word.text} things" if plural else f"{word.text} thing"


def _with_article(phrase: str) -> str:
    return f"{article(phrase)} {phrase}"


def _universal(a: Lit, b: Lit) -> list[str]:
    forms = [
        f"if something {_is(a)}, then it {_is(b)}",
        f"anything that {_is(a)} {_is(b)}",
        f"whatever {_is(a)} {_is(b)}",
    ]
    if a.positive and b.positive:
        forms += [
            f"every {_kind(a)} {_is(b)}",
            f"all {_kind(a, True)} {_are(b)}",
            f"{_kind(a, True)} {_are(b)}",
        ]
    elif a.positive:
        forms += [f"no {_kind(a)} {_is(b.negated())}", f"{_kind(a, True)} are never {_bare_plural(b)}"]
    else:
        forms.append(f"everything that {_is(a)} {_is(b)}")
    return forms


def _pair(rule: Rule, partner: Lit, joint: str) -> str:
    """The two literals joined by ``and``/``or``, the side literal first when the FOL has it first."""
    assert rule.extra is not None
    first, second = (rule.extra, partner) if rule.extra_first else (partner, rule.extra)
    return f"{_is(first)} {joint} {_is(second)}"


def _compound(rule: Rule) -> list[str]:
    a, b = rule.ante, rule.cons
    if rule.form in ("conj_ante", "disj_ante"):
        cond = _pair(rule, a, "and" if rule.form == "conj_ante" else "or")
        forms = [
            f"if something {cond}, then it {_is(b)}",
            f"anything that {cond} {_is(b)}",
            f"whatever {cond} {_is(b)}",
        ]
        if rule.form == "conj_ante" and a.positive and b.positive and not rule.extra_first:
            assert rule.extra is not None
            forms.append(f"every {_kind(a)} that {_is(rule.extra)} {_is(b)}")
        if rule.form == "disj_ante":
            forms.append(f"anything that {cond}, or both, {_is(b)}")
        return forms
    joint = {"conj_cons": "and", "disj_cons": "or", "xor": "or"}[rule.form]
    then = _pair(rule, b, joint)
    if rule.form == "xor":
        then = f"either {then}, but not both"
    forms = [
        f"if something {_is(a)}, then it {then}",
        f"anything that {_is(a)} {then}",
        f"whatever {_is(a)} {then}",
    ]
    first = rule.extra if rule.extra_first else b
    if a.positive and first is not None and first.positive:  # "every wumpus is not …" would be ambiguous
        forms.append(f"every {_kind(a)} {then}")
    return forms


def _iff(a: Lit, b: Lit) -> list[str]:
    return [
        f"something {_is(a)} if and only if it {_is(b)}",
        f"a thing {_is(a)} exactly when it {_is(b)}",
        f"anything that {_is(a)} {_is(b)}, and anything that {_is(b)} {_is(a)}",
    ]


def _some(fact: SomeFact) -> list[str]:
    first, second = fact.first, fact.second
    forms = [f"something {_is(first)} and {_is(second)}"]
    if first.positive:
        kind = _kind(first)
        forms += [
            f"some {kind} {_is(second)}",
            f"there is {_with_article(kind)} that {_is(second)}",
            f"at least one {kind} {_is(second)}",
        ]
    return forms


def forms(statement: Statement) -> list[str]:
    """Every English form of a statement (lower-case start, no final period)."""
    if isinstance(statement, Fact):
        return [f"{statement.name.text} {_is(statement.lit)}"]
    if isinstance(statement, SomeFact):
        return _some(statement)
    if statement.form == "universal":
        return _universal(statement.ante, statement.cons)
    if statement.form == "iff":
        return _iff(statement.ante, statement.cons)
    return _compound(statement)


def sentence(statement: Statement, stream: Stream) -> str:
    """One English sentence for ``statement``, its form drawn from ``stream``."""
    text = stream.choice(forms(statement))
    return text[:1].upper() + text[1:] + "."
