"""Values checked against a discovery document's schemas (`sheets_host.fakes.discovery`): query
and path parameters, and a request's JSON body recursively, with its scalars' types and formats.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from .discovery_masks import check_mask, deprecated, parse_mask, suggest
from .discovery_services import Method


_INT_RANGES = {"int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
               "int64": (-2**63, 2**63 - 1), "uint64": (0, 2**64 - 1)}
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})", re.IGNORECASE)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DURATION = re.compile(r"-?\d+(\.\d{1,9})?s")
_INTEGER = re.compile(r"-?\d+")
# Objects of which exactly (or at most) one property may be set, as Google's protos say (the
# discovery documents only describe them in prose): (service, schema) -> (least, most).
_ONE_OF = {("sheets", "Request"): (1, 1), ("sheets", "ExtendedValue"): (0, 1)}


def query_value(value: str, spec: Mapping[str, Any]) -> str | None:
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


def check_body(m: Method, body: Any, out: list[str]) -> None:
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
    def __init__(self, method: Method, out: list[str]):
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
                if props[key].get("deprecated"):
                    self.out.append(f"{where}.{key}: {deprecated(f'{what}.{key}', props[key])}")
                self.value(item, props[key], f"{where}.{key}")
            elif isinstance(extra, dict):
                self.value(item, extra, f"{where}[{key!r}]")
            elif extra is not True:
                self.out.append(f"{where}: unknown field {key!r} in {what}{suggest(key, props)}")
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
                self.out.extend(f"{where}.fields={mask!r}: {p}" for p in check_mask(self.service, mask, root))


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
        problems = parse_mask(value)[1]
        return "; ".join(problems) or None
    return None


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return {dict: "an object", list: "an array"}.get(type(value), type(value).__name__)
