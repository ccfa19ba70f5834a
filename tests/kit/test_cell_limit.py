"""Issue 34: every text the tool writes fits a cell of every program a book may move between, cut
where it must be with its end saying how much (`cells.fit`); what is read of a cell fits with room
to spare (`reading.clean`), counted as programs count, in UTF-16 units."""

from __future__ import annotations

from hypothesis import given, strategies as st

from sheets_host.engine.reading import clean
from sheets_host.engine.snapshots import CELL_PART
from sheets_host.kit.cells import CELL_LIMIT, fit, head, units

# Long texts of letters, accents, emoji (two units each) and line breaks: the shapes that count apart.
PIECES = st.sampled_from(["x", "ë", "😀", "\n", " ", "ab", "_xD83D_"])
TEXTS = st.one_of(st.lists(PIECES, max_size=50).map("".join),
                  st.tuples(st.lists(PIECES, min_size=1, max_size=8).map("".join), st.integers(1, 12_000))
                  .map(lambda t: t[0] * t[1]))


@given(TEXTS, st.integers(0, 40_000))
def test_a_head_is_the_longest_start_that_fits(text, limit):
    kept = head(text, limit)
    assert text.startswith(kept) and units(kept) <= limit
    assert kept == text or units(text[:len(kept) + 1]) > limit


@given(TEXTS)
def test_a_text_fits_whole_or_cut_with_how_much(text):
    shown = fit(text)
    assert units(shown) <= CELL_LIMIT
    if units(text) <= CELL_LIMIT:
        assert shown == text
    else:
        kept, count = shown.rsplit("… (", 1)
        assert text.startswith(kept) and count == f"{len(text) - len(kept):,} characters cut)"
        assert units(shown) > CELL_LIMIT - 40  # no more is cut than the marker needs
    assert fit(shown) == shown  # what a book shows is written again as it is


@given(TEXTS)
def test_what_is_read_of_a_cell_fits_every_book_with_room(text):
    value, why = clean(text)
    assert units(value) <= CELL_PART < CELL_LIMIT and text.startswith(value)
    assert (why is None) == (value == text)
