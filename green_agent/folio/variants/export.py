"""Verified variants as a dataset: FOLIO v2 records plus provenance fields, one JSON object a line.

The FOLIO v2 loader reads such a file back (it ignores the extra fields), so a reviewed set of
variants can be frozen into a named manifest entry. Provenance fields:
``variant`` (kind), ``source_example_id``, ``source_story_id``, ``variant_seed``, ``variant_note``
(what the transform did), ``variant_flags`` (where the source's reading rests on a repair or a
choice), ``source_dataset`` and ``source_sha256``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from green_agent.folio.variants.model import Variant, VariantSet


def record(variant: Variant, seed: int | str | None, dataset: str, sha256: str) -> dict[str, Any]:
    """One FOLIO v2 record (keys as in yale-nlp/FOLIO) with provenance fields."""
    item = variant.item
    return {
        "story_id": item.story_id,
        "example_id": item.id,
        "premises": "\n".join(item.premises),
        "premises-FOL": "\n".join(item.premises_fol or ()),
        "conclusion": item.conclusion,
        "conclusion-FOL": item.conclusion_fol,
        "label": item.label,
        "variant": variant.kind,
        "source_example_id": variant.source_id,
        "source_story_id": item.story_id,
        "variant_seed": seed,
        "variant_note": variant.note,
        "variant_flags": list(variant.flags),
        "source_dataset": dataset,
        "source_sha256": sha256,
    }


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Write ``records`` atomically (a temp file in the same folder, then a rename); the count."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                count += 1
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


def write_variants(path: Path, variants: VariantSet, *, dataset: str, sha256: str) -> int:
    """Write every variant of ``variants`` as a dataset; returns the number of records."""
    return write_jsonl(path, (record(v, variants.seed, dataset, sha256) for v in variants.variants))
