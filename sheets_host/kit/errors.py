"""One error hierarchy, under ValueError, whose messages quote the bad input.

>>> raise SchemaError("config", 3, "seed", "abc", "a whole number")
Traceback (most recent call last):
...
sheets_host.kit.errors.SchemaError: tab 'config', row 3, column 'seed': 'abc' is not a whole number
"""

from __future__ import annotations


class SheetsHostError(ValueError):
    """Anything the host should read and act on; never a crash with a traceback."""


class SchemaError(SheetsHostError):
    """A host-edited tab (data, state, config) holds something its schema does not allow."""

    def __init__(self, tab: str, row: int | None, column: str | None, value: object, expected: str):
        self.tab, self.row, self.column, self.value, self.expected = tab, row, column, value, expected
        where = f"tab {tab!r}"
        if row is not None:
            where += f", row {row}"
        if column is not None:
            where += f", column {column!r}"
        # A host may have pasted a huge cell: quote the start of it (cells.clip, without importing cells).
        shown = value if not isinstance(value, str) or len(value) <= 40 else value[:39] + "…"
        super().__init__(f"{where}: {shown!r} is not {expected}")


class SchemaErrors(SheetsHostError):
    """Several schema errors found in one pass, so the host can fix them all at once."""

    def __init__(self, errors: list[SchemaError]):
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


class RoundError(SheetsHostError):
    """The round is not in a state that allows the command (already resolved, nothing to undo...)."""


class BookError(SheetsHostError):
    """A book (spreadsheet or file) is missing, unreadable, or the backend gave up."""


class UnknownGame(SheetsHostError):
    """No game of that name."""


class BusyError(BookError):
    """Another command holds the game right now; the message names it and says what to do."""
