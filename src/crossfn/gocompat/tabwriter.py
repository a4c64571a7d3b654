"""Go's ``text/tabwriter``: elastic tab stops, as ``kubectl get`` and ``crossplane trace`` align columns.

Text is cut into cells at ``\\t`` (and ``\\v``); a line's last cell is never
aligned. Consecutive lines that have a cell in a column form a *column
block*, and every cell of a block is padded to the block's widest cell plus
``padding`` (at least ``minwidth``). Widths count runes, not bytes, so box
drawing characters (``├─``) take one column each. A line with a single cell
(no tab) ends every open block, as Go flushes there.

Only what Go's writer does with padding character ``' '`` and flags 0 is
emulated (no ``AlignRight``, ``Debug``, ``FilterHTML``, ``DiscardEmptyColumns``
or ``TabIndent``); Go's escape byte 0xFF cannot occur in a Python string of
valid text.
"""

from __future__ import annotations

import dataclasses

__all__ = ["Writer"]


@dataclasses.dataclass
class _Cell:
    text: str
    htab: bool = False


class Writer:
    """Collects text with :meth:`write`; :meth:`flush` returns it aligned (``tabwriter.NewWriter(w, minwidth, tabwidth, padding, ' ', 0)``)."""

    def __init__(self, minwidth: int, padding: int) -> None:
        self._minwidth = minwidth
        self._padding = padding
        self._out: list[str] = []
        self._reset()

    def _reset(self) -> None:
        self._cell: list[str] = []
        self._lines: list[list[_Cell]] = [[]]
        self._widths: list[int] = []

    def write(self, text: str) -> None:
        """Add ``text``; a line without a tab flushes what came before, as Go's writer does."""
        start = 0
        for i, ch in enumerate(text):
            if ch not in "\t\v\n\f":
                continue
            self._cell.append(text[start:i])
            start = i + 1
            cells = self._terminate_cell(htab=ch == "\t")
            if ch in "\n\f":
                self._lines.append([])
                if ch == "\f" or cells == 1:
                    self._flush()
        self._cell.append(text[start:])

    def flush(self) -> str:
        """Everything written so far, aligned; the writer starts afresh."""
        self._flush()
        out, self._out = "".join(self._out), []
        return out

    def _terminate_cell(self, *, htab: bool) -> int:
        line = self._lines[-1]
        line.append(_Cell("".join(self._cell), htab))
        self._cell = []
        return len(line)

    def _flush(self) -> None:
        if "".join(self._cell):
            self._terminate_cell(htab=False)
        self._format(0, len(self._lines))
        self._reset()

    def _format(self, line0: int, line1: int) -> None:
        column = len(self._widths)
        this = line0
        while this < line1:
            if column >= len(self._lines[this]) - 1:
                this += 1
                continue
            # A cell in this column: print the lines before it, then size the block it starts.
            self._write_lines(line0, this)
            line0 = this
            width = self._minwidth
            while this < line1 and column < len(self._lines[this]) - 1:
                width = max(width, len(self._lines[this][column].text) + self._padding)
                this += 1
            self._widths.append(width)
            self._format(line0, this)
            self._widths.pop()
            line0 = this
        self._write_lines(line0, line1)

    def _write_lines(self, line0: int, line1: int) -> None:
        for i in range(line0, line1):
            for j, cell in enumerate(self._lines[i]):
                self._out.append(cell.text)
                if j < len(self._widths):
                    self._out.append(" " * (self._widths[j] - len(cell.text)))
            if i + 1 == len(self._lines):
                self._out.append("".join(self._cell))  # the last line has no newline yet
                self._cell = []
            else:
                self._out.append("\n")
