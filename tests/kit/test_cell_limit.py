"""Issue 34: every text the tool writes fits a cell of every program a book may move between, cut
where it must be with its end saying how much (`cells.fit`); what is read of a cell fits with room
to spare (`reading.clean`), and of a submission no more than `reading.SUBMISSION_LIMIT`, counted as
programs count, in UTF-16 units."""

from __future__ import annotations

from hypothesis import given, strategies as st

from sheets_host.engine.reading import clean, within_limit
from sheets_host.engine.snapshots import CELL_PART
from sheets_host.kit.cells import CELL_LIMIT, SubmitRow, fit, head, units

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
    value = clean(text)
    assert units(value) <= CELL_PART < CELL_LIMIT and text.startswith(value)
    assert (units(text) > CELL_PART) == (value != text)


CELL = st.one_of(st.none(), st.integers(0, 99), TEXTS)


@given(st.lists(st.lists(st.tuples(CELL, CELL), max_size=4), min_size=1, max_size=3), st.integers(1, 30_000),
       st.integers(1, 2_000))
def test_a_submission_is_read_in_order_as_far_as_the_limits_and_the_player_is_told_the_rest(groups, limit, cell):
    """The rows kept are the first rows typed, each cell whole or its start, none past `cell`;
    what is kept is the whole, or no more than `limit`, with a word for every row not read whole."""
    typed = [[SubmitRow("Ada", n, ["a", "b"], {"a": a, "b": b}, tab) for n, (a, b) in enumerate(rows, start=2)]
             for tab, rows in zip("xyz", groups)]
    kept, told = within_limit(typed, "day", limit, cell)
    texts = [v for rows in kept for r in rows for v in r.values.values() if isinstance(v, str)]
    assert sum(map(units, texts)) <= limit and all(units(t) <= cell for t in texts)
    whole = set()
    for rows, read in zip(typed, kept):
        assert [r.ref for r in read] == [r.ref for r in rows[:len(read)]]
        for row, got in zip(rows, read):
            assert list(got.values) == list(row.values)[:len(got.values)]
            assert all(got.values[c] == row.values[c] or row.values[c].startswith(got.values[c]) for c in got.values)
            whole |= {row.ref} if got == row else set()
    named = {(p.tab, p.row) for p in told}
    assert all(row.ref in whole or row.ref in named or (row.tab, None) in named for rows in typed for row in rows)
    assert (kept == typed) == (not told)
    assert all("submission is read up to" in p.message for p in told)


def test_pasted_pages_are_folded_but_not_kept():
    """`cells.fold` keeps what it folded (names, every row read); a page pasted into a cell was
    kept too, 65,536 of them at most (issue 34: memory, a fuzzer's pages)."""
    from sheets_host.kit import cells

    before = cells._folded.cache_info().currsize
    pages = [f"Page {n} " + "ë x " * 5_000 for n in range(20)]
    assert [cells.fold(p) for p in pages] == [f"page{n}" + "ëx" * 5_000 for n in range(20)]
    assert cells._folded.cache_info().currsize == before
    assert cells.fold("Submitted At") == "submittedat" and cells._folded.cache_info().currsize <= before + 1
