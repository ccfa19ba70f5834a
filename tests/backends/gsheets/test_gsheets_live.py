"""The Google Sheets backend against the real Google, to check that the fake tells the truth.

Opt-in: set SHEETS_HOST_LIVE_CREDENTIALS to a service-account key file and SHEETS_HOST_LIVE_FOLDER
to the id of a folder in a shared drive where that account is a Content manager (a Contributor
cannot delete the spreadsheets the test makes and deletes again), in a drive that allows links
open to anyone (else the permission and whole-game tests skip). Optional:
SHEETS_HOST_LIVE_NO_GOOGLE_ADDRESS, an address that has no Google account, for Drive's refusal to
share with it silently (no email is sent to it). Run with `pytest -m live tests/backends/gsheets/test_gsheets_live.py`.

Besides the round trip, one test per assumption the fake makes from Google's documents only
(issue 25; `docs/google.md` lists them, with what can only be checked by hand). Every spreadsheet a
test makes is deleted in its `finally`.
"""

from __future__ import annotations

import copy
import os
import time
import uuid
from collections import Counter
from contextlib import suppress
from datetime import datetime

import pandas as pd
import pytest
import requests
from gspread.exceptions import APIError
from gspread.urls import DRIVE_FILES_API_V3_URL, SPREADSHEET_BATCH_UPDATE_URL
from requests.adapters import HTTPAdapter

from sheets_host.backends.gsheets.backend import (HOST_MARK, LOCK, NEW_MARK, ROLE_MARK, GoogleBackend, _role_mark,
                                                  spreadsheet_id)
from sheets_host.backends.gsheets.drive import NO_ACCOUNT, POLICY, changed_files, find, share
from sheets_host.backends.gsheets.sheets_api import mark
from sheets_host.engine import commands as engine
from sheets_host.engine.creation import new_game
from sheets_host.engine.play import bots_submit
from sheets_host.kit.errors import BookError

CREDENTIALS = os.environ.get("SHEETS_HOST_LIVE_CREDENTIALS", "")
FOLDER = os.environ.get("SHEETS_HOST_LIVE_FOLDER", "")
NO_GOOGLE_ADDRESS = os.environ.get("SHEETS_HOST_LIVE_NO_GOOGLE_ADDRESS", "")

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not (CREDENTIALS and FOLDER), reason="set SHEETS_HOST_LIVE_CREDENTIALS and SHEETS_HOST_LIVE_FOLDER"),
]


class _Counting(HTTPAdapter):
    """The real transport, noting each Sheets request."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def send(self, request: requests.PreparedRequest, *args, **kwargs) -> requests.Response:  # type: ignore[override]
        self.paths.append(f"{request.method} {request.path_url.split('?')[0]}")
        return super().send(request, *args, **kwargs)


def frame(rows: list[list[object]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns, index=range(2, 2 + len(rows)), dtype=object)


def test_live_round_trip():
    backend = GoogleBackend.from_where("", credentials=CREDENTIALS, folder=FOLDER)
    try:
        book = backend.create("host", f"sheets-host live test {uuid.uuid4().hex[:8]}")
        big = frame([[f"  row {i} ", i, i / 4, i % 2 == 0, None, "=A1+1"] for i in range(1200)],
                    ["name", "n", "quarter", "even", "blank", "typed"])
        book.write({"It's state": big}, protect={"It's state": True})
        book.write({"It's state": big.head(2), "submit": frame([], ["power", "double"])})

        # A second run: fresh metadata, and its requests counted.
        again = GoogleBackend.from_where(book.id, credentials=CREDENTIALS)
        counter = _Counting()
        again.client.http_client.session.mount("https://sheets.googleapis.com/", counter)
        again.client.http_client.values_batch_update(book.id, {"valueInputOption": "USER_ENTERED", "data": [
            {"range": "'submit'!A2:B2", "values": [["5", "=A2*2"]]}]})
        counter.paths.clear()
        host = again.book("host")
        read = host.read(["It's state", "submit", "nowhere"])
        typed = host.read(["submit"], formulas=True)["submit"]
        host.write({"log": frame([["done"]], ["what"])}, protect={"It's state": False})

        assert read["It's state"].loc[2].tolist() == ["  row 0 ", 0, 0, True, None, "=A1+1"]
        assert read["It's state"].index.tolist() == [2, 3]  # the other 1198 rows were cleared
        assert read["submit"].loc[2].tolist() == [5, 10]
        assert typed.loc[2].tolist() == [5, "=A2*2"]
        # The whole book read once (its metadata with it), the formulas of one tab, the write.
        assert len(counter.paths) == 3 and counter.paths[0] == f"GET /v4/spreadsheets/{book.id}"
        sheets = again.client.http_client.fetch_sheet_metadata(book.id)["sheets"]
        assert [s["properties"]["title"] for s in sheets] == ["It's state", "submit", "log"]
        assert not any(p.get("description") == LOCK for s in sheets for p in s.get("protectedRanges", []))
    finally:
        delete_all(backend)


# ---- issue 25: what the fake assumes from Google's documents, checked against Google (docs/google.md) ----

DEADLINE = datetime(2026, 11, 24, 18, 0)
# How a host in each locale types 24 November 2026 18:00 (then only the day), and how Google shows it.
TYPED = {"en_US": ("11/24/2026 18:00", "11/24/2026 18:00:00", "11/24/2026", "11/24/2026"),
         "en_GB": ("24/11/2026 18:00", "24/11/2026 18:00:00", "24/11/2026", "24/11/2026"),
         "de_DE": ("24.11.2026 18:00", "24.11.2026 18:00:00", "24.11.2026", "24.11.2026")}
CELL_FIELDS = ("sheets(properties(title),data(rowData(values(userEnteredValue,effectiveValue,formattedValue,"
               "userEnteredFormat(numberFormat),effectiveFormat(numberFormat)))))")


def live_backend(**options) -> GoogleBackend:
    return GoogleBackend.from_where("", credentials=CREDENTIALS, folder=FOLDER, **options)


def delete_all(backend: GoogleBackend) -> None:
    """Every spreadsheet `backend` made (or found), deleted for good (trashed ones too)."""
    for ref in backend.refs().values():
        with suppress(APIError):  # gspread's del_spreadsheet spells the flag 'True'
            backend.client.http_client.request("delete", f"{DRIVE_FILES_API_V3_URL}/{spreadsheet_id(ref)}",
                                               params={"supportsAllDrives": "true"})


def title(what: str) -> str:
    return f"sheets-host live test: {what} {uuid.uuid4().hex[:8]}"


def counted(backend: GoogleBackend) -> _Counting:
    """Every request `backend` sends from now on, Sheets' and Drive's, noted."""
    counter = _Counting()
    for prefix in ("https://sheets.googleapis.com/", "https://www.googleapis.com/"):
        backend.client.http_client.session.mount(prefix, counter)
    return counter


def per_spreadsheet(paths: list[str]) -> Counter:
    """Sheets requests by spreadsheet id, as `tests/backends/gsheets/test_gsheets_game.py` counts them on the fake."""
    ids: Counter = Counter()
    for path in paths:
        parts = path.split(" ", 1)[1].split("/")
        if "spreadsheets" in parts and parts.index("spreadsheets") + 1 < len(parts):
            ids[parts[parts.index("spreadsheets") + 1].split(":")[0]] += 1
    return ids


@pytest.mark.parametrize("locale", TYPED)
def test_live_dates_typed_in_each_locale_are_numbers_with_a_date_format_read_as_their_moment(locale):
    """Assumption 1: USER_ENTERED input (as typed in the UI) stores a date in the locale's order, or
    ISO, as days since 1899-12-30 under a DATE/DATE_TIME numberFormat shown in the locale's default
    pattern; `GoogleBook.read` reads the moment (`tests/backends/gsheets/test_gsheets_dates.py` on the fake)."""
    typed, shown, day, day_shown = TYPED[locale]
    backend = live_backend()
    try:
        book = backend.create("host", title(f"dates {locale}"))
        http = backend.client.http_client
        http.batch_update(book.id, {"requests": [
            {"updateSpreadsheetProperties": {"properties": {"locale": locale}, "fields": "locale"}},
            {"addSheet": {"properties": {"title": "dates"}}}]})
        assert http.fetch_sheet_metadata(book.id, params={"fields": "properties(locale)"})["properties"]["locale"] == locale
        http.values_batch_update(book.id, {"valueInputOption": "USER_ENTERED", "data": [
            {"range": "'dates'!A1:C2", "values": [["typed", "iso", "day"], [typed, "2026-11-24 18:00", day]]}]})

        read = GoogleBackend.from_where(book.id, credentials=CREDENTIALS).book("host").read(["dates"])["dates"]
        assert read.loc[2].tolist() == [DEADLINE, DEADLINE, datetime(2026, 11, 24)]

        cells = http.fetch_sheet_metadata(book.id, params={"includeGridData": "true", "ranges": "'dates'!A2:C2",
                                                             "fields": CELL_FIELDS})["sheets"][0]["data"][0]["rowData"][0]["values"]
        for cell, kind in zip(cells, ["DATE_TIME", "DATE_TIME", "DATE"]):
            assert cell["userEnteredValue"] == {"numberValue": 46350.75 if kind == "DATE_TIME" else 46350}, cell
            assert cell["effectiveFormat"]["numberFormat"]["type"] == kind, cell
            assert cell["userEnteredFormat"]["numberFormat"]["type"] == kind, cell
        # The locale's default patterns the fake shows (`fakes.google_cells.LOCALES`).
        assert [cells[0]["formattedValue"], cells[2]["formattedValue"]] == [shown, day_shown], cells
        if locale == "en_US":  # no month 24: Google keeps the text, which the backend reads (day over 12)
            http.values_batch_update(book.id, {"valueInputOption": "USER_ENTERED", "data": [
                {"range": "'dates'!A3", "values": [["24/11/2026 18:00"]]}]})
            again = GoogleBackend.from_where(book.id, credentials=CREDENTIALS).book("host").read(["dates"])["dates"]
            assert again.loc[3, "typed"] == "24/11/2026 18:00"
    finally:
        delete_all(backend)


def test_live_a_retried_write_is_refused_whole_and_its_mark_says_it_landed(record_property):
    """Assumption 2: creating developer metadata with a metadataId in use fails the whole batchUpdate
    (`sheets_api.mark`, `GoogleBook._landed`; `tests/backends/gsheets/test_gsheets_retry.py` on the fake). Also
    recorded: whether deleting metadata by an id no longer there is an error."""
    backend = live_backend()
    try:
        book = backend.create("host", title("retried write"))
        book.write({"log": frame([["first"]], ["what"])})
        http = backend.client.http_client
        sent: list[dict] = []
        real = http.request

        def noting(method, endpoint, *args, **kwargs):
            if method == "post" and endpoint.endswith(":batchUpdate"):
                sent.append(copy.deepcopy(kwargs["json"]))
            return real(method, endpoint, *args, **kwargs)

        http.request = noting  # type: ignore[method-assign]
        try:
            book.write({}, append={"log": frame([["second"]], ["what"])})
        finally:
            del http.request
        (body,) = sent
        write_id = body["requests"][-1]["createDeveloperMetadata"]["developerMetadata"]["metadataId"]
        assert book._marks == [write_id]

        # An id in use refused, and the batch with it: the tab added before it is not there.
        with pytest.raises(APIError) as duplicate:
            http.batch_update(book.id, {"requests": [{"addSheet": {"properties": {"title": "not applied"}}},
                                                     *mark([], write_id)]})
        record_property("duplicate metadataId", f"HTTP {duplicate.value.code}: {duplicate.value.error.get('message')}")
        assert duplicate.value.code == 400
        titles = [s["properties"]["title"] for s in http.fetch_sheet_metadata(book.id)["sheets"]]
        assert titles == ["log"], titles

        # The retry of a try Google applied, its answer lost: refused whole, nothing appended twice.
        with pytest.raises(APIError) as refused:
            http.request("post", SPREADSHEET_BATCH_UPDATE_URL % book.id, json=body)
        assert refused.value.code == 400
        assert book._landed(write_id) is not None
        fresh = GoogleBackend.from_where(book.id, credentials=CREDENTIALS).book("host")
        assert fresh.read(["log"])["log"]["what"].tolist() == ["first", "second"]
        assert fresh._marks == [write_id]

        # A mark the write meant to replace is gone (another writer replaced it): recorded, and the
        # backend either writes (a delete of a missing id is no error) or refuses the write whole.
        other = GoogleBackend.from_where(book.id, credentials=CREDENTIALS).book("host")
        other.read(["log"])
        fresh.write({}, append={"log": frame([["third"]], ["what"])})
        try:
            other.write({}, append={"log": frame([["fourth"]], ["what"])})
            outcome = "no error: the batch was applied"
        except BookError as e:
            outcome = f"refused: {e}"
        record_property("delete of a missing metadataId", outcome)
        print(f"deleting developer metadata by a missing id: {outcome}")
        log = GoogleBackend.from_where(book.id, credentials=CREDENTIALS).book("host").read(["log"])["log"]["what"].tolist()
        assert log == (["first", "second", "third", "fourth"] if outcome.startswith("no error")
                       else ["first", "second", "third"])
    finally:
        delete_all(backend)


def test_live_app_properties_set_at_creation_are_found_at_once():
    """Assumption 3: appProperties given to files.create are searchable by files.list
    (`appProperties has { key=... and value=... }`) right away: what lets `new` run again find what
    a killed `new` made (`tests/backends/gsheets/test_gsheets_new.py` on the fake)."""
    backend = live_backend()
    key = uuid.uuid4().hex
    try:
        backend.begin_new(key)
        host = backend.create("host", title("appProperties host"))
        player = backend.create("player:Ada", title("appProperties player"))
        http = backend.client.http_client
        found = {"hosts": find(http, NEW_MARK, key, FOLDER), "books": find(http, HOST_MARK, host.id, FOLDER)}
        late = ""
        if not found["hosts"] or not found["books"]:  # not at once: say whether it is a delay or never
            time.sleep(30)
            late = f"; 30 s later: {find(http, NEW_MARK, key, FOLDER)}, {find(http, HOST_MARK, host.id, FOLDER)}"
        assert list(found["hosts"]) == [host.id], f"{found}{late}"
        assert list(found["books"]) == [player.id], f"{found}{late}"
        assert found["books"][player.id][ROLE_MARK] == _role_mark("player:Ada")
        again = live_backend()
        assert again.begin_new(key) is False  # found, uncommitted: taken over
        assert again._found == {_role_mark("host"): host.id, _role_mark("player:Ada"): player.id}
    finally:
        delete_all(backend)


def test_live_a_permission_repeated_is_not_duplicated():
    """Assumption 3: Drive answers a permission the file already has without adding a second one,
    so a `new` run again repeats its shares safely (`fake_google_drive` does the same). Shared with
    anyone with the link: no address gets an email."""
    backend = live_backend(notify=False)
    try:
        book = backend.create("public", title("permission repeated"))
        http = backend.client.http_client
        try:
            for _ in range(2):
                share(http, book.id, "the public book", None, "reader", notify=False)
        except BookError as e:
            if any(reason in str(e) for reason in POLICY):
                pytest.skip(f"the folder's drive keeps links from anyone: {e}")
            raise
        permissions = http.request("get", f"{DRIVE_FILES_API_V3_URL}/{book.id}/permissions", params={
            "supportsAllDrives": "true", "fields": "permissions(id,type,role,allowFileDiscovery)"}).json()["permissions"]
        anyone = [p for p in permissions if p["type"] == "anyone"]
        assert len(anyone) == 1 and anyone[0]["role"] == "reader" and anyone[0]["allowFileDiscovery"] is False, permissions
    finally:
        delete_all(backend)


@pytest.mark.skipif(not NO_GOOGLE_ADDRESS, reason="set SHEETS_HOST_LIVE_NO_GOOGLE_ADDRESS to an address with no Google account")
def test_live_an_address_without_a_google_account_shared_silently_is_refused():
    """Assumption 3: Drive answers 400 invalidSharingRequest to a share with
    sendNotificationEmail=false for an address with no Google account (`tests/backends/gsheets/test_gsheets_new.py`)."""
    backend = live_backend(notify=False)
    try:
        with pytest.raises(BookError) as refused:
            backend.create("player:Zed", title("no Google account"), readers=[NO_GOOGLE_ADDRESS])
        message = str(refused.value)
        assert f"{NO_ACCOUNT}, HTTP 400" in message and "has no Google account" in message, message
    finally:
        delete_all(backend)


def test_live_a_whole_small_game_costs_the_floor_per_spreadsheet(tmp_path, monkeypatch):
    """`new` (2 players, no addresses: nobody is emailed), the bots' submissions, `check` and
    `resolve --early` on Google, each command's requests counted per spreadsheet as
    `tests/backends/gsheets/test_gsheets_game.py` counts them on the fake: the floor of one read and one write a book."""
    monkeypatch.chdir(tmp_path)
    backend = live_backend(notify=False)
    made: list[GoogleBackend] = [backend]
    try:
        try:
            session = new_game(backend, "spirit-chain", ["Ada", "Blaise"], 4)
        except BookError as e:
            if any(reason in str(e) for reason in POLICY):
                pytest.skip(f"the folder's drive keeps links from anyone (the public book): {e}")
            raise
        host = session.host.ref
        ids = {role: spreadsheet_id(ref) for role, ref in backend.refs().items()}
        assert set(ids) == {"host", "public", "player:Ada", "player:Blaise"}

        typist = GoogleBackend.from_where(host, credentials=CREDENTIALS)
        bots_submit(typist, engine.open_session(typist), 4)

        def run(command):
            fresh = GoogleBackend.from_where(host, credentials=CREDENTIALS)
            made.append(fresh)
            counter = counted(fresh)
            command(fresh)
            return {role: per_spreadsheet(counter.paths)[sid] for role, sid in ids.items()}

        status = run(engine.status)
        checked = run(engine.check)
        resolved = run(lambda b: engine.resolve(b, early=True))
        players = {"player:Ada": 2, "player:Blaise": 2}
        assert status == {"host": 1, "public": 0, "player:Ada": 1, "player:Blaise": 1}
        assert checked == {"host": 2, "public": 1, **players}
        assert resolved == {"host": 2, "public": 2, **players}
        assert engine.status(GoogleBackend.from_where(host, credentials=CREDENTIALS)).round == 2
    finally:
        for each in made:
            delete_all(each)


def test_live_a_write_to_a_spreadsheet_is_in_drives_change_log(record_property):
    """Assumption 13: a write to a spreadsheet through Sheets (as a person's edit) puts it in Drive's
    change log (`changes.list` from a `changes.getStartPageToken`), soon: what lets a `watch` check
    read only the books that changed (`watch.changes`). Records how soon."""
    backend = live_backend()
    try:
        book = backend.create("host", title("change log"))
        http = backend.client.http_client
        _, token = changed_files(http, None)
        book.write({"t": frame([["typed"]], ["a"])})
        start, seen = time.monotonic(), set()
        while book.id not in seen and time.monotonic() - start < 120:
            seen |= changed_files(http, token)[0] or set()
            if book.id not in seen:
                time.sleep(5)
        record_property("change_log_delay_seconds", round(time.monotonic() - start))
        assert book.id in seen
    finally:
        delete_all(backend)


# ---- issue 34: colours as styles, sizes of a new tab (docs/google.md) ----

ORANGE = {"red": 1, "green": 0.502, "blue": 0}
COLOUR_FIELDS = ("properties(spreadsheetTheme),sheets(properties(title),data(rowData(values(userEnteredFormat,effectiveFormat)),"
                 "rowMetadata(pixelSize),columnMetadata(pixelSize)))")


def same_colour(a: dict, b: dict) -> bool:
    """Two Colors alike to within a channel's step (Google leaves a 0 channel out)."""
    return all(abs(a.get(k, 0) - b.get(k, 0)) < 0.004 for k in ("red", "green", "blue"))


def check_colours_and_new_sizes(http, sid: str) -> dict:
    """Assumptions 15 and 16, on any Sheets API (`http`, a gspread HTTPClient): a colour sent as a
    ColorStyle reads back as that style and as the plain Color beside it, a theme colour as the
    theme's RGB, and the theme is the one `fakes.google_colours.THEME` has; a new tab's rows are 21
    pixels and its columns 100. Returns what Google answered, cell A1 and B1's formats."""
    from sheets_host.fakes.google_colours import THEME

    http.batch_update(sid, {"requests": [
        {"addSheet": {"properties": {"sheetId": 77, "title": "colours"}}},
        {"repeatCell": {"range": {"sheetId": 77, "startRowIndex": 0, "endRowIndex": 1, "startColumnIndex": 0, "endColumnIndex": 1},
                        "cell": {"userEnteredFormat": {"backgroundColorStyle": {"rgbColor": ORANGE},
                                                       "textFormat": {"foregroundColorStyle": {"themeColor": "ACCENT1"}}}},
                        "fields": "userEnteredFormat(backgroundColorStyle,textFormat.foregroundColorStyle)"}},
        {"repeatCell": {"range": {"sheetId": 77, "startRowIndex": 0, "endRowIndex": 1, "startColumnIndex": 1, "endColumnIndex": 2},
                        "cell": {"userEnteredFormat": {"backgroundColorStyle": {"themeColor": "ACCENT1"}}},
                        "fields": "userEnteredFormat.backgroundColorStyle"}}]})
    got = http.fetch_sheet_metadata(sid, params={"includeGridData": "true", "ranges": "'colours'!A1:B3", "fields": COLOUR_FIELDS})
    theme = {p["colorType"]: p["color"]["rgbColor"] for p in got["properties"]["spreadsheetTheme"]["themeColors"]}
    assert all(same_colour(theme[kind], rgb) for kind, rgb in THEME.items()), theme
    data = got["sheets"][0]["data"][0]
    orange, accent = data["rowData"][0]["values"]
    for fmt in (orange["userEnteredFormat"], orange["effectiveFormat"]):
        assert same_colour(fmt["backgroundColorStyle"]["rgbColor"], ORANGE) and same_colour(fmt["backgroundColor"], ORANGE), fmt
        assert fmt["textFormat"]["foregroundColorStyle"] == {"themeColor": "ACCENT1"}, fmt
        assert same_colour(fmt["textFormat"]["foregroundColor"], theme["ACCENT1"]), fmt
    assert accent["effectiveFormat"]["backgroundColorStyle"] == {"themeColor": "ACCENT1"}, accent
    assert same_colour(accent["effectiveFormat"]["backgroundColor"], theme["ACCENT1"]), accent
    assert [m["pixelSize"] for m in data["rowMetadata"]] == [21] * 3
    assert [m["pixelSize"] for m in data["columnMetadata"]] == [100] * 2
    return {"A1": orange, "B1": accent}


def test_live_a_colour_sent_as_its_style_reads_back_as_both_and_a_new_tab_has_the_default_sizes(record_property):
    """Assumptions 15 and 16 (`sheets_api.fill`, `sheets_api._sizes`; `tests/fakes/test_google_formats.py`
    and `tests/backends/gsheets/test_gsheets_requests.py` on the fake). Records what Google answered."""
    backend = live_backend()
    try:
        book = backend.create("host", title("colours"))
        record_property("colours read back", check_colours_and_new_sizes(backend.client.http_client, book.id))
    finally:
        delete_all(backend)
