"""A distribution "installed" by writing its ``.dist-info`` into a folder on the path.

``importlib.metadata`` finds entry points by scanning every ``sys.path`` entry for ``*.dist-info``
folders, so a test that puts one (with an ``entry_points.txt``) in a temporary folder and that
folder on the path registers a plugin exactly as ``pip install`` would, without installing anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from green_agent.core.registry import ENTRY_POINT_GROUP


def write_dist_info(site: Path, name: str, plugins: Mapping[str, str], version: str = "0.1.0") -> Path:
    """``site/<name>-<version>.dist-info`` registering ``plugins`` (entry name -> ``module:attr``)."""
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = [f"[{ENTRY_POINT_GROUP}]", *(f"{key} = {value}" for key, value in plugins.items())]
    (folder / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder
