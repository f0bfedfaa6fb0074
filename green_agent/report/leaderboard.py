"""Leaderboard queries (AgentBeats "Queries (JSON)": DuckDB over ``results/*.json``) built from a declaration.

``python -m green_agent.report.leaderboard ASSESSOR`` prints the generated queries: a starting point for
a new plugin's ``leaderboard.json`` (the shipped FOLIO and anomaly queries also sum sharded runs, see
docs/agentbeats.md). Values go through ``TRY_CAST``, so a foreign part cannot break them. The ranking query has the
participant's AgentBeats id first, then every headline metric (with its 95% interval bounds and
denominator where declared), best first by the first headline metric.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from green_agent.core.declaration import Metric, ResultDeclaration

_PARTS = """WITH parts AS (
  SELECT t.participants AS ids, p AS part
  FROM read_json('results/*.json', format = 'auto', columns = {{participants: 'JSON', results: 'JSON[]'}}) AS t,
       UNNEST(t.results) AS u(p)
), runs AS (
  SELECT ids ->> ('$."' || (part ->> '$.role') || '"') AS id, part
  FROM parts
  WHERE (part ->> '$.role') IS NOT NULL AND COALESCE((part ->> '$.kind'), 'participant') = 'participant'
    AND {claims}
)"""


def _column(path: str) -> str:
    return path.replace(".", "_")


def _double(path: str) -> str:
    return f"ROUND(TRY_CAST(part ->> '$.{path}' AS DOUBLE), 4)"


def _claims(decl: ResultDeclaration) -> str:
    """SQL for :meth:`ResultDeclaration.claims`: the ``assessor`` key, else the signature keys."""
    signature = " AND ".join(f"(part -> '$.{k}') IS NOT NULL" for k in sorted(decl.signature))
    named = "(part ->> '$.assessor')"
    return f"({named} = '{decl.assessor}' OR ({named} IS NULL AND {signature}))"


def _select(metric: Metric) -> list[str]:
    name = _column(metric.key)
    out = [f"{_double(metric.key)} AS {name}"]
    if metric.of:
        out.append(f"{_double(metric.of)} AS {_column(metric.of)}")
    if metric.interval:
        out.append(f"ROUND(TRY_CAST(part -> '$.{metric.interval}[0]' AS DOUBLE), 4) AS {name}_ci95_low")
        out.append(f"ROUND(TRY_CAST(part -> '$.{metric.interval}[1]' AS DOUBLE), 4) AS {name}_ci95_high")
    return out


def ranking_query(decl: ResultDeclaration) -> dict[str, str]:
    """``{"name", "query"}``: one row per participant and results file, best first."""
    headline = [m for m in decl.metrics if m.headline]
    rank = next((m for m in headline if m.direction is not None), headline[0])
    order = "ASC" if rank.direction == "lower" else "DESC"
    columns = ",\n  ".join(["id", *(c for m in headline for c in _select(m))])
    query = (
        _PARTS.format(claims=_claims(decl))
        + f"\nSELECT {columns}\nFROM runs\nWHERE id IS NOT NULL AND id <> ''\n"
        + f"ORDER BY {_column(rank.key)} {order} NULLS LAST, id"
    )
    return {"name": f"{decl.title}: headline metrics", "query": query}


def leaderboard_queries(decl: ResultDeclaration) -> list[dict[str, str]]:
    """Every generated query of a declaration."""
    return [ranking_query(decl)]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the generated queries of one assessor as JSON; 2 with a one-line error if it is unknown."""
    from green_agent.core.registry import declaration_named, declarations

    args = list(sys.argv[1:] if argv is None else argv)
    decl = declaration_named(args[0]) if len(args) == 1 else None
    if decl is None:
        known = ", ".join(d.assessor for d in declarations())
        print(f"usage: python -m green_agent.report.leaderboard ASSESSOR (one of: {known})", file=sys.stderr)
        return 2
    print(json.dumps(leaderboard_queries(decl), indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
