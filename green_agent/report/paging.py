"""Long tables in the HTML report: the rows as one JSON payload and a small pager script.

A browser lays out a table of 100,000 rows for minutes; a page of 200 rows at a time stays quick.
Tables longer than :data:`PAGED_ABOVE` rows are written as their first page (so the report reads
without JavaScript) followed by every row in a ``<script type="application/json">`` block, which
the inline :data:`PAGER_JS` pages and filters. Row text is hostile (participants' replies and
errors): the payload escapes every character that could end the script element or break the
JavaScript parser, and the pager builds cells with ``textContent`` only, never markup.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from green_agent.core.declaration.blocks import Cell

PAGED_ABOVE = 500
"""Tables with more rows than this are paged (smaller ones are plain HTML tables, filtered by CSS)."""
PAGE_ROWS = 200
"""Rows per page."""
CHUNK_ROWS = 500
"""Payload rows per written piece (the document is written in pieces, never held whole)."""

_SCRIPT_SAFE = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)
"""Inside a JSON string these escapes read the same; outside one, ``<``/``>``/``&`` never occur.
No ``</script>`` or ``<!--`` can survive, and U+2028/2029 stay out of the raw text."""


def script_safe_json(value: Any) -> str:
    """``value`` as JSON that can sit inside ``<script type="application/json">`` unchanged."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, escape in _SCRIPT_SAFE:  # str.replace: a C loop each (str.translate is a dict lookup a char)
        text = text.replace(char, escape)
    return text


def cell_json(cell: Cell | str) -> str | list[Any]:
    """A cell in the payload: plain text as a string, else ``[text, tone, note, details]``."""
    if not isinstance(cell, Cell):
        return str(cell)
    if cell.tone is None and cell.note is None and not cell.details:
        return cell.text
    return [cell.text, cell.tone, cell.note, list(cell.details)]


def row_json(cells: Sequence[Cell | str], tags: Sequence[str]) -> list[Any]:
    """One payload row: its CSS-safe filter tags, then its cells."""
    return [list(tags), *(cell_json(c) for c in cells)]


def payload_pieces(rows: Iterable[list[Any]]) -> Iterator[str]:
    """The payload's JSON array of rows, :data:`CHUNK_ROWS` rows per piece."""
    yield "["
    batch: list[str] = []
    first = True
    for row in rows:
        batch.append(script_safe_json(row))
        if len(batch) == CHUNK_ROWS:
            yield ("" if first else ",") + ",\n".join(batch)
            first, batch = False, []
    if batch:
        yield ("" if first else ",") + ",\n".join(batch)
    yield "]"


PAGER_JS = """\
(function () {
  "use strict";
  var fmt = function (n) { return n.toLocaleString("en"); };
  document.querySelectorAll("div.paged").forEach(function (box) {
    var key = box.getAttribute("data-key");
    var meta = JSON.parse(box.getAttribute("data-meta"));
    var all = JSON.parse(document.getElementById("rows-" + key).textContent);
    var numeric = new Set(meta.numeric);
    var tbody = box.querySelector("tbody");
    var status = box.querySelector(".pager-status");
    var jump = box.querySelector("input.pager-page");
    var rows = all;
    var page = 0;
    var pages = function () { return Math.max(1, Math.ceil(rows.length / meta.page)); };
    function td(cell, i) {
      var el = document.createElement("td");
      var c = typeof cell === "string" ? [cell, null, null, []] : cell;
      el.className = (numeric.has(i) ? "num " : " ") + (c[1] || "");
      if (c[3].length) {
        var det = document.createElement("details");
        var sum = document.createElement("summary");
        sum.textContent = c[0];
        var ul = document.createElement("ul");
        ul.className = "lines";
        c[3].forEach(function (line) {
          var li = document.createElement("li");
          li.textContent = line;
          ul.appendChild(li);
        });
        det.appendChild(sum);
        det.appendChild(ul);
        el.appendChild(det);
      } else {
        el.appendChild(document.createTextNode(c[0]));
      }
      if (c[2]) {
        var note = document.createElement("span");
        note.className = "err";
        note.textContent = c[2];
        el.appendChild(note);
      }
      return el;
    }
    function show() {
      page = Math.min(Math.max(page, 0), pages() - 1);
      var start = page * meta.page;
      var slice = rows.slice(start, start + meta.page);
      var body = document.createElement("tbody");
      slice.forEach(function (row) {
        var tr = document.createElement("tr");
        tr.className = row[0].join(" ");
        for (var i = 1; i < row.length; i++) { tr.appendChild(td(row[i], i - 1)); }
        body.appendChild(tr);
      });
      tbody.replaceWith(body);
      tbody = body;
      var of = rows.length === all.length ? "" : " (filtered from " + fmt(all.length) + ")";
      status.textContent = rows.length
        ? "rows " + fmt(start + 1) + "\\u2013" + fmt(start + slice.length) + " of " + fmt(rows.length) + of
        : "no rows" + of;
      jump.value = String(page + 1);
      jump.max = String(pages());
      box.querySelector(".pager-pages").textContent = "of " + fmt(pages());
    }
    function filter(tag) {
      rows = tag ? all.filter(function (row) { return row[0].indexOf(tag) >= 0; }) : all;
      page = 0;
      show();
    }
    meta.filters.forEach(function (tag, j) {
      var radio = document.getElementById("f-" + key + "-" + (j + 1));
      radio.addEventListener("change", function () { if (radio.checked) { filter(tag); } });
      if (radio.checked) { rows = tag ? all.filter(function (row) { return row[0].indexOf(tag) >= 0; }) : all; }
    });
    var go = { first: function () { page = 0; }, prev: function () { page -= 1; },
               next: function () { page += 1; }, last: function () { page = pages() - 1; } };
    box.querySelectorAll("button[data-go]").forEach(function (button) {
      button.addEventListener("click", function () { go[button.getAttribute("data-go")](); show(); });
    });
    jump.addEventListener("change", function () { page = (parseInt(jump.value, 10) || 1) - 1; show(); });
    box.querySelector(".pager").hidden = false;
    show();
  });
})();
"""
"""The pager: reads each paged table's payload, renders one page, follows the filters and buttons."""


def script_hash(script: str = PAGER_JS) -> str:
    """The CSP source that lets exactly this inline script run (and no other script)."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"
