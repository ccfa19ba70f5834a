"""The public announcements tab as rows (issue 26): the games' Markdown read once (`markdown.lines`)
into a title row, headings, lines and tables in real columns, nothing of the Markdown left; a
round's rows replaced when it is redone and removed when it is undone, however the tab was read
back; and `my submissions` read left to right."""

from __future__ import annotations

import re

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from sheets_host.backends import frame_from_rows, rows_from_frame
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine.announcements_tab import (HEADING_FILL, TITLE_FILL, announced, announcement_rows,
                                                  announcements, announcements_layout, round_names)
from sheets_host.engine.delivery import grown, typed_text
from sheets_host.games import get_game
from sheets_host.kit import markdown
from sheets_host.kit.cells import SubmitRow, fold
from sheets_host.kit.layout import HEADER_FILL

MARKDOWN = re.compile(r"`|\*\*|^\s*\|.*\|\s*$|^\s*#{1,6}\s", re.MULTILINE)  # as tests/engine/test_played_games.py refuses
GAME = get_game("magicians-market")
DAY_1 = """## Magician's Market: day 1 of 7

### Prices

| good | paid today | now |
|---|---:|---:|
| cape | 3 | 3 → 1 |
| crystal ball | 4.5 | 2 |

**Who plays which event**
- Alchemy (3): **Ada**, Blaise
Use `bid | 3`."""

# What a game writes between the Markdown: names and words (a player's name holds no Markdown: a
# pipe or a star would break the game's own table or bold, in the .md file too).
words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="|*`#\\"),
                max_size=12).map(str.strip)
cell = st.one_of(words, st.integers(-999, 999).map(str), st.floats(0, 99, allow_nan=False).map(lambda f: f"{f:.2f}"))


def test_a_round_reads_as_rows_with_its_tables_in_columns_and_numbers_as_numbers():
    assert announcement_rows("day 1", DAY_1) == [
        ["day 1", "Magician's Market: day 1 of 7"], ["Prices"], [None, "good", "paid today", "now"],
        [None, "cape", 3, "3 → 1"], [None, "crystal ball", 4.5, 2], ["Who plays which event"],
        [None, "• Alchemy (3): Ada, Blaise"], [None, "Use bid | 3."]]


@given(st.lists(st.one_of(
    words.map(lambda w: f"## {w}"), words.map(lambda w: f"### {w}"), st.just("### 4"), words.map(lambda w: f"**{w}**"),
    words.map(lambda w: f"- {w} **{w}** `{w}`"), words,
    st.lists(st.lists(cell, min_size=3, max_size=3), min_size=1, max_size=4).map(
        lambda rows: "\n".join(["| a | b | c |", "|---|:--|--:|", *("| " + " | ".join(r) + " |" for r in rows)]) + "\n")),
    max_size=8))
def test_no_markdown_is_left_in_any_cell_and_every_table_cell_has_its_own(blocks):
    text = "\n".join(blocks)
    rows = announcement_rows("day 4", text)
    names = round_names(GAME)
    # A heading in the round column ("### 4" among them) never reads as a round.
    assert rows[0][0] == "day 4" and not any(isinstance(row[0], str) and fold(row[0]) in names for row in rows[1:])
    for row in rows:
        assert not any(MARKDOWN.search(v) for v in row if isinstance(v, str)), row
    tables = [line for line in markdown.lines(text) if line.kind in ("header", "row")]
    assert all(len(line.cells) == 3 for line in tables)
    assert [line.cells for line in tables if line.kind == "header"] == [("a", "b", "c")] * text.count("|---|:--|--:|")


def test_a_redone_round_replaces_its_rows_and_an_undone_one_takes_them_away(tmp_path):
    tab = announcements(GAME, None, 1, DAY_1)
    tab = announcements(GAME, tab, 2, "## Day 2\nAll sold.")
    book = XlsxBackend(tmp_path).create("public", "announcements", public=True)
    book.write({"announcements": tab})
    read = book.read(["announcements"])["announcements"]  # blank header cells named (C), (D)
    assert announced(GAME, read) == {1: announcement_rows("day 1", DAY_1), 2: [["day 2", "Day 2"], [None, "All sold."]]}
    redone = announcements(GAME, read, 1, "## Day 1 again")
    assert announced(GAME, redone) == {1: [["day 1", "Day 1 again"]], 2: [["day 2", "Day 2"], [None, "All sold."]]}
    assert list(redone.columns[:2]) == ["day", "announcement"]
    assert announced(GAME, announcements(GAME, redone, 2, None)) == {1: [["day 1", "Day 1 again"]]}
    assert announcements(GAME, announcements(GAME, redone, 2, None), 1, None) is None


def test_a_tab_of_one_markdown_cell_a_round_is_read_as_rows():
    old = pd.DataFrame([[1, DAY_1], [2, "## Day 2\n\nAll sold."]], columns=["day", "announcement"])
    assert announced(GAME, announcements(GAME, old, 3, "## Day 3")) == {
        1: announcement_rows("day 1", DAY_1), 2: [["day 2", "Day 2"], [None, "All sold."]], 3: [["day 3", "Day 3"]]}


def test_a_tab_of_numbered_rounds_is_read_with_the_rounds_named():
    """Written before the round column held names: a number there starts its round all the same."""
    old = pd.DataFrame([[1, "Day 1"], [None, "All sold."], ["Prices", None]], columns=["day", "announcement"])
    assert announced(GAME, old) == {1: [["day 1", "Day 1"], [None, "All sold."], ["Prices"]]}


def test_the_academy_names_its_pregame_and_rounds_as_its_announcements_do():
    """Engine round 2 is the festival's round 1: the round column says so, beside "round 1 resolved"."""
    academy = get_game("academy-of-witchcraft-arts")
    tab = announcements(academy, announcements(academy, None, 1, "## Pregame resolved"), 2, "## Round 1 resolved")
    assert tab.iloc[:, 0].tolist() == ["pregame", "round 1"]
    assert list(announced(academy, tab)) == [1, 2]


def test_titles_headings_and_table_headers_stand_out_and_text_does_not_widen_a_table():
    tab = announcements(GAME, None, 1, DAY_1 + "\n" + "a long line of prose, " * 5)
    layout = announcements_layout(GAME, tab)
    fills = {r: layout.fills[r, 0] for r, _ in layout.fills if (r, 0) in layout.fills}
    assert fills == {1: TITLE_FILL, 2: HEADING_FILL, 3: HEADER_FILL, 6: HEADING_FILL}
    assert layout.columns[1].width == len("crystal ball") + 2 and not layout.columns[1].wrap
    assert layout.columns[0].align == "left"  # a heading there runs on to the right, not cut off on the left


def test_a_typed_row_reads_as_one_line_in_its_tab_s_order():
    row = SubmitRow("Ada", 3, ["rank", "A", "B"], {"B": "fire", "rank": 8, "A": None}, "board")
    assert typed_text(row) == "rank: 8, B: fire"


def test_a_title_ends_within_its_shading():
    layout = announcements_layout(GAME, announcements(GAME, None, 1, "## Academy of Witchcraft Arts: pregame resolved\nshort"))
    assert sum(c.width for c in layout.columns[1:]) >= len("Academy of Witchcraft Arts: pregame resolved")


def test_a_round_added_is_sent_alone():
    """Read back, the blank header cells over a table's columns are named (C), (D): the tab never
    looked as if it had only grown, and Google was sent all of it every round."""
    tab = announcements(GAME, None, 1, DAY_1)
    read = frame_from_rows(rows_from_frame(tab))
    added = grown(read, announcements(GAME, read, 2, "## Day 2\nAll sold."))
    assert added is not None and added.values.tolist() == [["day 2", "Day 2", None, None], [None, "All sold.", None, None]]


def test_a_round_with_a_wider_table_is_sent_alone_too():
    read = frame_from_rows(rows_from_frame(announcements(GAME, None, 1, "## Day 1\n| a | b |\n|---|---|\n| 1 | 2 |")))
    added = grown(read, announcements(GAME, read, 2, DAY_1))
    assert added is not None and added.values.tolist()[:2] == [["day 2", "Magician's Market: day 1 of 7", None, None],
                                                               ["Prices", None, None, None]]
