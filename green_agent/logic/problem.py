"""A problem: parsed premises and conclusion sharing one signature (predicate arities, constants).

Arity is a problem-level fact: FOLIO sometimes uses one predicate name at two arities in a story
(`PValue/1` and `PValue/2`). Lenient mode renames such predicates `P/1`, `P/2` (reported);
strict mode raises `FolSyntaxError(kind="arity_conflict")`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from green_agent.logic.errors import FolSyntaxError
from green_agent.logic.lenient import parse
from green_agent.logic.nodes import Atom, Const, Formula, free_vars, map_atoms, subformulas, terms
from green_agent.logic.scope import DEFAULT_SCOPE


@dataclass(frozen=True)
class Signature:
    """Symbols of a problem, collected before any solver symbol is declared."""

    predicates: tuple[tuple[str, int], ...]
    """(name, arity) pairs, sorted; names are unique after arity splitting."""
    constants: tuple[str, ...]
    """Constant names (and, in strict mode, free variables, which act as constants), sorted."""

    @property
    def arity(self) -> dict[str, int]:
        """Predicate name → arity."""
        return dict(self.predicates)


@dataclass(frozen=True)
class Problem:
    """Premises and conclusion ready for a back end."""

    premises: tuple[Formula, ...]
    """Parsed premises, in input order (indices match `Decision.used_premises`)."""
    conclusion: Formula
    """Parsed conclusion."""
    signature: Signature
    """Predicates and constants used anywhere in the problem."""
    repairs: tuple[str, ...] = ()
    """Human-readable repairs, each prefixed with where it was made ("premise 2: …")."""
    scope_notes: tuple[str, ...] = ()
    """Where the variable-aware scope reading differs from the wide one, prefixed like `repairs`."""
    repair_kinds: tuple[str, ...] = ()
    """The kinds of the lenient repairs made (`Repair.kind`, e.g. `ambiguous_parenthesis`), sorted, once each;
    `arity_split` renames are not among them."""

    @property
    def formulas(self) -> tuple[Formula, ...]:
        """Premises then conclusion."""
        return (*self.premises, self.conclusion)


def _where(i: int, n: int) -> str:
    return "conclusion" if i == n else f"premise {i + 1}"


def parse_problem(
    premises: Sequence[str], conclusion: str, lenient: bool = True, scope: str = DEFAULT_SCOPE
) -> Problem:
    """Parse every formula; raises `FolSyntaxError` (with `.where`) on the first that fails."""
    texts = [*premises, conclusion]
    formulas: list[Formula] = []
    repairs: list[str] = []
    notes: list[str] = []
    kinds: set[str] = set()
    for i, text in enumerate(texts):
        try:
            result = parse(text, lenient=lenient, scope=scope)
        except FolSyntaxError as err:
            err.where = _where(i, len(premises))
            raise
        formulas.append(result.formula)
        repairs += [f"{_where(i, len(premises))}: {r}" for r in result.repairs]
        kinds.update(r.kind for r in result.repairs)
        notes += [f"{_where(i, len(premises))}: {n}" for n in result.scope_notes]
    formulas, split = _split_arities(formulas, texts, lenient)
    repairs += split
    signature = collect_signature(formulas)
    return Problem(
        tuple(formulas[:-1]), formulas[-1], signature, tuple(repairs), tuple(notes), tuple(sorted(kinds))
    )


def _split_arities(
    formulas: list[Formula], texts: list[str], lenient: bool
) -> tuple[list[Formula], list[str]]:
    arities: dict[str, set[int]] = defaultdict(set)
    for i, f in enumerate(formulas):
        for g in subformulas(f):
            if isinstance(g, Atom):
                if arities[g.pred] and len(g.args) not in arities[g.pred] and not lenient:
                    line, col = (g.pos.line, g.pos.column) if g.pos else (1, 1)
                    err = FolSyntaxError(
                        "arity_conflict",
                        f"{g.pred} used with {len(g.args)} and {min(arities[g.pred])} arguments",
                        texts[i],
                        line,
                        col,
                    )
                    err.where = _where(i, len(formulas) - 1)
                    raise err
                arities[g.pred].add(len(g.args))
    clashing = {p for p, a in arities.items() if len(a) > 1}
    if not clashing:
        return formulas, []

    def rename(atom: Atom) -> Atom:
        return replace(atom, pred=f"{atom.pred}/{len(atom.args)}") if atom.pred in clashing else atom

    notes = [
        f"arity_split: '{p}' used with arities {sorted(arities[p])}, renamed "
        + ", ".join(f"{p}/{a}" for a in sorted(arities[p]))
        for p in sorted(clashing)
    ]
    return [map_atoms(f, rename) for f in formulas], notes


def collect_signature(formulas: Sequence[Formula]) -> Signature:
    """Predicates with their arity and constants (free variables count as constants)."""
    preds: dict[str, int] = {}
    consts: set[str] = set()
    for f in formulas:
        for g in subformulas(f):
            if isinstance(g, Atom):
                preds.setdefault(g.pred, len(g.args))
        consts |= {t.name for t in terms(f) if isinstance(t, Const)}
        consts |= set(free_vars(f))
    return Signature(tuple(sorted(preds.items())), tuple(sorted(consts)))
