"""The lease that holds a game on Google (`backends.gsheets`), by a mixin of GoogleBook.

The lease (`GoogleBackend.hold`) is a hidden tab "sheets-host lease" in the host book naming the
command that holds the game. Taking it is one ``batchUpdate`` whose ``addSheet`` Google refuses
when the tab exists, which makes it atomic; the same request answers with the spreadsheet. The
commit deletes it by its sheetId in its own ``batchUpdate``, so a command whose lease expired and
was taken over cannot commit: the whole request fails.
"""

from __future__ import annotations

import os
import random
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from gspread.exceptions import APIError
from gspread.http_client import HTTPClient, ParamsType
from gspread.urls import SPREADSHEET_BATCH_UPDATE_URL
from gspread.utils import absolute_range_name

from sheets_host.kit.errors import BookError, BusyError
from .sheets_api import Cells, Tab, cell_data, grid_fields, grid_of

LEASE = "sheets-host lease"
# Longer than any command should take; a lease left by a command that died frees itself after it.
LEASE_TIME = timedelta(minutes=10)


class LeaseHolding:
    """Taking, reading and releasing the lease in one spreadsheet, mixed into GoogleBook."""

    id: str
    ref: str
    _http: HTTPClient
    _on_read: Callable[[], object]
    _meta: dict[str, Tab] | None
    _grid: dict[str, Cells] | None
    _lease: int | None
    _refusal: Callable[[str, APIError], BookError]
    _learn: Callable[[dict], dict[str, Tab]]

    def take_lease(self, command: str, now: datetime) -> None:
        """Add the lease tab, or take over an expired one; BusyError when another command holds it."""
        for _ in range(2):  # a second go only when the holder released it between our two requests
            sheet_id = random.SystemRandom().randrange(2**30, 2**31)  # no two contenders pick the same
            try:
                self._lease_update(command, now, sheet_id)
                return
            except APIError as e:
                if not (e.response.status_code == 400 and "A sheet with the name" in str(e.error.get("message"))):
                    raise self._refusal("take the lease in", e) from None
            holder = self._read_lease()
            if holder is None:
                continue
            if holder.sheet_id == sheet_id:  # ours: a retry after Google applied a try whose answer was lost
                self._lease, self._meta, self._grid = sheet_id, None, None
                return
            if holder.expires > now:
                raise BusyError(f"another command holds the game: {holder}; wait for it to finish; "
                                f"if that command died, its lease expires at {_stamp(holder.expires)}")
            try:
                self._lease_update(command, now, sheet_id, replacing=holder.sheet_id)
                return
            except APIError as e:
                if not _lease_gone(e):
                    raise self._refusal("take the lease in", e) from None
                raise BusyError(f"another command took over the expired lease of {holder} just before this one; "
                                f"wait for it to finish and run this command again") from None
        raise BusyError("other commands are taking and releasing the game right now; run this command again in a minute")

    def _lease_update(self, command: str, now: datetime, sheet_id: int, *, replacing: int | None = None) -> None:
        rows = [["command", command], ["process", os.getpid()], ["machine", socket.gethostname()],
                ["taken at", _stamp(now)], ["expires at", _stamp(now + LEASE_TIME)], ["sheet id", sheet_id]]
        requests_ = [] if replacing is None else [{"deleteSheet": {"sheetId": replacing}}]
        requests_ += [
            {"addSheet": {"properties": {"sheetId": sheet_id, "title": LEASE, "hidden": True,
                                         "gridProperties": {"rowCount": len(rows), "columnCount": 2}}}},
            {"updateCells": {"range": {"sheetId": sheet_id}, "fields": "userEnteredValue",
                             "rows": [{"values": [cell_data(v) for v in row]} for row in rows]}},
        ]
        # The reply carries the whole book, so taking the lease also reads the host book.
        body = {"requests": requests_, "includeSpreadsheetInResponse": True, "responseIncludeGridData": True}
        fields = f"updatedSpreadsheet({grid_fields(False)})"
        reply = self._http.request("post", SPREADSHEET_BATCH_UPDATE_URL % self.id, params={"fields": fields}, json=body)
        spreadsheet = reply.json()["updatedSpreadsheet"]
        self._learn(spreadsheet)
        self._grid = {title: cells for title, cells in grid_of(spreadsheet).items() if title != LEASE}
        self._lease = sheet_id

    def _read_lease(self) -> _Holder | None:
        """The lease's holder; None when the lease is gone."""
        params: ParamsType = {"valueRenderOption": "UNFORMATTED_VALUE", "majorDimension": "ROWS"}
        self._on_read()
        try:
            reply = self._http.values_batch_get(self.id, [absolute_range_name(LEASE)], params=params)
        except APIError as e:
            if e.response.status_code == 400 and "Unable to parse range" in str(e.error.get("message")):
                return None
            raise self._refusal("read the lease in", e) from None
        fields = {str(r[0]): r[1] for r in reply["valueRanges"][0].get("values", []) if len(r) >= 2}
        try:
            return _Holder(str(fields["command"]), str(fields["process"]), str(fields["machine"]),
                           _parse_stamp(fields["taken at"]), _parse_stamp(fields["expires at"]), int(fields["sheet id"]))
        except (KeyError, ValueError, TypeError):
            raise BookError(f"the hidden tab {LEASE!r} of the host book ({self.ref}) is not a lease sheets-host can read; "
                            f"if no command is running, delete that tab and run the command again") from None

    def release_lease(self) -> None:
        """Delete our lease if a write has not; a lease already gone is no error."""
        self._grid = None
        if self._lease is None:
            return
        sheet_id, self._lease = self._lease, None
        try:
            self._http.batch_update(self.id, {"requests": [{"deleteSheet": {"sheetId": sheet_id}}]})
        except APIError as e:
            if not _lease_gone(e):
                raise self._refusal("release the lease in", e) from None
        if self._meta is not None:
            self._meta.pop(LEASE, None)


@dataclass
class _Holder:
    command: str
    process: str
    machine: str
    taken: datetime
    expires: datetime
    sheet_id: int

    def __str__(self) -> str:
        return f"{self.command!r} (process {self.process} on {self.machine}), running since {_stamp(self.taken)}"


def _stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _parse_stamp(text: object) -> datetime:
    return datetime.strptime(str(text), "%Y-%m-%d %H:%M:%S UTC").replace(tzinfo=timezone.utc)


def _lease_gone(error: APIError) -> bool:
    """Google's answer to deleting a sheetId that no longer exists (our lease: always requests[0])."""
    return error.response.status_code == 400 and "requests[0].deleteSheet" in str(error.error.get("message"))
