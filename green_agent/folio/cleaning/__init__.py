"""Clean a FOLIO split: verify gold labels, let a critique and a refiner agent repair what disagrees, queue
the rest for human review, and write the cleaned split with a changelog and a summary.

Modules, one job each: `verify_stage` (stage 1, offline), `llm` (litellm, cached by prompt hash),
`structured` (JSON answers validated against `schemas/`, bounded retries), `prompts`, `critique`
(stage 2), `refine` (stage 3), `state` (resumable journal), `pipeline` (the loop), `output` (cleaned
split, changelog, summary, review queue), `review` (stage 4 terminal UI), `diff` (compare two splits),
`cli` (``folio clean``, ``folio review``, ``folio diff``).
"""
