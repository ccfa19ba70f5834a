"""Google Sheets books: one spreadsheet per book, reached through gspread's low-level HTTP client.

Request budget: the floor, one read and one write per book and command. Sheets allows 60 requests
a minute per user, so a 20-player game's resolve (44 requests) fits a minute's quota. The books
other than the host's go `in_flight` at once (`in_flight.each_book`): a few round trips, not one a book.

- A read is one ``GET spreadsheets/{id}`` with grid data and a ``fields`` mask: the tabs' metadata
  (names, sheetIds, grid sizes, frozen rows, our protected ranges) and every cell's value as
  computed (``effectiveValue``), or as typed for players' books (``userEnteredValue``, so a formula
  reads as its text), the text shown (``formattedValue``) for errors, and the number format's type:
  a date or time reads as its moment (`sheets_api.moment`), never as the locale displays it. A book whose tabs are known (read or written before in this process) is
  read for the tabs wanted only (``ranges``); otherwise the whole book is read, since a tab is found
  by the name people type (`match_tab`), which needs every tab's title. The metadata is kept up to
  date by our own writes.
- A write is one ``spreadsheets:batchUpdate`` carrying everything: tabs added or grown, the values,
  the formatting of each tab written whole (its `TabLayout`: header bold and shaded, frozen rows,
  column widths, number formats, alignment, wrapping, shaded input rows, backgrounds, notes on
  header cells, dropdowns), rows appended to growing tabs (``appendCells``: only the new rows are
  sent, so a log costs the same however long the game; laid out as the rest of the tab when its
  layout is given), protections. Its reply carries the new
  metadata, so no later request is needed to learn it.
  It also carries the write's mark (`sheets_api.mark`), so Google applies it at most once: a retry
  of a try whose answer was lost is refused, and the mark, read back, says the write landed.
- In the host book the lease (`gsheets_lease`) is taken by a ``batchUpdate`` whose reply carries
  the whole book, grid data included: the host book's read then costs no request. So the host book
  costs two requests per command that holds the game: the lease (and read), and the commit (which
  releases the lease); a command that does not write it releases the lease by a second request
  instead.

Why ``batchUpdate`` rather than ``values:batchUpdate``: values requests can only put values into
cells that already exist. Replacing a tab also needs its stale rows cleared, its grid grown when
the data is larger, missing tabs added, formats and protections changed; ``batchUpdate`` is the
only single request that can do all of that, atomically. It also lets us type every cell exactly: a
string is sent as ``stringValue`` so a player's ``=...`` can never become a formula (stricter than
RAW input). A tab written whole is cleared of values, formats, notes and dropdowns first (the same
``updateCells`` over the whole sheet), so nothing of an earlier layout lingers.

Locks are protected ranges described "sheets-host lock" and sent without ``editors``: the API then
leaves the requesting account (and the file's owner) as the only editors, which is what we want,
without a Drive call to learn the account's email.

The lease that holds the game is in `gsheets_lease`.

Credentials and retries are in `gsheets_client`; Drive (creating, finding, trashing and sharing
spreadsheets) in `gsheets_drive`.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import gspread
import pandas as pd
from gspread.exceptions import APIError, NoValidUrlKeyFound
from gspread.http_client import HTTPClient, ParamsType
from gspread.urls import SPREADSHEET_BATCH_UPDATE_URL, SPREADSHEET_DRIVE_URL
from gspread.utils import absolute_range_name, extract_id_from_url

from sheets_host.backends import frame_from_rows, match_tab, rows_from_frame, written_header
from sheets_host.kit.cells import fold
from sheets_host.kit.errors import BookError, BusyError
from sheets_host.kit.layout import TabLayout, lay_out
from .client import IN_FLIGHT, RetryingHTTPClient, connect
from .drive import changed_files, find, new_spreadsheet, share, update
from .lease import LEASE, LEASE_TIME, LeaseHolding, _lease_gone
from .sheets_api import (LOCK, METADATA_FIELDS, Cells, Tab, append_rows, cell_values, grid_fields, grid_of, mark,
                         marks_of, patch_tab, put_first, replace_tab, tabs_of)

# Drive appProperties (private to this app) that let the same `new` run again find what it made
# (`GoogleBackend.begin_new`): the host's mark of the command, every book's role, and the host each
# other book was made for. A role is marked by a digest: a property holds 124 bytes.
NEW_MARK, ROLE_MARK, HOST_MARK = "sheetsHostNew", "sheetsHostRole", "sheetsHostFor"


def _role_mark(role: str) -> str:
    return hashlib.sha256(role.encode()).hexdigest()[:16]


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


class GoogleBook(LeaseHolding):
    """One spreadsheet. Its metadata comes with its first read (or the lease) and is then kept in
    step with our writes, whose replies carry it."""

    def __init__(self, http: HTTPClient, spreadsheet_id: str, *, label: str, account: str | None = None, fresh: bool = False,
                 on_read: Callable[[], object] = lambda: None):
        self.id = spreadsheet_id
        self._on_read = on_read  # told of each read request: Google's quota counts them a minute
        self.ref = SPREADSHEET_DRIVE_URL % spreadsheet_id
        self.label = label
        self._http = http
        self._account = account
        # A spreadsheet we just created holds one empty default tab; the first write drops it,
        # as the xlsx backend does, so players open the book on a tab that matters.
        self._fresh = fresh
        self._meta: dict[str, Tab] | None = None
        self._marks: list[int] = []  # ids of the marks our writes left (`sheets_api.mark`), read with the metadata
        # The whole book's cells as the lease's reply gave them (values as computed), until a write.
        self._grid: dict[str, Cells] | None = None
        self._lease: int | None = None  # sheetId of the lease we hold in this book

    def _refusal(self, what: str, e: APIError) -> BookError:
        hint = ""
        if e.code in (403, 404):
            hint = f"; check the id and that the spreadsheet is shared with {self._account or 'your account'} as an editor"
        return BookError(f"Google refused to {what} the {self.label} book ({self.ref}): {e.error.get('message')} (HTTP {e.code}){hint}")

    @contextmanager
    def _asking(self, what: str) -> Iterator[None]:
        try:
            yield
        except APIError as e:
            raise self._refusal(what, e) from None

    def _learn(self, spreadsheet: Mapping[str, Any]) -> dict[str, Tab]:
        """The metadata of a Spreadsheet resource that a read, the lease or a write answered."""
        self._meta, self._marks = tabs_of(spreadsheet), marks_of(spreadsheet)
        return self._meta

    def _tabs(self) -> dict[str, Tab]:
        """The tabs' metadata; one request when no read, lease or write has brought it yet."""
        if self._meta is None:
            self._on_read()
            with self._asking("open"):
                self._learn(self._http.fetch_sheet_metadata(self.id, params={"fields": METADATA_FIELDS}))
        assert self._meta is not None
        return self._meta

    def _find(self, name: str, titles: Iterable[str]) -> str | None:
        """The tab `name` refers to (`match_tab`). Several that could be it is an error: writing a
        new one beside them would make things worse."""
        titles = [t for t in titles if t != LEASE]
        found = match_tab(name, titles)
        if found is None and (close := [t for t in titles if fold(t) == fold(name)]):
            raise BookError(f"the {self.label} book ({self.ref}) has several tabs that could be {name!r}: "
                            f"{', '.join(map(repr, close))}; rename or delete all but one")
        return found

    def read(self, tabs: Sequence[str] | None = None, *, formulas: bool = False) -> dict[str, pd.DataFrame]:
        """One request (none right after the lease): see the module's docstring."""
        if self._grid is not None and not formulas:
            meta, grid = self._meta or {}, self._grid
        else:
            fetched = self._fetch(tabs, formulas)
            if fetched is None:
                return {}
            meta, grid = fetched
        if tabs is None:
            wanted = {t: t for t in grid if t != LEASE}
        else:
            wanted = {n: title for n in tabs if (title := self._find(n, meta)) is not None and title in grid}
        return {n: frame_from_rows(cell_values(grid[title], formulas)) for n, title in wanted.items()}

    def _fetch(self, tabs: Sequence[str] | None, formulas: bool) -> tuple[dict[str, Tab], dict[str, Cells]] | None:
        """The metadata and the cells of the tabs wanted (all of them when the tabs' titles are not
        known yet); None when none of the tabs wanted is there (no request)."""
        params: ParamsType = {"includeGridData": "true", "fields": grid_fields(formulas)}
        ranged = tabs is not None and self._meta is not None
        if ranged:
            assert self._meta is not None
            titles = [t for n in tabs if (t := self._find(n, self._meta)) is not None and self._meta[t].cols]
            if not titles:
                return None
            params["ranges"] = [absolute_range_name(t) for t in dict.fromkeys(titles)]
        self._on_read()
        try:
            reply = self._http.fetch_sheet_metadata(self.id, params=params)
        except APIError as e:
            if ranged and e.response.status_code == 400 and "Unable to parse range" in str(e.error.get("message")):
                self._meta = None  # a tab was renamed or deleted since we learnt them: read the whole book
                return self._fetch(tabs, formulas)
            raise self._refusal("read" if self._meta is not None else "open", e) from None
        if ranged:
            assert self._meta is not None
            self._meta.update(tabs_of(reply))
            self._marks = marks_of(reply)
        else:
            self._learn(reply)
        assert self._meta is not None
        return self._meta, grid_of(reply)

    def check_writable(self) -> None:
        """Nothing to check ahead: Google refuses a write as a whole (see `write`)."""

    def write(self, tabs: Mapping[str, pd.DataFrame], *, append: Mapping[str, pd.DataFrame] = {},
              layouts: Mapping[str, TabLayout] = {}, protect: Mapping[str, bool] = {},
              hidden: Collection[str] = (), shown: Mapping[str, pd.DataFrame] = {},
              remove: Collection[str] = (), first: Sequence[str] = ()) -> None:
        """One ``batchUpdate`` (see the module's docstring and `Book.write`); a tab `shown` as it
        stands is patched (`patch_tab`) rather than written whole; a tab removed is a
        ``deleteSheet`` in the same request; a tab moved to its place among `first` an
        ``updateSheetProperties`` of its index."""
        table = {name: rows_from_frame(frame) for name, frame in tabs.items()}
        added = {name: rows_from_frame(frame) for name, frame in append.items()}
        after = copy.deepcopy(self._tabs())
        # First, so that a lease taken over by another command fails the request as requests[0].
        requests_: list[dict[str, Any]] = []
        if self._lease is not None:
            requests_.append({"deleteSheet": {"sheetId": self._lease}})
            after.pop(LEASE, None)
        for name in [n for n in remove if n not in table and n not in added]:
            if (title := self._find(name, after)) is not None:
                requests_.append({"deleteSheet": {"sheetId": after.pop(title).sheet_id}})
        written = []
        for name, rows in table.items():
            title = self._find(name, after) or name
            written.append(title)
            layout = layouts.get(name)
            layout = layout if layout is not None else lay_out(tabs[name])
            before = _as_in_sheet(shown[name]) if name in shown and title in after else None
            patch = patch_tab(after[title], before, rows, layout) if before is not None else None
            requests_ += patch if patch is not None else replace_tab(after, title, rows, layout, hidden=name in hidden)
        for name, rows in added.items():
            title = self._find(name, after)
            if title is None:  # not there yet: created with the frame's header
                written.append(name)
                layout = layouts.get(name)
                requests_ += replace_tab(after, name, rows, layout if layout is not None else lay_out(append[name]),
                                         hidden=name in hidden)
            elif len(rows) > 1:
                written.append(title)
                layout, held = layouts.get(name), shown.get(name)  # `held` places the rows in `layout`
                laid_out = () if layout is None or held is None else (layout, len(held), lay_out(held))
                requests_ += append_rows(after[title], rows[1:], *laid_out)
        for name, locked in protect.items():
            title = self._find(name, after)
            if title is None:
                continue
            tab = after[title]
            if locked and not tab.locks:
                requests_.append({"addProtectedRange": {"protectedRange": {
                    "range": {"sheetId": tab.sheet_id}, "description": LOCK, "warningOnly": False,
                }}})
            elif not locked:
                requests_ += [{"deleteProtectedRange": {"protectedRangeId": i}} for i in tab.locks]
                tab.locks = []
        if self._fresh and (tabs or append):
            for title in [t for t in after if t not in written]:
                requests_.append({"deleteSheet": {"sheetId": after.pop(title).sheet_id}})
        requests_ += put_first(after, [title for name in first if (title := self._find(name, after)) is not None])
        if not requests_:
            return
        write_id = random.SystemRandom().randrange(1, 2**31)
        requests_ += mark(self._marks, write_id)
        body = {"requests": requests_, "includeSpreadsheetInResponse": True}
        try:
            spreadsheet = self._http.request("post", SPREADSHEET_BATCH_UPDATE_URL % self.id, json=body,
                                             params={"fields": f"updatedSpreadsheet({METADATA_FIELDS})"}).json()["updatedSpreadsheet"]
        except APIError as e:
            spreadsheet = self._landed(write_id) if e.response.status_code == 400 else None
            if spreadsheet is None:
                raise self._write_refusal(e) from None
        # The reply's metadata: grid sizes after appends, the ids of new locks.
        self._learn(spreadsheet)
        self._grid = None
        self._fresh = False
        self._lease = None

    def _landed(self, write_id: int) -> dict[str, Any] | None:
        """The spreadsheet's metadata when the write marked `write_id` is in it: the refusal was that
        of a retry whose first try Google applied, the answer lost (one request, on a refusal only)."""
        self._on_read()
        with suppress(APIError):
            spreadsheet = self._http.fetch_sheet_metadata(self.id, params={"fields": METADATA_FIELDS})
            if write_id in marks_of(spreadsheet):
                return spreadsheet
        return None

    def _write_refusal(self, e: APIError) -> BookError:
        if self._lease is not None and _lease_gone(e):
            self._lease = None
            return BusyError(
                f"this command no longer held the game when it wrote the host book ({self.ref}), so Google refused "
                f"the write: its lease expired after {LEASE_TIME // timedelta(minutes=1)} minutes and another command took it "
                f"over, or someone deleted the hidden tab {LEASE!r}; run the command again")
        return self._refusal("write", e)


def _as_in_sheet(frame: pd.DataFrame) -> list[list[object]] | None:
    """The rows of `frame` (header first, a blank header cell blank) where they stand in the
    sheet: a frame as written (index 0, 1, ...), or as read (index the sheet's row numbers) with
    no blank row left out between its rows; None when where its rows stand is not known.

    >>> _as_in_sheet(pd.DataFrame({"a": [1, 2], "(B)": [3, 4]}, index=[2, 3])), _as_in_sheet(pd.DataFrame({"a": [1, 2]}, index=[2, 4]))
    ([['a', ''], [1, 3], [2, 4]], None)
    """
    index = frame.index
    written = isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1
    if not written and list(index) != list(range(2, 2 + len(frame))):
        return None
    return [written_header(frame), *rows_from_frame(frame)[1:]]


class GoogleBackend:
    """Books as Google spreadsheets: the host's is `where`, the others are created, adopted or bound."""

    name = "gsheets"

    def __init__(self, client: gspread.Client, host_id: str | None = None, *, folder: str | None = None,
                 notify: bool = True, in_flight: int = IN_FLIGHT):
        self.client = client
        self.in_flight = in_flight  # books read or written at once (`in_flight.each_book`)
        self.folder = folder
        # Drive emails each person a book is shared with (`backends.gsheets.drive.share`).
        self.notify = notify
        # Stamps the lease; machines' clocks are compared, so they had better be roughly right.
        self.clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)
        # The service account's email, for messages; None for a person's OAuth login.
        self.account: str | None = getattr(getattr(client.http_client, "auth", None), "service_account_email", None)
        self._ids: dict[str, str] = {} if host_id is None else {"host": host_id}
        self._adopted: set[str] = set()
        self._books: dict[str, GoogleBook] = {}
        self._new_key: str | None = None  # the `new` this backend runs (`begin_new`)
        self._found: dict[str, str] = {}  # role mark -> spreadsheet an identical `new` made (`begin_new`)
        self._created: list[str] = []  # roles whose spreadsheet this `new` made (or took over from a killed one)
        self.reads = 0  # read requests sent (`watch` keeps them within its minute's quota)
        self._reads_lock = threading.Lock()  # books read at once count their reads together

    @classmethod
    def from_where(
        cls,
        where: str | None,
        *,
        credentials: str | Path | None = None,
        auth: str = "service",
        folder: str | None = None,
        notify: bool = True,
        client: gspread.Client | None = None,
        sleep: Callable[[float], object] = time.sleep,
    ) -> GoogleBackend:
        """The backend for the host spreadsheet `where` (id or URL; empty for a new game).

        `credentials` is a service-account key file (auth="service") or an OAuth client file
        (auth="oauth"), credentials.json by default; `client` replaces both (tests). `notify`: Drive
        emails each player the book shared with them.
        """
        if client is None:
            client = connect(auth, Path(credentials or "credentials.json"))
        if isinstance(client.http_client, RetryingHTTPClient):
            client.http_client.sleep = sleep
        return cls(client, spreadsheet_id(where) if where else None, folder=folder, notify=notify)

    def _book(self, role: str, sid: str, *, fresh: bool = False) -> GoogleBook:
        if fresh or sid not in self._books:
            self._books[sid] = GoogleBook(self.client.http_client, sid, label=role, account=self.account, fresh=fresh,
                                          on_read=self._counted)
        return self._books[sid]

    def _counted(self) -> None:
        with self._reads_lock:
            self.reads += 1

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

    @contextmanager
    def hold(self, command: str) -> Iterator[None]:
        """Hold the game for `command` with a lease in the host book (see `gsheets_lease`).

        Taking it costs one request and replaces the host book's metadata request; the host
        book's next write releases it at no cost, else one more request releases it when the
        block ends. A new game (no host spreadsheet yet) has nothing to hold.
        """
        if "host" not in self._ids:
            yield
            return
        book = self.book("host")
        book.take_lease(command, self.clock())
        try:
            yield
        except BaseException:
            with suppress(BookError):  # the command's own error matters more; the lease expires anyway
                book.release_lease()
            raise
        book.release_lease()

    def existing(self) -> list[str]:
        """The adopted spreadsheets when the adopted host one already holds a game (a `config`
        or `rounds` tab): `new` would overwrite them. Spreadsheets it creates are new."""
        if "host" not in self._adopted:
            return []
        if not {fold(t) for t in self.book("host")._tabs()} & {fold("config"), fold("rounds")}:
            return []
        return [SPREADSHEET_DRIVE_URL % sid for role, sid in self._ids.items() if role in self._adopted]

    def discard(self) -> None:
        """Nothing to remove: adopted spreadsheets are the host's own and stay; the new game's
        writes replace the tabs it uses in them (other tabs are left as they are)."""

    def begin_new(self, key: str) -> bool:
        """Find what an identical `new` (same `key`) made: its host spreadsheet, marked with `key`,
        and the spreadsheets marked as made for that host, so that running a `new` killed halfway
        again finishes it rather than make a second set. True when the host book holds the game
        already (that `new` committed; only its delivery may be owed, as after any command).

        One Drive search, two when something is found."""
        self._new_key = key
        if "host" in self._adopted:
            host = self._ids["host"]
        else:
            hosts = find(self.client.http_client, NEW_MARK, key, self.folder)
            if not hosts:
                return False
            host = min(hosts)
            self._found[_role_mark("host")] = host
        found = find(self.client.http_client, HOST_MARK, host, self.folder)
        self._found |= {p[ROLE_MARK]: sid for sid, p in found.items() if ROLE_MARK in p}
        if "host" in self._adopted or not {fold(t) for t in self._book("host", host)._tabs()} & {fold("config")}:
            return False
        self._ids["host"] = host  # its commit says the rest (`bind`)
        return True

    def abandon_new(self) -> str:
        """Every spreadsheet this `new` made (or took over) to the Drive trash, the host's last so
        that a kill in between leaves it marked for a re-run; what was left, said for the host."""
        made = sorted(self._created, key=lambda role: role == "host")
        kept = []
        for role in made:
            try:
                update(self.client.http_client, self._ids[role], {"trashed": True})
            except APIError:
                kept.append(SPREADSHEET_DRIVE_URL % self._ids[role])
        if kept:
            return (f"these spreadsheets it made could not be moved to the Drive trash: {', '.join(kept)}; "
                    "run the same command again (it takes them over), or delete them by hand")
        return f"nothing of this game is left: the {len(made)} spreadsheets this command made are in the Drive trash" if made else ""

    def book(self, role: str) -> GoogleBook:
        sid = self._ids.get(role)
        if sid is None:
            raise BookError(f"no spreadsheet known for {role!r}; known: {', '.join(self._ids) or 'none'}")
        return self._book(role, sid)

    def changed(self, roles: Collection[str], since: object = None) -> tuple[set[str], object]:
        """See `Backend.changed`: Drive's change log since the token `since` (a Drive request, whose
        quota is not the Sheets reads' that `reads` counts)."""
        files, token = changed_files(self.client.http_client, since if isinstance(since, str) else None)
        return {r for r in roles if files is None or self._ids.get(r) in files or r not in self._ids}, token

    def create(self, role: str, title: str, readers: Sequence[str] = (), public: bool = False) -> GoogleBook:
        """The spreadsheet for `role`: adopted, else taken over from a `new` killed halfway
        (`begin_new`), else made, marked so that a `new` killed later finds it."""
        http = self.client.http_client
        if role in self._adopted:
            book = self._book(role, self._ids[role])
        else:
            found = self._found.get(_role_mark(role))
            if found is None:
                marks = {ROLE_MARK: _role_mark(role)}
                marks |= {NEW_MARK: self._new_key} if role == "host" and self._new_key else {}
                marks |= {HOST_MARK: self._ids["host"]} if role != "host" and "host" in self._ids else {}
                found = new_spreadsheet(http, title, folder=self.folder, account=self.account, properties=marks)
            self._ids[role] = found
            self._created.append(role)
            book = self._book(role, found, fresh=True)
        # A player types into their own submit tab; everyone else only looks.
        access = "writer" if role.startswith("player:") else "reader"
        what = f"{role.split(':', 1)[1]}'s book" if role.startswith("player:") else f"the {role} book"
        what += f" ({book.ref})"
        for email in readers:
            share(http, book.id, what, email, access, notify=self.notify)
        if public:
            share(http, book.id, what, None, "reader", notify=self.notify, adopted=role in self._adopted)
        return book

    def refs(self) -> dict[str, str]:
        return {role: SPREADSHEET_DRIVE_URL % sid for role, sid in self._ids.items()}

    def output_dir(self) -> Path:
        host = self._ids.get("host")
        if host is None:
            raise BookError("no host spreadsheet yet: create the game first")
        return Path("sheets-host-out") / host
