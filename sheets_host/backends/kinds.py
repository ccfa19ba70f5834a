"""The backend a command opens, by kind. Apart from the package's `__init__`, which both backends
build on, so that the package never imports its own backends back.
"""

from __future__ import annotations

from pathlib import Path

from sheets_host.kit.errors import BookError
from . import Backend


def open_backend(kind: str, where: str, **options) -> Backend:
    """The backend of `kind` ('xlsx' or 'gsheets') for a game at `where`. Each is imported only when
    opened: an offline command never loads gspread and the Google client."""
    if kind == "xlsx":
        from sheets_host.backends.xlsx.backend import XlsxBackend

        return XlsxBackend(Path(where))
    if kind == "gsheets":
        from sheets_host.backends.gsheets.backend import GoogleBackend

        return GoogleBackend.from_where(where, **options)
    raise BookError(f"unknown backend {kind!r}; allowed: xlsx, gsheets")
