"""Schemas for the tabs a host can edit (config, rules data, state), checked on every read.

A `TabSchema` turns a tab read from a book into typed records, or raises `SchemaErrors` naming
every bad tab, row and column at once; and turns records back into a frame to write.

>>> sites = TabSchema("stones", (Column("power", "int", lo=1, hi=7), Column("count", "int", lo=0)))
>>> frame = pd.DataFrame({"power": ["1", 2], "count": [3, "x"]}, index=[2, 3])
>>> sites.records(frame)
Traceback (most recent call last):
...
sheets_host.kit.errors.SchemaErrors: tab 'stones', row 3, column 'count': 'x' is not a whole number >= 0
>>> sites.records(frame.iloc[:1])
[{'_row': 2, 'power': 1, 'count': 3}]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import cells
from .errors import SchemaError, SchemaErrors

KINDS = ("int", "float", "text", "bool", "choice", "player", "json")


def frame_rows(frame: pd.DataFrame) -> list[list[object]]:
    """A frame's body rows as lists of the values `itertuples` gives, in one step: itertuples
    looks a column up on every row, which made it the cost of laying out a wide tab.

    >>> frame_rows(pd.DataFrame({"n": [1, 2], "x": ["a", None]}, dtype=object))
    [[1, 'a'], [2, None]]
    """
    return frame.to_numpy(dtype=object).tolist()


def frame_records(frame: pd.DataFrame) -> list[dict]:
    """A frame's rows as dicts by column, as `to_dict("records")` gives them (a name twice keeps
    its last column's value), from `frame_rows`: a tab that grows all game (the log, the
    archive) is walked so on every command.

    >>> frame_records(pd.DataFrame([[1, "a", None]], columns=["n", "x", "n"], dtype=object))
    [{'n': None, 'x': 'a'}]
    """
    columns = list(frame.columns)
    return [dict(zip(columns, row)) for row in frame_rows(frame)]


@dataclass(frozen=True)
class Column:
    """One column: its name, kind, allowed values and whether a blank is allowed.

    kind 'player' takes its allowed values from the game's players; 'choice' from `choices`.
    """

    name: str
    kind: str = "text"
    choices: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None
    optional: bool = False
    doc: str = ""

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind

    def expected(self, players: Sequence[str] = ()) -> str:
        """What a cell of this column must hold, for a message (`players`: the game's, for kind 'player').

        >>> Column("who", "player").expected(), Column("who", "player").expected(["Ada", "Blaise"])
        ("one of the game's players (none are listed in the players tab)", 'one of the players: Ada, Blaise')
        """
        if self.kind == "player":
            return ("one of the players: " + ", ".join(players) if players else
                    "one of the game's players (none are listed in the players tab)")
        if self.kind == "choice" and not self.choices:
            return "one of the column's choices (none are defined)"
        bounds = ""
        if self.lo is not None and self.hi is not None:
            bounds = f" from {self.lo:g} to {self.hi:g}"
        elif self.lo is not None:
            bounds = f" >= {self.lo:g}"
        elif self.hi is not None:
            bounds = f" <= {self.hi:g}"
        return {
            "int": f"a whole number{bounds}",
            "float": f"a number{bounds}",
            "text": "text",
            "bool": "yes or no",
            "json": "JSON text",
        }.get(self.kind, "one of: " + ", ".join(self.choices))

    def parse(self, raw: object, players: Sequence[str] = ()) -> object:
        """The typed value of a cell; raises ValueError with what is expected."""
        if cells.is_blank(raw):
            if self.optional:
                return None
            raise ValueError("blank")
        if self.kind == "int":
            value = _number(raw)
            if value is None or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            value = int(value)
        elif self.kind == "float":
            try:
                value = float(_number(raw))
            except (TypeError, OverflowError):  # not a number, or an int beyond float's range
                raise ValueError from None
        elif self.kind == "bool":
            t = cells.text(raw).casefold()
            if t in ("yes", "y", "true", "1", "x"):
                return True
            if t in ("no", "n", "false", "0"):
                return False
            raise ValueError
        elif self.kind in ("choice", "player"):
            options = players if self.kind == "player" else self.choices
            return cells.as_choice(raw, options, "allowed")
        else:
            return cells.text(raw)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise ValueError
        return value


def _number(raw: object) -> int | float | None:
    """A finite number from a number cell or its text; inf and nan are not numbers a host means."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    try:
        value = raw if isinstance(raw, float) else float(cells.text(raw))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class TabSchema:
    """A tab's name and columns; `doc` says what the tab is for (shown in the docs and templates)."""

    name: str
    columns: tuple[Column, ...]
    doc: str = ""

    @property
    def header(self) -> list[str]:
        return [c.name for c in self.columns]

    def records(self, frame: pd.DataFrame, players: Sequence[str] = ()) -> list[dict]:
        """Typed rows of `frame` (index = sheet row numbers, kept as '_row'); all problems at once."""
        errors: list[SchemaError] = []
        header = {cells.fold(cells.text(c)): c for c in frame.columns}
        missing = [c.name for c in self.columns if cells.fold(c.name) not in header and not c.optional]
        if missing:
            raise SchemaErrors([SchemaError(self.name, 1, m, "", "present (missing column)") for m in missing])
        # Where each column's cell is in a row, found once (a name twice: its last column).
        at = {c: i for i, c in enumerate(frame.columns)}
        where = [(col, at.get(header.get(cells.fold(col.name)))) for col in self.columns]
        out = []
        for row_number, row in zip(frame.index, frame_rows(frame)):
            record: dict = {"_row": int(row_number)}
            for col, i in where:
                raw = None if i is None else row[i]
                try:
                    record[col.name] = col.parse(raw, players)
                except ValueError:
                    errors.append(SchemaError(self.name, int(row_number), col.name, cells.clip(raw),
                                              col.expected(players)))
            out.append(record)
        if errors:
            raise SchemaErrors(errors)
        return out

    def frame(self, records: Iterable[Mapping]) -> pd.DataFrame:
        """A frame with this tab's columns in order, ready to write."""
        return pd.DataFrame([[r.get(c) for c in self.header] for r in records], columns=self.header, dtype=object)


def check_all(checks: Iterable[callable]) -> list:
    """Run several schema checks and raise one SchemaErrors with all their errors."""
    results, errors = [], []
    for check in checks:
        try:
            results.append(check())
        except SchemaErrors as e:
            errors.extend(e.errors)
    if errors:
        raise SchemaErrors(errors)
    return results


@dataclass(frozen=True)
class SubmitTab:
    """A tab a player types a submission into: rows under the header of `schema`, or a grid when
    `labels` are given: the first column holds them, one a row, fixed (a board's ranks 8 to 1), and
    the other columns are the grid's cells (files A to H). A grid row with only its label is blank.

    >>> board = SubmitTab(TabSchema("board", (Column("rank"), Column("A"), Column("B"))), labels=("2", "1"))
    >>> board.empty().values.tolist()
    [['2', None, None], ['1', None, None]]
    """

    schema: TabSchema
    labels: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.schema.name

    @property
    def header(self) -> list[str]:
        return self.schema.header

    def empty(self) -> pd.DataFrame:
        """The tab as delivered for a new round: the header, and a grid's labels."""
        return pd.DataFrame([[label] + [None] * (len(self.header) - 1) for label in self.labels],
                            columns=self.header, dtype=object)

    def typed(self, values: Mapping[str, object]) -> bool:
        """Whether a row holds anything the player typed (a grid's label does not count)."""
        skip = self.header[0] if self.labels else None
        return any(not cells.is_blank(v) for k, v in values.items() if k != skip)


TEMPLATES = Path(__file__).resolve().parents[2] / "templates"  # each game's shipped data and settings


def csv_records(folder: Path, tabs: Sequence[TabSchema]) -> dict[str, list[dict]]:
    """Data tabs shipped as CSV files (`<tab>.csv` in `folder`, as `templates/` holds them) read
    through their schemas, rows numbered as in a sheet (the header is row 1) for messages."""
    out = {}
    for tab in tabs:
        frame = pd.read_csv(folder / f"{tab.name}.csv", dtype=object, keep_default_na=False)
        out[tab.name] = tab.records(frame.set_axis(range(2, len(frame) + 2)))
    return out
