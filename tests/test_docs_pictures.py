"""The README and each game's doc show what players get (issue 26): every picture they link exists,
and each game's doc shows a player's status and submit tabs, made by
`scripts/render_books.py GAME --stage mid --docs`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sheets_host.games import names

ROOT = Path(__file__).resolve().parent.parent
PICTURE = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")


def pictures(doc: Path) -> list[Path]:
    return [(doc.parent / link).resolve() for link in PICTURE.findall(doc.read_text())]


def test_every_linked_picture_exists():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    assert [f"{d.relative_to(ROOT)}: {p.relative_to(ROOT)}" for d in docs for p in pictures(d) if not p.is_file()] == []


@pytest.mark.parametrize("game", names())
def test_each_games_doc_shows_a_players_status_and_submit_tabs(game):
    shown = {p.name for p in pictures(ROOT / "docs" / "games" / f"{game}.md")}
    assert {f"{game}-status.png", f"{game}-submit.png"} <= shown
