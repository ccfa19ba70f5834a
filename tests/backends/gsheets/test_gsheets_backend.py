"""The Google Sheets backend against a fake of the Sheets and Drive REST endpoints (sheets_host/fakes/google.py).

Real gspread code runs; only the transport is fake, so request counts and bodies are Google's.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import gspread
import pandas as pd
import pytest
from google.auth.credentials import AnonymousCredentials
from gspread.exceptions import APIError

from sheets_host.backends.gsheets import client as gsheets_client
from sheets_host.backends.gsheets.backend import LOCK, GoogleBackend
from sheets_host.backends.gsheets.client import RetryingHTTPClient
from sheets_host.backends.kinds import open_backend
from sheets_host.fakes.discovery import unchecked
from sheets_host.kit.errors import BookError
from sheets_host.kit.layout import Palette, lay_out

from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.fakes.google_model import GoogleError


def frame(rows: list[list[object]], columns: list[str]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=columns, index=range(2, 2 + len(rows)), dtype=object)


def test_round_trip_keeps_types_and_never_makes_formulas():
    backend, fake = fake_backend()
    book = backend.create("host", "Wind, guide me")
    written = frame([["  Ann  ", 7, 2.5, True, None, "=A1+1"], ["Bo", -3, 0.1, False, "x", "'quoted"]],
                    ["name", "seed", "ratio", "alive", "note", "typed"])
    book.write({"state": written})

    # A fresh backend, so the values come from the fake and not from any cache.
    again, _ = fake_backend(book.id, fake=fake)
    read = again.book("host").read(["state"])["state"]
    assert read.index.tolist() == [2, 3]
    assert read.loc[2].tolist() == ["  Ann  ", 7, 2.5, True, None, "=A1+1"]
    assert read.loc[3].tolist() == ["Bo", -3, 0.1, False, "x", "'quoted"]
    assert [type(v) for v in read.loc[2].tolist()[1:4]] == [int, float, bool]
    assert fake.cell(book.id, "state", "F2") == {"stringValue": "=A1+1"}  # text, not a formula
    # The new spreadsheet's empty default tab is dropped by the first write, as xlsx does.
    assert fake.tabs(book.id) == ["state"]


def test_read_quotes_tab_names_and_leaves_out_missing_tabs():
    backend, fake = fake_backend()
    book = backend.create("public", "Board")
    book.write({"It's day 1": frame([[1]], ["n"]), "notes": frame([["a"]], ["x"])})

    assert book.read(["It's day 1", "nowhere"])["It's day 1"].loc[2, "n"] == 1
    assert list(book.read()) == ["It's day 1", "notes"]
    before = len(fake.requests)
    assert book.read(["nowhere"]) == {}
    assert len(fake.requests) == before  # nothing to read costs no request


def test_shrinking_write_clears_stale_rows():
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"log": frame([[i, f"event {i}"] for i in range(5)], ["round", "what"])})
    book.write({"log": frame([[9, "only"]], ["round", "what"])})

    assert fake.values(book.id, "log") == [["round", "what"], [9, "only"]]
    assert book.read(["log"])["log"].index.tolist() == [2]


def test_write_beyond_the_grid_grows_it():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Host", tabs=("state",))
    fake.files[sid].sheet("state").rows, fake.files[sid].sheet("state").cols = 3, 2
    backend, _ = fake_backend(sid, fake=fake)
    big = frame([[r, r * 2, r * 3, "x"] for r in range(10)], ["a", "b", "c", "d"])

    backend.book("host").write({"state": big, "wide": frame([list(range(30))], [f"c{i}" for i in range(30)])})

    assert fake.grid(sid, "state") == (11, 4)
    assert fake.grid(sid, "wide") == (1000, 30)  # a new tab gets at least Google's default grid
    assert len(fake.values(sid, "state")) == 11
    # The fake really refuses writes past the grid, so the resize above is what made them fit.
    with pytest.raises(APIError, match="exceeds grid limits"):
        backend.client.http_client.batch_update(sid, {"requests": [{"updateCells": {
            "range": {"sheetId": 0}, "rows": [{"values": []}] * 12, "fields": "userEnteredValue"}}]})


def test_formulas_read_as_typed_or_as_values():
    backend, fake = fake_backend()
    book = backend.create("player:Ann", "Ann", readers=["ann@example.com"])
    book.write({"submit": frame([], ["power", "double", "quoted", "broken"])})
    # Ann types through the Sheets UI: USER_ENTERED input parses '=' as a formula.
    backend.client.http_client.values_batch_update(book.id, {"valueInputOption": "USER_ENTERED", "data": [
        {"range": "'submit'!A2:C2", "values": [["5", "=A2*2", "'=A2"]]}]})
    fake.put_values(book.id, "submit", [["=1/0"]], formulas=True, start="D2")

    as_typed = book.read(["submit"], formulas=True)["submit"]
    as_values = book.read(["submit"])["submit"]

    assert as_typed.loc[2].tolist() == [5, "=A2*2", "=A2", "=1/0"]
    assert as_values.loc[2].tolist() == [5, 10, "=A2", "#ERROR!"]


def test_a_book_costs_one_read_and_one_write():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Host", tabs=("config", "state"))
    fake.put_values(sid, "state", [["round"], [1]])
    backend, _ = fake_backend(sid, fake=fake)

    book = backend.book("host")
    state = book.read(["config", "state"])["state"]
    book.write({"state": state, "log": frame([["resolved"]], ["what"])}, protect={"state": True})

    assert fake.count(sid) == 2
    assert [(c.method, c.path.rsplit("/", 1)[-1]) for c in fake.requests] == [("GET", sid), ("POST", f"{sid}:batchUpdate")]
    # Tab names are matched as people type them, so a book not read before is read whole, in one request.
    first = fake.requests[0].query
    assert "ranges" not in first and first["includeGridData"] == ["true"] and "rowData" in first["fields"][0]
    # Same book object again: its tabs are known, so a read asks for the wanted tabs only.
    assert backend.book("host") is book
    assert book.read(["log", "nowhere"])["log"].loc[2, "what"] == "resolved"
    book.write({"log": frame([["again"]], ["what"])}, protect={"state": False})
    assert fake.count(sid) == 4
    assert [c.method for c in fake.requests[2:]] == ["GET", "POST"]
    assert fake.requests[2].query["ranges"] == ["'log'"]


def test_a_known_tab_deleted_behind_our_back_is_read_as_missing():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Ann", tabs=("submit", "status"))
    fake.put_values(sid, "status", [["what"], ["ok"]])
    backend, _ = fake_backend(sid, fake=fake)
    book = backend.book("host")
    book.read(["submit"])
    fake.files[sid].sheets = [s for s in fake.files[sid].sheets if s.title != "submit"]

    assert list(book.read(["submit", "status"])) == ["status"]  # Google refused the range: read whole
    assert [c.status for c in fake.requests[1:]] == [400, 200]


def test_protect_then_unprotect_keeps_foreign_protections():
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"state": frame([[1]], ["round"])}, protect={"state": True})
    book.write({}, protect={"state": True})  # already locked: no second range

    assert [p["description"] for p in fake.protected(book.id, "state")] == [LOCK]
    assert fake.protected(book.id, "state")[0]["warningOnly"] is False
    fake.protected(book.id, "state").append({"protectedRangeId": 42, "range": {"sheetId": 1}, "description": "host's own"})

    # A later run: the lock's id comes from the metadata, not from this process's memory.
    later, _ = fake_backend(book.id, fake=fake)
    later.book("host").write({}, protect={"state": False})
    assert [p["description"] for p in fake.protected(book.id, "state")] == ["host's own"]


def test_rate_limit_is_retried_with_backoff():
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"state": frame([[1]], ["round"])})

    fake.fail_next(2, 429)
    assert book.read(["state"])["state"].loc[2, "round"] == 1
    assert fake.sleeps == [2, 4]
    assert [c.status for c in fake.requests[-3:]] == [429, 429, 200]

    fake.fail_next(1, 503, retry_after="7")
    fake.drop_next(1)
    fake.fail_next(1, 502)  # an HTML page: gspread's APIError.code is -1 for it
    book.read(["state"])
    assert fake.sleeps == [2, 4, 7, 4, 8]


def test_drive_rate_limit_403_is_retried_but_other_403_are_not():
    backend, fake = fake_backend()
    fake.fail_next(1, 403, reason="userRateLimitExceeded")
    book = backend.create("player:Ann", "Ann", readers=["ann@example.com"])
    assert fake.permissions(book.id)[0]["emailAddress"] == "ann@example.com"
    assert fake.sleeps == [2]

    bo = fake.add_spreadsheet("Bo")  # made by the host, who may forbid editors to share
    backend.adopt({"player:Bo": bo})
    fake.fail_next(1, 403, reason="insufficientFilePermissions")
    with pytest.raises(BookError, match="refused to share Bo's book .* with bo@example.com: .*insufficientFilePermissions"):
        backend.create("player:Bo", "Bo", readers=["bo@example.com"])
    assert fake.sleeps == [2]
    assert fake.permissions(bo) == []


def test_server_errors_give_up_after_70_s_of_waiting():
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"state": frame([[1]], ["round"])})
    fake.fail_next(7, 500)

    with pytest.raises(BookError) as failure:
        book.read()

    message = str(failure.value)
    assert f"Google Sheets answered 500 (a server error) 7 times over 90 s for GET /v4/spreadsheets/{book.id};" in message
    assert "quota refills each minute: wait a minute and run the command again" in message
    assert "resolved" not in message  # whether the round was committed is the engine's to say
    assert fake.sleeps == [2, 4, 8, 16, 30, 30]
    assert [c.status for c in fake.requests[-7:]] == [500] * 7


def test_quota_is_retried_until_the_minute_has_refilled_it():
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"state": frame([[1]], ["round"])})

    fake.fail_next(6, 429)  # five tries used to be all
    assert book.read(["state"])["state"].loc[2, "round"] == 1
    assert fake.sleeps == [2, 4, 8, 16, 30, 30]

    fake.sleeps.clear()
    fake.fail_next(3, 429, retry_after="45")
    with pytest.raises(BookError, match=r"answered 429 \(quota: 60 requests a minute per user\) 3 times over 90 s .*"
                                        r"something else is using the same account's quota"):
        book.read(["state"])
    assert fake.sleeps == [45, 45]


def test_missing_spreadsheet_is_a_book_error_without_retries():
    backend, fake = fake_backend("doesNotExist")
    with pytest.raises(BookError, match="open the host book .*doesNotExist.*shared with host-bot@game"):
        backend.book("host").read()
    assert len(fake.requests) == 1 and fake.sleeps == []


def test_tab_deleted_behind_our_back_is_a_book_error():
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"state": frame([[1]], ["round"]), "log": frame([["x"]], ["what"])})
    fake.files[book.id].sheets = [s for s in fake.files[book.id].sheets if s.title != "log"]

    with pytest.raises(BookError, match="refused to write the host book.*No grid with id"):
        book.write({"log": frame([["y"]], ["what"])})
    assert fake.values(book.id, "state") == [["round"], [1]]  # batchUpdate is all or nothing


def test_service_account_without_folder_is_told_about_folder_and_adopt():
    backend, fake = fake_backend(service_account_quota=True)
    with pytest.raises(BookError) as failure:
        backend.create("host", "Game")
    message = str(failure.value)
    assert "--folder" in message and "--adopt" in message and "host-bot@game.iam.gserviceaccount.com" in message
    assert fake.files == {}


def test_service_account_with_folder_creates_there():
    backend, fake = fake_backend(service_account_quota=True, folder="sharedFolder1")
    host = backend.create("host", "Game")
    ann = backend.create("player:Ann", "Game — Ann", readers=["ann@example.com"])

    assert fake.files[host.id].parents == fake.files[ann.id].parents == ["sharedFolder1"]
    assert fake.files[ann.id].name == "Game — Ann"
    assert backend.refs() == {"host": host.ref, "player:Ann": ann.ref}
    assert backend.output_dir() == Path("sheets-host-out") / host.id


def test_adopt_binds_existing_spreadsheets_without_creating():
    fake = FakeGoogle()
    host_id, ann_id = fake.add_spreadsheet("Host"), fake.add_spreadsheet("Ann's")
    backend, _ = fake_backend(fake=fake, service_account_quota=True)
    backend.adopt({"host": host_id, "player:Ann": f"https://docs.google.com/spreadsheets/d/{ann_id}/edit"})

    host = backend.create("host", "Game")
    ann = backend.create("player:Ann", "Ann", readers=["ann@example.com"])
    ann.write({"submit": frame([[None]], ["power"])})

    assert (host.id, ann.id) == (host_id, ann_id)
    assert not any(c.path == "/drive/v3/files" for c in fake.requests)
    assert fake.tabs(ann_id) == ["Sheet1", "submit"]  # not ours to clean up
    assert [p["emailAddress"] for p in fake.permissions(ann_id)] == ["ann@example.com"]
    assert backend.refs()["player:Ann"] == f"https://docs.google.com/spreadsheets/d/{ann_id}"


def test_sharing_by_kind_of_book():
    backend, fake = fake_backend()
    host = backend.create("host", "Game")
    public = backend.create("public", "Board", public=True)
    ann = backend.create("player:Ann", "Ann", readers=["ann@example.com"])
    meadow = backend.create("meadow:red", "Red", readers=["ann@example.com"])

    assert fake.permissions(host.id) == []
    assert [(p["type"], p["role"]) for p in fake.permissions(public.id)] == [("anyone", "reader")]
    assert [(p["type"], p["role"], p["emailAddress"], p["notified"]) for p in fake.permissions(ann.id)] == [
        ("user", "writer", "ann@example.com", True)]  # Drive emails the player (issue 25)
    assert [(p["role"], p["emailAddress"]) for p in fake.permissions(meadow.id)] == [("reader", "ann@example.com")]


def test_from_where_url_and_bind():
    fake = FakeGoogle()
    host_id, ann_id = fake.add_spreadsheet("Host"), fake.add_spreadsheet("Ann")
    backend, _ = fake_backend(f"https://docs.google.com/spreadsheets/d/{host_id}/edit#gid=0", fake=fake)

    assert backend.book("host").id == host_id
    with pytest.raises(BookError, match="no spreadsheet known for 'player:Ann'; known: host"):
        backend.book("player:Ann")
    # The books tab of a copied host book still names the original: `where` wins.
    backend.bind({"host": "someOtherHost", "player:Ann": f"https://docs.google.com/spreadsheets/d/{ann_id}/edit"})
    assert backend.book("player:Ann").id == ann_id
    assert backend.refs()["host"].endswith(host_id)
    with pytest.raises(BookError, match="not a spreadsheet URL"):
        fake_backend("https://example.com/nothing-here", fake=fake)


def test_new_game_has_no_output_dir_before_its_host_book():
    backend, _ = fake_backend("")
    with pytest.raises(BookError, match="no host spreadsheet yet"):
        backend.output_dir()


def test_credentials_files_are_checked(tmp_path: Path):
    with pytest.raises(BookError, match="no Google credentials at"):
        open_backend("gsheets", "abc", credentials=tmp_path / "missing.json")
    bad = tmp_path / "oauth-client.json"
    bad.write_text(json.dumps({"installed": {"client_id": "x"}}))
    with pytest.raises(BookError, match="not a valid service-account key file"):
        GoogleBackend.from_where("abc", credentials=bad)
    with pytest.raises(BookError, match="unknown auth 'token'"):
        GoogleBackend.from_where("abc", credentials=bad, auth="token")


def test_service_account_key_builds_a_retrying_client(tmp_path: Path):
    rsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.rsa")
    serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    key_file = tmp_path / "key.json"
    key_file.write_text(json.dumps({
        "type": "service_account", "client_email": "bot@proj.iam.gserviceaccount.com", "private_key": key.decode(),
        "private_key_id": "1", "token_uri": "https://oauth2.googleapis.com/token", "client_id": "1"}))
    slept: list[float] = []

    backend = GoogleBackend.from_where("abc", credentials=key_file, sleep=slept.append)  # no request yet

    assert isinstance(backend.client.http_client, RetryingHTTPClient)
    assert backend.client.http_client.sleep == slept.append
    assert backend.account == "bot@proj.iam.gserviceaccount.com"


def test_tabs_are_found_as_people_type_their_names():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Ann", tabs=("Submit ", "status"))
    fake.put_values(sid, "Submit ", [["power"], [5]])
    backend, _ = fake_backend(sid, fake=fake)
    book = backend.book("host")

    assert book.read(["submit"])["submit"].loc[2, "power"] == 5
    book.write({"submit": frame([[7]], ["power"])}, protect={"submit": True})

    assert fake.tabs(sid) == ["Submit ", "status"]  # written in place, no second tab
    assert fake.values(sid, "Submit ") == [["power"], [7]]
    assert [p["description"] for p in fake.protected(sid, "Submit ")] == [LOCK]


def test_several_tabs_that_could_be_the_one_wanted_are_refused():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Ann", tabs=("My_Stones", "my-stones"))
    backend, _ = fake_backend(sid, fake=fake)
    book = backend.book("host")

    with pytest.raises(BookError, match="several tabs that could be 'my stones': 'My_Stones', 'my-stones'; rename"):
        book.read(["my stones"])
    with pytest.raises(BookError, match="several tabs that could be 'my stones'"):
        book.write({"my stones": frame([[1]], ["n"])})
    assert fake.tabs(sid) == ["My_Stones", "my-stones"]


def test_tabs_named_hidden_are_created_hidden():
    backend, fake = fake_backend()
    book = backend.create("player:Ann", "Ann")
    book.write({"sheets-host": frame([[1]], ["delivered round"]), "status": frame([["ok"]], ["what"])},
               hidden={"sheets-host"})
    assert (fake.hidden(book.id, "sheets-host"), fake.hidden(book.id, "status")) == (True, False)

    fake.files[book.id].sheet("sheets-host").hidden = False  # Ann shows it: later writes leave it so
    book.write({"sheets-host": frame([[2]], ["delivered round"])}, hidden={"sheets-host"})
    assert not fake.hidden(book.id, "sheets-host")
    assert book.check_writable() is None


def test_a_text_longer_than_every_program_s_cell_is_cut_saying_how_much():
    """Cut to what xlsx holds too (a book may move between programs), so a write never meets the
    refusal Google gives a cell over 50,000 characters."""
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"log": frame([[1, "x" * 60_000]], ["round", "what"])})
    shown = fake.values(book.id, "log")[1][1]
    assert len(shown) == 32_767 and shown.endswith("x… (27,258 characters cut)")
    with pytest.raises(GoogleError, match="more than the maximum of 50000 characters in a single cell"):
        fake.put_values(book.id, "log", [["y" * 50_001]])  # a person typing is refused the same way
    # Appended rows are cut too.
    book.write({}, append={"log": frame([[2, "z" * 40_000]], ["round", "what"])})
    assert fake.values(book.id, "log")[2][1].endswith("z… (7,258 characters cut)")


def test_existing_lists_adopted_books_only_when_they_hold_a_game():
    fake = FakeGoogle()
    played, ann = fake.add_spreadsheet("Host", tabs=("Config ", "state")), fake.add_spreadsheet("Ann")
    backend, _ = fake_backend(fake=fake)
    backend.adopt({"host": played, "player:Ann": ann})
    assert backend.existing() == [f"https://docs.google.com/spreadsheets/d/{i}" for i in (played, ann)]
    backend.discard()  # the host's own spreadsheets stay; the new game overwrites its tabs
    assert set(fake.files) == {played, ann}

    blank, _ = fake_backend(fake=fake)
    blank.adopt({"host": fake.add_spreadsheet("Empty host"), "player:Ann": ann})
    assert blank.existing() == []
    created, _ = fake_backend(fake=fake)
    created.create("host", "Game")
    assert created.existing() == []


def test_oauth_token_is_written_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    token = tmp_path / "config" / "sheets-host" / "authorized_user.json"
    monkeypatch.setattr(gsheets_client, "TOKEN_FILE", token)
    client_file = tmp_path / "client_secret.json"
    client_file.write_text("{}")

    def login(*, credentials_filename, authorized_user_filename, http_client):
        # What gspread.oauth does after a browser login: store the token with the default mode.
        authorized_user_filename.parent.mkdir(parents=True, exist_ok=True)
        authorized_user_filename.write_text(json.dumps({"refresh_token": "r", "client_secret": "s"}))
        return gspread.Client(auth=AnonymousCredentials(), http_client=http_client)

    monkeypatch.setattr(gspread, "oauth", login)
    umask = os.umask(0o022)
    try:
        GoogleBackend.from_where("abc", credentials=client_file, auth="oauth")
        assert os.umask(0o022) == 0o022  # put back after the call
    finally:
        os.umask(umask)
    assert (token.stat().st_mode & 0o777, token.parent.stat().st_mode & 0o777) == (0o600, 0o700)

    token.chmod(0o644)  # cached by an older version
    token.parent.chmod(0o755)
    monkeypatch.setattr(gspread, "oauth", lambda **kw: gspread.Client(auth=AnonymousCredentials()))
    GoogleBackend.from_where("abc", credentials=client_file, auth="oauth")
    assert (token.stat().st_mode & 0o777, token.parent.stat().st_mode & 0o777) == (0o600, 0o700)


def test_the_fake_refuses_what_google_refuses():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Host", tabs=("state",))
    fake.files[sid].sheet("state").rows = 3
    backend, _ = fake_backend(sid, fake=fake)
    http = backend.client.http_client
    dropdown = {"condition": {"type": "ONE_OF_LIST", "values": []}, "strict": False, "showCustomUi": True}

    for body, refusal in [
        ({"requests": [], "includeSpreadsheetInResonse": True}, 'Unknown name "includeSpreadsheetInResonse"'),
        ({"requests": [{"addSheet": {"properties": {"title": "STATE"}}}]},
         r'requests\[0\].addSheet: A sheet with the name "STATE" already exists'),
        ({"requests": [{"deleteSheet": {"sheetId": 999}}]}, r"requests\[0\].deleteSheet: No grid with id: 999"),
        ({"requests": [{"addSheet": {"properties": {"title": "x", "tabColor": {}}}}]}, "not supported"),
        ({"requests": [{"updateSheetProperties": {"properties": {"sheetId": 0, "gridProperties": {"frozenRowCount": 3}},
                                                  "fields": "gridProperties.frozenRowCount"}}]},
         "You can't freeze all visible rows on the sheet"),
        ({"requests": [{"repeatCell": {"range": {"sheetId": 0, "endRowIndex": 4}, "cell": {"note": "x"}, "fields": "note"}}]},
         "exceeds grid limits"),
        ({"requests": [{"setDataValidation": {"range": {"sheetId": 0}, "rule": dropdown}}]},
         "ONE_OF_LIST condition requires at least one value"),
    ]:
        with unchecked(), pytest.raises(APIError, match=refusal):  # what the fake answers where Google refuses
            http.batch_update(sid, body)
    reply = http.batch_update(sid, {"requests": [{"addSheet": {"properties": {"title": "x", "hidden": True}}}],
                                    "includeSpreadsheetInResponse": True, "responseIncludeGridData": False})
    assert [s["properties"].get("hidden", False) for s in reply["updatedSpreadsheet"]["sheets"]] == [False, True]


# -- formatting, appends and dates: issue 9 -----------------------------------------------------------

def _kinds(call) -> list[str]:
    return [next(iter(r)) for r in call.body["requests"]]


def test_formatting_and_validation_arrive_in_the_same_single_write_as_the_values():
    backend, fake = fake_backend()
    book = backend.create("player:Ann", "Ann", readers=["ann@example.com"])
    book.write({"status": frame([["ok"]], ["what"])})
    submit = frame([["stone", 1234, "=Ada"], ["ward", None, None]], ["kind", "amount", "to"])
    layout = lay_out(submit, choices={"kind": ["stone", "ward"], "to": ["Ada", "Blaise", "=SUM(A1)"]},
                     notes={"kind": "a stone or a ward"}, palettes=[Palette({"ward": "AABBCC"}, ("kind",))], input_rows=5)
    sent = len(fake.requests)

    book.write({"submit": submit}, layouts={"submit": layout}, protect={"submit": False})

    (call,) = fake.requests[sent:]  # one request: values, formats, dropdowns, widths, frozen rows
    assert call.method == "POST" and call.path.endswith(":batchUpdate") and call.status == 200
    kinds = _kinds(call)
    assert kinds[:2] == ["addSheet", "updateCells"] and {"repeatCell", "updateDimensionProperties"} <= set(kinds)
    values = call.body["requests"][1]["updateCells"]
    assert values["fields"] == "userEnteredValue,userEnteredFormat,note,dataValidation"
    dropdowns = [r["repeatCell"]["cell"]["dataValidation"] for r in call.body["requests"]
                 if "dataValidation" in r.get("repeatCell", {}).get("cell", {})]
    assert [[v["userEnteredValue"] for v in d["condition"]["values"]] for d in dropdowns] == [["stone", "ward"], ["Ada", "Blaise"]]
    assert all(d["condition"]["type"] == "ONE_OF_LIST" and d["strict"] is False and d["showCustomUi"] for d in dropdowns)

    # What the fake now holds, as Google would.
    header = fake.cell_data(book.id, "submit", "A1")
    assert header["userEnteredFormat"]["textFormat"] == {"bold": True} and header["note"] == "a stone or a ward"
    assert header["userEnteredFormat"]["backgroundColorStyle"] == {"rgbColor": {"red": 0.851, "green": 0.8863, "blue": 0.9529}}  # HEADER_FILL
    assert fake.frozen_rows(book.id, "submit") == 1
    assert fake.cell(book.id, "submit", "C2") == {"stringValue": "=Ada"}  # typed text, never a formula
    amount = fake.cell_data(book.id, "submit", "B2")["userEnteredFormat"]
    assert amount["numberFormat"] == {"type": "NUMBER", "pattern": "#,##0"} and amount["horizontalAlignment"] == "RIGHT"
    assert fake.cell_data(book.id, "submit", "A3")["userEnteredFormat"]["backgroundColorStyle"] == {"rgbColor": {
        "red": 0.6667, "green": 0.7333, "blue": 0.8}}  # the palette's colour wins over the input shading
    for a1 in ("B3", "C6"):  # data and input rows: shaded, with the column's dropdown
        cell = fake.cell_data(book.id, "submit", a1)
        assert cell["userEnteredFormat"]["backgroundColorStyle"] == {"rgbColor": {"red": 1.0, "green": 0.9725, "blue": 0.8627}}  # INPUT_FILL
    assert fake.cell_data(book.id, "submit", "C6")["dataValidation"] == dropdowns[1]
    assert fake.cell_data(book.id, "submit", "A7") == {}  # past the input rows
    assert fake.widths(book.id, "submit") == {c: layout.columns[c].width * 7 + 10 for c in range(3)}


def test_body_cells_are_top_aligned_and_headers_keep_text_s_left_alignment():
    """Issue 26: a label beside wrapped text sat at the bottom of its row; a header over a number
    column stays left (Google's default for text), so it never runs into the next header."""
    backend, fake = fake_backend()
    book = backend.create("public", "Board")
    book.write({"t": frame([[3, "stone " * 20]], ["row", "what"])})
    assert all(fake.cell_data(book.id, "t", a1)["userEnteredFormat"]["verticalAlignment"] == "TOP" for a1 in ("A2", "B2"))
    assert fake.cell_data(book.id, "t", "A2")["userEnteredFormat"]["horizontalAlignment"] == "RIGHT"
    assert "horizontalAlignment" not in fake.cell_data(book.id, "t", "A1")["userEnteredFormat"]


def test_a_tab_written_without_a_layout_is_laid_out_and_a_rewrite_clears_the_old_layout():
    backend, fake = fake_backend()
    book = backend.create("public", "Board")
    wide = frame([["a" * 80, 2.5]], ["story", "score"])
    book.write({"board": wide})
    assert fake.cell_data(book.id, "board", "A2")["userEnteredFormat"]["wrapStrategy"] == "WRAP"  # lay_out(frame)
    assert fake.heights(book.id, "board")[1] == 37  # two lines of 12.75 pt and padding, in pixels
    assert fake.cell_data(book.id, "board", "B2")["userEnteredFormat"]["numberFormat"]["pattern"] == "#,##0.0"
    big = lay_out(wide, choices={"score": ["1", "2"]}, input_rows=9, palettes=[Palette({"a" * 80: "FF0000"}, ("story",))])
    book.write({"board": wide}, layouts={"board": big})
    assert "dataValidation" in fake.cell_data(book.id, "board", "B10")

    book.write({"board": frame([["short"]], ["story"])})

    assert fake.values(book.id, "board") == [["story"], ["short"]]
    assert fake.cell_data(book.id, "board", "B10") == {} and "backgroundColorStyle" not in fake.cell_data(
        book.id, "board", "A2")["userEnteredFormat"]
    assert fake.cell_data(book.id, "board", "B1") == {}  # the old header cell: value and format gone
    assert set(fake.heights(book.id, "board").values()) == {21}  # the tall row back to the default


def test_appended_rows_are_all_that_is_sent_and_tabs_grow_as_needed():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Host", tabs=("config",))
    fake.put_values(sid, "config", [["key", "value"], ["seed", 1]])
    fake.files[sid].sheet("config").rows, fake.files[sid].sheet("config").cols = 2, 2
    backend, _ = fake_backend(sid, fake=fake)
    book = backend.book("host")
    book.read()
    book.write({"log": frame([[i, f"event {i}" * 10] for i in range(2000)], ["round", "what"])})
    whole = fake.requests[-1].size
    assert fake.grid(sid, "log")[0] == 2001

    book.write({}, append={"log": frame([[2000, "late"], [2001, "later"]], ["round", "what"]),
                           "archive": frame([["Ann", 3]], ["player", "row"])})

    call = fake.requests[-1]
    kinds = _kinds(call)
    assert kinds[:3] == ["appendCells", "addSheet", "updateCells"]  # archive: created whole, with its header
    assert kinds.count("appendCells") == 1 and kinds.count("updateCells") == 1
    assert call.body["requests"][0]["appendCells"]["fields"] == "userEnteredValue"
    assert call.size < 3_000 < whole / 100
    assert fake.grid(sid, "log")[0] == 2003  # Google inserts the rows an append needs
    assert fake.values(sid, "log")[-2:] == [[2000, "late"], [2001, "later"]]
    assert fake.values(sid, "archive") == [["player", "row"], ["Ann", 3]]
    # Columns are added as needed, rows by Google; the reply's metadata keeps the book in step.
    book.write({}, append={"config": frame([["rounds", 5, "a setting with a note"]], ["key", "value", "about"])})
    assert fake.grid(sid, "config") == (3, 3) and fake.values(sid, "config")[-1] == ["rounds", 5, "a setting with a note"]
    book.write({"config": frame([["seed", 1]] * 3, ["key", "value"])})  # knows the grid holds 3 rows, grows it to 4
    assert fake.grid(sid, "config") == (4, 3)
    assert len(book.read(["log"])["log"]) == 2002


def test_appending_nothing_sends_nothing():
    backend, fake = fake_backend()
    book = backend.create("host", "Game")
    book.write({"log": frame([["x"]], ["what"])})
    sent = len(fake.requests)
    book.write({}, append={"log": frame([], ["what"])})
    assert len(fake.requests) == sent


def test_dates_read_as_their_moment_whatever_the_locale_shows_and_formula_errors_as_their_text():
    fake = FakeGoogle()
    sid = fake.add_spreadsheet("Ann", tabs=("submit",))
    fake.put_values(sid, "submit", [["when", "at", "sum"],
                                    [datetime(2026, 11, 23), datetime(2026, 11, 23, 18, 30), "=A9/0"]], formulas=True)
    backend, _ = fake_backend(sid, fake=fake)
    book = backend.book("host")

    dates = [datetime(2026, 11, 23), datetime(2026, 11, 23, 18, 30)]  # as the xlsx backend reads them
    assert fake.formatted(sid, "submit", "B2") == "11/23/2026 18:30:00"  # what a person in en_US sees
    assert book.read(["submit"])["submit"].loc[2].tolist() == [*dates, "#ERROR!"]
    assert book.read(["submit"], formulas=True)["submit"].loc[2].tolist() == [*dates, "=A9/0"]
