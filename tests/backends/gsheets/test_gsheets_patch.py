"""A tab the writer saw is patched on Google Sheets: only the header and the rows between the
longest beginning and end the old and new tabs share are sent, and the tab reads back exactly as
if written whole, formats and fills included (issue 9: request sizes flat over a game)."""

from __future__ import annotations

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheets_host.fakes.google import fake_backend
from sheets_host.kit.layout import Palette, lay_out

COLUMNS = ["day", "who", "what"]
PALETTES = (Palette({"fire": "C43E28", "water": "2E6FB7"}, ("*",)),)


def frame(rows: list[list[object]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=COLUMNS, dtype=object)


def batch(fake, since: int) -> list[dict]:
    calls = [c for c in fake.requests[since:] if c.method == "POST" and c.body and "requests" in c.body]
    assert len(calls) == 1
    return calls[0].body["requests"]


def sheet_of(fake, sid: str) -> tuple[list[list[object]], dict, dict, list[int]]:
    """Values, backgrounds and number formats of tab "history", cell by cell, and its rows' heights."""
    sheet = fake.files[sid].sheet("history")
    fills = {k: c["userEnteredFormat"].get("backgroundColorStyle") for k, c in sheet.cells.items()
             if c.get("userEnteredFormat", {}).get("backgroundColorStyle")}
    formats = {k: c["userEnteredFormat"].get("numberFormat") for k, c in sheet.cells.items()
               if c.get("userEnteredFormat", {}).get("numberFormat") and "userEnteredValue" in c}
    values = fake.values(sid, "history")
    heights = fake.heights(sid, "history")
    return values, fills, formats, [heights.get(r, 21) for r in range(len(values))]


cell = st.one_of(st.none(), st.integers(-5, 30), st.sampled_from(["fire", "water", "Ann", "Bo", "", "a story " * 12]))
row = st.lists(cell, min_size=3, max_size=3).filter(lambda r: any(v not in (None, "") for v in r))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=st.lists(row, max_size=8), head=st.lists(row, max_size=3), tail=st.lists(row, max_size=3),
       cut=st.integers(0, 8), changed=st.lists(row, max_size=2))
def test_a_patched_tab_reads_back_as_one_written_whole(old, head, tail, cut, changed):
    """New rows on top (a history newest first), at the bottom, a run replaced or removed in the
    middle: the patched tab equals the same rows written whole into a fresh book, fills and
    formats included."""
    cut = min(cut, len(old))
    new = head + old[:cut] + changed + old[cut + len(changed):] + tail
    backend, fake = fake_backend()
    book = backend.create("public", "Patched")
    book.write({"history": frame(old)}, layouts={"history": lay_out(frame(old), palettes=PALETTES)})
    shown = book.read(["history"])["history"] if old else frame(old)
    book.write({"history": frame(new)}, layouts={"history": lay_out(frame(new), palettes=PALETTES)},
               shown={"history": shown})
    whole = backend.create("player:Ann", "Whole")
    whole.write({"history": frame(new)}, layouts={"history": lay_out(frame(new), palettes=PALETTES)})
    assert sheet_of(fake, book.id) == sheet_of(fake, whole.id)


def test_a_history_newest_first_sends_only_its_new_rows():
    backend, fake = fake_backend()
    book = backend.create("public", "History")
    old = [[day, "Ann", "fire"] for day in range(40, 0, -1)]
    book.write({"history": frame(old)}, layouts={"history": lay_out(frame(old), palettes=PALETTES)})
    shown = book.read(["history"])["history"]
    new = [[41, "Bo", "water"], *old]
    since = len(fake.requests)
    book.write({"history": frame(new)}, layouts={"history": lay_out(frame(new), palettes=PALETTES)},
               shown={"history": shown})
    requests = batch(fake, since)
    assert [next(iter(r)) for r in requests if "updateCells" in r or "insertDimension" in r] == [
        "insertDimension", "updateCells", "updateCells"]
    sent = [r["updateCells"]["rows"] for r in requests if "updateCells" in r]
    assert [len(rows) for rows in sent] == [1, 1]  # the header, and the one new row
    assert fake.values(book.id, "history")[1:3] == [[41, "Bo", "water"], [40, "Ann", "fire"]]


def test_a_tab_with_rows_marked_by_position_is_written_whole():
    """The status tab highlights a problem by its row: moving rows would move the mark."""
    backend, fake = fake_backend()
    book = backend.create("player:Ann", "Status")
    old = frame([["a", 1, "x"], ["b", 2, "y"]])
    book.write({"history": old}, layouts={"history": lay_out(old, highlight={0: "F4CCCC"})})
    shown = book.read(["history"])["history"]
    new = frame([["z", 0, "w"], ["a", 1, "x"], ["b", 2, "y"]])
    since = len(fake.requests)
    book.write({"history": new}, layouts={"history": lay_out(new, highlight={0: "F4CCCC"})}, shown={"history": shown})
    (whole,) = [r for r in batch(fake, since) if "updateCells" in r]
    assert "startRowIndex" not in whole["updateCells"]["range"]  # the whole sheet
    assert len(whole["updateCells"]["rows"]) == 4


def test_a_tab_read_with_a_blank_row_between_is_written_whole():
    """A read leaves blank rows out: where its rows stand is then unknown, so no patch."""
    backend, fake = fake_backend()
    book = backend.create("public", "Gaps")
    book.write({"history": frame([["a", 1, "x"], [None, None, None], ["b", 2, "y"]])})
    shown = book.read(["history"])["history"]
    assert shown.index.tolist() == [2, 4]
    since = len(fake.requests)
    book.write({"history": frame([["a", 1, "x"], ["b", 2, "y"]])}, shown={"history": shown})
    (whole,) = [r for r in batch(fake, since) if "updateCells" in r]
    assert "startRowIndex" not in whole["updateCells"]["range"]
    assert fake.values(book.id, "history") == [COLUMNS, ["a", 1, "x"], ["b", 2, "y"]]
