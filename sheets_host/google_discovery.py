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
"""

from __future__ import annotations

import base64
import binascii
import difflib
import functools
import importlib.util
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

DOCUMENTS = ("sheets.v4.json", "drive.v3.json")
# How many requests were checked, by method id ('sheets.spreadsheets.batchUpdate'...).
checked: Counter[str] = Counter()

_INT_RANGES = {"int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
               "int64": (-2**63, 2**63 - 1), "uint64": (0, 2**64 - 1)}
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})", re.IGNORECASE)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DURATION = re.compile(r"-?\d+(\.\d{1,9})?s")
_INTEGER = re.compile(r"-?\d+")
_MISSING = ("google-api-python-client is not installed: the discovery documents to check requests against are "
            "missing (pip install -e '.[test]')")
# Objects of which exactly (or at most) one property may be set, as Google's protos say (the
# discovery documents only describe them in prose): (service, schema) -> (least, most).
_ONE_OF = {("sheets", "Request"): (1, 1), ("sheets", "ExtendedValue"): (0, 1)}


@dataclass
class _Method:
    id: str
    verb: str
    template: str  # host and path, as in the document
    spec: dict[str, Any]
    service: _Service
    strict: re.Pattern[str]
    loose: re.Pattern[str]
    names: dict[str, str]  # regex group -> parameter name
    literal: int  # characters outside {...}: the more, the more specific
    upload: bool = False


@dataclass
class _Service:
    name: str
    doc: dict[str, Any]
    methods: list[_Method] = field(default_factory=list)
    mask_roots: dict[str, tuple[str | None, bool]] = field(default_factory=dict)
    # schema -> (property, the methods that require it), from Drive's `annotations.required`
    required: dict[str, list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)

    @property
    def schemas(self) -> dict[str, Any]:
        return self.doc["schemas"]


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
def _services() -> tuple[_Service, ...] | None:
    folder = documents_folder()
    if folder is None:
        return None
    return tuple(_service(json.loads((folder / name).read_text(encoding="utf-8"))) for name in DOCUMENTS)


def _service(doc: dict[str, Any]) -> _Service:
    service = _Service(doc["name"], doc)
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


def _method(service: _Service, spec: dict[str, Any], template: str, *, upload: bool = False) -> _Method:
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
    return _Method(spec["id"], spec["httpMethod"], template, spec, service,
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
    _check_body(m, body, out)
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

def _find(services: Iterable[_Service], verb: str, target: str) -> tuple[_Method, dict[str, str]] | str:
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


def _check_path(m: _Method, values: Mapping[str, str], out: list[str]) -> None:
    for name, value in values.items():
        spec = m.spec.get("parameters", {}).get(name, {"type": "string"})
        if not value:
            out.append(f"path parameter {name} is empty")
        elif (problem := _query_value(value, spec)):
            out.append(f"path parameter {name}={value!r}: {problem}")


# -- the query -------------------------------------------------------------------------------------

def _check_query(m: _Method, query: Mapping[str, list[str]], out: list[str]) -> None:
    own = {k: v for k, v in m.spec.get("parameters", {}).items() if v.get("location") == "query"}
    known = {**m.service.doc.get("parameters", {}), **own}
    for name, values in query.items():
        spec = known.get(name)
        if spec is None:
            out.append(f"unknown query parameter {name}{_suggest(name, known)}")
            continue
        if len(values) > 1 and not spec.get("repeated"):
            out.append(f"query parameter {name} is given {len(values)} times but is not repeated")
        for value in values:
            if (problem := _query_value(value, spec)):
                out.append(f"query parameter {name}={value!r}: {problem}")
        if name == "fields" and values:
            response = (m.spec.get("response") or {}).get("$ref")
            for value in values:
                if response is None:
                    out.append(f"query parameter fields={value!r}: the method answers with no body to select fields of")
                else:
                    out.extend(f"query parameter fields={value!r}: {p}" for p in _check_mask(m.service, value, response))
    for name, spec in own.items():
        if spec.get("required") and name not in query:
            out.append(f"required query parameter {name} is missing")


def _query_value(value: str, spec: Mapping[str, Any]) -> str | None:
    kind, fmt = spec.get("type", "string"), spec.get("format")
    if kind == "boolean" and value not in ("true", "false"):
        return "a boolean is 'true' or 'false'"
    if kind == "integer" or fmt in _INT_RANGES:
        if not _INTEGER.fullmatch(value):
            return f"not an integer ({fmt or kind})"
        low, high = _INT_RANGES.get(fmt or "int32", _INT_RANGES["int64"])
        if not low <= int(value) <= high:
            return f"out of range for {fmt}"
    if kind == "number":
        try:
            float(value)
        except ValueError:
            return "not a number"
    if "minimum" in spec and float(value) < float(spec["minimum"]):  # above a maximum, Google takes the maximum
        return f"below the minimum, {spec['minimum']}"
    if "enum" in spec and value not in spec["enum"]:
        return f"not one of {', '.join(spec['enum'])}"
    if "pattern" in spec and not re.search(spec["pattern"], value):
        return f"does not match {spec['pattern']}"
    return _format(value, fmt) if isinstance(fmt, str) and kind == "string" else None


# -- the body --------------------------------------------------------------------------------------

class _NotJSON(ValueError):
    pass


def _reject_constant(text: str) -> Any:
    raise _NotJSON(f"{text} is not JSON")


def _check_body(m: _Method, body: Any, out: list[str]) -> None:
    if isinstance(body, (bytes, bytearray)):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        if not body.strip():
            body = None
        elif m.upload:
            return  # multipart or media: not JSON
        else:
            try:
                body = json.loads(body, parse_constant=_reject_constant)
            except ValueError as e:
                out.append(f"the body is not valid JSON: {e}")
                return
    if body is None:
        return
    request = m.spec.get("request")
    if request is None:
        if body != {}:
            out.append(f"{m.id} takes no body, but got {_kind(body)}")
        return
    _Body(m, out).value(body, {"$ref": request["$ref"]}, "body")


class _Body:
    def __init__(self, method: _Method, out: list[str]):
        self.method, self.service, self.out = method, method.service, out

    def value(self, value: Any, schema: Mapping[str, Any], where: str) -> None:
        name = schema.get("$ref")
        if name is not None:
            schema = self.service.schemas[name]
        if value is None:  # JSON null: the default value
            return
        kind = schema.get("type", "object" if "properties" in schema else "any")
        if kind == "any":
            return
        if kind == "object":
            self.object(value, schema, name, where)
        elif kind == "array":
            if not isinstance(value, list):
                self.out.append(f"{where}: expected an array, got {_kind(value)}")
                return
            items = schema.get("items", {})
            for i, item in enumerate(value):
                if item is None and items.get("type") != "any":
                    self.out.append(f"{where}[{i}]: null is not allowed in a list")
                else:
                    self.value(item, items, f"{where}[{i}]")
        elif (problem := _scalar(value, schema)):
            self.out.append(f"{where}: {problem}")

    def object(self, value: Any, schema: Mapping[str, Any], name: str | None, where: str) -> None:
        what = name or "an object"
        if not isinstance(value, dict):
            self.out.append(f"{where}: expected {what} (an object), got {_kind(value)}")
            return
        props, extra = schema.get("properties"), schema.get("additionalProperties")
        if props is None and extra is None:
            return  # a free-form object
        props = props or {}
        for key, item in value.items():
            if key in props:
                self.value(item, props[key], f"{where}.{key}")
            elif isinstance(extra, dict):
                self.value(item, extra, f"{where}[{key!r}]")
            elif extra is not True:
                self.out.append(f"{where}: unknown field {key!r} in {what}{_suggest(key, props)}")
        if name is None:
            return
        for key, methods in self.service.required.get(name, ()):
            if self.method.spec["id"] in methods and value.get(key) is None:
                self.out.append(f"{where}: {what}.{key} is required by {self.method.spec['id']}")
        if (limits := _ONE_OF.get((self.service.name, name))):
            set_ = [k for k, v in value.items() if v is not None]
            least, most = limits
            if not least <= len(set_) <= most:
                which = "exactly one" if least == most else f"at most {most}"
                self.out.append(f"{where}: {what} takes {which} of its fields, got {len(set_)}: {', '.join(set_) or 'none'}")
        if name in self.service.mask_roots:
            root, needed = self.service.mask_roots[name]
            mask = value.get("fields")
            if needed and not mask:
                self.out.append(f"{where}.fields: {what} needs a field mask naming at least one field")
            elif isinstance(mask, str) and mask:
                self.out.extend(f"{where}.fields={mask!r}: {p}" for p in _check_mask(self.service, mask, root))


def _scalar(value: Any, schema: Mapping[str, Any]) -> str | None:
    kind, fmt = schema.get("type"), schema.get("format")
    if kind == "boolean":
        return None if isinstance(value, bool) else f"expected a boolean, got {_kind(value)}"
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return f"expected an integer, got {_kind(value)}"
        if isinstance(value, float):
            if not value.is_integer():
                return f"expected an integer, got {value!r}"
            value = int(value)
        if isinstance(value, str):
            if not _INTEGER.fullmatch(value):
                return f"expected an integer, got {value!r}"
            value = int(value)
        low, high = _INT_RANGES.get(fmt or "int32", _INT_RANGES["int32"])
        return None if low <= value <= high else f"{value} is out of range for {fmt or 'int32'}"
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            return f"expected a number, got {_kind(value)}"
        if isinstance(value, float) and not math.isfinite(value):
            return "NaN and infinities are not JSON (send them as strings)"
        if isinstance(value, str):
            try:
                float(value)
            except ValueError:
                return f"expected a number, got {value!r}"
        return None
    if kind == "string":
        if fmt in ("int64", "uint64") and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str):
            return f"expected a string, got {_kind(value)}"
        if "enum" in schema and value not in schema["enum"]:
            return f"{value!r} is not one of {', '.join(schema['enum'])}"
        # A field mask is checked by the request it belongs to, against that request's root.
        return _format(value, fmt) if fmt and fmt != "google-fieldmask" else None
    return None


def _format(value: str, fmt: str) -> str | None:
    if fmt in _INT_RANGES:
        if not _INTEGER.fullmatch(value):
            return f"{value!r} is not an integer ({fmt}, as a string)"
        low, high = _INT_RANGES[fmt]
        return None if low <= int(value) <= high else f"{value} is out of range for {fmt}"
    if fmt in ("date-time", "google-datetime") and not _DATETIME.fullmatch(value):
        return f"{value!r} is not an RFC 3339 date-time"
    if fmt == "date" and not _DATE.fullmatch(value):
        return f"{value!r} is not a date (YYYY-MM-DD)"
    if fmt == "google-duration" and not _DURATION.fullmatch(value):
        return f"{value!r} is not a duration ('3.5s')"
    if fmt == "byte":
        try:
            base64.b64decode(value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4), validate=True)
        except (binascii.Error, ValueError):
            return f"{value!r} is not base64"
    if fmt == "google-fieldmask":
        problems = _parse_mask(value)[1]
        return "; ".join(problems) or None
    return None


# -- field masks -----------------------------------------------------------------------------------

Mask = dict[str, "Mask | None"]


def _parse_mask(text: str) -> tuple[Mask, list[str]]:
    """'a,b/c,d(e,f(g))' (or 'b.c') -> {'a': None, 'b': {'c': None}, 'd': {'e': None, 'f': {'g': None}}}."""
    tokens = re.findall(r"[A-Za-z_$][\w$]*|\*|[/.,()]|.", text)
    problems: list[str] = []
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def items(depth: int) -> Mask:
        nonlocal pos
        tree: Mask = {}
        while True:
            path: list[str] = []
            while True:
                token = peek()
                if token is None or not (token == "*" or re.fullmatch(r"[A-Za-z_$][\w$]*", token)):
                    problems.append(f"a field name is missing at {_at(text, tokens, pos)}")
                    return tree
                path.append(token)
                pos += 1
                if peek() in ("/", "."):
                    pos += 1
                    continue
                break
            sub: Mask | None = None
            if peek() == "(":
                pos += 1
                sub = items(depth + 1)
                if problems:
                    return tree
                if peek() != ")":
                    problems.append(f"unclosed '(' at {_at(text, tokens, pos)}")
                    return tree
                pos += 1
            node = tree
            for key in path[:-1]:
                child = node.get(key)
                if child is None:
                    child = node[key] = {}
                node = child
            old = node.get(path[-1])
            if sub is None or old is None and path[-1] in node:
                node[path[-1]] = None  # the whole field
            else:
                node[path[-1]] = {**(old or {}), **sub}
            token = peek()
            if token == ",":
                pos += 1
                continue
            if token is None or token == ")" and depth > 0:
                return tree
            problems.append(f"unexpected {token!r} at {_at(text, tokens, pos)}")
            return tree

    tree = items(0) if text else {}
    if not text:
        problems.append("the mask is empty")
    return tree, problems


def _at(text: str, tokens: list[str], pos: int) -> str:
    offset = len("".join(tokens[:pos]))
    return f"character {offset + 1}" if offset < len(text) else "the end"


def _check_mask(service: _Service, text: str, root: str | None) -> list[str]:
    tree, problems = _parse_mask(text)
    if problems or root is None:
        return problems
    if tree == {"*": None}:
        return []

    def walk(tree: Mask, schema: Mapping[str, Any], name: str, path: str) -> None:
        schema = _through(service, schema)
        props, extra = schema.get("properties"), schema.get("additionalProperties")
        kind = schema.get("type", "object" if props is not None else "any")
        if kind == "any" or (kind == "object" and props is None and extra is None):
            return  # free-form: any path
        if kind != "object":
            problems.append(f"{path or name} is {_article(kind)}, which has no fields: cannot select {', '.join(tree)}")
            return
        for key, sub in tree.items():
            if key == "*":
                continue
            if props and key in props:
                prop = props[key]
            elif isinstance(extra, dict):
                prop = extra  # a map's key
            else:
                problems.append(f"no field {key!r} in {name}{_suggest(key, props or {})}")
                continue
            if sub:
                ref = _through(service, prop).get("id") or key
                walk(sub, prop, ref, f"{path}.{key}" if path else key)

    walk(tree, {"$ref": root}, root, "")
    return problems


def _through(service: _Service, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A schema with $refs followed and lists crossed (a mask names the fields of a list's items)."""
    while True:
        if "$ref" in schema:
            schema = service.schemas[schema["$ref"]]
        elif schema.get("type") == "array":
            schema = schema.get("items", {})
        else:
            return schema


# -- words -----------------------------------------------------------------------------------------

def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return {dict: "an object", list: "an array"}.get(type(value), type(value).__name__)


def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _suggest(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
