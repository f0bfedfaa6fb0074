"""Dynamic FOLIO: variants of each item whose label our prover re-derives before anyone sees it.

Module map (one concern each): ``model`` (records), ``surface`` (named individuals in the text and
fresh names), ``transforms`` (rename, shuffle, distractor, negate → a candidate), ``generate``
(parse once, transform, prove, assign opaque ids), ``scoring`` (the ``robustness`` block of a
result part), ``export`` (verified variants as a FOLIO v2 dataset), ``cli`` (``folio variants``).
See ``docs/variants.md``.
"""

from green_agent.folio.variants.generate import generate_variants
from green_agent.folio.variants.model import KINDS, ORIGINAL, Variant, VariantSet

__all__ = ["KINDS", "ORIGINAL", "Variant", "VariantSet", "generate_variants"]
