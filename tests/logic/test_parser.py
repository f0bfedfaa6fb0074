"""Parser: precedence, names, variables, positions, strict error kinds."""

from __future__ import annotations

import pytest

from green_agent.logic import (
    And,
    Atom,
    Const,
    Eq,
    Exists,
    FolSyntaxError,
    ForAll,
    Iff,
    Implies,
    Not,
    Or,
    Var,
    Xor,
    parse,
)

A, B, C, D = (Atom(n) for n in "ABCD")


def f(text: str):
    return parse(text).formula


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("¬A ∧ B", And(Not(A), B)),
        ("A ∧ B ∨ C", Or(And(A, B), C)),
        ("A ∨ B ∧ C", Or(A, And(B, C))),
        ("A ⊕ B ∧ C", Xor(A, And(B, C))),
        ("A ∨ B ⊕ C", Xor(Or(A, B), C)),  # same level, left-assoc
        ("A ⊕ B ∨ C", Or(Xor(A, B), C)),
        ("A ∧ B ∧ C", And(And(A, B), C)),
        ("A ∨ B → C", Implies(Or(A, B), C)),
        ("A → B → C", Implies(A, Implies(B, C))),  # right-assoc
        ("A → B ↔ C", Iff(Implies(A, B), C)),
        ("A ↔ B ↔ C", Iff(Iff(A, B), C)),  # left-assoc
        ("A ⟷ B", Iff(A, B)),
        ("A ⊕ B → C ∧ D", Implies(Xor(A, B), And(C, D))),
        ("(A → B) → C", Implies(Implies(A, B), C)),
        ("¬(A ∧ B)", Not(And(A, B))),
        ("¬¬A", Not(Not(A))),
    ],
)
def test_precedence(text, expected):
    assert f(text) == expected


def test_quantifier_scope_extends_right():
    px, qx = Atom("P", (Var("x"),)), Atom("Q", (Var("x"),))
    assert f("∀x P(x) → Q(x)") == ForAll("x", Implies(px, qx))
    assert f("∀x (P(x)) → Q(x)") == ForAll("x", Implies(px, qx))
    assert f("A ∧ ∃x P(x) ∧ Q(x)") == And(A, Exists("x", And(px, qx)))
    assert f("(∀x P(x)) → A") == Implies(ForAll("x", px), A)
    assert f("¬∃x P(x) ∧ A") == Not(Exists("x", And(px, A)))


def test_chained_quantifiers_and_equality():
    x, y = Var("x"), Var("y")
    expected = Exists("x", Exists("y", And(Not(Eq(x, y)), Atom("P", (x,)))))
    assert f("∃x∃y (¬(x=y) ∧ P(x))") == expected
    assert f("∃x ∃y (x≠y ∧ P(x))") == expected
    assert f("∀x ∀y R(x, y)") == ForAll("x", ForAll("y", Atom("R", (x, y))))


@pytest.mark.parametrize(
    "name",
    [
        "l-2021",
        "c++",
        "2008SummerOlympics",
        "mr.smith",
        "y42.3billion",
        "LostToIgaŚwiątek",
        "a+",
        "GrowthCompanies’Stocks",
        "o'neil",
        "x—y",
        "ns:thing",
        "Jess",
        "1984",
    ],
)
def test_odd_constant_names(name):
    assert f(f"P({name})") == Atom("P", (Const(name),))


def test_zero_arity_and_capitalised_constants():
    assert f("Rain → Wet") == Implies(Atom("Rain"), Atom("Wet"))
    assert f("Luxury(Jess)") == Atom("Luxury", (Const("Jess"),))
    assert f("emmetBuiling=blakeMcFallCompanyBuilding") == Eq(
        Const("emmetBuiling"), Const("blakeMcFallCompanyBuilding")
    )


def test_bound_names_are_variables_and_others_constants():
    formula = f("∀a (P(a) → Q(a, b))")
    assert formula == ForAll("a", Implies(Atom("P", (Var("a"),)), Atom("Q", (Var("a"), Const("b")))))


def test_free_variables_reported_in_strict_mode():
    result = parse("Cost(gRE, x) ∧ Cheaper(x, 300)")
    assert result.free_variables == ("x",)
    assert result.formula == And(
        Atom("Cost", (Const("gRE"), Var("x"))), Atom("Cheaper", (Var("x"), Const("300")))
    )
    assert parse("GetGrade(zhang, a)").free_variables == ()  # 'a' is a grade, not a variable


def test_positions_are_recorded_but_not_compared():
    one, two = f("P(a) ∧ Q(b)"), f("P(a)  ∧   Q(b)")
    assert one == two
    assert one.right.pos.column == 8 and two.right.pos.column == 11
    assert one.left.args[0].pos.start == 2


@pytest.mark.parametrize(
    ("text", "kind", "line", "column"),
    [
        ("", "empty", 1, 1),
        ("   ", "empty", 1, 1),
        ("∀x (P(x) → Q(x)", "unbalanced_parenthesis", 1, 4),
        ("P(a)) ∧ Q(b)", "unbalanced_parenthesis", 1, 5),
        ("P(a) ∧", "dangling_operator", 1, 7),
        ("P(a) ∧ → Q(a)", "dangling_operator", 1, 8),
        ("(∨ P(a))", "dangling_operator", 1, 2),
        ("¬", "dangling_operator", 1, 2),
        ("∃(CarBody(x) ∧ Made(x, c))", "quantifier_without_variable", 1, 2),
        ("∀ ∧ P(x)", "quantifier_without_variable", 1, 3),
        ("A ^ B", "unexpected_character", 1, 3),
        ("∃x (Country(x) Nearby(m, x))", "unexpected_token", 1, 16),
        ("P(a,)", "unexpected_token", 1, 5),
        ("P(a)\n∧ Q(b c)", "unexpected_token", 2, 7),
    ],
)
def test_strict_error_kinds(text, kind, line, column):
    with pytest.raises(FolSyntaxError) as info:
        parse(text)
    err = info.value
    assert (err.kind, err.line, err.column) == (kind, line, column)
    src, caret = err.excerpt.split("\n")
    assert src == (text.splitlines() or [""])[line - 1]
    assert caret == " " * (column - 1) + "^"
    assert kind in str(err) and f"line {line}, column {column}" in str(err)


def test_strict_mode_does_not_repair():
    with pytest.raises(FolSyntaxError):
        parse("(Giant(gpt-3)).")


def test_threads_asking_for_the_parser_together_build_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference agent decides in worker threads: eight first tasks at once must not build the
    grammar eight times (each build is a strict-mode collision check, all of it under the GIL)."""
    import threading

    import lark

    from green_agent.logic import parser as parser_module

    builds: list[int] = []
    real_lark = lark.Lark

    def counting_lark(*args: object, **kwargs: object) -> lark.Lark:
        builds.append(threading.get_ident())
        return real_lark(*args, **kwargs)

    parser_module._build_parser.cache_clear()
    monkeypatch.setattr(parser_module.lark, "Lark", counting_lark)
    barrier = threading.Barrier(8)
    built: list[lark.Lark] = []

    def ask() -> None:
        barrier.wait()
        built.append(parser_module._parser())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    parser_module._build_parser.cache_clear()  # the next test builds a parser with the real class

    assert len(builds) == 1
    assert len(built) == 8 and all(p is built[0] for p in built)
    assert parse("∀x (A(x) → B(x))").formula == ForAll(
        "x", Implies(Atom("A", (Var("x"),)), Atom("B", (Var("x"),)))
    )
