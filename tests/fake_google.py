"""A fake of the few Google Sheets v4 and Drive v3 endpoints sheets-host uses, as a requests adapter.

Mounted on a real gspread client's session, it lets gspread's own code run unchanged. It keeps
what our code relies on: user-entered values typed as Google types them (``stringValue '=x'``
stays a string, ``formulaValue`` is a formula), trailing blanks trimmed from reads, whole-range
``updateCells`` clearing, "exceeds grid limits" errors, atomic batch updates, field masks on
metadata, Drive's storage-quota refusal for service accounts. Anything else answers 404 or 400,
so a gap shows up as a failing test instead of a silent pass. It takes every https:// request, so
no test can reach the real Google.

Formulas: FORMULA renders their text; the other renders compute plain arithmetic over numbers
and same-sheet cell references (``=A1*2+1``) and show ``#ERROR!`` for anything else.
"""

from __future__ import annotations

import ast
import copy
import json
import operator
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, NamedTuple
from urllib.parse import parse_qs, unquote, urlsplit

import gspread
import requests
from google.auth.credentials import AnonymousCredentials
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from sheets_host.backends.gsheets import GoogleBackend, RetryingHTTPClient

SHEETS_MIME = "application/vnd.google-apps.spreadsheet"
_STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
_FAILURE_MESSAGES = {
    429: "Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute per user' "
         "of service 'sheets.googleapis.com'.",
    500: "Internal error encountered.",
    503: "The service is currently unavailable.",
}


class GoogleError(Exception):
    """An error answer: HTTP status, message, and Drive's machine-readable reason if any."""

    def __init__(self, status: int, message: str, reason: str | None = None):
        super().__init__(message)
        self.status, self.message, self.reason = status, message, reason


class Call(NamedTuple):
    method: str
    path: str  # unquoted, without the query
    status: int | None  # None when the connection was dropped


@dataclass
class FakeSheet:
    sheet_id: int
    title: str
    rows: int = 1000
    cols: int = 26
    cells: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)  # (row, col) 0-based -> userEnteredValue
    protected: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class FakeFile:
    id: str
    name: str
    parents: list[str]
    sheets: list[FakeSheet]
    permissions: list[dict[str, Any]] = field(default_factory=list)

    def sheet(self, title: str) -> FakeSheet:
        return next(s for s in self.sheets if s.title == title)


class FakeGoogle(BaseAdapter):
    def __init__(self, *, service_account_quota: bool = False):
        super().__init__()
        self.service_account_quota = service_account_quota  # refuse files outside a (shared-drive) folder
        self.files: dict[str, FakeFile] = {}
        self.requests: list[Call] = []
        self.sleeps: list[float] = []  # what the client under test asked to sleep, instead of sleeping
        self._failures: list[tuple[int | None, str | None, str | None]] = []
        self._random = random.Random(0)
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., dict[str, Any]]]] = [
            ("POST", re.compile(r"/drive/v3/files"), self._create_file),
            ("DELETE", re.compile(r"/drive/v3/files/(?P<sid>[^/]+)"), self._delete_file),
            ("POST", re.compile(r"/drive/v3/files/(?P<sid>[^/]+)/permissions"), self._create_permission),
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

    def add_spreadsheet(self, title: str, tabs: tuple[str, ...] = ("Sheet1",)) -> str:
        """A spreadsheet made by hand (not through the API); its id."""
        sid = f"fake{len(self.files) + 1:03d}-{title.replace(' ', '_')[:20]}"
        sid = re.sub(r"[^A-Za-z0-9_-]", "_", sid)
        self.files[sid] = FakeFile(sid, title, [], [FakeSheet(i, t) for i, t in enumerate(tabs)])
        return sid

    def put_values(self, sid: str, tab: str, rows: list[list[Any]], *, formulas: bool = False, start: str = "A1") -> None:
        """A person typing `rows` from `start`: None leaves a cell alone, "" clears it, and with
        `formulas` a string starting with '=' becomes a formula. The grid grows as needed."""
        sheet = self.files[sid].sheet(tab)
        r0, c0 = _cell_index(start)
        sheet.rows = max(sheet.rows, r0 + len(rows))
        sheet.cols = max(sheet.cols, c0 + max(map(len, rows), default=0))
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                if value is None:
                    continue
                if formulas and isinstance(value, str) and value.startswith("="):
                    _set(sheet, r0 + i, c0 + j, {"formulaValue": value})
                else:
                    _set(sheet, r0 + i, c0 + j, _raw(value))

    def values(self, sid: str, tab: str) -> list[list[Any]]:
        """The tab as Google's FORMULA render shows it: trimmed, formulas as their text."""
        sheet = self.files[sid].sheet(tab)
        return self._render(sheet, 0, 0, sheet.rows, sheet.cols, "FORMULA")

    def cell(self, sid: str, tab: str, a1: str) -> dict[str, Any]:
        """The userEnteredValue of one cell ({} when empty), to tell a string from a formula."""
        return self.files[sid].sheet(tab).cells.get(_cell_index(a1), {})

    def tabs(self, sid: str) -> list[str]:
        return [s.title for s in self.files[sid].sheets]

    def grid(self, sid: str, tab: str) -> tuple[int, int]:
        sheet = self.files[sid].sheet(tab)
        return sheet.rows, sheet.cols

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
        url = urlsplit(request.url or "")
        path, method = unquote(url.path), (request.method or "GET").upper()
        if self._failures:
            status, reason, retry_after = self._failures.pop(0)
            if status is None:
                self.requests.append(Call(method, path, None))
                raise requests.ConnectionError("fake: connection dropped", request=request)
            headers = {"Retry-After": retry_after} if retry_after else {}
            if status == 502:  # Google's front end answers with a page, not JSON
                return self._answer(request, path, method, 502, "<html><title>Error 502 (Server Error)!!1</title></html>", headers)
            error = GoogleError(status, _FAILURE_MESSAGES.get(status, f"fake refusal: {reason or status}"), reason)
            return self._answer(request, path, method, *self._error(error), headers)
        query = parse_qs(url.query, keep_blank_values=True)
        body = json.loads(request.body) if isinstance(request.body, (str, bytes)) and request.body else {}
        try:
            handler, params = self._route(url.hostname or "", method, path)
            status, reply = 200, handler(query=query, body=body, **params)
        except GoogleError as e:
            status, reply = self._error(e)
        return self._answer(request, path, method, status, reply, {})

    def close(self) -> None:
        pass

    def _route(self, host: str, method: str, path: str) -> tuple[Callable[..., dict[str, Any]], dict[str, str]]:
        if host in ("sheets.googleapis.com", "www.googleapis.com"):
            for verb, pattern, handler in self._routes:
                m = pattern.fullmatch(path)
                if verb == method and m:
                    return handler, m.groupdict()
        raise GoogleError(404, f"fake: no endpoint {method} {host}{path}")

    def _answer(self, request: requests.PreparedRequest, path: str, method: str, status: int,
                reply: dict[str, Any] | str, headers: dict[str, str]) -> requests.Response:
        self.requests.append(Call(method, path, status))
        response = requests.Response()
        response.status_code = status
        response.reason = HTTPStatus(status).phrase
        kind = "text/html" if isinstance(reply, str) else "application/json"
        response.headers = CaseInsensitiveDict({"Content-Type": f"{kind}; charset=UTF-8", **headers})
        response._content = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
        response.encoding = "utf-8"
        response.url = request.url or ""
        response.request = request
        return response

    @staticmethod
    def _error(e: GoogleError) -> tuple[int, dict[str, Any]]:
        error: dict[str, Any] = {"code": e.status, "message": e.message, "status": _STATUS.get(e.status, "UNKNOWN")}
        if e.reason:  # Drive's shape
            error["errors"] = [{"domain": "usageLimits", "reason": e.reason, "message": e.message}]
        return e.status, {"error": error}

    def _file(self, sid: str) -> FakeFile:
        if sid not in self.files:
            raise GoogleError(404, "Requested entity was not found.")
        return self.files[sid]

    # -- Drive -----------------------------------------------------------------------------------

    def _create_file(self, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        if body.get("mimeType") != SHEETS_MIME:
            raise GoogleError(400, f"fake: only spreadsheets can be created, not {body.get('mimeType')!r}")
        parents = body.get("parents", [])
        if self.service_account_quota and not parents:
            raise GoogleError(403, "The user's Drive storage quota has been exceeded.", "storageQuotaExceeded")
        if parents and query.get("supportsAllDrives", [""])[0].lower() != "true":
            raise GoogleError(404, f"File not found: {parents[0]}.", "notFound")  # shared drives need the flag
        sid = self.add_spreadsheet(body.get("name", "Untitled spreadsheet"))
        self.files[sid].parents = list(parents)
        return {"kind": "drive#file", "id": sid, "name": self.files[sid].name, "mimeType": SHEETS_MIME}

    def _delete_file(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        self._file(sid)
        del self.files[sid]
        return {}

    def _create_permission(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        if body.get("role") not in ("reader", "commenter", "writer") or body.get("type") not in ("user", "group", "anyone"):
            raise GoogleError(400, f"fake: bad permission {body}")
        if body["type"] != "anyone" and not body.get("emailAddress"):
            raise GoogleError(400, "The permission emailAddress field is required.")
        permission = {"kind": "drive#permission", "id": f"perm{len(file.permissions) + 1}", "type": body["type"], "role": body["role"]}
        if "emailAddress" in body:
            permission["emailAddress"] = body["emailAddress"]
        permission["notified"] = query.get("sendNotificationEmail", ["True"]) != ["False"]
        file.permissions.append(permission)
        return {k: v for k, v in permission.items() if k != "notified"}

    # -- Sheets: metadata and values -------------------------------------------------------------

    def _get_spreadsheet(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        if query.get("includeGridData", ["false"]) != ["false"]:
            raise GoogleError(400, "fake: includeGridData=true is not supported")
        sheets = []
        for index, s in enumerate(file.sheets):
            entry: dict[str, Any] = {"properties": {
                "sheetId": s.sheet_id, "title": s.title, "index": index, "sheetType": "GRID",
                "gridProperties": {"rowCount": s.rows, "columnCount": s.cols},
            }}
            if s.protected:
                entry["protectedRanges"] = copy.deepcopy(s.protected)
            sheets.append(entry)
        reply = {
            "spreadsheetId": sid,
            "properties": {"title": file.name, "locale": "en_US", "autoRecalc": "ON_CHANGE", "timeZone": "Etc/GMT"},
            "sheets": sheets,
            "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{sid}/edit",
        }
        return _masked(reply, _parse_mask(query["fields"][0])) if "fields" in query else reply

    def _values_batch_get(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        option = query.get("valueRenderOption", ["FORMATTED_VALUE"])[0]
        if query.get("majorDimension", ["ROWS"]) != ["ROWS"] or option not in ("FORMATTED_VALUE", "UNFORMATTED_VALUE", "FORMULA"):
            raise GoogleError(400, f"fake: unsupported {query}")
        ranges = []
        for a1 in query.get("ranges", []):
            sheet, r0, c0, r1, c1 = _parse_range(file, a1)
            entry: dict[str, Any] = {"range": f"{_sheet_name(sheet.title)}!{_a1(r0, c0)}:{_a1(r1 - 1, c1 - 1)}", "majorDimension": "ROWS"}
            values = self._render(sheet, r0, c0, r1, c1, option)
            if values:
                entry["values"] = values
            ranges.append(entry)
        return {"spreadsheetId": sid, "valueRanges": ranges}

    def _render(self, sheet: FakeSheet, r0: int, c0: int, r1: int, c1: int, option: str) -> list[list[Any]]:
        rows: list[list[Any]] = []
        for r in range(r0, r1):
            row = [_render(sheet, sheet.cells[(r, c)], option) if (r, c) in sheet.cells else "" for c in range(c0, c1)]
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
        sheets = copy.deepcopy(file.sheets)
        responses = []
        for data in body.get("data", []):
            sheet, r0, c0, _, _ = _parse_range(FakeFile(sid, file.name, [], sheets), data["range"])
            values = data.get("values", [])
            height, width = len(values), max(map(len, values), default=0)
            if r0 + height > sheet.rows or c0 + width > sheet.cols:
                raise GoogleError(400, f"Range ({data['range']}) exceeds grid limits. Max rows: {sheet.rows}, max columns: {sheet.cols}")
            for i, row in enumerate(values):
                for j, value in enumerate(row):
                    if value is not None:
                        _set(sheet, r0 + i, c0 + j, _typed(value) if option == "USER_ENTERED" else _raw(value))
            responses.append({"spreadsheetId": sid, "updatedRange": data["range"], "updatedRows": height, "updatedColumns": width})
        file.sheets = sheets
        return {"spreadsheetId": sid, "totalUpdatedRows": sum(r["updatedRows"] for r in responses), "responses": responses}

    # -- Sheets: batchUpdate ---------------------------------------------------------------------

    def _batch_update(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        sheets = copy.deepcopy(file.sheets)  # all or nothing, like Google
        replies = []
        for i, request in enumerate(body.get("requests", [])):
            if len(request) != 1:
                raise GoogleError(400, f"Invalid requests[{i}]: exactly one kind of request expected")
            (kind, args), = request.items()
            handler = getattr(self, f"_do_{kind}", None)
            if handler is None:
                raise GoogleError(400, f"fake: requests[{i}].{kind} is not supported")
            try:
                replies.append(handler(sheets, args))
            except GoogleError as e:
                raise GoogleError(e.status, f"Invalid requests[{i}].{kind}: {e.message}") from None
        file.sheets = sheets
        return {"spreadsheetId": sid, "replies": replies}

    def _do_addSheet(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props = args.get("properties", {})
        title = props.get("title") or f"Sheet{len(sheets) + 1}"
        if any(s.title.lower() == title.lower() for s in sheets):
            raise GoogleError(400, f'A sheet with the name "{title}" already exists. Please enter another name.')
        sheet_id = props.get("sheetId", self._random.randrange(1, 2**31))
        if any(s.sheet_id == sheet_id for s in sheets):
            raise GoogleError(400, f"Sheet with ID {sheet_id} already exists.")
        grid = props.get("gridProperties", {})
        sheet = FakeSheet(sheet_id, title, grid.get("rowCount", 1000), grid.get("columnCount", 26))
        sheets.insert(props.get("index", len(sheets)), sheet)
        index = sheets.index(sheet)
        return {"addSheet": {"properties": {"sheetId": sheet_id, "title": title, "index": index, "sheetType": "GRID",
                                            "gridProperties": {"rowCount": sheet.rows, "columnCount": sheet.cols}}}}

    def _do_updateSheetProperties(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props, mask = args.get("properties", {}), _parse_mask(args.get("fields", ""))
        sheet = _sheet_by_id(sheets, props.get("sheetId", 0))
        grid_mask = mask.pop("gridProperties", {})
        if grid_mask is None:  # the whole of gridProperties
            grid_mask = {"rowCount": None, "columnCount": None}
        if mask or not grid_mask or not grid_mask.keys() <= {"rowCount", "columnCount"}:
            raise GoogleError(400, f"fake: only grid sizes can be updated, not {args.get('fields')!r}")
        grid = props.get("gridProperties", {})
        sheet.rows = grid.get("rowCount", sheet.rows) if "rowCount" in grid_mask else sheet.rows
        sheet.cols = grid.get("columnCount", sheet.cols) if "columnCount" in grid_mask else sheet.cols
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if r < sheet.rows and c < sheet.cols}
        return {}

    def _do_updateCells(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        if args.get("fields") != "userEnteredValue":
            raise GoogleError(400, f"fake: only fields='userEnteredValue' is supported, not {args.get('fields')!r}")
        if "range" not in args:
            raise GoogleError(400, "fake: only updateCells with a range is supported")
        grid = args["range"]
        sheet = _sheet_by_id(sheets, grid.get("sheetId", 0))
        r0, c0 = grid.get("startRowIndex", 0), grid.get("startColumnIndex", 0)
        r1, c1 = grid.get("endRowIndex", sheet.rows), grid.get("endColumnIndex", sheet.cols)
        rows = [row.get("values", []) for row in args.get("rows", [])]
        height, width = len(rows), max(map(len, rows), default=0)
        if r0 + height > sheet.rows or c0 + width > sheet.cols:
            wanted = f"{_sheet_name(sheet.title)}!{_a1(r0, c0)}:{_a1(r0 + height - 1, c0 + width - 1)}"
            raise GoogleError(400, f"Range ({wanted}) exceeds grid limits. Max rows: {sheet.rows}, max columns: {sheet.cols}")
        if r0 + height > r1 or c0 + width > c1:
            raise GoogleError(400, "fake: rows go beyond the range")
        # Cells of the range that the rows do not cover are cleared.
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if not (r0 <= r < r1 and c0 <= c < c1)}
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                _set(sheet, r0 + i, c0 + j, cell.get("userEnteredValue", {}))
        return {}

    def _do_addProtectedRange(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        protected = copy.deepcopy(args["protectedRange"])
        sheet = _sheet_by_id(sheets, protected.get("range", {}).get("sheetId", 0))
        protected["protectedRangeId"] = self._random.randrange(1, 2**31)
        protected["requestingUserCanEdit"] = True
        sheet.protected.append(protected)
        return {"addProtectedRange": {"protectedRange": protected}}

    def _do_deleteProtectedRange(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        wanted = args.get("protectedRangeId")
        for sheet in sheets:
            kept = [p for p in sheet.protected if p["protectedRangeId"] != wanted]
            if len(kept) < len(sheet.protected):
                sheet.protected = kept
                return {}
        raise GoogleError(400, f"No protected range with id: {wanted}")

    def _do_deleteSheet(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        sheet = _sheet_by_id(sheets, args.get("sheetId", 0))
        if len(sheets) == 1:
            raise GoogleError(400, "You can't remove all the sheets in a document.")
        sheets.remove(sheet)
        return {}


# -- cells and ranges ------------------------------------------------------------------------------

def _set(sheet: FakeSheet, row: int, col: int, value: dict[str, Any]) -> None:
    if not value or value == {"stringValue": ""}:
        sheet.cells.pop((row, col), None)
        return
    if len(value) != 1 or next(iter(value)) not in ("stringValue", "numberValue", "boolValue", "formulaValue"):
        raise GoogleError(400, f"fake: bad userEnteredValue {value}")
    sheet.cells[(row, col)] = dict(value)


def _raw(value: Any) -> dict[str, Any]:
    """A value entered as is (RAW input, or a CellData built from a Python value)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, (int, float)):
        return {"numberValue": value}
    return {"stringValue": str(value)}


def _typed(value: Any) -> dict[str, Any]:
    """A value as Sheets parses what a person types (USER_ENTERED input)."""
    if not isinstance(value, str):
        return _raw(value)
    if value.startswith("'"):
        return {"stringValue": value[1:]}
    if value.startswith("="):
        return {"formulaValue": value}
    if value.strip().upper() in ("TRUE", "FALSE"):
        return {"boolValue": value.strip().upper() == "TRUE"}
    if re.fullmatch(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*", value):
        return {"numberValue": float(value)}
    return {"stringValue": value}


def _render(sheet: FakeSheet, cell: dict[str, Any], option: str, depth: int = 0) -> Any:
    (kind, value), = cell.items()
    if kind == "formulaValue":
        if option == "FORMULA":
            return value
        value = _evaluate(sheet, value, depth)
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON shows 5, not 5.0
    if option == "FORMATTED_VALUE" and not isinstance(value, str):
        return ("TRUE" if value else "FALSE") if isinstance(value, bool) else str(value)
    return value


_ARITHMETIC: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.USub: operator.neg, ast.UAdd: operator.pos,
}


def _evaluate(sheet: FakeSheet, formula: str, depth: int) -> Any:
    def number(m: re.Match[str]) -> str:
        cell = sheet.cells.get(_cell_index(m.group(0).replace("$", "")))
        value = _render(sheet, cell, "UNFORMATTED_VALUE", depth + 1) if cell else 0
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(value)
        return repr(value)

    def compute(node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](compute(node.left), compute(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](compute(node.operand))
        raise ValueError(node)

    try:
        if depth > 50:  # a reference cycle
            raise ValueError(formula)
        return compute(ast.parse(re.sub(r"\$?[A-Z]+\$?\d+", number, formula[1:]), mode="eval").body)
    except (ValueError, SyntaxError, ZeroDivisionError):
        return "#ERROR!"


def _cell_index(a1: str) -> tuple[int, int]:
    """'B3' -> (2, 1), 0-based (row, column)."""
    m = re.fullmatch(r"([A-Z]+)(\d+)", a1)
    if not m:
        raise GoogleError(400, f"Unable to parse range: {a1}")
    return int(m.group(2)) - 1, _column_index(m.group(1))


def _column_index(letters: str) -> int:
    index = 0
    for ch in letters:
        index = index * 26 + ord(ch) - 64
    return index - 1


def _a1(row: int, col: int) -> str:
    letters, n = "", col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row + 1}"


def _sheet_name(title: str) -> str:
    """A sheet name as Google writes it in a range: quoted only when needed."""
    return title if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", title) and not re.fullmatch(r"[A-Za-z]{1,3}\d+", title) else "'" + title.replace("'", "''") + "'"


def _parse_range(file: FakeFile, a1: str) -> tuple[FakeSheet, int, int, int, int]:
    """'It''s'!B2:C9 -> (sheet, r0, c0, r1, c1), 0-based and half-open; a bare name is the whole grid."""
    m = re.fullmatch(r"'((?:[^']|'')+)'(?:!(.*))?", a1) if a1.startswith("'") else re.fullmatch(r"([^!]+)(?:!(.*))?", a1)
    name = m.group(1).replace("''", "'") if m and a1.startswith("'") else (m.group(1) if m else "")
    sheet = next((s for s in file.sheets if s.title == name), None)
    if sheet is None or m is None:
        raise GoogleError(400, f"Unable to parse range: {a1}")
    cells = m.group(2)
    if not cells:
        return sheet, 0, 0, sheet.rows, sheet.cols
    part = re.fullmatch(r"([A-Z]*)(\d*)(?::([A-Z]*)(\d*))?", cells)
    if part is None:
        raise GoogleError(400, f"Unable to parse range: {a1}")
    c0 = _column_index(part.group(1)) if part.group(1) else 0
    r0 = int(part.group(2)) - 1 if part.group(2) else 0
    if ":" not in cells:
        return sheet, r0, c0, r0 + 1, c0 + 1
    c1 = _column_index(part.group(3)) + 1 if part.group(3) else sheet.cols
    r1 = int(part.group(4)) if part.group(4) else sheet.rows
    return sheet, r0, c0, r1, c1


def _sheet_by_id(sheets: list[FakeSheet], sheet_id: int) -> FakeSheet:
    sheet = next((s for s in sheets if s.sheet_id == sheet_id), None)
    if sheet is None:
        raise GoogleError(400, f"No grid with id: {sheet_id}")
    return sheet


# -- field masks -----------------------------------------------------------------------------------

Mask = dict[str, "Mask | None"]  # None: the whole value


def _parse_mask(text: str) -> Mask:
    """'a,b.c,d(e,f(g))' -> {'a': None, 'b': {'c': None}, 'd': {'e': None, 'f': {'g': None}}}."""
    tokens = re.findall(r"[A-Za-z0-9_*]+|[.,()]", text)
    pos = 0

    def items() -> Mask:
        nonlocal pos
        tree: Mask = {}
        while pos < len(tokens) and tokens[pos] != ")":
            path = [tokens[pos]]
            pos += 1
            while pos < len(tokens) and tokens[pos] == ".":
                path.append(tokens[pos + 1])
                pos += 2
            sub = None
            if pos < len(tokens) and tokens[pos] == "(":
                pos += 1
                sub = items()
                pos += 1  # the ")"
            node: Mask | None = tree
            for key in path[:-1]:
                if node is None:
                    break
                node = node.setdefault(key, {})
            if node is not None:
                old = node.get(path[-1], {})
                node[path[-1]] = None if sub is None or old is None else {**old, **sub}
            if pos < len(tokens) and tokens[pos] == ",":
                pos += 1
        return tree

    return items()


def _masked(value: Any, mask: Mask | None) -> Any:
    if mask is None or "*" in mask:
        return value
    if isinstance(value, list):
        return [_masked(v, mask) for v in value]
    if isinstance(value, dict):
        return {k: _masked(value[k], m) for k, m in mask.items() if k in value}
    return value


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
