"""Reading a large results file without holding its items: the long ``items`` arrays stay on disk.

A results file of 100,000 items is ~45 MB of JSON and ~190 MB as Python objects. Everything but
the items is small, and every use of the items in a report is one pass over them, so a part with
more than :data:`LAZY_ABOVE` items gets an :class:`ItemsOnDisk` as its ``items``: a read-only
sequence of dicts that parses the array again from the file on each pass. Smaller parts (and every
file under :data:`STREAM_ABOVE_BYTES`) are read into plain lists as before.

The reader walks the structure down to ``results[i].items[j]`` itself and hands every value to the
standard library's JSON decoder (``raw_decode``), so values parse exactly as ``json.loads`` would;
a document it does not recognise (not an object, a non-object item, trailing data, bad JSON) is
reported as :class:`NotStreamable` and the caller reads it the ordinary way, which words the error.
"""

from __future__ import annotations

import codecs
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, overload

from green_agent.kit.errors import DataError

STREAM_ABOVE_BYTES = 4 << 20
"""Files larger than this are streamed (smaller ones: ``json.loads``)."""
LAZY_ABOVE = 1_000
"""Parts with more items than this keep them on disk."""
CHUNK_CHARS = 1 << 20
"""Characters read at a time."""
_MARGIN = 64
"""A value must end this many characters before the buffer's end to be taken as read."""
_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class NotStreamable(DataError, ValueError):
    """The file is not a results document this reader walks (the caller reads it with ``json.loads``)."""


class ChangedOnDisk(DataError, ValueError):
    """The results file changed between two passes over its items."""


class _Reader:
    """A JSON text read in chunks from a binary file, positioned at ``start`` (a byte offset)."""

    def __init__(self, fh: IO[bytes], start: int = 0) -> None:
        fh.seek(start)
        self._fh = fh
        self._decode = codecs.getincrementaldecoder("utf-8")().decode
        self.buf = ""
        self.pos = 0
        self._base = start  # byte offset of buf[0]
        self._eof = False

    def _more(self, at_least: int = 0) -> bool:
        """Read more text (dropping what was consumed); False at the end of the file."""
        if self._eof:
            return False
        if self.pos > CHUNK_CHARS:
            self._base += len(self.buf[: self.pos].encode("utf-8"))
            self.buf, self.pos = self.buf[self.pos :], 0
        data = self._fh.read(max(at_least, CHUNK_CHARS))
        try:
            self.buf += self._decode(data, final=not data)
        except UnicodeDecodeError as e:
            raise NotStreamable(str(e)) from None
        self._eof = not data
        return True

    def offset(self) -> int:
        """Byte offset of the current position."""
        return self._base + len(self.buf[: self.pos].encode("utf-8"))

    def peek(self) -> str:
        """The next non-blank character ('' at the end), not consumed."""
        if self.pos < len(self.buf) and self.buf[self.pos] not in " \t\n\r":
            return self.buf[self.pos]  # the usual case, without the regex
        while True:
            end = _WS.match(self.buf, self.pos)
            self.pos = end.end() if end else self.pos
            if self.pos < len(self.buf) or not self._more():
                return self.buf[self.pos : self.pos + 1]

    def take(self, chars: str) -> str:
        """Consume the next character, which must be one of ``chars``."""
        ch = self.peek()
        if not ch or ch not in chars:
            raise NotStreamable(f"expected one of {chars!r} at byte {self.offset()}")
        self.pos += 1
        return ch

    def value(self) -> Any:
        """The next JSON value, parsed by the standard decoder (re-tried with more text if cut short)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self._more(len(self.buf) - self.pos):
                    continue
                raise NotStreamable(f"bad JSON at byte {self.offset()}") from None
            # a number cut at the buffer's end reads short: parse again with the text that follows
            if len(self.buf) - end > _MARGIN or not self._more():
                self.pos = end
                return value

    def end(self) -> bool:
        """Whether only blanks remain."""
        return self.peek() == ""

    def key(self) -> str:
        """An object's next key and its colon."""
        key = self.value()
        if not isinstance(key, str):
            raise NotStreamable(f"a key is not a string at byte {self.offset()}")
        self.take(":")
        return key


def _items(reader: _Reader) -> Iterator[dict[str, Any]]:
    """The items of the array at the reader's position (every one must be an object)."""
    reader.take("[")
    if reader.peek() == "]":
        reader.take("]")
        return
    while True:
        item = reader.value()
        if not isinstance(item, dict):
            raise NotStreamable("an item is not an object")
        yield item
        if reader.take(",]") == "]":
            return


class ItemsOnDisk(Sequence[dict[str, Any]]):
    """A part's items, parsed from the results file on each pass (read-only; indexing is a scan)."""

    def __init__(self, path: Path, offset: int, count: int) -> None:
        self._path, self._offset, self._count = path, offset, count
        stat = path.stat()
        self._stamp = (stat.st_size, stat.st_mtime_ns)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[dict[str, Any]]:
        try:
            fh = self._path.open("rb")
        except OSError as e:
            raise ChangedOnDisk(f"{self._path}: cannot read it again ({e.__class__.__name__}: {e})") from None
        with fh:
            stat = os.fstat(fh.fileno())
            if (stat.st_size, stat.st_mtime_ns) != self._stamp:
                raise ChangedOnDisk(f"{self._path} changed while the report was being written")
            try:
                n = 0
                for item in _items(_Reader(fh, self._offset)):
                    n += 1
                    yield item
            except NotStreamable as e:
                raise ChangedOnDisk(
                    f"{self._path} changed while the report was being written ({e})"
                ) from None
            if n != self._count:
                raise ChangedOnDisk(f"{self._path} changed while the report was being written")

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return list(self)[index]
        i = index + self._count if index < 0 else index
        if not 0 <= i < self._count:
            raise IndexError("item index out of range")
        return next(item for k, item in enumerate(self) if k == i)

    def __repr__(self) -> str:
        return f"<{self._count} items of {self._path.name} at byte {self._offset}>"


def _part(reader: _Reader, path: Path) -> dict[str, Any]:
    """One element of ``results``: an object whose long ``items`` array stays on disk."""
    part: dict[str, Any] = {}
    reader.take("{")
    if reader.peek() == "}":
        reader.take("}")
        return part
    while True:
        key = reader.key()
        if key == "items" and reader.peek() == "[":
            offset, kept, count = reader.offset(), [], 0
            for item in _items(reader):
                count += 1
                if count <= LAZY_ABOVE:
                    kept.append(item)
            part[key] = kept if count <= LAZY_ABOVE else ItemsOnDisk(path, offset, count)
        else:
            part[key] = reader.value()
        if reader.take(",}") == "}":
            return part


def _results(reader: _Reader, path: Path) -> list[Any]:
    out: list[Any] = []
    reader.take("[")
    if reader.peek() == "]":
        reader.take("]")
        return out
    while True:
        out.append(_part(reader, path) if reader.peek() == "{" else reader.value())
        if reader.take(",]") == "]":
            return out


def read_streamed(path: Path) -> dict[str, Any]:
    """The results document at ``path`` with its long item arrays left on disk.

    Raises :class:`NotStreamable` for anything but a well-formed JSON object (read it with
    ``json.loads`` then, for the usual error).
    """
    doc: dict[str, Any] = {}
    with path.open("rb") as fh:
        reader = _Reader(fh)
        reader.take("{")
        if reader.peek() == "}":
            reader.take("}")
        else:
            while True:
                key = reader.key()
                doc[key] = (
                    _results(reader, path) if key == "results" and reader.peek() == "[" else reader.value()
                )
                if reader.take(",}") == "}":
                    break
        if not reader.end():
            raise NotStreamable("data after the document")
    return doc
