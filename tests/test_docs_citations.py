"""Code and docs cite documents users have: no citation of the internal design notes, no dead doc links.

Users get the repository, not the notes it was planned from, so code cites ``docs/...`` (for example
"docs/architecture.md, Failures"). These checks read the files as text: every ``docs/NAME.md``
citation must name a file that exists, and the section it names (``#anchor``, a quoted phrase, or a
heading after a comma) must be in that file; every relative Markdown link in the docs and the README
must resolve.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
DOCS = ROOT / "docs"
SCANNED_DIRS = ("green_agent", "white_agents", "tests", "benchmarks", "scenarios", "docs")
SCANNED_FILES = ("README.md", "Makefile", "pyproject.toml")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".json", ".json5", ".j2", ".html", ".lark", ".txt", ".sh"}

_NOTES_CITATION = re.compile(r"\bDESIGN\b")
_DOC_CITATION = re.compile(
    r"(?<![\w/.])docs/(?P<file>[\w.-]+\.md)"
    r"(?:#(?P<anchor>[\w-]+)|, \"(?P<quoted>[^\"\n]+)\"|, (?P<section>[A-Z][\w-]*(?: [a-z][\w-]*)*))?"
)
_MD_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s+(?P<text>.+?)\s*#*\s*$")


def _scanned() -> Iterator[Path]:
    """Every text file checked, except this one (its examples are meant to be wrong)."""
    for name in SCANNED_FILES:
        if (ROOT / name).is_file():
            yield ROOT / name
    for folder in SCANNED_DIRS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in TEXT_SUFFIXES and path.is_file() and path.resolve() != HERE:
                yield path


def _headings(doc: Path) -> list[str]:
    """Heading texts of a Markdown file, outside fenced code, without markup."""
    found, fenced = [], False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line)):
            found.append(match["text"].replace("`", "").replace("*", "").strip())
    return found


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    kept = re.sub(r"[^\w\- ]", "", heading.lower())
    return kept.replace(" ", "-")


def _section_problem(doc: Path, match: re.Match[str]) -> str | None:
    """Why the section a citation names is not in ``doc``, or None."""
    headings = _headings(doc)
    if match["anchor"] and match["anchor"] not in {_slug(h) for h in headings}:
        return f"no heading with anchor #{match['anchor']}"
    if match["quoted"] and match["quoted"].lower() not in doc.read_text(encoding="utf-8").lower():
        return f"no {match['quoted']!r} in it"
    section = match["section"]
    if section and not any(section == h or section.startswith(h + " ") for h in headings):
        return f"no heading {section!r} (headings: {', '.join(headings)})"
    return None


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_nothing_cites_the_internal_design_notes() -> None:
    hits = [
        f"{_rel(path)}:{n}: {line.strip()[:100]}"
        for path in _scanned()
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if _NOTES_CITATION.search(line)
    ]
    assert not hits, "cite docs/... instead (users do not have the design notes):\n" + "\n".join(hits)


def test_every_docs_citation_names_an_existing_file_and_section() -> None:
    problems, seen = [], 0
    for path in _scanned():
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            for match in _DOC_CITATION.finditer(line):
                seen += 1
                doc = DOCS / match["file"]
                problem = "no such file" if not doc.is_file() else _section_problem(doc, match)
                if problem:
                    problems.append(f"{_rel(path)}:{n}: {match[0]!r}: {problem}")
    assert seen > 20, "the citation pattern no longer finds the citations it was written for"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_relative_markdown_links_resolve(page: Path) -> None:
    problems = []
    for match in _MD_LINK.finditer(page.read_text(encoding="utf-8")):
        target = match["target"]
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto: — not ours to check offline
        file_part, _, anchor = target.partition("#")
        doc = (page.parent / file_part).resolve() if file_part else page
        if not doc.exists():
            problems.append(f"{target}: no such file")
        elif anchor and doc.suffix == ".md" and anchor not in {_slug(h) for h in _headings(doc)}:
            problems.append(f"{target}: no heading with that anchor")
    assert not problems, f"{page.name}: " + "; ".join(problems)


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    """The patterns match a dead citation and a missing section (so a passing run means something)."""
    doc = tmp_path / "guide.md"
    doc.write_text("# Guide\n\n## Failures\n\n```\n# not a heading\n```\n", encoding="utf-8")
    good = _DOC_CITATION.search("see docs/guide.md, Failures, for the kinds")
    missing = _DOC_CITATION.search("(docs/guide.md, Budgets)")
    fenced = _DOC_CITATION.search("docs/guide.md#not-a-heading")
    assert good is not None and _section_problem(doc, good) is None
    assert missing is not None and _section_problem(doc, missing) is not None
    assert fenced is not None and _section_problem(doc, fenced) is not None
    assert _NOTES_CITATION.search("see DESIGN §3") and not _NOTES_CITATION.search("a design choice")
