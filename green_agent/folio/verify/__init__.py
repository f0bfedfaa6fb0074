"""``folio verify``: does the gold FOL of a dataset prove its gold labels? (Z3, optionally E.)"""

from green_agent.folio.verify.check import (
    FAILED,
    PROVERS,
    STATUSES,
    ItemCheck,
    check_item,
    summarise,
    verify_items,
)

__all__ = ["FAILED", "PROVERS", "STATUSES", "ItemCheck", "check_item", "summarise", "verify_items"]
