"""Field masks checked against a discovery document's schemas (`sheets_host.fakes.discovery`): the
``fields`` parameter against a method's response, a FieldMask in a body against its request's root;
and the words the findings share.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .discovery_services import Service


Mask = dict[str, "Mask | None"]


def parse_mask(text: str) -> tuple[Mask, list[str]]:
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


def check_mask(service: Service, text: str, root: str | None) -> list[str]:
    tree, problems = parse_mask(text)
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
                if prop.get("deprecated"):
                    problems.append(deprecated(f"{name}.{key}", prop))
            elif isinstance(extra, dict):
                prop = extra  # a map's key
            else:
                problems.append(f"no field {key!r} in {name}{suggest(key, props or {})}")
                continue
            if sub:
                ref = _through(service, prop).get("id") or key
                walk(sub, prop, ref, f"{path}.{key}" if path else key)

    walk(tree, {"$ref": root}, root, "")
    return problems


def _through(service: Service, schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A schema with $refs followed and lists crossed (a mask names the fields of a list's items)."""
    while True:
        if "$ref" in schema:
            schema = service.schemas[schema["$ref"]]
        elif schema.get("type") == "array":
            schema = schema.get("items", {})
        else:
            return schema


# -- words -----------------------------------------------------------------------------------------

def _article(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def deprecated(what: str, spec: Mapping[str, Any]) -> str:
    """The finding for a property or parameter the document marks deprecated, with the advice its
    description gives ("Deprecated: Use background_color_style.")."""
    advice = re.search(r"Deprecated[:;]?\s*(\S.*)", spec.get("description", ""), re.DOTALL)
    return f"{what} is deprecated" + (f" ({advice.group(1).strip()})" if advice else "")


def suggest(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
