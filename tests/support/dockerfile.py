"""Reading our Dockerfiles in tests: instructions with continuations joined, ENV, exec-form arrays."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class PipInstall:
    """One ``pip install`` command of a RUN."""

    flags: frozenset[str]
    """Its options without values (``--no-deps``, ``--require-hashes``...)."""
    requirement_files: tuple[str, ...]
    """The files after ``-r``."""
    targets: tuple[str, ...]
    """Its positional arguments (``.`` is our own package)."""

    @classmethod
    def parse(cls, words: list[str]) -> PipInstall:
        flags, files, targets = set(), [], []
        for word, previous in zip(words, ["", *words[:-1]], strict=True):
            if previous in ("-r", "--requirement"):
                files.append(word)
            elif word.startswith("-"):
                flags.add(word)
            else:
                targets.append(word)
        return cls(frozenset(flags - {"-r", "--requirement"}), tuple(files), tuple(targets))


@dataclass(frozen=True)
class Dockerfile:
    path: Path
    instructions: tuple[tuple[str, str], ...]
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""

    @classmethod
    def read(cls, path: Path) -> Dockerfile:
        joined: list[str] = []
        pending = ""
        for line in path.read_text().splitlines():
            if line.lstrip().startswith("#") and not pending:
                continue
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            if pending or line.strip():
                joined.append(pending + line)
            pending = ""
        pairs = []
        for text in joined:
            word, _, rest = text.strip().partition(" ")
            pairs.append((word.upper(), rest.strip()))
        return cls(path, tuple(pairs))

    def all(self, instruction: str) -> list[str]:
        return [args for word, args in self.instructions if word == instruction]

    def one(self, instruction: str) -> str:
        found = self.all(instruction)
        assert len(found) == 1, f"{self.path.name}: expected one {instruction}, found {len(found)}"
        return found[0]

    def exec_form(self, instruction: str) -> list[str]:
        """The JSON array of an exec-form ENTRYPOINT/CMD (after any --flags for HEALTHCHECK CMD)."""
        args = self.one(instruction)
        argv: list[str] = json.loads(args[args.index("[") :])
        return argv

    def env(self) -> dict[str, str]:
        """Every ENV key=value, later ones winning."""
        values: dict[str, str] = {}
        for args in self.all("ENV"):
            for token in shlex.split(args):
                key, sep, value = token.partition("=")
                assert sep, f"{self.path.name}: ENV without '=' ({token!r})"
                values[key] = value
        return values

    def pip_installs(self) -> list[PipInstall]:
        """Every ``pip install`` of every RUN, in order (``&&``-joined commands split apart)."""
        found = []
        for run in self.all("RUN"):
            for command in run.split("&&"):
                words = shlex.split(command)
                if words[:2] == ["pip", "install"]:
                    found.append(PipInstall.parse(words[2:]))
        return found

    def build_tag(self) -> str:
        """The image name of the ``docker build ... -t NAME .`` line in the header comment."""
        match = re.search(r"docker build .* -t (\S+) \.", self.path.read_text())
        assert match, f"{self.path.name}: no 'docker build ... -t NAME .' line in the header"
        return match.group(1)


def all_dockerfiles() -> list[Path]:
    return sorted(REPO.glob("scenarios/*/docker/*.Dockerfile"))
