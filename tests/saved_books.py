"""Books saved by a spreadsheet program: each game played offline by seeded bots on a fixed clock
to a round in mid-game (resolved rounds, then the bots' submissions for the next one typed in), the
same every time; and, to make the committed fixtures, that folder re-saved by LibreOffice Calc.

    python -m tests.saved_books     (from the repository's root; needs `soffice` on the PATH)

writes `tests/fixtures/libreoffice/<game>/`, every book re-saved as Calc saves it: see
`tests/fixtures/README.md`. The tests regenerate the original folders with `play_to_mid_game`."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from sheets_host import engine
from sheets_host.backends.xlsx import XlsxBackend
from sheets_host.games import get_game
from sheets_host.play import bot_names, bots_submit, host_types

from .conftest import fixed_clock

FIXTURES = Path(__file__).parent / "fixtures" / "libreoffice"
SEED = 3
# Each game, its fewest players (small books) and the rounds resolved before the one left open.
GAMES = {
    "wind-guide-me": 2,
    "magicians-market": 2,
    "pyramid-superiority": 2,
    "spirit-chain": 2,
    "academy-of-witchcraft-arts": 1,  # the pregame
}


def play_to_mid_game(name: str, folder: Path) -> None:
    """`GAMES[name]` rounds resolved, then the bots' submissions for the next round typed in."""
    game = get_game(name)
    backend = XlsxBackend(folder)
    engine.new_game(backend, name, bot_names(game.min_players), SEED, clock=fixed_clock)
    for done in range(GAMES[name] + 1):
        session = engine.open_session(backend, fixed_clock)
        if host_types(backend, session, SEED):
            session = engine.open_session(backend, fixed_clock)
        bots_submit(backend, session, SEED)
        if done < GAMES[name]:
            engine.check(backend, fixed_clock)
            engine.resolve(backend, early=True, clock=fixed_clock)


def books(folder: Path) -> list[Path]:
    """Every book of a game's folder, relative to it."""
    return sorted(p.relative_to(folder) for p in folder.rglob("*.xlsx"))


def resave(folder: Path, into: Path) -> None:
    """Every book of `folder` opened and saved as .xlsx by LibreOffice Calc, under `into`."""
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as profile:
        for book in books(folder):
            # One file a run: books of different folders share names (players/Ada.xlsx, host.xlsx).
            subprocess.run(["soffice", f"-env:UserInstallation=file://{profile}", "--headless", "--convert-to",
                            "xlsx:Calc MS Excel 2007 XML", "--outdir", out, str(folder / book)],
                           check=True, capture_output=True)
            (into / book).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(Path(out) / book.name, into / book)


def main() -> None:
    for name in sys.argv[1:] or GAMES:
        with tempfile.TemporaryDirectory() as tmp:
            play_to_mid_game(name, Path(tmp))
            shutil.rmtree(FIXTURES / name, ignore_errors=True)
            resave(Path(tmp), FIXTURES / name)
        print(name, sum(p.stat().st_size for p in (FIXTURES / name).rglob("*")), "bytes")


if __name__ == "__main__":
    main()
