"""A discovery document's service and its methods, as the checks of `google_discovery` (the URL
and query), `google_discovery_values` (bodies) and `google_discovery_masks` (field masks) use
them: here, below all three, so that they import it and not each other."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Method:
    id: str
    verb: str
    template: str  # host and path, as in the document
    spec: dict[str, Any]
    service: Service
    strict: re.Pattern[str]
    loose: re.Pattern[str]
    names: dict[str, str]  # regex group -> parameter name
    literal: int  # characters outside {...}: the more, the more specific
    upload: bool = False


@dataclass
class Service:
    name: str
    doc: dict[str, Any]
    methods: list[Method] = field(default_factory=list)
    mask_roots: dict[str, tuple[str | None, bool]] = field(default_factory=dict)
    # schema -> (property, the methods that require it), from Drive's `annotations.required`
    required: dict[str, list[tuple[str, tuple[str, ...]]]] = field(default_factory=dict)

    @property
    def schemas(self) -> dict[str, Any]:
        return self.doc["schemas"]
