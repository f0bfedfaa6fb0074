"""Surface-cue measures for generated items (tests/generated/test_shortcuts.py and benchmarks/
bench_generated.py): can a label be read off the words, without reasoning? (docs/generated.md, No shortcuts)"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

from green_agent.logic.labels import LABELS

NEGATION_WORDS = frozenset({"not", "no", "never", "nothing", "none", "neither", "nor"})
"""Words that negate, in any template."""


def words(text: str) -> list[str]:
    """Lower-case words."""
    return re.findall(r"[a-z]+", text.lower())


def bag(premises: Sequence[str], conclusion: str) -> Counter[str]:
    """Word counts of the premises and of the conclusion, kept apart ("not" in each is its own feature)."""
    counts = Counter(f"p:{w}" for w in words(" ".join(premises)))
    counts.update(f"c:{w}" for w in words(conclusion))
    return counts


def naive_bayes_accuracy(
    train: Sequence[tuple[Counter[str], str]], test: Sequence[tuple[Counter[str], str]]
) -> float:
    """Multinomial naive Bayes on word counts (Laplace smoothing), trained on ``train``, scored on ``test``."""
    vocabulary = {w: k for k, w in enumerate(sorted({w for counts, _ in train for w in counts}))}

    def matrix(rows: Sequence[tuple[Counter[str], str]]) -> np.ndarray:
        x = np.zeros((len(rows), len(vocabulary)))
        for r, (counts, _) in enumerate(rows):
            for w, n in counts.items():
                if w in vocabulary:
                    x[r, vocabulary[w]] = n
        return x

    y_train = np.array([LABELS.index(label) for _, label in train])
    x_train = matrix(train)
    log_prior = np.log(np.maximum(np.bincount(y_train, minlength=3), 1) / len(y_train))
    counts = np.stack([x_train[y_train == c].sum(axis=0) + 1 for c in range(3)])
    log_likelihood = np.log(counts / counts.sum(axis=1, keepdims=True))
    predicted = np.argmax(matrix(test) @ log_likelihood.T + log_prior, axis=1)
    return float(np.mean(predicted == np.array([LABELS.index(label) for _, label in test])))


def majority_share(labels: Sequence[str]) -> float:
    """The accuracy of always answering the most frequent label."""
    return max(Counter(labels).values()) / len(labels)


def negated(conclusion: str) -> bool:
    """The conclusion holds a negation word."""
    return bool(NEGATION_WORDS & set(words(conclusion)))


def negation_independence(rows: Sequence[tuple[str, str]]) -> tuple[dict[str, float], float]:
    """For (conclusion, label) rows holding all three labels: the negated share per label, and the
    p-value of a chi-square test that negation and label are independent (3 x 2 table, 2 degrees of
    freedom, whose survival function is exp(-x/2))."""
    table = np.array(
        [
            [sum(negated(c) == n for c, lab in rows if lab == label) for n in (True, False)]
            for label in LABELS
        ],
        dtype=float,
    )
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    chi2 = float(((table - expected) ** 2 / expected).sum())
    rates = {label: float(row[0] / row.sum()) for label, row in zip(LABELS, table, strict=True)}
    return rates, math.exp(-chi2 / 2)
