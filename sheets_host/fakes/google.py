"""A fake of the Google Sheets v4 and Drive v3 endpoints sheets-host uses, as a requests adapter.

Mounted on a real gspread client's session, it lets gspread's own code and our backend run
unchanged: the tests use it, and so does ``sheets-host bench --google``, which counts the requests
and bytes a whole game sends. It keeps what our code relies on: user-entered values typed as Google
types them (``stringValue '=x'`` stays a string, ``formulaValue`` is a formula), ``spreadsheets.get``
with grid data, ``ranges`` and ``fields`` masks (cells' entered, effective and formatted values and
formats), formats, notes, dropdowns, frozen rows, column widths and row heights, ``appendCells``, whole-range
``updateCells`` clearing, "exceeds grid limits" errors, atomic batch updates with Google's
refusals and the spreadsheet (grid data included when asked) in their reply
(`sheets_host.fakes.google_batch`), developer metadata of the whole spreadsheet, hidden sheets, and
Drive's files and permissions with its refusals: storage quota for service accounts, sharing with an
address that has no Google account without notifying it, sharing policies
(`sheets_host.fakes.google_drive`); and failures: an error answered instead (`fail_next`,
`drop_next`), or a request applied and its answer lost (`lose_next_answer`). Anything else answers 404 or 400, so a gap shows up as a failing test instead of a silent
pass. Every request is first checked against Google's discovery documents
(`sheets_host.fakes.discovery`). It takes every https:// request, so nothing reaches the real Google.

Each request is recorded (`requests`): method, path, status, the spreadsheet it concerns, the
size of its body in bytes and, unless ``keep_bodies=False``, its query and parsed body.

Formulas: FORMULA renders their text; the others compute plain arithmetic over numbers and
same-sheet cell references (``=A1*2+1``) and show ``#ERROR!`` for anything else.

Requests may come from several threads at once, as the backend sends them (`in_flight.each_book`):
each waits out the fake's `latency` (a round trip to Google, for `bench --google --latency`) on its
own, then is answered under one lock, one at a time, as Google applies each request atomically. The
ids the fake makes up come from a generator of each spreadsheet's own, so what a spreadsheet holds
does not depend on which thread was answered first. `most_in_flight` is the most requests seen in
flight together.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Callable
from datetime import datetime
from http import HTTPStatus
from typing import Any, NamedTuple
from urllib.parse import parse_qs, unquote, urlsplit

import gspread
import requests
from google.auth.credentials import AnonymousCredentials
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from sheets_host.backends.gsheets.backend import GoogleBackend
from sheets_host.backends.gsheets.client import RetryingHTTPClient
from .discovery import check_request
from .google_batch import BatchUpdates
from .google_cells import effective_value, formatted_value, raw, set_cell, spreadsheet_resource, type_cell
from .google_drive import Drive
from .google_model import (FakeFile, FakeSheet, GoogleError, cell_index, cell_name, masked, parse_mask, parse_range,
                           sheet_name, snapshot, wants)

__all__ = ["Call", "FakeFile", "FakeGoogle", "FakeSheet", "GoogleError", "fake_backend"]

_STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
_FAILURE_MESSAGES = {
    429: "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' "
         "of service 'sheets.googleapis.com'.",
    500: "Internal error encountered.",
    503: "The service is currently unavailable.",
}
_DATE_TYPES = ("DATE", "TIME", "DATE_TIME")
_USAGE_LIMITS = {"rateLimitExceeded", "userRateLimitExceeded", "storageQuotaExceeded", "sharingRateLimitExceeded"}


# Google refuses a request body over 10 MiB, whole, with this message (reported by users of the
# API, e.g. github.com/scrt-hq/psgsuite/issues/62; its documentation only recommends 2 MB).
PAYLOAD_LIMIT = 10_485_760


class Call(NamedTuple):
    method: str
    path: str  # unquoted, without the query
    status: int | None  # None when the connection was dropped
    sid: str | None = None  # the spreadsheet it concerns (for a Drive create, the one created)
    size: int = 0  # bytes of the request's body
    query: dict[str, list[str]] | None = None  # None when the fake keeps no bodies
    body: Any = None  # the parsed JSON body; None when there is none or the fake keeps no bodies
    reply_size: int = 0  # bytes of the answer's body


class FakeGoogle(Drive, BatchUpdates, BaseAdapter):
    def __init__(self, *, service_account_quota: bool = False, keep_bodies: bool = True, check_requests: bool = True,
                 locale: str = "en_US"):
        super().__init__()
        self.locale = locale  # the account's: Drive makes new spreadsheets in it (see `fakes.google_cells.LOCALES`)
        self.service_account_quota = service_account_quota  # refuse files outside a (shared-drive) folder
        self.keep_bodies = keep_bodies
        self.check_requests = check_requests  # against Google's discovery documents
        self.files: dict[str, FakeFile] = {}
        self.requests: list[Call] = []
        self.sleeps: list[float] = []  # what the client under test asked to sleep, instead of sleeping
        self._failures: list[tuple[int | None, str | None, str | None]] = []
        self._lost: dict[int, int | str | None] = {}  # request number -> how its answer is lost
        self._created: str | None = None
        # Called with (method, path) before a request is answered: lets a test slip another
        # client's requests in between two of this one's.
        self.before_request: Callable[[str, str], object] | None = None
        self._randoms: dict[str, random.Random] = {}  # spreadsheet -> the ids it is given
        self._random = random.Random(0)  # the generator of the spreadsheet a request changes
        self.latency = 0.0  # seconds each request takes to go and come back, answered in between
        self._in_flight = self.most_in_flight = 0  # requests being answered now; the most so far
        self._model = threading.RLock()  # one request answered at a time (RLock: see before_request)
        self._counting = threading.Lock()
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., dict[str, Any]]]] = [
            ("POST", re.compile(r"/drive/v3/files"), self._create_file),
            ("GET", re.compile(r"/drive/v3/files"), self._list_files),
            ("PATCH", re.compile(r"/drive/v3/files/(?P<sid>[^/]+)"), self._update_file),
            ("DELETE", re.compile(r"/drive/v3/files/(?P<sid>[^/]+)"), self._delete_file),
            ("POST", re.compile(r"/drive/v3/files/(?P<sid>[^/]+)/permissions"), self._create_permission),
            ("GET", re.compile(r"/drive/v3/changes/startPageToken"), self._start_token),
            ("GET", re.compile(r"/drive/v3/changes"), self._list_changes),
            ("GET", re.compile(r"/v4/spreadsheets/(?P<sid>[^/:]+)"), self._get_spreadsheet),
            ("GET", re.compile(r"/v4/spreadsheets/(?P<sid>[^/:]+)/values:batchGet"), self._values_batch_get),
            ("POST", re.compile(r"/v4/spreadsheets/(?P<sid>[^/:]+):batchUpdate"), self._batch_update),
            ("POST", re.compile(r"/v4/spreadsheets/(?P<sid>[^/:]+)/values:batchUpdate"), self._values_batch_update),
        ]

    # -- set-up and inspection, for tests -------------------------------------------------------

    def mount(self, session: requests.Session) -> None:
        for prefix in ("https://", "http://"):
            session.mount(prefix, self)

    def fail_next(self, n: int, status: int = 429, *, reason: str | None = None, retry_after: str | None = None) -> None:
        """Answer the next `n` requests with this error status (Drive-style `reason` if given)."""
        self._failures += [(status, reason, retry_after)] * n

    def drop_next(self, n: int) -> None:
        """Drop the connection of the next `n` requests."""
        self._failures += [(None, None, None)] * n

    def lose_next_answer(self, how: int | str | None = None, *, skip: int = 0) -> None:
        """Carry out the next request (after `skip` others), then lose its answer as a retried write
        meets it: the connection dropped (None), a "timeout", or an error status (500, 503) sent
        although the request was applied."""
        self._lost[len(self.requests) + skip] = how

    def add_spreadsheet(self, title: str, tabs: tuple[str, ...] = ("Sheet1",)) -> str:
        """A spreadsheet made by hand (not through the API); its id."""
        sid = f"fake{len(self.files) + 1:03d}-{title.replace(' ', '_')[:20]}"
        sid = re.sub(r"[^A-Za-z0-9_-]", "_", sid)
        self.files[sid] = FakeFile(sid, title, [], [FakeSheet(i, t) for i, t in enumerate(tabs)], locale=self.locale)
        self.touch(sid)
        return sid

    def put_values(self, sid: str, tab: str, rows: list[list[Any]], *, formulas: bool = False, start: str = "A1") -> None:
        """A person typing `rows` from `start`: None leaves a cell alone, "" clears it, and with
        `formulas` a string starting with '=' becomes a formula. A `datetime` is typed as a date
        (and time), shown as the spreadsheet's locale shows dates. The grid grows as needed; other
        formats stay."""
        file = self.files[sid]
        sheet = file.sheet(tab)
        r0, c0 = cell_index(start)
        sheet.rows = max(sheet.rows, r0 + len(rows))
        sheet.cols = max(sheet.cols, c0 + max(map(len, rows), default=0))
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                if value is None:
                    continue
                if isinstance(value, datetime):
                    type_cell(sheet, r0 + i, c0 + j, value, file.locale)
                elif formulas and isinstance(value, str) and value.startswith("="):
                    set_cell(sheet, r0 + i, c0 + j, {"formulaValue": value})
                else:
                    set_cell(sheet, r0 + i, c0 + j, raw(value))
        self.touch(sid)

    def values(self, sid: str, tab: str) -> list[list[Any]]:
        """The tab as Google's FORMULA render shows it: trimmed, formulas as their text."""
        sheet = self.files[sid].sheet(tab)
        return self._render(sheet, 0, 0, sheet.rows, sheet.cols, "FORMULA")

    def cell(self, sid: str, tab: str, a1: str) -> dict[str, Any]:
        """The userEnteredValue of one cell ({} when empty), to tell a string from a formula."""
        return self.files[sid].sheet(tab).cells.get(cell_index(a1), {}).get("userEnteredValue", {})

    def formatted(self, sid: str, tab: str, a1: str) -> str:
        """One cell as the person sees it (its formattedValue: a date as its locale shows it); "" when empty."""
        sheet = self.files[sid].sheet(tab)
        cell = sheet.cells.get(cell_index(a1), {})
        if "userEnteredValue" not in cell:
            return ""
        return formatted_value(effective_value(sheet, cell), cell.get("userEnteredFormat", {}).get("numberFormat"))

    def cell_data(self, sid: str, tab: str, a1: str) -> dict[str, Any]:
        """What one cell holds: userEnteredValue, userEnteredFormat, note, dataValidation ({} when nothing)."""
        return self.files[sid].sheet(tab).cells.get(cell_index(a1), {})

    def tabs(self, sid: str) -> list[str]:
        return [s.title for s in self.files[sid].sheets]

    def grid(self, sid: str, tab: str) -> tuple[int, int]:
        sheet = self.files[sid].sheet(tab)
        return sheet.rows, sheet.cols

    def frozen_rows(self, sid: str, tab: str) -> int:
        return self.files[sid].sheet(tab).frozen_rows

    def widths(self, sid: str, tab: str) -> dict[int, int]:
        """Column index -> pixel width, for the columns whose width was set."""
        return dict(self.files[sid].sheet(tab).widths)

    def heights(self, sid: str, tab: str) -> dict[int, int]:
        """Row -> pixelSize of the rows given a height."""
        return dict(self.files[sid].sheet(tab).heights)

    def hidden(self, sid: str, tab: str) -> bool:
        return self.files[sid].sheet(tab).hidden

    def protected(self, sid: str, tab: str) -> list[dict[str, Any]]:
        return self.files[sid].sheet(tab).protected

    def permissions(self, sid: str) -> list[dict[str, Any]]:
        return self.files[sid].permissions

    def count(self, sid: str) -> int:
        """How many requests named this spreadsheet (Sheets or Drive), failed ones included."""
        pattern = re.compile(rf"/{re.escape(sid)}(?:[/:]|$)")
        return sum(1 for c in self.requests if pattern.search(c.path))

    # -- the transport ---------------------------------------------------------------------------

    def send(self, request: requests.PreparedRequest, stream: bool = False, timeout: Any = None,
             verify: Any = True, cert: Any = None, proxies: Any = None) -> requests.Response:
        with self._counting:
            self._in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self._in_flight)
        try:
            if self.latency:
                time.sleep(self.latency)  # on the way and back, together: only the total counts
            with self._model:
                return self._send(request)
        finally:
            with self._counting:
                self._in_flight -= 1

    def _send(self, request: requests.PreparedRequest) -> requests.Response:
        if self.check_requests:
            check_request((request.method or "GET").upper(), request.url or "", None, request.body)  # AssertionError where Google would refuse it
        url = urlsplit(request.url or "")
        path, method = unquote(url.path), (request.method or "GET").upper()
        if self.before_request:
            self.before_request(method, path)
        query = parse_qs(url.query, keep_blank_values=True)
        raw_body = request.body.encode() if isinstance(request.body, str) else (request.body or b"")
        size = len(raw_body) if isinstance(raw_body, bytes) else 0
        body = json.loads(raw_body) if isinstance(raw_body, bytes) and raw_body else {}
        m = re.search(r"/(?:spreadsheets|files)/([^/:]+)", path)
        if m:
            self._random = self._randoms.setdefault(m.group(1), random.Random(m.group(1)))
        record = {"sid": m.group(1) if m else None, "size": size,
                  "query": query if self.keep_bodies else None, "body": (body or None) if self.keep_bodies else None}
        if self._failures:
            status, reason, retry_after = self._failures.pop(0)
            if status is None:
                self.requests.append(Call(method, path, None, **record))
                raise requests.ConnectionError("fake: connection dropped", request=request)
            headers = {"Retry-After": retry_after} if retry_after else {}
            if status == 502:  # Google's front end answers with a page, not JSON
                return self._answer(request, record, method, path, 502, "<html><title>Error 502 (Server Error)!!1</title></html>", headers)
            error = GoogleError(status, _FAILURE_MESSAGES.get(status, f"fake refusal: {reason or status}"), reason)
            return self._answer(request, record, method, path, *self._error(error), headers)
        self._created = None
        try:
            if size > PAYLOAD_LIMIT:
                raise GoogleError(400, f"Request payload size exceeds the limit: {PAYLOAD_LIMIT} bytes.", "badRequest")
            handler, params = self._route(url.hostname or "", method, path)
            status, reply = 200, handler(query=query, body=body, **params)
        except GoogleError as e:
            status, reply = self._error(e)
        if self._created:
            record["sid"] = self._created
        if status == 200 and method != "GET" and record["sid"] in self.files:
            self.touch(record["sid"])  # applied, whether or not its answer comes back
        if len(self.requests) in self._lost:
            how = self._lost.pop(len(self.requests))
            if isinstance(how, int):
                return self._answer(request, record, method, path, *self._error(GoogleError(how, _FAILURE_MESSAGES[how])), {})
            self.requests.append(Call(method, path, None, **record))
            if how == "timeout":
                raise requests.ReadTimeout("fake: no answer in time", request=request)
            raise requests.ConnectionError("fake: connection dropped before the answer", request=request)
        return self._answer(request, record, method, path, status, reply, {})

    def close(self) -> None:
        pass

    def _route(self, host: str, method: str, path: str) -> tuple[Callable[..., dict[str, Any]], dict[str, str]]:
        if host in ("sheets.googleapis.com", "www.googleapis.com"):
            for verb, pattern, handler in self._routes:
                m = pattern.fullmatch(path)
                if verb == method and m:
                    return handler, m.groupdict()
        raise GoogleError(404, f"fake: no endpoint {method} {host}{path}")

    def _answer(self, request: requests.PreparedRequest, record: dict[str, Any], method: str, path: str, status: int,
                reply: dict[str, Any] | str, headers: dict[str, str]) -> requests.Response:
        content = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
        self.requests.append(Call(method, path, status, **record, reply_size=len(content)))
        response = requests.Response()
        response.status_code = status
        response.reason = HTTPStatus(status).phrase
        kind = "text/html" if isinstance(reply, str) else "application/json"
        response.headers = CaseInsensitiveDict({"Content-Type": f"{kind}; charset=UTF-8", **headers})
        response._content = content
        response.encoding = "utf-8"
        response.url = request.url or ""
        response.request = request
        return response

    @staticmethod
    def _error(e: GoogleError) -> tuple[int, dict[str, Any]]:
        error: dict[str, Any] = {"code": e.status, "message": e.message, "status": _STATUS.get(e.status, "UNKNOWN")}
        if e.reason:  # Drive's shape
            domain = "usageLimits" if e.reason in _USAGE_LIMITS else "global"
            error["errors"] = [{"domain": domain, "reason": e.reason, "message": e.message}]
        return e.status, {"error": error}

    def _file(self, sid: str) -> FakeFile:
        if sid not in self.files:
            raise GoogleError(404, "Requested entity was not found.")
        return self.files[sid]

    # -- Sheets: the spreadsheet and its values --------------------------------------------------

    def _get_spreadsheet(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        """spreadsheets.get: with `ranges`, only the sheets they touch; grid data when the fields
        mask asks for it (Google then ignores includeGridData), else when includeGridData=true."""
        file = self._file(sid)
        mask = parse_mask(query["fields"][0]) if "fields" in query else None
        grid = wants(mask, ("sheets", "data")) if mask is not None else query.get("includeGridData", ["false"]) == ["true"]
        ranges = [parse_range(file, a1) for a1 in query["ranges"]] if "ranges" in query else None
        return masked(spreadsheet_resource(file, grid=grid, ranges=ranges, mask=mask), mask)

    def _values_batch_get(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        option = query.get("valueRenderOption", ["FORMATTED_VALUE"])[0]
        dates = query.get("dateTimeRenderOption", ["SERIAL_NUMBER"])[0]
        if (query.get("majorDimension", ["ROWS"]) != ["ROWS"] or option not in ("FORMATTED_VALUE", "UNFORMATTED_VALUE", "FORMULA")
                or dates not in ("SERIAL_NUMBER", "FORMATTED_STRING")):
            raise GoogleError(400, f"fake: unsupported {query}")
        ranges = []
        for a1 in query.get("ranges", []):
            sheet, r0, c0, r1, c1 = parse_range(file, a1)
            entry: dict[str, Any] = {"range": f"{sheet_name(sheet.title)}!{cell_name(r0, c0)}:{cell_name(r1 - 1, c1 - 1)}", "majorDimension": "ROWS"}
            values = self._render(sheet, r0, c0, r1, c1, option, dates == "FORMATTED_STRING")
            if values:
                entry["values"] = values
            ranges.append(entry)
        return {"spreadsheetId": sid, "valueRanges": ranges}

    def _render(self, sheet: FakeSheet, r0: int, c0: int, r1: int, c1: int, option: str, dates_as_text: bool = False) -> list[list[Any]]:
        rows: list[list[Any]] = []
        for r in range(r0, min(r1, sheet.rows)):
            row = [_render(sheet, sheet.cells.get((r, c), {}), option, dates_as_text) for c in range(c0, min(c1, sheet.cols))]
            while row and row[-1] == "":
                row.pop()
            rows.append(row)
        while rows and not rows[-1]:
            rows.pop()
        return rows

    def _values_batch_update(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        option = body.get("valueInputOption")
        if option not in ("RAW", "USER_ENTERED"):
            raise GoogleError(400, "'valueInputOption' is required but not specified")
        sheets = snapshot(file.sheets)
        responses = []
        for data in body.get("data", []):
            sheet, r0, c0, _, _ = parse_range(FakeFile(sid, file.name, [], sheets), data["range"])
            values = data.get("values", [])
            height, width = len(values), max(map(len, values), default=0)
            if r0 + height > sheet.rows or c0 + width > sheet.cols:
                raise GoogleError(400, f"Range ({data['range']}) exceeds grid limits. Max rows: {sheet.rows}, max columns: {sheet.cols}")
            for i, row in enumerate(values):
                for j, value in enumerate(row):
                    if value is None:
                        continue
                    if option == "USER_ENTERED":
                        type_cell(sheet, r0 + i, c0 + j, value, file.locale)
                    else:
                        set_cell(sheet, r0 + i, c0 + j, raw(value))
            responses.append({"spreadsheetId": sid, "updatedRange": data["range"], "updatedRows": height, "updatedColumns": width})
        file.sheets = sheets
        return {"spreadsheetId": sid, "totalUpdatedRows": sum(r["updatedRows"] for r in responses), "responses": responses}


def _render(sheet: FakeSheet, cell: dict[str, Any], option: str, dates_as_text: bool = False) -> Any:
    """One cell as values:batchGet renders it ("" when empty)."""
    entered = cell.get("userEnteredValue")
    if not entered:
        return ""
    if option == "FORMULA" and "formulaValue" in entered:
        return entered["formulaValue"]
    value = effective_value(sheet, cell)
    number_format = cell.get("userEnteredFormat", {}).get("numberFormat")
    if option == "FORMATTED_VALUE" or "errorValue" in value or (
            dates_as_text and "numberValue" in value and (number_format or {}).get("type") in _DATE_TYPES):
        return formatted_value(value, number_format)
    (_, v), = value.items()
    if isinstance(v, float) and v.is_integer():
        v = int(v)  # JSON shows 5, not 5.0
    return v


# -- a backend wired to a fake ---------------------------------------------------------------------

class _ServiceAccountStandIn(AnonymousCredentials):
    """No token ever fetched, yet an email, as a service account's credentials have."""

    def __init__(self, email: str):
        super().__init__()
        self.service_account_email = email


def fake_backend(
    where: str = "",
    *,
    fake: FakeGoogle | None = None,
    account: str | None = "host-bot@game.iam.gserviceaccount.com",
    service_account_quota: bool = False,
    folder: str | None = None,
) -> tuple[GoogleBackend, FakeGoogle]:
    """A GoogleBackend on a real gspread client whose transport is `fake` (a new one by default).

    `account` None stands for a person's OAuth login. Sleeps are recorded in `fake.sleeps`.
    """
    fake = fake or FakeGoogle(service_account_quota=service_account_quota)
    auth = _ServiceAccountStandIn(account) if account else AnonymousCredentials()
    client = gspread.Client(auth=auth, http_client=RetryingHTTPClient)
    fake.mount(client.http_client.session)
    return GoogleBackend.from_where(where, client=client, folder=folder, sleep=fake.sleeps.append), fake
