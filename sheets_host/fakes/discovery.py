"""Requests checked against Google's own discovery documents for Sheets v4 and Drive v3.

The documents ship inside ``google-api-python-client`` (a test dependency, not needed to run the
host): ``googleapiclient/discovery_cache/documents/{sheets.v4,drive.v3}.json``. They are read
lazily, on the first check, without importing the client itself.

`validate` says what Google would refuse in one request, as findings (empty: nothing found):

- the URL must be one of the documents' methods (path templates such as
  ``v4/spreadsheets/{spreadsheetId}/values:batchGet`` or ``files/{fileId}/permissions``) and the
  HTTP verb that method's;
- every query parameter must be the method's own or a standard one (``fields``, ``key``, ``alt``,
  ``prettyPrint``, ``quotaUser``...), given once unless repeated, and of its type: booleans
  ``true`` or ``false`` (what Python's ``str(True)`` makes, ``True``, is not the documented form),
  integers in range, enums among their values; required ones present;
- the JSON body must fit the method's request schema, recursively: no unknown property, the right
  JSON type (string, integer, number, boolean, array, object), enum values, ``additionalProperties``
  maps, int64 as digits, date-times, durations, base64, no null inside a list, one kind per Sheets
  ``Request`` and at most one value per ``ExtendedValue``, the properties Drive's documents mark
  required for this method (a permission's ``type`` and ``role``);
- field masks: the ``fields`` parameter against the method's RESPONSE schema (nested parentheses
  ``sheets(properties(sheetId,title))`` and ``/`` or ``.`` paths, ``*`` for everything, lists and
  maps crossed transparently), and every FieldMask inside the body (``updateCells.fields``,
  ``repeatCell.fields``, ``updateSheetProperties.fields``...) against the object the request's
  documentation names as its root (CellData, SheetProperties, DimensionProperties...), which must
  not be empty where the documentation asks for at least one field.

`check_request` raises AssertionError with the findings: what a fake of Google calls on every
request, so a test fails where Google would have refused. Without google-api-python-client
installed the check is skipped, except under pytest, where the missing package is itself a finding.

Here: the documents as read, the URL and the query; values and bodies are checked in
`sheets_host.fakes.discovery_values`, field masks in `sheets_host.fakes.discovery_masks`;
the documents' methods and services as values are `sheets_host.fakes.discovery_services`.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from .discovery_masks import check_mask, deprecated, suggest
from .discovery_services import Method, Service
from .discovery_values import check_body, query_value

DOCUMENTS = ("sheets.v4.json", "drive.v3.json")
# How many requests were checked, by method id ('sheets.spreadsheets.batchUpdate'...).
checked: Counter[str] = Counter()

_MISSING = ("google-api-python-client is not installed: the discovery documents to check requests against are "
            "missing (pip install -e '.[test]')")


def documents_folder() -> Path | None:
    """Where the installed google-api-python-client keeps its discovery documents, if it is installed."""
    try:
        spec = importlib.util.find_spec("googleapiclient")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "discovery_cache" / "documents"
        if all((folder / name).is_file() for name in DOCUMENTS):
            return folder
    return None


@functools.cache
def _services() -> tuple[Service, ...] | None:
    folder = documents_folder()
    if folder is None:
        return None
    return tuple(_service(json.loads((folder / name).read_text(encoding="utf-8"))) for name in DOCUMENTS)


def _service(doc: dict[str, Any]) -> Service:
    service = Service(doc["name"], doc)
    root = urlsplit(doc["rootUrl"])
    base = f"{root.hostname}{root.path}{doc['servicePath']}"

    def walk(resource: Mapping[str, Any]) -> None:
        for spec in resource.get("methods", {}).values():
            service.methods.append(_method(service, spec, base + spec["path"]))
            for protocol in spec.get("mediaUpload", {}).get("protocols", {}).values():
                service.methods.append(_method(service, spec, f"{root.hostname}{protocol['path']}", upload=True))
        for sub in resource.get("resources", {}).values():
            walk(sub)

    walk(doc)
    for name, schema in doc["schemas"].items():
        required = [(k, tuple(p["annotations"]["required"])) for k, p in schema.get("properties", {}).items()
                    if p.get("annotations", {}).get("required")]
        if required:
            service.required[name] = required
        mask = schema.get("properties", {}).get("fields", {})
        if mask.get("format") == "google-fieldmask":
            service.mask_roots[name] = (_mask_root(doc["schemas"], schema, mask.get("description", "")),
                                        "At least one field must be specified." in mask.get("description", ""))
    return service


def _mask_root(schemas: Mapping[str, Any], request: Mapping[str, Any], description: str) -> str | None:
    """The schema a request's `fields` mask is relative to, from its documentation: "The root
    `properties` is implied" (a property of the request, or a path of them), "The root is the
    CellData", "The root `SlicerSpec`" (a schema's name)."""
    m = re.search(r"[Tt]he root (?:is the )?[`'\"]?([A-Za-z][\w.]*)", description)
    if not m:
        return None
    words = m.group(1).rstrip(".").split(".")
    schema: Mapping[str, Any] | None = request
    name = None
    for word in words:
        prop = (schema or {}).get("properties", {}).get(word)
        if prop is None:
            break
        name = (prop.get("items") or prop).get("$ref")
        schema = schemas.get(name or "")
    else:
        return name
    return words[0] if len(words) == 1 and words[0] in schemas else None


def _method(service: Service, spec: dict[str, Any], template: str, *, upload: bool = False) -> Method:
    names: dict[str, str] = {}
    strict, loose, literal = [], [], 0
    for part in re.split(r"(\{[^}]*\})", template):
        if part.startswith("{"):
            reserved = part[1] == "+"
            name = part[2:-1] if reserved else part[1:-1]
            group = f"p{len(names)}"
            names[group] = name
            strict.append(f"(?P<{group}>{'.+' if reserved else '[^/]+'})")
            loose.append(f"(?P<{group}>.+)")
        else:
            literal += len(part)
            strict.append(re.escape(part))
            loose.append(re.escape(part))
    return Method(spec["id"], spec["httpMethod"], template, spec, service,
                   re.compile("".join(strict)), re.compile("".join(loose)), names, literal, upload)


def available() -> bool:
    """Whether the discovery documents can be read (google-api-python-client is installed)."""
    return _services() is not None


def validate(method: str, url: str, params: Mapping[str, Any] | None = None, body: Any = None) -> list[str]:
    """What Google would refuse in this request (see the module's docstring); [] when nothing.

    `url` may carry a query, to which `params` (name -> value or list of values, sent as
    ``str(value)`` as requests does) are added. `body` is the parsed JSON, or its text or bytes.
    """
    services = _services()
    if services is None:
        if "pytest" in sys.modules:
            return [_MISSING]
        return []
    verb = method.upper()
    split = urlsplit(url)
    query = parse_qs(split.query, keep_blank_values=True)
    for name, value in (params or {}).items():
        values = value if isinstance(value, (list, tuple)) else [value]
        query.setdefault(name, []).extend(str(v) for v in values if v is not None)
    target = f"{split.hostname or ''}{split.path}"
    found = _find(services, verb, target)
    if isinstance(found, str):
        return [f"{verb} {target}: {found}"]
    m, path_params = found
    checked[m.id] += 1
    out: list[str] = []
    _check_path(m, path_params, out)
    _check_query(m, query, out)
    check_body(m, body, out)
    return [f"{verb} {m.id} ({target}): {finding}" for finding in out]


def check_request(method: str, url: str, params: Mapping[str, Any] | None = None, body: Any = None) -> None:
    """Raise AssertionError naming every finding of `validate` for this request (unless `unchecked`)."""
    if _unchecked:
        return
    findings = validate(method, url, params, body)
    if findings:
        raise AssertionError("Google would refuse this request (its discovery documents say so):\n  - " + "\n  - ".join(findings))


@contextmanager
def unchecked() -> Iterator[None]:
    """Let requests through `check_request` unchecked: for a test of how a fake answers a request
    that Google refuses."""
    global _unchecked
    _unchecked += 1
    try:
        yield
    finally:
        _unchecked -= 1


_unchecked = 0


# -- the URL ---------------------------------------------------------------------------------------

def _find(services: Iterable[Service], verb: str, target: str) -> tuple[Method, dict[str, str]] | str:
    for kind in ("strict", "loose"):
        matches = [(m, match) for s in services for m in s.methods if (match := getattr(m, kind).fullmatch(target))]
        if not matches:
            continue
        best = max(m.literal for m, _ in matches)
        matches = [(m, match) for m, match in matches if m.literal == best]
        for m, match in matches:
            if m.verb == verb:
                return m, {m.names[g]: unquote(v) for g, v in match.groupdict().items()}
        allowed = ", ".join(sorted(f"{m.verb} ({m.id})" for m, _ in matches))
        return f"{verb} is not a method of {matches[0][0].template}; the discovery documents have {allowed}"
    return "no method of the Sheets v4 or Drive v3 discovery documents has this URL"


def _check_path(m: Method, values: Mapping[str, str], out: list[str]) -> None:
    for name, value in values.items():
        spec = m.spec.get("parameters", {}).get(name, {"type": "string"})
        if not value:
            out.append(f"path parameter {name} is empty")
        elif (problem := query_value(value, spec)):
            out.append(f"path parameter {name}={value!r}: {problem}")


# -- the query -------------------------------------------------------------------------------------

def _check_query(m: Method, query: Mapping[str, list[str]], out: list[str]) -> None:
    own = {k: v for k, v in m.spec.get("parameters", {}).items() if v.get("location") == "query"}
    known = {**m.service.doc.get("parameters", {}), **own}
    for name, values in query.items():
        spec = known.get(name)
        if spec is None:
            out.append(f"unknown query parameter {name}{suggest(name, known)}")
            continue
        if spec.get("deprecated"):
            out.append(deprecated(f"query parameter {name}", spec))
        if len(values) > 1 and not spec.get("repeated"):
            out.append(f"query parameter {name} is given {len(values)} times but is not repeated")
        for value in values:
            if (problem := query_value(value, spec)):
                out.append(f"query parameter {name}={value!r}: {problem}")
        if name == "fields" and values:
            response = (m.spec.get("response") or {}).get("$ref")
            for value in values:
                if response is None:
                    out.append(f"query parameter fields={value!r}: the method answers with no body to select fields of")
                else:
                    out.extend(f"query parameter fields={value!r}: {p}" for p in check_mask(m.service, value, response))
    for name, spec in own.items():
        if spec.get("required") and name not in query:
            out.append(f"required query parameter {name} is missing")
