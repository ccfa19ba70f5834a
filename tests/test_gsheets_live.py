"""The Google Sheets backend against the real Google, to check that the fake tells the truth.

Opt-in: set SHEETS_HOST_LIVE_CREDENTIALS to a service-account key file and SHEETS_HOST_LIVE_FOLDER
to the id of a folder in a shared drive where that account is a Content manager (a Contributor
cannot delete the spreadsheets the test makes and deletes again). Run with `pytest -m live`.
"""

from __future__ import annotations

import os
import uuid

import pandas as pd
import pytest
import requests
from requests.adapters import HTTPAdapter

from sheets_host.backends.gsheets import LOCK, GoogleBackend

CREDENTIALS = os.environ.get("SHEETS_HOST_LIVE_CREDENTIALS", "")
FOLDER = os.environ.get("SHEETS_HOST_LIVE_FOLDER", "")

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
        assert len(counter.paths) == 4 and counter.paths[0] == f"GET /v4/spreadsheets/{book.id}"
        sheets = again.client.http_client.fetch_sheet_metadata(book.id)["sheets"]
        assert [s["properties"]["title"] for s in sheets] == ["It's state", "submit", "log"]
        assert not any(p.get("description") == LOCK for s in sheets for p in s.get("protectedRanges", []))
    finally:
        for ref in backend.refs().values():
            backend.client.del_spreadsheet(ref.rsplit("/", 1)[-1])
