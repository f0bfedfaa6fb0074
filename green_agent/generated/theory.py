"""One random theory: a proof chain of a chosen depth, distractors that share its words, a conclusion.

The chain (docs/generated.md, How an item is built): literals L0 … Ld of one subject — a named
individual (``Tarq``), or, for the ``existential`` construct, some unnamed thing (``some wumpus is
brumpy``). Step i is one rule that takes L(i-1) to Li, used forward (modus ponens: ``A → B`` with
A = L(i-1), B = Li) or, with negation, backward (modus tollens: ``¬Li → ¬L(i-1)``), with a fact
about the subject's side literal where the rule's form needs one. The depth is the number of rules.

Labels never change the shape: the conclusion says Ld's predicate with a sign drawn at random; a
True item's chain ends in that sign, a False item's in the other, and an Uncertain item has the
same chain with one step broken — its rule turned around (``B → A``: affirming the consequent), or,
for ``↔`` (which cannot be turned around), its antecedent replaced by a fresh predicate.

Distractors are built so that no distractor can shorten the proof or decide an Uncertain item:
branches leave the chain towards fresh predicates and never come back; dangling rules reach the
chain from fresh predicates nothing makes true (the first distractor of every item is one into the
last literal, with the other sign: a decoy); facts about other individuals, or about the subject with
fresh predicates. The minimal premise set is therefore exactly the chain (the labeller checks).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from green_agent.generated.knobs import CONSTRUCTS
from green_agent.generated.rng import Stream
from green_agent.generated.statements import (
    CONSTRUCT_OF_FORM,
    RULE_FORMS,
    SIDE_FACT_FORMS,
    Fact,
    Lit,
    Rule,
    SomeFact,
    Statement,
    literals,
)
from green_agent.generated.vocabulary import Name, Vocabulary, Word

EXISTENTIAL_SHARE = (1, 3)
"""The share of items with an unnamed subject when ``existential`` is enabled."""


@dataclass(frozen=True)
class Theory:
    """The premises (in the order shown), the conclusion and what the generator built into them."""

    premises: tuple[Statement, ...]
    """Chain and distractor premises, shuffled."""
    conclusion: Fact | SomeFact
    """The statement to judge."""
    label: str
    """True, False or Uncertain, by construction (the labeller proves it)."""
    depth: int
    """Rules on the chain."""
    chain: tuple[int, ...]
    """0-based indices of the chain's premises (the broken chain of an Uncertain item)."""
    proof: tuple[int, ...]
    """0-based indices of the premises a proof needs (empty for Uncertain): the chain, except the
    existential fact when the conclusion is refuted by the rules alone."""
    distractors: int
    """Premises not on the chain."""
    constructs: tuple[str, ...]
    """The constructs the chain and the conclusion use, in :data:`~green_agent.generated.knobs.CONSTRUCTS` order."""
    subject: Name | None
    """The named subject of the chain; None when it is unnamed (existential)."""
    open_lits: tuple[Lit, ...]
    """Uncertain only: the chain's literals from the broken step on, which the premises leave open
    (all of them may hold, or all fail: the two witnesses, docs/generated.md)."""


class _Draw:
    """One item's random choices: fresh words and names without repetition, signs, forms."""

    def __init__(self, stream: Stream, vocabulary: Vocabulary, constructs: tuple[str, ...]) -> None:
        self.s = stream
        self._words: Iterator[Word] = iter(stream.shuffled(vocabulary.words))
        self._names: Iterator[Name] = iter(stream.shuffled(vocabulary.names))
        self.negation = "negation" in constructs
        self.existential = "existential" in constructs
        self.forms = tuple(f for f in RULE_FORMS if CONSTRUCT_OF_FORM[f] in constructs)
        if not self.negation:  # these forms are used with a negated side fact
            self.forms = tuple(f for f in self.forms if f not in ("disj_cons", "xor"))

    def word(self) -> Word:
        return next(self._words)

    def name(self) -> Name:
        return next(self._names)

    def sign(self) -> bool:
        return not self.negation or self.s.chance(1, 2)

    def lit(self) -> Lit:
        return Lit(self.word(), self.sign())

    def backward(self) -> bool:
        """Whether a rule is written contrapositively (only with negation)."""
        return self.negation and self.s.chance(1, 2)


def _rule(draw: _Draw, form: str, ante: Lit, cons: Lit, backward: bool) -> Rule:
    """A rule of ``form`` from ``ante`` to ``cons``; ``backward`` writes its contrapositive."""
    if backward:
        ante, cons = cons.negated(), ante.negated()
    if form == "iff" and draw.s.chance(1, 2):
        ante, cons = cons, ante
    extra = draw.lit() if form not in ("universal", "iff") else None
    return Rule(form, ante, cons, extra, extra_first=extra is not None and draw.s.chance(1, 2))


@dataclass
class _Chain:
    """The chain as built, before distractors join it and everything is shuffled."""

    subject: Name | None
    """The named subject, or None for an unnamed one."""
    lits: list[Lit]
    """L0 … Ld, each with the sign the chain gives it."""
    broken: int
    """The broken step (1-based), 0 when none is."""
    premises: list[Statement]
    """The start fact, each rule, each side fact."""
    proof: list[int]
    """Positions in ``premises`` a proof needs."""
    conclusion: Fact | SomeFact
    """The conclusion."""


def _chain(draw: _Draw, label: str, depth: int, existential: bool) -> _Chain:
    forms = tuple(f for f in draw.forms if not (existential and f in SIDE_FACT_FORMS))
    subject = None if existential else draw.name()
    conclusion_sign = draw.sign()
    last_sign = draw.sign() if label == "Uncertain" else conclusion_sign == (label == "True")
    lits = [Lit(draw.word(), True if existential else draw.sign())]
    lits += [draw.lit() for _ in range(depth - 1)]
    lits.append(Lit(draw.word(), last_sign))
    broken = 1 + draw.s.below(depth) if label == "Uncertain" else 0
    premises: list[Statement] = []
    if subject is None:
        start: Statement = SomeFact(lits[0], Lit(draw.word()))
    else:
        start = Fact(subject, lits[0])
    premises.append(start)
    for step in range(1, depth + 1):
        form = draw.s.choice(forms)
        ante, cons = lits[step - 1], lits[step]
        if step == broken:
            if form == "iff":
                ante = Lit(draw.word(), ante.positive)
            else:
                ante, cons = cons, ante
        rule = _rule(draw, form, ante, cons, draw.backward())
        premises.append(rule)
        if subject is not None and form in SIDE_FACT_FORMS:
            assert rule.extra is not None
            premises.append(Fact(subject, rule.extra if form == "conj_ante" else rule.extra.negated()))
    end = Lit(lits[-1].word, conclusion_sign)
    conclusion: Fact | SomeFact = Fact(subject, end) if subject else SomeFact(lits[0], end)
    if label == "Uncertain":
        proof: list[int] = []
    elif subject is None and label == "False":  # "some L0 is …" is refuted by the rules alone
        proof = [k for k, p in enumerate(premises) if isinstance(p, Rule)]
    else:
        proof = list(range(len(premises)))
    return _Chain(subject, lits, broken, premises, proof, conclusion)


def _distractor(draw: _Draw, chain: _Chain, leaves: list[Lit], existential: bool) -> Statement:
    """One premise off the chain; see the module docstring for why none can shorten the proof."""
    kinds = ["branch", "dangling", "other_fact"]
    kinds += [] if existential else ["subject_fact"]
    kinds += ["some_fact"] if draw.existential else []
    kind = draw.s.choice(kinds)
    form = draw.s.choice(draw.forms)
    if kind == "branch":  # from the chain (or a branch) to a fresh predicate
        root = draw.s.choice(leaves) if leaves and draw.s.chance(1, 3) else draw.s.choice(chain.lits)
        leaf = draw.lit()
        leaves.append(leaf)
        return _rule(draw, form, Lit(root.word, draw.sign()), leaf, draw.backward())
    if kind == "dangling":  # from a fresh predicate into the chain
        target = draw.s.choice(chain.lits[1:])
        return _rule(draw, form, draw.lit(), Lit(target.word, draw.sign()), draw.backward())
    if kind == "some_fact":
        first = Lit(draw.word()) if existential else Lit(draw.s.choice(chain.lits).word)
        return SomeFact(first, Lit(draw.word()))
    if kind == "subject_fact":
        assert chain.subject is not None
        return Fact(chain.subject, draw.lit())
    if existential:  # a second thing that could reach the chain could prove "some …" alone
        return Fact(draw.name(), draw.lit())
    pool = [*chain.lits, *leaves]
    return Fact(draw.name(), Lit(draw.s.choice(pool).word, draw.sign()))


def _decoy(draw: _Draw, chain: _Chain) -> Statement:
    """A dangling rule into the chain's last literal with the other sign: the conclusion's predicate
    then shows in a consequent with both signs, so which one the chain reaches takes the chain.
    (Without negation there is no other sign, and no False label to give away.)"""
    form = draw.s.choice(draw.forms)
    return _rule(draw, form, draw.lit(), chain.lits[-1].negated(), draw.backward())


def _constructs(chain: _Chain, existential: bool) -> tuple[str, ...]:
    used = {CONSTRUCT_OF_FORM[p.form] for p in chain.premises if isinstance(p, Rule)}
    statements = [*chain.premises, chain.conclusion]
    if any(not lit.positive for s in statements for lit in literals(s)):
        used.add("negation")
    if existential:
        used.add("existential")
    return tuple(c for c in CONSTRUCTS if c in used)


def build_theory(
    stream: Stream,
    *,
    label: str,
    depth: int,
    distractors: int,
    constructs: tuple[str, ...],
    vocabulary: Vocabulary,
) -> Theory:
    """A theory whose conclusion has ``label``, with a chain of ``depth`` rules and ``distractors`` more premises."""
    draw = _Draw(stream, vocabulary, constructs)
    side_free = any(f not in SIDE_FACT_FORMS for f in draw.forms)
    existential = "existential" in constructs and side_free and stream.chance(*EXISTENTIAL_SHARE)
    chain = _chain(draw, label, depth, existential)
    leaves: list[Lit] = []
    extra = [_decoy(draw, chain)] if distractors and draw.negation else []
    extra += [_distractor(draw, chain, leaves, existential) for _ in range(distractors - len(extra))]
    everything = chain.premises + extra
    order = stream.shuffled(range(len(everything)))  # order[k]: which premise is shown k-th
    proof = set(chain.proof)
    return Theory(
        premises=tuple(everything[i] for i in order),
        conclusion=chain.conclusion,
        label=label,
        depth=depth,
        chain=tuple(k for k, i in enumerate(order) if i < len(chain.premises)),
        proof=tuple(k for k, i in enumerate(order) if i in proof),
        distractors=distractors,
        constructs=_constructs(chain, existential),
        subject=chain.subject,
        open_lits=tuple(chain.lits[chain.broken :]) if chain.broken else (),
    )
