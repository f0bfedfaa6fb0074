"""Syntax errors and repair records shared by the parser and the problem builder."""

from __future__ import annotations

from dataclasses import dataclass

from green_agent.kit.errors import InputError

#: The error kinds `FolSyntaxError.kind` can take.
ERROR_KINDS = (
    "empty",
    "unbalanced_parenthesis",
    "dangling_operator",
    "quantifier_without_variable",
    "unexpected_character",
    "unexpected_token",
    "arity_conflict",
)


@dataclass(frozen=True)
class Repair:
    """One fix lenient parsing applied, e.g. `Repair("caret_as_and", "'^' read as '∧' at column 12")`."""

    kind: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def excerpt_at(text: str, line: int, column: int) -> str:
    """The source line holding (line, column) with a caret under that column."""
    lines = text.splitlines() or [""]
    src = lines[min(max(line, 1), len(lines)) - 1]
    return f"{src}\n{' ' * max(column - 1, 0)}^"


class FolSyntaxError(InputError, ValueError):
    """A formula that does not parse; `kind` is one of `ERROR_KINDS`, positions are 1-based."""

    def __init__(self, kind: str, message: str, text: str, line: int, column: int) -> None:
        self.kind = kind
        self.message = message
        self.text = text
        self.line = line
        self.column = column
        self.excerpt = excerpt_at(text, line, column)
        #: Which formula of a problem failed ("premise 3", "conclusion"), set by `parse_problem`.
        self.where: str | None = None
        super().__init__(message)

    def __str__(self) -> str:
        where = f"{self.where}: " if self.where else ""
        return f"{where}{self.kind} at line {self.line}, column {self.column}: {self.message}\n{self.excerpt}"
