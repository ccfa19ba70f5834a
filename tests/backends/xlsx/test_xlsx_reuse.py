"""Issue 38: a command writes each book from what it read of the very same file (`XlsxBook._parsed`:
its package, its inflated parts, its rows), rather than open and parse it again. The books a game
leaves are the same, part for part, as when every write opens its file anew, for a game that
appends to tabs (histories, the log), rewrites others and removes some (a round's submit tabs)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.backends.xlsx.ooxml import _Package
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.games import get_game

from tests.conftest import fixed_clock


def play(folder: Path, name: str, rounds: int) -> None:
    backend = XlsxBackend(folder)
    game = get_game(name)
    engine.new_game(backend, game.name, bot_names(game.min_players + 1), 5, clock=fixed_clock, salt_key="issue 38")
    for _ in range(rounds):
        host_types(backend, engine.open_session(backend, fixed_clock), 5)
        bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
        engine.resolve(backend, early=True, clock=fixed_clock)


def parts(folder: Path) -> dict[str, dict[str, bytes]]:
    return {str(p.relative_to(folder)): {n: zipfile.ZipFile(p).read(n) for n in zipfile.ZipFile(p).namelist()}
            for p in sorted(folder.rglob("*.xlsx"))}


@pytest.mark.parametrize("name, rounds", [("magicians-market", 3), ("academy-of-witchcraft-arts", 3)])
def test_books_written_from_what_was_read_are_those_written_from_the_file(name, rounds, tmp_path, monkeypatch):
    play(tmp_path / "reused", name, rounds)
    # Every read and every write opens and parses its file anew: what the tool did before issue 38.
    monkeypatch.setattr(XlsxBook, "_parsed", lambda self, data: (_Package(data), {}))
    play(tmp_path / "fresh", name, rounds)
    reused, fresh = parts(tmp_path / "reused"), parts(tmp_path / "fresh")
    assert list(reused) == list(fresh) and len(reused) > 3
    for book in fresh:
        assert list(reused[book]) == list(fresh[book]), book
        assert [n for n in fresh[book] if reused[book][n] != fresh[book][n]] == [], book
