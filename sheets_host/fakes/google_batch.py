"""The requests of the fake's ``spreadsheets:batchUpdate`` (`sheets_host.fakes.google`), applied all
or nothing as Google does, with the spreadsheet (grid data included when asked) in the reply.

It refuses what Google refuses and what we have not made it do, so a gap fails a test: unknown
body fields, request kinds and properties, a sheet title already taken (compared without case), an
unknown sheetId, a range past the grid, freezing every row of a sheet, deleting the last sheet.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from .google_cells import apply_cell, cell_mask, check_cell, check_rule, sheet_properties, spreadsheet_resource
from .google_model import (FakeFile, FakeSheet, GoogleError, cell_name, grid_range, masked, parse_mask, parse_range,
                           sheet_by_id, sheet_name, snapshot, submask, wants)

_BODY_FIELDS = {"requests", "includeSpreadsheetInResponse", "responseIncludeGridData", "responseRanges"}
_SHEET_PROPERTIES = {"sheetId", "title", "index", "gridProperties", "hidden"}
_GRID_PROPERTIES = {"rowCount", "columnCount", "frozenRowCount"}


class BatchUpdates:
    """spreadsheets:batchUpdate, mixed into FakeGoogle."""

    _random: random.Random
    _file: Callable[[str], FakeFile]
    _metadata: list[dict[str, Any]]  # the developer metadata as the batch being applied leaves it

    def _batch_update(self, sid: str, query: dict[str, list[str]], body: dict[str, Any]) -> dict[str, Any]:
        file = self._file(sid)
        if unknown := sorted(body.keys() - _BODY_FIELDS):
            raise GoogleError(400, f'Invalid JSON payload received. Unknown name "{unknown[0]}": Cannot find field.')
        sheets = snapshot(file.sheets)  # all or nothing, like Google
        self._metadata = copy.deepcopy(file.developer_metadata)
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
        mask = parse_mask(query["fields"][0]) if "fields" in query else None
        ranges = None
        if body.get("responseRanges"):
            ranges = [parse_range(FakeFile(sid, file.name, [], sheets), a1) for a1 in body["responseRanges"]]
        file.sheets, file.developer_metadata = sheets, self._metadata
        reply: dict[str, Any] = {"spreadsheetId": sid, "replies": replies}
        if body.get("includeSpreadsheetInResponse"):
            sub = submask(mask, ("updatedSpreadsheet",))
            # Google: responseIncludeGridData is ignored when a field mask is set; the mask decides.
            grid = wants(sub, ("sheets", "data")) if mask is not None else bool(body.get("responseIncludeGridData"))
            reply["updatedSpreadsheet"] = spreadsheet_resource(file, grid=grid, ranges=ranges, mask=sub)
        return masked(reply, mask)

    def _do_addSheet(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props = args.get("properties", {})
        if unknown := sorted(props.keys() - _SHEET_PROPERTIES):
            raise GoogleError(400, f"fake: addSheet with properties {unknown} is not supported")
        grid = props.get("gridProperties", {})
        if not grid.keys() <= _GRID_PROPERTIES:
            raise GoogleError(400, f"fake: addSheet of gridProperties {grid} is not supported")
        title = props.get("title") or f"Sheet{len(sheets) + 1}"
        if any(s.title.lower() == title.lower() for s in sheets):
            raise GoogleError(400, f'A sheet with the name "{title}" already exists. Please enter another name.')
        sheet_id = props.get("sheetId", self._random.randrange(1, 2**31))
        if any(s.sheet_id == sheet_id for s in sheets):
            raise GoogleError(400, f"Sheet with ID {sheet_id} already exists.")
        sheet = FakeSheet(sheet_id, title, grid.get("rowCount", 1000), grid.get("columnCount", 26),
                          hidden=bool(props.get("hidden")), frozen_rows=grid.get("frozenRowCount", 0))
        _check_frozen(sheet)
        sheets.insert(props.get("index", len(sheets)), sheet)
        return {"addSheet": {"properties": sheet_properties(sheet, sheets.index(sheet))}}

    def _do_updateSheetProperties(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        props, mask = args.get("properties", {}), parse_mask(args.get("fields", ""))
        sheet = sheet_by_id(sheets, props.get("sheetId", 0))
        grid_mask = mask.pop("gridProperties", {})
        if grid_mask is None:  # the whole of gridProperties
            grid_mask = {k: None for k in _GRID_PROPERTIES}
        if (mask.keys() - {"hidden", "title", "index"}) or not (grid_mask or mask) or not grid_mask.keys() <= _GRID_PROPERTIES:
            raise GoogleError(400, f"fake: updating {args.get('fields')!r} is not supported")
        grid = props.get("gridProperties", {})
        if "rowCount" in grid_mask:
            sheet.rows = grid.get("rowCount", 0)
        if "columnCount" in grid_mask:
            sheet.cols = grid.get("columnCount", 0)
        if "frozenRowCount" in grid_mask:
            sheet.frozen_rows = grid.get("frozenRowCount", 0)
        if "hidden" in mask:
            sheet.hidden = bool(props.get("hidden"))
        if "index" in mask:  # Google's index is counted before the move: one to the right lands one short
            at, to = sheets.index(sheet), props.get("index", 0)
            if not 0 <= to <= len(sheets):
                raise GoogleError(400, f"Invalid requests[0].updateSheetProperties: index {to} is out of range")
            if to not in (at, at + 1):
                sheets.insert(to, sheets.pop(at) if to < at else sheet)
                if to > at:
                    sheets.pop(at)
        if "title" in mask:
            if any(s is not sheet and s.title.lower() == str(props.get("title")).lower() for s in sheets):
                raise GoogleError(400, f'A sheet with the name "{props.get("title")}" already exists. Please enter another name.')
            sheet.title = props.get("title")
        _check_frozen(sheet)
        sheet.cells = {(r, c): v for (r, c), v in sheet.cells.items() if r < sheet.rows and c < sheet.cols}
        sheet.widths = {c: w for c, w in sheet.widths.items() if c < sheet.cols}
        sheet.heights = {r: h for r, h in sheet.heights.items() if r < sheet.rows}
        return {}

    def _do_updateCells(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        mask = cell_mask(args.get("fields"))
        if ("range" in args) == ("start" in args):
            raise GoogleError(400, "Exactly one of range or start must be set.")
        if "range" in args:
            sheet, r0, c0, r1, c1 = grid_range(sheets, args["range"])
        else:
            start = args["start"]
            sheet = sheet_by_id(sheets, start.get("sheetId", 0))
            r0, c0 = start.get("rowIndex", 0), start.get("columnIndex", 0)
            r1 = c1 = None
        rows = [row.get("values", []) for row in args.get("rows", [])]
        height, width = len(rows), max(map(len, rows), default=0)
        if r0 + height > sheet.rows or c0 + width > sheet.cols:
            wanted = f"{sheet_name(sheet.title)}!{cell_name(r0, c0)}:{cell_name(r0 + height - 1, c0 + width - 1)}"
            raise GoogleError(400, f"Range ({wanted}) exceeds grid limits. Max rows: {sheet.rows}, max columns: {sheet.cols}")
        if r1 is not None and (r0 + height > r1 or c0 + width > c1):
            raise GoogleError(400, "fake: rows go beyond the range")
        for row in rows:
            for cell in row:
                check_cell(cell)
        if r1 is not None:  # the masked fields of cells of the range that the rows do not cover are cleared
            for r, c in [k for k in sheet.cells if r0 <= k[0] < r1 and c0 <= k[1] < c1]:
                if r - r0 >= height or c - c0 >= len(rows[r - r0]):
                    apply_cell(sheet, r, c, {}, mask)
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                apply_cell(sheet, r0 + i, c0 + j, cell, mask)
        return {}

    def _do_repeatCell(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        mask = cell_mask(args.get("fields"))
        sheet, r0, c0, r1, c1 = grid_range(sheets, args.get("range", {}))
        cell = args.get("cell", {})
        check_cell(cell)
        for r in range(r0, r1):
            for c in range(c0, c1):
                apply_cell(sheet, r, c, cell, mask)
        return {}

    def _do_setDataValidation(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        sheet, r0, c0, r1, c1 = grid_range(sheets, args.get("range", {}))
        rule = args.get("rule")
        if rule is not None:
            check_rule(rule)
        for r in range(r0, r1):
            for c in range(c0, c1):
                apply_cell(sheet, r, c, {"dataValidation": rule} if rule else {}, {"dataValidation": None})
        return {}

    def _do_appendCells(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        """After the last row with data, inserting rows into the sheet as needed."""
        mask = cell_mask(args.get("fields"))
        sheet = sheet_by_id(sheets, args.get("sheetId", 0))
        rows = [row.get("values", []) for row in args.get("rows", [])]
        for row in rows:
            for cell in row:
                check_cell(cell)
        width = max(map(len, rows), default=0)
        if width > sheet.cols:
            raise GoogleError(400, f"Range ({sheet_name(sheet.title)}!A1:{cell_name(0, width - 1)}) exceeds grid limits. "
                                   f"Max rows: {sheet.rows}, max columns: {sheet.cols}")
        start = 1 + max((r for (r, _), cell in sheet.cells.items() if "userEnteredValue" in cell), default=-1)
        sheet.rows = max(sheet.rows, start + len(rows))
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                apply_cell(sheet, start + i, j, cell, mask)
        return {}

    def _do_updateDimensionProperties(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        span = args.get("range", {})
        sheet = sheet_by_id(sheets, span.get("sheetId", 0))
        dimension = span.get("dimension")
        if dimension not in ("COLUMNS", "ROWS") or args.get("fields") != "pixelSize" or args.get("properties", {}).keys() != {"pixelSize"}:
            raise GoogleError(400, f"fake: only column widths and row heights (pixelSize) can be updated, not {args}")
        count, sizes = (sheet.cols, sheet.widths) if dimension == "COLUMNS" else (sheet.rows, sheet.heights)
        start, end = span.get("startIndex", 0), span.get("endIndex", count)
        if not 0 <= start < end <= count:
            raise GoogleError(400, f"Invalid dimension range {start}:{end} for a sheet of {count} {dimension.lower()}")
        size = args["properties"]["pixelSize"]
        if not isinstance(size, int) or size < 0:
            raise GoogleError(400, f"fake: bad pixelSize {size!r}")
        for i in range(start, end):
            sizes[i] = size
        return {}

    def _do_insertDimension(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        """Rows moved down to make room; the new ones take the format of the row before or after."""
        sheet, start, end = _row_span(sheets, args.get("range", {}))
        before = bool(args.get("inheritFromBefore"))
        if start > sheet.rows or (before and start == 0):
            raise GoogleError(400, f"Invalid insertDimension: cannot insert rows {start}:{end} into a sheet of "
                                   f"{sheet.rows} rows{' inheriting from before the first' if before else ''}")
        count, source = end - start, start - 1 if before else start
        model = {c: cell.get("userEnteredFormat") for (r, c), cell in sheet.cells.items() if r == source}
        sheet.cells = {(r + count if r >= start else r, c): cell for (r, c), cell in sheet.cells.items()}
        for c, fmt in model.items():
            if fmt:
                for r in range(start, end):
                    sheet.cells[(r, c)] = {"userEnteredFormat": copy.deepcopy(fmt)}
        sheet.heights = {r + count if r >= start else r: h for r, h in sheet.heights.items()}
        sheet.rows += count
        return {}

    def _do_deleteDimension(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        sheet, start, end = _row_span(sheets, args.get("range", {}))
        if end > sheet.rows:
            raise GoogleError(400, f"Invalid deleteDimension: rows {start}:{end} of a sheet of {sheet.rows} rows")
        if sheet.rows - (end - start) <= sheet.frozen_rows:
            raise GoogleError(400, "You can't delete all the rows on the sheet.")
        count = end - start
        sheet.cells = {(r - count if r >= end else r, c): cell for (r, c), cell in sheet.cells.items()
                       if not start <= r < end}
        sheet.heights = {r - count if r >= end else r: h for r, h in sheet.heights.items() if not start <= r < end}
        sheet.rows -= count
        return {}

    def _do_addProtectedRange(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        protected = copy.deepcopy(args["protectedRange"])
        sheet = sheet_by_id(sheets, protected.get("range", {}).get("sheetId", 0))
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
        sheet = sheet_by_id(sheets, args.get("sheetId", 0))
        if len(sheets) == 1:
            raise GoogleError(400, "You can't remove all the sheets in a document.")
        sheets.remove(sheet)
        return {}


    def _do_createDeveloperMetadata(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        """Of the whole spreadsheet only; an id in use is refused, as Google documents."""
        metadata = copy.deepcopy(args.get("developerMetadata", {}))
        if metadata.get("location") != {"spreadsheet": True}:
            raise GoogleError(400, f"fake: only metadata of the whole spreadsheet is supported, not {metadata.get('location')}")
        if not metadata.get("metadataKey") or metadata.get("visibility") not in ("DOCUMENT", "PROJECT"):
            raise GoogleError(400, "Developer metadata must always have a key and a visibility specified.")
        metadata.setdefault("metadataId", self._random.randrange(1, 2**31))
        if any(m["metadataId"] == metadata["metadataId"] for m in self._metadata):
            raise GoogleError(400, f"Developer metadata with ID {metadata['metadataId']} already exists.")
        metadata["location"] = {"locationType": "SPREADSHEET", "spreadsheet": True}
        self._metadata.append(metadata)
        return {"createDeveloperMetadata": {"developerMetadata": metadata}}

    def _do_deleteDeveloperMetadata(self, sheets: list[FakeSheet], args: dict[str, Any]) -> dict[str, Any]:
        """What a lookup by id or key selects; selecting none is taken as no error (the answer is
        the list of what was deleted)."""
        lookup = args.get("dataFilter", {}).get("developerMetadataLookup")
        if not lookup or not lookup.keys() <= {"metadataId", "metadataKey"}:
            raise GoogleError(400, f"fake: deleting metadata by {args.get('dataFilter')} is not supported")
        gone = [m for m in self._metadata if all(m.get(k) == v for k, v in lookup.items())]
        self._metadata = [m for m in self._metadata if m not in gone]
        return {"deleteDeveloperMetadata": {"deletedDeveloperMetadata": gone}}


def _row_span(sheets: list[FakeSheet], span: dict[str, Any]) -> tuple[FakeSheet, int, int]:
    """The sheet and rows of a DimensionRange; the fake moves rows only, never columns."""
    sheet = sheet_by_id(sheets, span.get("sheetId", 0))
    if span.get("dimension") != "ROWS":
        raise GoogleError(400, f"fake: only rows can be inserted or deleted, not {span}")
    start, end = span.get("startIndex", 0), span.get("endIndex", sheet.rows)
    if not 0 <= start < end:
        raise GoogleError(400, f"Invalid dimension range {start}:{end}")
    return sheet, start, end


def _check_frozen(sheet: FakeSheet) -> None:
    if sheet.frozen_rows < 0:
        raise GoogleError(400, "fake: frozenRowCount must not be negative")
    if sheet.frozen_rows and sheet.frozen_rows >= sheet.rows:
        raise GoogleError(400, "You can't freeze all visible rows on the sheet.")
