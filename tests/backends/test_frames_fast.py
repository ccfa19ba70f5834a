"""What every cell read and written passes through, made faster for issue 38 (a resolve asked
`is_blank` of each cell several times, and built each tab's frame cell by cell twice): the fast
ways give what the plain definitions give, for any cells."""

from __future__ import annotations

import math
from datetime import datetime

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.backends import frame_from_rows, rows_from_frame
from sheets_host.kit import cells
from sheets_host.kit.cells import column_letter

CELLS = st.one_of(st.none(), st.integers(-10**16, 10**16), st.floats(), st.booleans(),
                  st.text(alphabet=st.sampled_from(" a\t\n\u00a0\u2003\u3000é_"), max_size=4),
                  st.datetimes(min_value=datetime(1900, 1, 1)))
ROWS = st.lists(st.lists(CELLS, max_size=5), max_size=6)


def blank(raw: object) -> bool:
    """The definition: None, NaN, or only spaces."""
    return raw is None or (isinstance(raw, float) and math.isnan(raw)) or (isinstance(raw, str) and not raw.strip())


def reference_frame(rows) -> pd.DataFrame:
    """`frame_from_rows` as it was written before: the definition, cell by cell."""
    if not rows:
        return pd.DataFrame()
    width = max((i + 1 for r in rows for i, c in enumerate(r) if not blank(c)), default=0)
    header = [(" ".join(str(rows_from_frame(pd.DataFrame([[h]]))[1][0]).split()) if not blank(h)
               else f"({column_letter(i)})") for i, h in enumerate(list(rows[0][:width]) + [None] * (width - len(rows[0])))]
    body, index = [], []
    for number, row in enumerate(rows[1:], start=2):
        values = [None if blank(c) else c for c in list(row[:width]) + [None] * (width - len(row))]
        if any(c is not None for c in values):
            body.append(values)
            index.append(number)
    return pd.DataFrame(body, columns=header, index=index, dtype=object)


@settings(max_examples=300, deadline=None)
@given(CELLS)
def test_is_blank_and_text_are_their_definitions(raw):
    assert cells.is_blank(raw) == blank(raw)
    assert cells.text(raw) == ("" if blank(raw) else " ".join(str(int(raw) if isinstance(raw, float) and raw.is_integer()
                                                                  else raw).split()))


@settings(max_examples=300, deadline=None)
@given(ROWS)
def test_a_tab_s_frame_is_the_one_its_definition_gives(rows):
    got, expected = frame_from_rows(rows), reference_frame(rows)
    assert list(got.columns) == list(expected.columns) and list(got.index) == list(expected.index)
    assert rows_from_frame(got) == rows_from_frame(expected)


@settings(max_examples=300, deadline=None)
@given(st.lists(CELLS, min_size=1, max_size=5))
def test_a_row_written_is_its_plain_values(values):
    frame = pd.DataFrame([values], dtype=object)
    plain = rows_from_frame(frame)[1]
    for raw, got in zip(values, plain):
        if blank(raw) and not isinstance(raw, str):
            assert got is None
        elif isinstance(raw, str):
            assert got == cells.fit(raw) and type(got) is str
        else:
            assert got is not None
