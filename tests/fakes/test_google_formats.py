"""The fake Sheets keeps a cell's colours as Google does (`fakes.google_colours`, issue 34): sent as a ColorStyle
(`backgroundColorStyle`, `textFormat.foregroundColorStyle`: an `rgbColor` or a `themeColor` of
the spreadsheet's theme), read back as the style and as the deprecated plain colour beside it,
which Google still answers with (a theme colour as the theme's RGB)."""

from __future__ import annotations

import pytest

from sheets_host.fakes.discovery import unchecked
from sheets_host.fakes.google import FakeGoogle, fake_backend

SHEETS = "https://sheets.googleapis.com/v4/spreadsheets"
ORANGE = {"red": 1, "green": 0.5, "blue": 0}
ACCENT1 = {"red": 0.2588, "green": 0.5216, "blue": 0.9569}  # #4285F4, a new spreadsheet's first accent
FORMATS = "sheets(data(rowData(values(userEnteredFormat,effectiveFormat))))"


def _book():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("colours")
    backend, _ = fake_backend(sid, fake=fake)
    return fake, sid, backend.client.http_client


def _paint(http, sid: str, fmt: dict, fields: str = "userEnteredFormat") -> None:
    http.request("post", f"{SHEETS}/{sid}:batchUpdate", json={"requests": [{"repeatCell": {
        "range": {"sheetId": 0, "startRowIndex": 0, "endRowIndex": 1, "startColumnIndex": 0, "endColumnIndex": 1},
        "cell": {"userEnteredFormat": fmt}, "fields": fields}}]})


def _read(http, sid: str, fields: str = FORMATS) -> dict:
    reply = http.request("get", f"{SHEETS}/{sid}", params={"includeGridData": "true", "ranges": "Sheet1!A1", "fields": fields}).json()
    return reply["sheets"][0]["data"][0]["rowData"][0]["values"][0]


def test_a_colour_sent_as_a_style_reads_back_as_the_style_and_as_its_rgb():
    fake, sid, http = _book()
    _paint(http, sid, {"backgroundColorStyle": {"rgbColor": ORANGE},
                       "textFormat": {"bold": True, "foregroundColorStyle": {"themeColor": "ACCENT1"}}})

    cell = _read(http, sid)

    for fmt in (cell["userEnteredFormat"], cell["effectiveFormat"]):
        assert fmt["backgroundColorStyle"] == {"rgbColor": ORANGE} and fmt["backgroundColor"] == ORANGE
        assert fmt["textFormat"]["foregroundColorStyle"] == {"themeColor": "ACCENT1"}
        assert fmt["textFormat"]["foregroundColor"] == ACCENT1  # the theme's colour
    assert cell["effectiveFormat"]["textFormat"]["bold"] is True
    assert fake.cell_data(sid, "Sheet1", "A1")["userEnteredFormat"]["backgroundColorStyle"] == {"rgbColor": ORANGE}


def test_a_theme_colour_is_the_spreadsheets_theme_and_an_unpainted_cell_is_white():
    fake, sid, http = _book()
    _paint(http, sid, {"backgroundColorStyle": {"themeColor": "ACCENT1"}})
    assert _read(http, sid)["effectiveFormat"]["backgroundColor"] == ACCENT1
    theme = http.request("get", f"{SHEETS}/{sid}", params={"fields": "properties(spreadsheetTheme)"}).json()
    pairs = {p["colorType"]: p["color"] for p in theme["properties"]["spreadsheetTheme"]["themeColors"]}
    assert pairs["ACCENT1"] == {"rgbColor": ACCENT1} and set(pairs) >= {"TEXT", "BACKGROUND", "LINK"}
    _paint(http, sid, {"numberFormat": {"type": "NUMBER", "pattern": "0"}})  # the colour cleared
    effective = _read(http, sid)["effectiveFormat"]
    assert effective["backgroundColorStyle"] == {"rgbColor": {"red": 1, "green": 1, "blue": 1}}
    assert effective["backgroundColor"] == {"red": 1, "green": 1, "blue": 1}


def test_the_deprecated_colour_is_the_same_field_as_its_style():
    """Sent the old way (which the check refuses, so only `unchecked`), a colour is kept as the
    style it stands for: a style sent after replaces it, a mask of either names it."""
    fake, sid, http = _book()
    with unchecked():
        _paint(http, sid, {"backgroundColor": ORANGE}, "userEnteredFormat.backgroundColor")
    assert fake.cell_data(sid, "Sheet1", "A1")["userEnteredFormat"] == {"backgroundColorStyle": {"rgbColor": ORANGE}}
    _paint(http, sid, {"backgroundColorStyle": {"themeColor": "ACCENT1"}}, "userEnteredFormat.backgroundColorStyle")
    assert _read(http, sid)["userEnteredFormat"]["backgroundColor"] == ACCENT1
    with unchecked():
        _paint(http, sid, {}, "userEnteredFormat.backgroundColor")
    assert fake.cell_data(sid, "Sheet1", "A1") == {}


@pytest.mark.parametrize("style, problem", [
    ({"rgbColor": ORANGE, "themeColor": "ACCENT1"}, "one of rgbColor or themeColor"),
    ({"themeColor": "THEME_COLOR_TYPE_UNSPECIFIED"}, "theme_color"),
    ({"rgbColor": {"red": 2}}, "bad colour"),
    ({}, "one of rgbColor or themeColor"),
])
def test_a_style_that_is_not_one_colour_is_refused(style, problem):
    fake, sid, http = _book()
    with pytest.raises(Exception, match=problem):
        with unchecked():
            _paint(http, sid, {"backgroundColorStyle": style})
    assert fake.cell_data(sid, "Sheet1", "A1") == {}
