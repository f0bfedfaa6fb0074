"""FOLIO-style datasets: the item record, file loaders and the scenario's dataset manifest."""

from green_agent.folio.datasets.items import LABELS, DatasetError, FolioItem, normalise_label

__all__ = ["LABELS", "DatasetError", "FolioItem", "normalise_label"]
