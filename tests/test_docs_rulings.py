"""Every ruling in the docs names its test: each test a doc names (`test_...` in backticks) is a
test in `tests/`, so a renamed or removed test cannot leave a ruling pointing at nothing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_test_the_docs_name_exists():
    defined = set()
    for path in (ROOT / "tests").rglob("*.py"):
        defined |= {m.group(1) for m in re.finditer(r"^\s*def (test_\w+)", path.read_text(), re.M)}
    named = {}
    for doc in (ROOT / "docs").rglob("*.md"):
        for name in re.findall(r"`(test_\w+)(?:\[[^\]]*\])?`", doc.read_text()):
            named.setdefault(name, doc.relative_to(ROOT).as_posix())
    missing = sorted(f"{doc}: {name}" for name, doc in named.items() if name not in defined)
    assert named and not missing, missing
