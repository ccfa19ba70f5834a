"""Google Sheets books: one spreadsheet per book, reached through gspread's low-level HTTP client.

Request budget. Sheets allows 60 requests a minute per user, so each book costs at most three:
one metadata ``GET spreadsheets/{id}`` (tab names, sheetIds, grid sizes, our protected ranges;
fetched once per `GoogleBook` and kept up to date by our own writes), one ``values:batchGet`` for
every tab read, and one ``spreadsheets:batchUpdate`` for every tab written.

Why the write is a ``batchUpdate`` of ``updateCells`` rather than ``values:batchUpdate``: values
requests can only put values into cells that already exist. Replacing a tab also needs its stale
rows cleared, its grid grown when the data is larger, missing tabs added and protections changed;
``batchUpdate`` is the only single request that can do all of that, atomically. It also lets us
type every cell exactly: a string is sent as ``stringValue`` so a player's ``=...`` can never become
a formula (stricter than RAW input), and only ``userEnteredValue`` is touched so the host's
formatting survives.

Locks are protected ranges described "sheets-host lock" and sent without ``editors``: the API then
leaves the requesting account (and the file's owner) as the only editors, which is what we want,
without a Drive call to learn the account's email.

gspread 6.2.1's `BackOffHTTPClient` retries forever; `RetryingHTTPClient` gives up after five tries
with a message the host can act on.
"""

from __future__ import annotations

import copy
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import gspread
import pandas as pd
import requests
from google.auth.credentials import Credentials
from google.auth.exceptions import RefreshError, TransportError
from gspread.exceptions import APIError, NoValidUrlKeyFound
from gspread.http_client import FileType, HTTPClient, ParamsType
from gspread.urls import DRIVE_FILES_API_V3_URL, SPREADSHEET_DRIVE_URL
from gspread.utils import MimeType, absolute_range_name, extract_id_from_url

from ..errors import BookError
from . import frame_from_rows, rows_from_frame

LOCK = "sheets-host lock"
# gspread.oauth caches the user's token here instead of under ~/.config/gspread.
TOKEN_FILE = gspread.auth.get_config_dir("sheets-host") / "authorized_user.json"
# A new tab gets at least Google's default grid, so players have room to type.
NEW_TAB_ROWS, NEW_TAB_COLUMNS = 1000, 26
_METADATA_FIELDS = (
    "sheets(properties(sheetId,title,gridProperties(rowCount,columnCount)),"
    "protectedRanges(protectedRangeId,description))"
)
# Drive reports its own rate limits as 403 with one of these reasons.
_DRIVE_RATE_REASONS = {"rateLimitExceeded", "userRateLimitExceeded"}


def spreadsheet_id(ref: str) -> str:
    """The id of a spreadsheet given by URL or id.

    >>> spreadsheet_id("https://docs.google.com/spreadsheets/d/1aB-c_9/edit#gid=0")
    '1aB-c_9'
    >>> spreadsheet_id(" 1aB-c_9 ")
    '1aB-c_9'
    """
    ref = ref.strip()
    if "/" in ref:
        try:
            return extract_id_from_url(ref)
        except NoValidUrlKeyFound:
            raise BookError(f"{ref!r} is not a spreadsheet URL (expected https://docs.google.com/spreadsheets/d/<id>/...)") from None
    if not re.fullmatch(r"[A-Za-z0-9_-]+", ref):
        raise BookError(f"{ref!r} is not a spreadsheet id or URL")
    return ref


class RetryingHTTPClient(HTTPClient):
    """gspread's HTTP client, retrying rate limits, server errors and dropped connections.

    Five tries, waiting 2, 4, 8 then 16 s (or what Retry-After asks, up to a minute): about half a
    minute in all, long enough for the per-minute quota window to move on.
    """

    tries = 5

    def __init__(self, auth: Credentials, session: requests.Session | None = None) -> None:
        super().__init__(auth, session)
        self.sleep: Callable[[float], object] = time.sleep
        # gspread waits forever by default; a hung connection should become a retried Timeout.
        self.timeout = (10, 120)

    def request(
        self,
        method: str,
        endpoint: str,
        params: ParamsType | None = None,
        data: bytes | None = None,
        json: Mapping[str, Any] | None = None,
        files: FileType = None,
        headers: MutableMapping[str, str] | None = None,
    ) -> requests.Response:
        waited = 0.0
        for attempt in range(1, self.tries + 1):
            try:
                return super().request(method, endpoint, params=params, data=data, json=json, files=files, headers=headers)
            except APIError as e:
                if not _transient(e):
                    raise
                failure, retry_after = f"answered {e.response.status_code} ({_meaning(e)})", _retry_after(e.response)
            except (requests.ConnectionError, requests.Timeout, TransportError) as e:
                failure, retry_after = f"could not be reached ({type(e).__name__})", None
            except RefreshError as e:
                raise BookError(
                    f"Google refused the credentials ({e}); check the key file, or for --auth oauth "
                    f"delete {TOKEN_FILE} to log in again"
                ) from None
            if attempt < self.tries:
                delay = retry_after if retry_after is not None else 2.0**attempt
                self.sleep(delay)
                waited += delay
        url = urlsplit(endpoint)
        service = "Google Sheets" if url.hostname == "sheets.googleapis.com" else "Google Drive"
        raise BookError(
            f"{service} {failure} {self.tries} times over {waited:g} s for {method.upper()} {url.path}; "
            "wait a minute and run the command again — nothing was marked resolved."
        )


def _reason(error: APIError) -> str | None:
    """Drive's machine-readable reason ('storageQuotaExceeded'...); Sheets errors carry none."""
    details = error.error.get("errors") or [{}]
    return details[0].get("reason")


def _transient(error: APIError) -> bool:
    # The HTTP status, not error.code: gspread sets that to -1 when the body is not JSON, as with
    # the HTML pages of Google's front ends for 502.
    status = error.response.status_code
    return status == 429 or status >= 500 or (status == 403 and _reason(error) in _DRIVE_RATE_REASONS)


def _meaning(error: APIError) -> str:
    if error.response.status_code == 429:
        return "quota: 60 requests a minute per user"
    if error.response.status_code == 403:
        return f"Drive rate limit: {_reason(error)}"
    return "a server error"


def _retry_after(response: requests.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    return min(float(value), 60.0) if value.replace(".", "", 1).isdigit() else None


@dataclass
class _Tab:
    sheet_id: int
    rows: int  # grid size: 0 x 0 for a sheet without cells (a chart sheet)
    cols: int
    locks: list[int]  # ids of our protected ranges on it


class GoogleBook:
    """One spreadsheet. Metadata is fetched on first use and then kept in step with our writes."""

    def __init__(self, http: HTTPClient, spreadsheet_id: str, *, label: str, account: str | None = None, fresh: bool = False):
        self.id = spreadsheet_id
        self.ref = SPREADSHEET_DRIVE_URL % spreadsheet_id
        self.label = label
        self._http = http
        self._account = account
        # A spreadsheet we just created holds one empty default tab; the first write drops it,
        # as the xlsx backend does, so players open the book on a tab that matters.
        self._fresh = fresh
        self._meta: dict[str, _Tab] | None = None

    @contextmanager
    def _asking(self, what: str) -> Iterator[None]:
        try:
            yield
        except APIError as e:
            hint = ""
            if e.code in (403, 404):
                hint = f"; check the id and that the spreadsheet is shared with {self._account or 'your account'} as an editor"
            raise BookError(f"Google refused to {what} the {self.label} book ({self.ref}): {e.error.get('message')} (HTTP {e.code}){hint}") from None

    def _tabs(self) -> dict[str, _Tab]:
        if self._meta is None:
            with self._asking("open"):
                data = self._http.fetch_sheet_metadata(self.id, params={"includeGridData": "false", "fields": _METADATA_FIELDS})
            self._meta = {}
            for sheet in data.get("sheets", []):
                props, grid = sheet["properties"], sheet["properties"].get("gridProperties", {})
                locks = [p["protectedRangeId"] for p in sheet.get("protectedRanges", []) if p.get("description") == LOCK]
                self._meta[props["title"]] = _Tab(props["sheetId"], grid.get("rowCount", 0), grid.get("columnCount", 0), locks)
        return self._meta

    def read(self, tabs: Sequence[str] | None = None, *, formulas: bool = False) -> dict[str, pd.DataFrame]:
        meta = self._tabs()
        names = [n for n, t in meta.items() if t.cols] if tabs is None else [n for n in dict.fromkeys(tabs) if n in meta]
        if not names:
            return {}
        params: ParamsType = {
            "valueRenderOption": "FORMULA" if formulas else "UNFORMATTED_VALUE",
            # A typed date reads as the text the person sees rather than a day count.
            "dateTimeRenderOption": "FORMATTED_STRING",
            "majorDimension": "ROWS",
        }
        with self._asking("read"):
            reply = self._http.values_batch_get(self.id, [absolute_range_name(n) for n in names], params=params)
        return {n: frame_from_rows(r.get("values", [])) for n, r in zip(names, reply["valueRanges"])}

    def write(self, tabs: Mapping[str, pd.DataFrame], *, protect: Mapping[str, bool] = {}) -> None:
        before = self._tabs()
        after = copy.deepcopy(before)
        adds: list[dict[str, Any]] = []
        grows: list[dict[str, Any]] = []
        fills: list[dict[str, Any]] = []
        for name, frame in tabs.items():
            rows = rows_from_frame(frame)
            height, width = len(rows), max(1, *map(len, rows))
            tab = after.get(name)
            if tab is None:
                tab = after[name] = _Tab(_free_sheet_id(after.values()), max(height, NEW_TAB_ROWS), max(width, NEW_TAB_COLUMNS), [])
                grid = {"rowCount": tab.rows, "columnCount": tab.cols}
                adds.append({"addSheet": {"properties": {"sheetId": tab.sheet_id, "title": name, "gridProperties": grid}}})
            elif height > tab.rows or width > tab.cols:
                tab.rows, tab.cols = max(height, tab.rows), max(width, tab.cols)
                grid = {"rowCount": tab.rows, "columnCount": tab.cols}
                grows.append({"updateSheetProperties": {
                    "properties": {"sheetId": tab.sheet_id, "gridProperties": grid},
                    "fields": "gridProperties.rowCount,gridProperties.columnCount",
                }})
            # A whole-sheet range: every cell the rows do not cover is cleared.
            fills.append({"updateCells": {
                "range": {"sheetId": tab.sheet_id},
                "rows": [{"values": [_cell(v) for v in row]} for row in rows],
                "fields": "userEnteredValue",
            }})
        requests_ = adds + grows + fills
        new_locks: dict[int, _Tab] = {}  # request index -> tab, to read the new range's id from the reply
        for name, locked in protect.items():
            tab = after.get(name)
            if tab is None:
                continue
            if locked and not tab.locks:
                new_locks[len(requests_)] = tab
                requests_.append({"addProtectedRange": {"protectedRange": {
                    "range": {"sheetId": tab.sheet_id}, "description": LOCK, "warningOnly": False,
                }}})
            elif not locked:
                requests_ += [{"deleteProtectedRange": {"protectedRangeId": i}} for i in tab.locks]
                tab.locks = []
        if self._fresh and tabs:
            for name in [n for n in before if n not in tabs]:
                requests_.append({"deleteSheet": {"sheetId": after.pop(name).sheet_id}})
        if not requests_:
            return
        with self._asking("write"):
            reply = self._http.batch_update(self.id, {"requests": requests_})
        for index, tab in new_locks.items():
            tab.locks.append(reply["replies"][index]["addProtectedRange"]["protectedRange"]["protectedRangeId"])
        self._meta = after
        self._fresh = False


def _free_sheet_id(tabs: Iterable[_Tab]) -> int:
    """The smallest unused positive sheetId: we choose it so later requests of the batch can use it."""
    used = {t.sheet_id for t in tabs}
    return next(i for i in range(1, len(used) + 2) if i not in used)


def _cell(value: object) -> dict[str, Any]:
    """A CellData for a plain value (see `rows_from_frame`); {} clears the cell."""
    if value is None:
        return {}
    if isinstance(value, bool):
        return {"userEnteredValue": {"boolValue": value}}
    if isinstance(value, (int, float)) and math.isfinite(value):
        return {"userEnteredValue": {"numberValue": value}}
    return {"userEnteredValue": {"stringValue": str(value)}}


class GoogleBackend:
    """Books as Google spreadsheets: the host's is `where`, the others are created, adopted or bound."""

    name = "gsheets"

    def __init__(self, client: gspread.Client, host_id: str | None = None, *, folder: str | None = None):
        self.client = client
        self.folder = folder
        # The service account's email, for messages; None for a person's OAuth login.
        self.account: str | None = getattr(getattr(client.http_client, "auth", None), "service_account_email", None)
        self._ids: dict[str, str] = {} if host_id is None else {"host": host_id}
        self._adopted: set[str] = set()
        self._books: dict[str, GoogleBook] = {}

    @classmethod
    def from_where(
        cls,
        where: str | None,
        *,
        credentials: str | Path | None = None,
        auth: str = "service",
        folder: str | None = None,
        client: gspread.Client | None = None,
        sleep: Callable[[float], object] = time.sleep,
    ) -> GoogleBackend:
        """The backend for the host spreadsheet `where` (id or URL; empty for a new game).

        `credentials` is a service-account key file (auth="service") or an OAuth client file
        (auth="oauth"), credentials.json by default; `client` replaces both (tests).
        """
        if client is None:
            client = _connect(auth, Path(credentials or "credentials.json"))
        if isinstance(client.http_client, RetryingHTTPClient):
            client.http_client.sleep = sleep
        return cls(client, spreadsheet_id(where) if where else None, folder=folder)

    def _book(self, role: str, sid: str, *, fresh: bool = False) -> GoogleBook:
        if fresh or sid not in self._books:
            self._books[sid] = GoogleBook(self.client.http_client, sid, label=role, account=self.account, fresh=fresh)
        return self._books[sid]

    def bind(self, refs: Mapping[str, str]) -> None:
        """Learn role -> spreadsheet (id or URL), as recorded in the host book."""
        for role, ref in refs.items():
            # The host is always `where`: a copied host book still lists its original's id.
            if role == "host" and "host" in self._ids:
                continue
            self._ids[role] = spreadsheet_id(ref)

    def adopt(self, refs: Mapping[str, str]) -> None:
        """Use these existing spreadsheets (made and shared by the host) instead of creating them."""
        for role, ref in refs.items():
            self._ids[role] = spreadsheet_id(ref)
            self._adopted.add(role)

    def book(self, role: str) -> GoogleBook:
        sid = self._ids.get(role)
        if sid is None:
            raise BookError(f"no spreadsheet known for {role!r}; known: {', '.join(self._ids) or 'none'}")
        return self._book(role, sid)

    def create(self, role: str, title: str, readers: Sequence[str] = (), public: bool = False) -> GoogleBook:
        if role in self._adopted:
            book = self._book(role, self._ids[role])
        else:
            self._ids[role] = self._new_spreadsheet(title)
            book = self._book(role, self._ids[role], fresh=True)
        # A player types into their own submit tab; everyone else only looks.
        access = "writer" if role.startswith("player:") else "reader"
        for email in readers:
            self._share(book, email, "user", access)
        if public:
            self._share(book, None, "anyone", "reader")
        return book

    def _new_spreadsheet(self, title: str) -> str:
        # Drive's files.create directly rather than gspread's Client.create, which then opens the
        # file and throws away the metadata: one Sheets read per new book saved.
        body: dict[str, Any] = {"name": title, "mimeType": MimeType.google_sheets}
        if self.folder:
            body["parents"] = [self.folder]
        try:
            reply = self.client.http_client.request("post", DRIVE_FILES_API_V3_URL, json=body, params={"supportsAllDrives": True})
        except APIError as e:
            if _reason(e) == "storageQuotaExceeded" and self.account:
                raise BookError(
                    "a service account cannot own new spreadsheets: pass --folder with the id of a folder in a shared "
                    "drive the service account can edit, or create the spreadsheets yourself, share them with "
                    f"{self.account} and pass --adopt FILE (a CSV of role,spreadsheet id)"
                ) from None
            raise BookError(f"Google Drive refused to create the spreadsheet {title!r}: {e.error.get('message')} (HTTP {e.code})") from None
        return reply.json()["id"]

    def _share(self, book: GoogleBook, email: str | None, kind: str, access: str) -> None:
        try:
            self.client.insert_permission(book.id, email, perm_type=kind, role=access, notify=False)
        except APIError as e:
            whom = email or "anyone with the link"
            raise BookError(f"Google Drive refused to share the {book.label} book ({book.ref}) with {whom}: {e.error.get('message')} (HTTP {e.code})") from None

    def refs(self) -> dict[str, str]:
        return {role: SPREADSHEET_DRIVE_URL % sid for role, sid in self._ids.items()}

    def output_dir(self) -> Path:
        host = self._ids.get("host")
        if host is None:
            raise BookError("no host spreadsheet yet: create the game first")
        return Path("sheets-host-out") / host


def _connect(auth: str, credentials: Path) -> gspread.Client:
    if auth not in ("service", "oauth"):
        raise BookError(f"unknown auth {auth!r}; allowed: service, oauth")
    if not credentials.is_file():
        raise BookError(f"no Google credentials at {credentials}: pass the {'service-account key' if auth == 'service' else 'OAuth client'} JSON file")
    try:
        if auth == "service":
            return gspread.service_account(filename=credentials, http_client=RetryingHTTPClient)
        return gspread.oauth(credentials_filename=credentials, authorized_user_filename=TOKEN_FILE, http_client=RetryingHTTPClient)
    except ValueError as e:  # malformed JSON, or the other kind of key file
        raise BookError(f"{credentials} is not a valid {'service-account key' if auth == 'service' else 'OAuth client'} file: {e}") from None
