"""The check of requests against Google's discovery documents (sheets_host/fakes/discovery.py):
a valid and an invalid example of each kind of finding."""

from __future__ import annotations

import json

import pytest

from sheets_host.fakes import discovery as google_discovery
from sheets_host.fakes.discovery import check_request, unchecked, validate
from sheets_host.fakes.discovery_masks import check_mask

SHEETS = "https://sheets.googleapis.com/v4/spreadsheets/abc123"
DRIVE = "https://www.googleapis.com/drive/v3/files"
SHEET_MIME = "application/vnd.google-apps.spreadsheet"


def one(findings: list[str], *words: str) -> str:
    """The only finding, which says all of `words`."""
    assert len(findings) == 1, findings
    assert all(w in findings[0] for w in words), findings[0]
    return findings[0]


def batch(*requests: dict) -> list[str]:
    return validate("POST", f"{SHEETS}:batchUpdate", None, {"requests": list(requests)})


# -- the URL and the verb --------------------------------------------------------------------------

def test_the_requests_sheets_host_sends_are_valid():
    assert validate("GET", SHEETS, {"fields": "sheets(properties(sheetId,title,gridProperties(rowCount,columnCount)),"
                                              "protectedRanges(protectedRangeId,description))"}) == []
    assert validate("GET", f"{SHEETS}/values:batchGet?ranges=%27state%27&ranges=B1%3AC2",
                    {"valueRenderOption": "FORMULA", "majorDimension": "ROWS"}) == []
    assert validate("POST", f"{SHEETS}/values:batchUpdate", None,
                    {"valueInputOption": "RAW", "data": [{"range": "A1", "values": [[1, "x", None, True]]}]}) == []
    assert validate("POST", DRIVE, {"supportsAllDrives": "true"}, {"name": "Game", "mimeType": SHEET_MIME, "parents": ["f1"]}) == []
    assert validate("POST", f"{DRIVE}/abc123/permissions", {"supportsAllDrives": "true", "sendNotificationEmail": "false"},
                    {"type": "user", "role": "writer", "emailAddress": "ann@example.com"}) == []
    assert validate("POST", f"{DRIVE}/abc123/permissions", {"supportsAllDrives": "true"},
                    {"type": "anyone", "role": "reader", "allowFileDiscovery": False}) == []
    assert validate("DELETE", f"{DRIVE}/abc123") == []


def test_an_unknown_url_or_verb():
    one(validate("GET", "https://sheets.googleapis.com/v4/spreadsheet/abc"), "no method")
    one(validate("GET", "https://example.com/v4/spreadsheets/abc"), "no method")
    one(validate("GET", f"{SHEETS}:batchUpdate"), "GET is not a method", "POST (sheets.spreadsheets.batchUpdate)")
    one(validate("PUT", f"{DRIVE}/abc123/permissions"), "PUT is not a method", "POST (drive.permissions.create)", "GET (drive.permissions.list)")


def test_path_templates_pick_the_most_specific_method():
    before = google_discovery.checked.copy()
    assert validate("POST", f"{SHEETS}/values/Sheet1%21A1%3AB2:append", {"valueInputOption": "RAW"}, {"values": [[1]]}) == []
    assert validate("PUT", f"{SHEETS}/values/Sheet1%21A1", {"valueInputOption": "RAW"}, {"values": [[1]]}) == []
    assert validate("GET", "https://www.googleapis.com/drive/v3/files/generateIds", {"count": "3"}) == []
    checked = google_discovery.checked - before
    assert checked == {"sheets.spreadsheets.values.append": 1, "sheets.spreadsheets.values.update": 1, "drive.files.generateIds": 1}
    one(validate("POST", "https://sheets.googleapis.com/v4/spreadsheets/abc/sheets/x:copyTo", None, {}), "sheetId='x'", "integer")


# -- query parameters ------------------------------------------------------------------------------

def test_query_parameters_known_to_the_method_or_standard():
    assert validate("GET", SHEETS, {"fields": "spreadsheetId", "key": "k", "alt": "json", "prettyPrint": "false", "quotaUser": "q"}) == []
    one(validate("GET", SHEETS, {"includeGridDta": "false"}), "unknown query parameter includeGridDta", "did you mean 'includeGridData'")
    one(validate("POST", f"{DRIVE}/abc/permissions", {"withLink": "true"}, {"type": "anyone", "role": "reader"}), "unknown query parameter withLink")
    one(validate("GET", SHEETS, {"alt": "xml"}), "alt='xml'", "not one of json, media, proto")


def test_booleans_are_true_or_false():
    assert validate("GET", SHEETS, {"includeGridData": "true"}) == []
    one(validate("GET", SHEETS, {"includeGridData": True}), "includeGridData='True'", "'true' or 'false'")
    one(validate("POST", DRIVE, {"supportsAllDrives": "1"}, {"name": "x"}), "supportsAllDrives='1'")
    one(validate("GET", SHEETS, {"prettyPrint": ""}), "prettyPrint=''")


def test_integers_enums_and_repeats():
    assert validate("GET", DRIVE, {"pageSize": "10", "corpora": "user"}) == []
    one(validate("GET", DRIVE, {"pageSize": "ten"}), "pageSize='ten'", "not an integer")
    one(validate("GET", DRIVE, {"pageSize": "0"}), "below the minimum")
    one(validate("GET", DRIVE, {"pageSize": str(2**31)}), "out of range")
    one(validate("GET", f"{SHEETS}/values:batchGet", {"ranges": "A1", "valueRenderOption": "FORMULAS"}), "not one of FORMATTED_VALUE")
    assert validate("GET", f"{SHEETS}/values:batchGet", {"ranges": ["A1", "B2", "C3"]}) == []
    one(validate("GET", f"{SHEETS}/values:batchGet", {"ranges": "A1", "majorDimension": ["ROWS", "ROWS"]}), "given 2 times")


def test_required_query_parameters():
    assert validate("GET", f"{DRIVE}/abc/export", {"mimeType": "text/csv"}) == []
    one(validate("GET", f"{DRIVE}/abc/export"), "required query parameter mimeType is missing")


# -- the body --------------------------------------------------------------------------------------

def test_unknown_fields_anywhere_in_the_body():
    one(validate("POST", f"{DRIVE}/abc/permissions", None, {"type": "anyone", "role": "reader", "withLink": True}),
        "body: unknown field 'withLink' in Permission")
    one(batch({"addSheet": {"properties": {"title": "x", "hiden": True}}}),
        "body.requests[0].addSheet.properties: unknown field 'hiden' in SheetProperties", "did you mean 'hidden'")
    one(validate("POST", f"{SHEETS}:batchUpdate", None, {"requests": [], "includeSpreadsheetInResonse": True}),
        "'includeSpreadsheetInResonse' in BatchUpdateSpreadsheetRequest")


def test_json_types():
    cell = {"range": {"sheetId": 0}, "fields": "userEnteredValue"}
    assert batch({"repeatCell": {**cell, "cell": {"userEnteredValue": {"numberValue": 1.5}}}}) == []
    assert batch({"updateSheetProperties": {"properties": {"sheetId": "7", "gridProperties": {"rowCount": 10.0}}, "fields": "gridProperties"}}) == []
    one(batch({"repeatCell": {**cell, "cell": {"userEnteredValue": {"stringValue": 5}}}}), "stringValue: expected a string, got the number 5")
    one(batch({"repeatCell": {**cell, "cell": {"userEnteredValue": {"numberValue": "many"}}}}), "numberValue: expected a number")
    one(batch({"repeatCell": {**cell, "cell": {"userEnteredValue": {"boolValue": "true"}}}}), "boolValue: expected a boolean")
    one(batch({"updateSheetProperties": {"properties": {"sheetId": 1.5}, "fields": "title"}}), "sheetId: expected an integer, got 1.5")
    one(batch({"updateSheetProperties": {"properties": {"sheetId": True}, "fields": "title"}}), "sheetId: expected an integer, got the boolean true")
    one(batch({"updateSheetProperties": {"properties": {"sheetId": 2**31}, "fields": "title"}}), "out of range for int32")
    one(batch({"updateCells": {**cell, "rows": {"values": []}}}), "rows: expected an array, got an object")
    one(batch({"updateCells": {**cell, "rows": [[]]}}), "rows[0]: expected RowData (an object), got an array")
    one(batch({"updateCells": {**cell, "rows": [None]}}), "rows[0]: null is not allowed in a list")
    assert batch({"updateCells": {**cell, "rows": [{"values": [{"userEnteredValue": None}]}]}}) == []  # null: the default


def test_enums_and_formats():
    assert batch({"addSheet": {"properties": {"sheetType": "GRID"}}}) == []
    one(batch({"addSheet": {"properties": {"sheetType": "grid"}}}), "'grid' is not one of")
    file = {"name": "x", "size": "12", "modifiedTime": "2026-11-22T12:00:00.5Z", "appProperties": {"game": "wgm"},
            "contentHints": {"thumbnail": {"image": "aGVsbG8_", "mimeType": "image/png"}}}
    assert validate("POST", DRIVE, None, file) == []
    one(validate("POST", DRIVE, None, {"size": "12kB"}), "size: '12kB' is not an integer (int64")
    assert validate("POST", DRIVE, None, {"size": 12}) == []  # Google takes a JSON number for an int64 too
    one(validate("POST", DRIVE, None, {"modifiedTime": "22/11/2026"}), "not an RFC 3339 date-time")
    one(validate("POST", DRIVE, None, {"contentHints": {"thumbnail": {"image": "not base64!"}}}), "is not base64")
    one(validate("POST", DRIVE, None, {"appProperties": {"game": 7}}), "appProperties['game']: expected a string")
    one(validate("POST", DRIVE, None, {"appProperties": ["game"]}), "appProperties: expected an object")


def test_one_kind_of_request_and_of_value():
    one(batch({}), "Request takes exactly one of its fields, got 0")
    one(batch({"addSheet": {}, "deleteSheet": {"sheetId": 1}}), "got 2: addSheet, deleteSheet")
    cell = {"range": {"sheetId": 0}, "fields": "userEnteredValue"}
    one(batch({"repeatCell": {**cell, "cell": {"userEnteredValue": {"stringValue": "=1", "formulaValue": "=1"}}}}),
        "ExtendedValue takes at most 1")


def test_fields_drive_requires():
    one(validate("POST", f"{DRIVE}/abc/permissions", None, {"role": "reader"}), "Permission.type is required by drive.permissions.create")


def test_bodies_that_are_not_json_or_not_expected():
    one(validate("POST", f"{SHEETS}:batchUpdate", None, '{"requests": [{"repeatCell": {"cell": {"userEnteredValue": {"numberValue": NaN}}}}]}'),
        "not valid JSON")
    one(validate("POST", f"{SHEETS}:batchUpdate", None, b"{requests"), "not valid JSON")
    one(validate("GET", SHEETS, None, {"ranges": ["A1"]}), "takes no body")
    assert validate("POST", f"{SHEETS}:batchUpdate", None, json.dumps({"requests": []}).encode()) == []
    assert validate("POST", "https://www.googleapis.com/upload/drive/v3/files?uploadType=multipart", None, b"--boundary\r\n...") == []


# -- field masks -----------------------------------------------------------------------------------

def test_fields_masks_against_the_response():
    ok = ["*", "spreadsheetId,properties/title", "sheets.properties.title",
          "sheets(properties(sheetId,title),data(rowData(values(userEnteredValue,formattedValue))))",
          "sheets/data/rowData/values/userEnteredValue/stringValue", "sheets(properties(gridProperties/rowCount))"]
    for mask in ok:
        assert validate("GET", SHEETS, {"fields": mask}) == [], mask
    assert validate("POST", f"{DRIVE}/abc/permissions", {"fields": "id,emailAddress,permissionDetails(role)"},
                    {"type": "anyone", "role": "reader"}) == []
    one(validate("GET", SHEETS, {"fields": "sheets(properties(sheetId,titel))"}), "no field 'titel' in SheetProperties", "did you mean 'title'")
    one(validate("GET", SHEETS, {"fields": "sheets/properties/title/text"}), "sheets.properties.title is a string, which has no fields")
    one(validate("GET", SHEETS, {"fields": "replies"}), "no field 'replies' in Spreadsheet")
    assert validate("POST", f"{SHEETS}:batchUpdate", {"fields": "replies,updatedSpreadsheet(sheets(properties))"}, {"requests": []}) == []
    one(validate("DELETE", f"{DRIVE}/abc", {"fields": "id"}), "answers with no body")


@pytest.mark.parametrize("mask, problem", [
    ("sheets(properties(sheetId)", "unclosed '('"),
    ("sheets(properties))", "unexpected ')'"),
    ("spreadsheetId,,properties", "a field name is missing"),
    ("sheets()", "a field name is missing"),
    ("spreadsheetId properties", "unexpected ' '"),
    ("", "the mask is empty"),
])
def test_field_mask_syntax(mask, problem):
    one(validate("GET", SHEETS, {"fields": mask}), problem)


def test_field_masks_in_the_body_are_relative_to_the_request_root():
    cell = {"range": {"sheetId": 0}, "rows": [{"values": [{"userEnteredValue": {"stringValue": "x"}}]}]}
    assert batch({"updateCells": {**cell, "fields": "userEnteredValue,userEnteredFormat(textFormat/bold,backgroundColorStyle)"}}) == []
    assert batch({"updateCells": {**cell, "fields": "*"}}) == []
    assert batch({"appendCells": {"sheetId": 0, "rows": cell["rows"], "fields": "userEnteredValue,note"}}) == []
    one(batch({"updateCells": {**cell, "fields": "rows.values.userEnteredValue"}}), "updateCells.fields=", "no field 'rows' in CellData")
    one(batch({"updateCells": {**cell, "fields": "userEnteredValue.text"}}), "no field 'text' in ExtendedValue")
    one(batch({"updateCells": cell}), "updateCells.fields: UpdateCellsRequest needs a field mask")
    one(batch({"repeatCell": {"range": {"sheetId": 0}, "cell": {}, "fields": ""}}), "repeatCell.fields: RepeatCellRequest needs a field mask")
    one(batch({"repeatCell": {"range": {"sheetId": 0}, "cell": {}, "fields": "cell.userEnteredFormat"}}), "no field 'cell' in CellData")
    assert batch({"updateSheetProperties": {"properties": {"sheetId": 1, "hidden": True}, "fields": "hidden,gridProperties(frozenRowCount)"}}) == []
    one(batch({"updateSheetProperties": {"properties": {"sheetId": 1}, "fields": "properties.hidden"}}), "no field 'properties' in SheetProperties")
    range_ = {"sheetId": 0, "dimension": "COLUMNS", "startIndex": 0, "endIndex": 1}
    assert batch({"updateDimensionProperties": {"range": range_, "properties": {"pixelSize": 120}, "fields": "pixelSize"}}) == []
    one(batch({"updateDimensionProperties": {"range": range_, "properties": {"hiddenByUser": True}, "fields": "hidden"}}),
        "no field 'hidden' in DimensionProperties")
    one(batch({"updateDimensionProperties": {"range": range_, "properties": {"pixelSize": 1}, "fields": "pixelSize("}}), "a field name is missing")


def test_every_mask_in_the_sheets_document_has_a_root():
    services = google_discovery._services()
    assert services is not None
    roots = services[0].mask_roots
    assert len(roots) >= 17 and all(root for root, _ in roots.values()), roots
    assert roots["UpdateCellsRequest"][0] == roots["RepeatCellRequest"][0] == roots["AppendCellsRequest"][0] == "CellData"
    assert roots["UpdateSheetPropertiesRequest"][0] == "SheetProperties"
    assert roots["UpdateDimensionPropertiesRequest"][0] == "DimensionProperties"
    assert roots["UpdateEmbeddedObjectPositionRequest"] == ("OverlayPosition", False)


# -- the check as the fake uses it -----------------------------------------------------------------

def test_check_request_raises_with_every_finding_unless_unchecked():
    check_request("POST", f"{DRIVE}/abc/permissions", {"sendNotificationEmail": "false"}, {"type": "user", "role": "reader", "emailAddress": "a@b.c"})
    with pytest.raises(AssertionError, match=r"(?s)Google would refuse.*sendNotificationEmail='False'.*withLink"):
        check_request("POST", f"{DRIVE}/abc/permissions", {"sendNotificationEmail": False}, {"type": "user", "role": "reader", "withLink": False})
    with unchecked():
        check_request("GET", "https://example.com/")


def test_without_the_documents_tests_fail_and_the_host_goes_on(monkeypatch):
    monkeypatch.setattr(google_discovery, "documents_folder", lambda: None)
    google_discovery._services.cache_clear()
    try:
        assert not google_discovery.available()
        one(validate("GET", SHEETS), "google-api-python-client is not installed")
        monkeypatch.delitem(__import__("sys").modules, "pytest")
        assert validate("GET", "https://example.com/") == []
    finally:
        monkeypatch.undo()
        google_discovery._services.cache_clear()
    assert google_discovery.available()


def test_the_fake_fails_the_test_on_a_request_google_refuses_without_retrying():
    from sheets_host.fakes.google import fake_backend

    backend, fake = fake_backend()
    http = backend.client.http_client
    with pytest.raises(AssertionError, match="unknown field 'withLink'"):
        http.request("post", f"{DRIVE}/x/permissions", json={"type": "anyone", "role": "reader", "withLink": False})
    assert fake.requests == [] and fake.sleeps == []


# -- deprecated fields -----------------------------------------------------------------------------
# Issue 34: every colour went as CellFormat.backgroundColor, which the document marks deprecated,
# and nothing said so. Whatever the documents mark deprecated is a finding, wherever it is named.

def _documents() -> dict[str, dict]:
    folder = google_discovery.documents_folder()
    assert folder is not None
    return {name.split(".")[0]: json.loads((folder / name).read_text()) for name in google_discovery.DOCUMENTS}


def _deprecated(doc: dict) -> list[tuple[str, str]]:
    """(schema, property) of every property the document marks deprecated."""
    return [(name, key) for name, schema in doc["schemas"].items()
            for key, spec in schema.get("properties", {}).items() if spec.get("deprecated")]


def _path_to(doc: dict, root: str, target: str) -> list[str] | None:
    """The properties leading from schema `root` to an object of schema `target` ("[]" crosses a
    list, "{}" a map), the shortest; None when none does."""
    schemas, seen, queue = doc["schemas"], {root}, [(root, [])]
    while queue:
        name, path = queue.pop(0)
        if name == target:
            return path
        for key, spec in schemas[name].get("properties", {}).items():
            steps, inner = [key], spec
            while "$ref" not in inner and inner.get("type") in ("array", "object"):
                inner = inner.get("items") or inner.get("additionalProperties") or {}
                steps.append("[]" if spec.get("type") == "array" else "{}")
            ref = inner.get("$ref")
            if ref and ref not in seen:
                seen.add(ref)
                queue.append((ref, path + steps))
    return None


def _nest(path: list[str], leaf: object) -> object:
    for step in reversed(path):
        leaf = [leaf] if step == "[]" else {"k": leaf} if step == "{}" else {step: leaf}
    return leaf


def _bodies(doc: dict) -> dict[str, tuple[str, str]]:
    """Each method with a request body: (verb, URL) to send it to."""
    root = f"https://{doc['rootUrl'].split('//')[1]}{doc['servicePath']}"
    out = {}

    def walk(resource):
        for spec in resource.get("methods", {}).values():
            if "request" in spec:
                out[spec["request"]["$ref"]] = (spec["httpMethod"], root + spec["path"].replace("{", "").replace("}", "").replace("+", ""))
        for sub in resource.get("resources", {}).values():
            walk(sub)

    walk(doc)
    return out


def test_every_property_the_documents_mark_deprecated_is_a_finding_in_any_body_that_can_hold_it():
    sent = 0
    for service, doc in _documents().items():
        bodies = _bodies(doc)
        for schema, key in _deprecated(doc):
            for request, (verb, url) in bodies.items():
                path = _path_to(doc, request, schema)
                if path is not None:
                    break
            else:
                continue  # only in answers (Drive's About, Change): no request can send it
            findings = validate(verb, url, None, _nest(path + [key], {}))
            assert any(f"{schema}.{key} is deprecated" in f for f in findings), (service, schema, key, findings)
            sent += 1
    assert sent >= 30  # Sheets' colours, borders, filters and charts; Drive's File and Permission


def test_a_colour_of_a_cell_is_sent_as_its_style():
    cell = {"range": {"sheetId": 0}, "fields": "userEnteredFormat"}
    style = {"rgbColor": {"red": 1, "green": 0.5, "blue": 0}}
    assert batch({"repeatCell": {**cell, "cell": {"userEnteredFormat": {
        "backgroundColorStyle": style, "textFormat": {"bold": True, "foregroundColorStyle": {"themeColor": "ACCENT1"}}}}}}) == []
    one(batch({"repeatCell": {**cell, "cell": {"userEnteredFormat": {"backgroundColor": style["rgbColor"]}}}}),
        "requests[0].repeatCell.cell.userEnteredFormat.backgroundColor: CellFormat.backgroundColor is deprecated",
        "background_color_style")
    one(batch({"repeatCell": {**cell, "cell": {"userEnteredFormat": {"textFormat": {"foregroundColor": {}}}}}}),
        "TextFormat.foregroundColor is deprecated")
    border = {"style": "SOLID", "color": {"red": 1}}
    one(batch({"updateBorders": {"range": {"sheetId": 0}, "top": border}}), "Border.color is deprecated")


def test_every_deprecated_field_named_in_a_field_mask_is_a_finding():
    """A body's masks (relative to their roots) and the `fields` of an answer alike."""
    services = google_discovery._services()
    docs, named = _documents(), 0
    for service in services:
        doc = docs[service.name]
        for request, (root, _) in service.mask_roots.items():
            for schema, key in _deprecated(doc):
                path = _path_to(doc, root, schema) if root else None
                if path is None:
                    continue
                mask = ".".join("k" if step == "{}" else step for step in path + [key] if step != "[]")  # a map's key
                findings = check_mask(service, mask, root)
                assert any(f"{schema}.{key} is deprecated" in f for f in findings), (request, mask, findings)
                named += 1
    assert named >= 20
    one(batch({"repeatCell": {"range": {"sheetId": 0}, "cell": {}, "fields": "userEnteredFormat.backgroundColor"}}),
        "repeatCell.fields='userEnteredFormat.backgroundColor'", "CellFormat.backgroundColor is deprecated")
    one(batch({"updateSheetProperties": {"properties": {"sheetId": 1}, "fields": "tabColor"}}), "SheetProperties.tabColor is deprecated")
    one(validate("GET", SHEETS, {"fields": "sheets(data(rowData(values(effectiveFormat(backgroundColor)))))"}),
        "query parameter fields=", "CellFormat.backgroundColor is deprecated")
    assert validate("GET", SHEETS, {"fields": "sheets(data(rowData(values(effectiveFormat(backgroundColorStyle)))))"}) == []


def test_every_query_parameter_the_documents_mark_deprecated_is_a_finding():
    """Drive's `supportsTeamDrives`, `corpus`, `enforceSingleParent`..."""
    docs, given = _documents(), 0
    for method in (m for s in google_discovery._services() for m in s.methods if not m.upload):
        for name, spec in method.spec.get("parameters", {}).items():
            if spec.get("location") == "query" and spec.get("deprecated"):
                url = "https://" + method.template.replace("{", "").replace("}", "").replace("+", "")
                value = spec.get("enum", ["true" if spec.get("type") == "boolean" else "x"])[-1]
                findings = validate(method.verb, url, {name: value}, {} if "request" in method.spec else None)
                assert any(f"query parameter {name} is deprecated" in f for f in findings), (method.id, name, findings)
                given += 1
    assert given >= 30 and docs
    one(validate("GET", DRIVE, {"supportsTeamDrives": "true"}), "supportsTeamDrives is deprecated", "supportsAllDrives")
