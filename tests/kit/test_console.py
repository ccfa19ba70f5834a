"""What a command prints fits the host's terminal and loses nothing (`kit.console`, issue 34): any
line is cut at spaces into lines of the width, and any table's cells wrap within their columns."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, strategies as st

from sheets_host.kit.console import columns, fitted, table, wrapped

WORD = st.text(st.sampled_from("abcdefghij⏰é,:'()-/"), min_size=1, max_size=14)
TEXT = st.lists(WORD, max_size=30).map(" ".join)


@given(indent=st.integers(0, 6), words=st.lists(WORD, max_size=60), width=st.integers(30, 120))
def test_a_line_is_cut_at_spaces_into_lines_that_fit_and_keeps_every_word(indent, words, width):
    line = " " * indent + " ".join(words)
    out = wrapped(line, width)
    assert [w for part in out for w in part.split()] == words
    assert all(columns(part) <= width or len(part.split()) == 1 for part in out), out
    assert out[0].startswith(" " * indent) and all(part.startswith(" " * (indent + 2)) for part in out[1:])


def test_a_word_wider_than_the_screen_stands_alone_whole_and_short_lines_are_kept_as_they_are():
    path = "/home/host/games/" + "a" * 100 + "/host.xlsx"
    assert wrapped(f"announcement: {path}", 50) == ["announcement:", f"  {path}"]
    assert fitted("  a   b\n\nc", 10) == "  a   b\n\nc"  # spacing inside a line that fits is kept


@given(rows=st.lists(st.fixed_dictionaries({"player": WORD, "counts": TEXT, "problems": st.integers(0, 99),
                                            "average": st.floats(0, 1000, allow_nan=False) | st.none()}),
                     min_size=1, max_size=8),
       width=st.integers(70, 120), indent=st.sampled_from(["", "  "]))
def test_a_table_fits_and_every_cell_is_there_word_for_word(rows, width, indent):
    lines = table(rows, indent, width)
    assert all(columns(line) <= width for line in lines), lines
    expected = Counter(w for name in rows[0] for w in name.split())
    expected += Counter(w for r in rows for v in r.values() if v is not None for w in str(v).split())
    assert Counter(w for line in lines for w in line.split()) == expected
    assert lines[0].split()[0] == next(iter(rows[0])) and all(line.startswith(indent) for line in lines)
