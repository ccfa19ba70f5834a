"""Render every tab of a demo game's books to PNG, as players and the host see them.

Plays a game by bots for a few rounds on offline books (leaving one check with a problem in a
player's status), then has LibreOffice (headless) draw each visible tab of the host, public and
first player's books. Not run in CI; needs `soffice` and `pdftoppm` on PATH (Debian:
libreoffice-calc-nogui, poppler-utils).

    .venv/bin/python scripts/render_books.py magicians-market --out gallery

The gallery is for looking, not for git (`/gallery/` is ignored). With `--docs`, the mid-game
first player's status and submit tabs and an announcement's picture (the game's own, halfway
through a game by bots: `docs_announcement`) are also saved small, cropped to what they show, as
`docs/pictures/<game>-status.png`, `-submit.png` and `-announcement.png`: the pictures the README
and the game's doc show, every colour that carries meaning kept (`tests/test_docs_pictures.py`).

    .venv/bin/python scripts/render_books.py magicians-market --docs

With `--season FOLDER` (an offline season, `sheets-host season new`), it draws the season's books
instead: every tab of the host's season book and of the public one, the `season` tab of the first
player of the cast in each game's books, every player's `decision` and `death match pick` tab (the
week's asks), and the picture `season post` sends (`season.png`).

    .venv/bin/python scripts/render_books.py --season seasons/s1
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
from PIL import Image, ImageChops

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.delivery import submit_tab
from sheets_host.engine.play import bot_names, bot_states, bots_submit, default_settings, host_types
from sheets_host.games import get_game, names as game_names
from sheets_host.kit.layout import unkeyed


def play(game_name: str, folder: Path, rounds: int | None, seed: int) -> list[str]:
    """A game `rounds` rounds in (None: to its end), the next round's submissions checked; returns
    the players."""
    game = get_game(game_name)
    backend = XlsxBackend(folder)
    names = bot_names(game.default_players or game.max_players)
    engine.new_game(backend, game.name, names, seed, settings={"first deadline": "2030-01-01 18:00",
                                                                 "round hours": 24})
    played = 0
    while rounds is None or played < rounds:
        played += 1
        session = engine.open_session(backend)
        if game.is_over(session.state):
            break
        bots_submit(backend, session, seed)
        if host_types(backend, session, seed):  # what the host types (an event hosted by hand)
            session = engine.open_session(backend)
        engine.resolve(backend, early=True)
    session = engine.open_session(backend)
    if not game.is_over(session.state):
        bots_submit(backend, session, seed + 1)
        # One untidy row in the first player's first submit tab (not always `submit`: the Academy's
        # is `preferences` or an event's), so their status shows how a problem looks.
        tabs = game.submit_tabs(session.state, names[0])
        if tabs:
            tab = tabs[0]
            book = backend.book(f"player:{names[0]}")
            submit = unkeyed(book.read([tab.name])[tab.name])
            extra = pd.DataFrame([["no such thing"] + [None] * (len(submit.columns) - 1)], columns=submit.columns)
            typed, layout = submit_tab(game, session.state, names[0], tab, pd.concat([submit, extra], ignore_index=True))
            book.write({tab.name: typed}, layouts={tab.name: layout})
        engine.check(backend)
    return names


def split(book: Path, into: Path, only: str | None = None, name: str | None = None) -> list[Path]:
    """One copy of `book` per visible tab (only the tab `only`, when given), holding only that tab
    (LibreOffice draws the active one), named from `name` (else the book's)."""
    wb = openpyxl.load_workbook(book)
    names = [ws.title for ws in wb.worksheets if ws.sheet_state == "visible" and only in (None, ws.title)]
    copies = []
    for i, tab in enumerate(names):
        wb = openpyxl.load_workbook(book)
        for other in [ws for ws in wb.worksheets if ws.title != tab]:
            wb.remove(other)
        wb.active = 0
        ws = wb[tab]
        ws.sheet_state = "visible"
        # One page wide, as many long as it takes, as a player scrolls it on a screen.
        ws.page_setup.orientation = "landscape"
        ws.sheet_properties.pageSetUpPr.fitToPage = True
        ws.page_setup.fitToWidth, ws.page_setup.fitToHeight = 1, 0
        path = into / f"{name or book.stem}-{i:02d}-{tab.replace(' ', '_')}.xlsx"
        wb.save(path)
        copies.append(path)
    return copies


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", nargs="?", choices=game_names())
    parser.add_argument("--season", type=Path, help="a season's folder: draw its books instead of a game's")
    parser.add_argument("--out", type=Path, default=Path("gallery"))
    parser.add_argument("--rounds", type=int, default=2, help="rounds resolved before the mid-game books")
    parser.add_argument("--stage", choices=["mid", "end", "both"], default="both",
                        help="mid-game books, end-of-game books (the game played to its end), or both")
    parser.add_argument("--docs", action="store_true",
                        help="also save the small pictures of docs/pictures/: the tabs from the mid-game books, "
                             "the announcement's picture from a game by bots")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    if (args.game is None) == (args.season is None):
        parser.error("name a GAME, or a season's folder with --season")
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    pdftoppm = shutil.which("pdftoppm")
    if soffice is None or pdftoppm is None:
        print("LibreOffice and poppler are needed: install libreoffice-calc-nogui and poppler-utils (Debian) "
              "and run again", file=sys.stderr)
        return 1
    if args.season is not None:
        out = args.out / "season" / args.season.name
        out.mkdir(parents=True, exist_ok=True)
        if render_season(args.season, out, soffice, pdftoppm):
            return 1
        for png in sorted(out.glob("*.png")):
            print(png)
        return 0
    stages = {"mid": args.rounds, "end": None}
    for stage in (["mid", "end"] if args.stage == "both" else [args.stage]):
        out = args.out / args.game / stage
        out.mkdir(parents=True, exist_ok=True)
        docs = DOCS if args.docs and stage == "mid" else None
        if render(args.game, stages[stage], args.seed, out, soffice, pdftoppm, docs):
            return 1
        for png in sorted(out.glob("*.png")):
            print(png)
    return 0


SEED = 1  # the docs' pictures are made with it
DOCS = Path(__file__).resolve().parent.parent / "docs" / "pictures"
DOCS_WIDTH = 560  # pixels: small enough to sit in a README beside its text


def small(picture: Image.Image, to: Path, height: int | None = None) -> None:
    """`picture` made small for the docs (`shrink`) and saved in at most 256 colours (a quarter of the
    size, text as sharp) when that keeps every colour that carries meaning, else in all of them."""
    image = shrink(picture, height)
    # An octree keeps a key's few pixels of a colour; a median cut to 64 colours merged them into grey.
    few = image.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    to.parent.mkdir(parents=True, exist_ok=True)
    (image if lost_colours(picture, few, height) else few).save(to, optimize=True)


def shrink(picture: Image.Image, height: int | None = None) -> Image.Image:
    """`picture` cropped to what it shows (a margin kept; at most `height` pixels from its top) and
    scaled down to at most DOCS_WIDTH."""
    image = picture.convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, image.getpixel((0, 0)))).getbbox()
    if box:
        margin = 8
        image = image.crop((max(0, box[0] - margin), max(0, box[1] - margin),
                            min(image.width, box[2] + margin), min(image.height, box[3] + margin)))
    if height is not None and image.height > height:
        image = image.crop((0, 0, image.width, height))
    if image.width > DOCS_WIDTH:
        image = image.resize((DOCS_WIDTH, round(image.height * DOCS_WIDTH / image.width)), Image.LANCZOS)
    return image


MEANING = 100  # pixels: a colour covering that many of a picture carries meaning (a key's swatch, a board)
KEPT = 24  # at most this far off (0-255, the channel most off) where a copy shows it, a colour reads as itself


def lost_colours(picture: Image.Image, copy: Image.Image, height: int | None = None) -> dict[tuple[int, int, int], int]:
    """The colours the docs' `copy` of `picture` (`shrink(picture, height)`'s size) no longer shows
    as they are, each with how far off it is: those covering at least MEANING pixels of `picture`
    whose pixels in the copy are, by their median, more than KEPT off."""
    want = np.asarray(shrink(picture, height), dtype=np.int16).reshape(-1, 3)
    off = np.abs(np.asarray(copy.convert("RGB"), dtype=np.int16).reshape(-1, 3) - want).max(axis=1)
    meaning = [colour for count, colour in picture.convert("RGB").getcolors(picture.width * picture.height)
               if count >= MEANING]
    # Where the copy shows each colour: where the picture made small is within 8 of it (scaling
    # blurs its edges), found among that one's few thousand distinct colours, not its every pixel.
    packed, where = np.unique(want.astype(np.int32) @ [1 << 16, 1 << 8, 1], return_inverse=True)
    seen = np.stack([packed >> 16, packed >> 8 & 255, packed & 255], axis=1)
    near = np.abs(seen[:, None, :] - np.array(meaning, dtype=np.int32).reshape(1, -1, 3)).max(axis=2) <= 8
    lost = {}
    for k, colour in enumerate(meaning):
        shown = off[near[where, k]]
        if shown.size and (median := round(np.median(shown))) > KEPT:
            lost[colour] = median
    return lost


def docs_announcement(game_name: str, seed: int) -> bytes | None:
    """The announcement picture the game's doc shows: the last one drawn by the middle of a whole game
    by bots (in memory), so that it shows the game under way (the first one when none is drawn by
    then); None for a game that draws none."""
    game = get_game(game_name)
    settings = default_settings(game)
    states = bot_states(game, bot_names(game.default_players or game.max_players), seed, settings["config"],
                        settings["data"])
    drawn, played = [], 0
    for played, state in enumerate(states):
        if played and (png := game.picture(state)):  # the set-up is announced by no picture
            drawn.append((played, png))
    if not drawn:
        return None
    middle = (played + 1) // 2  # `played`: the rounds of the whole game
    return ([png for r, png in drawn if r <= middle] or [drawn[0][1]])[-1]


def render(game: str, rounds: int | None, seed: int, out: Path, soffice: str, pdftoppm: str,
           docs: Path | None = None) -> int:
    """Plays the game and draws every visible tab of the host's, the public and the first player's
    books into `out` (and, given `docs`, the small pictures of the docs there); non-zero when
    LibreOffice fails."""
    with tempfile.TemporaryDirectory() as tmp:
        folder, pieces = Path(tmp) / "game", Path(tmp) / "pieces"
        pieces.mkdir()
        names = play(game, folder, rounds, seed)
        books = [folder / "host.xlsx", folder / "public.xlsx", folder / "players" / f"{names[0]}.xlsx"]
        if draw([c for b in books for c in split(b, pieces)], pieces, out, soffice, pdftoppm):
            return 1
        if docs is not None:
            session = engine.open_session(XlsxBackend(folder))
            submit = get_game(game).submit_tabs(session.state, names[0])[0].name.replace(" ", "_")
            small(Image.open(out / f"{names[0]}-00-status-1.png"), docs / f"{game}-status.png")
            # The top of the submit tab: what was typed and a few of the shaded rows left to type in.
            submitted = next(out.glob(f"{names[0]}-[0-9][0-9]-{submit}-1.png"))
            small(Image.open(submitted), docs / f"{game}-submit.png", height=180)
            if announced := docs_announcement(game, seed):
                small(Image.open(io.BytesIO(announced)), docs / f"{game}-announcement.png")
    return 0


def draw(copies: list[Path], pieces: Path, out: Path, soffice: str, pdftoppm: str) -> int:
    """Each of `copies` (one tab each, in `pieces`) drawn to PNG in `out`; non-zero when LibreOffice fails."""
    # Headless LibreOffice has no PNG export for sheets: PDF, then poppler's pdftoppm.
    # A profile of its own: a LibreOffice already running (another render, a person's) is left alone.
    profile = f"-env:UserInstallation={(pieces / 'profile').resolve().as_uri()}"
    done = subprocess.run([soffice, profile, "--headless", "--convert-to", "pdf", "--outdir", str(pieces),
                           *map(str, copies)], capture_output=True, text=True)
    if done.returncode:
        print(done.stderr, file=sys.stderr)
        return 1
    for pdf in sorted(pieces.glob("*.pdf")):
        subprocess.run([pdftoppm, "-png", "-r", "80", str(pdf), str(out / pdf.stem)], check=True)
    return 0


def render_season(folder: Path, out: Path, soffice: str, pdftoppm: str) -> int:
    """Draws every tab of a season's host and public books, the `season` tab of the cast's first
    player in each game of it, and the season's picture into `out`; non-zero when LibreOffice fails."""
    from sheets_host.season import picture
    from sheets_host.season.asking import DECISION_TAB, PICK_TAB
    from sheets_host.season.books import SEASON_TAB, seen
    from sheets_host.season.tabs import load

    season = load(XlsxBackend(folder).book("host").read())
    with tempfile.TemporaryDirectory() as tmp:
        pieces = Path(tmp)
        copies = [c for b in ("host", "public") for c in split(folder / f"{b}.xlsx", pieces, name=f"season-{b}")]
        for game in season.games:
            player = next((p for p in season.cast if p in game.players), None)
            book = folder / game.where / "players" / f"{player}.xlsx"  # a game on Google has none
            if player and book.is_file():
                copies += split(book, pieces, only=SEASON_TAB, name=f"game-{game.number}-{player}")
            for book in sorted((folder / game.where / "players").glob("*.xlsx")):  # the week's asks
                for tab in (DECISION_TAB, PICK_TAB):
                    if tab in openpyxl.load_workbook(book, read_only=True).sheetnames:
                        copies += split(book, pieces, only=tab, name=f"game-{game.number}-{book.stem}")
        if draw(copies, pieces, out, soffice, pdftoppm):
            return 1
    (out / "season.png").write_bytes(picture.draw(seen(season)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
