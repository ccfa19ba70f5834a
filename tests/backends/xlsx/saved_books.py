"""Books saved by a spreadsheet program: each game played offline by seeded bots on a fixed clock
to a round in mid-game (resolved rounds, then the bots' submissions for the next one typed in), the
same every time; and, to make the committed fixtures, that folder re-saved by LibreOffice Calc.

    python -m tests.backends.xlsx.saved_books [GAME... | values]    (from the repository's root; needs `soffice`)

writes `tests/fixtures/libreoffice/<game>/`, every book re-saved as Calc saves it, and
`values.xlsx`, a book of every kind of value the tool writes (`write_values`): see
`tests/fixtures/README.md`. The tests regenerate the originals with `play_to_mid_game` and
`write_values`."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

from sheets_host.backends.xlsx.backend import XlsxBackend, XlsxBook
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.games import get_game
from sheets_host.kit.layout import ColumnLayout, TabLayout

from tests.conftest import fixed_clock

FIXTURES = Path(__file__).parents[2] / "fixtures" / "libreoffice"
SEED = 3
# Each game, its fewest players (small books) and the rounds resolved before the one left open.
GAMES = {
    "wind-guide-me": 2,
    "magicians-market": 2,
    "pyramid-superiority": 2,
    "spirit-chain": 2,
    "academy-of-witchcraft-arts": 1,  # the pregame
}


# What the tool writes, kinds a game's tabs rarely hold: text that looks like something else, long
# numbers (kept as their digits), an empty string, dates and times, and a float of 17 digits.
VALUES = ["007", "3/4", "=1+1", "_x0041_", "", "a\nb", " lead", "TRUE", "€ü😀", 12345678901234567, 10**15 - 1,
          1.5, -3, 0, True, False, None, dt.datetime(2026, 3, 4, 5, 6, 7, 890000), dt.date(2026, 1, 2),
          dt.time(13, 45), dt.timedelta(hours=30, minutes=1), 1e-7, 1e20, 0.1 + 0.2]


def write_values(path: Path) -> XlsxBook:
    """A book of `VALUES` (tab `values`, a row each way, dropdowns on its first columns), a hidden
    tab `hidden` holding a yes and a no, and a protected tab `locked`."""
    book = XlsxBook(path, path.name)
    columns = [f"c{i}" for i in range(len(VALUES))]
    layout = TabLayout(tuple(ColumnLayout(width=12, choices=("yes", "no", "a, b") if i < 3 else ())
                             for i in range(len(columns))), input_rows=5)
    book.write({"values": pd.DataFrame([VALUES, VALUES[::-1]], columns=columns, dtype=object),
                "hidden": pd.DataFrame([["yes", True], ["no", False]], columns=["key", "value"]),
                "locked": pd.DataFrame([["typed"]], columns=["note"])},
               layouts={"values": layout}, hidden=["hidden"], protect={"locked": True})
    return book


def play_to_mid_game(name: str, folder: Path) -> None:
    """`GAMES[name]` rounds resolved, then the bots' submissions for the next round typed in."""
    game = get_game(name)
    backend = XlsxBackend(folder)
    # A fixed secret for the commitments' salts, so that the game played again in a test is the fixture's.
    engine.new_game(backend, name, bot_names(game.min_players), SEED, clock=fixed_clock, salt_key="fixture")
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
    for name in sys.argv[1:] or [*GAMES, "values"]:
        with tempfile.TemporaryDirectory() as tmp:
            if name == "values":
                write_values(Path(tmp) / "values.xlsx")
                resave(Path(tmp), FIXTURES)
                continue
            play_to_mid_game(name, Path(tmp))
            shutil.rmtree(FIXTURES / name, ignore_errors=True)
            resave(Path(tmp), FIXTURES / name)
        print(name, sum(p.stat().st_size for p in (FIXTURES / name).rglob("*")), "bytes")


if __name__ == "__main__":
    main()
