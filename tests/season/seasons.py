"""Seasons built as values, for the readers' tests: a sample season of eight games, and random
seasons (hypothesis) with a twin that differs only in what some reader must not see."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import strategies as st

from sheets_host.games import names as game_names
from sheets_host.kit.result import (ARTEFACTS, COSMOS, DEATH_MATCH, ELIMINATION, GARNET, GUEST, POWER_OF_DARK,
                                    POWER_OF_LIGHT, THINGS, TOKEN)
from sheets_host.season.ledger import BY, BY_HOST, BY_RESULT, BY_SEASON, Entry
from sheets_host.season.state import Season, SeasonGame, SeasonSettings, Settlement
from sheets_host.season.takes import match_of

CAST = ("Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal")
WHEN = "2026-11-22 12:00:00 UTC"


def _game(number: int, game: str, players, over: bool | None, winners=(), candidates=(), loser=None) -> SeasonGame:
    settled = None if over is None else Settlement(WHEN, over, tuple(winners), tuple(candidates), loser)
    return SeasonGame(str(number), game, match_of(game), f"games/{number}-{game}", "xlsx", tuple(players), number,
                      WHEN, {}, settled)


def sample(garnets_public: bool = False) -> Season:
    """Eight games: two Main Matches and their Death Matches (Di and Fay leave), a third Death
    Match (Gus leaves), Pyramid Superiority with the three eliminated as guests, and a Death
    Match under way; Tokens of Life earned and expired, garnets, cosmos, an artefact, a correction."""
    everyone = CAST
    games = (
        _game(1, "magicians-market", everyone, True, ["Ann"], ["Bo", "Cy"]),
        _game(2, "spirit-chain", ["Bo", "Di"], True, ["Bo"], loser="Di"),
        _game(3, "magicians-market", [p for p in everyone if p != "Di"], True, ["Cy", "Hal"], ["Ed", "Fay"]),
        _game(4, "spirit-chain", ["Ed", "Fay"], True, ["Ed"], loser="Fay"),
        _game(5, "spirit-chain", ["Gus", "Hal"], True, ["Hal"], loser="Gus"),
        _game(6, "pyramid-superiority", ["Ann", "Bo", "Cy", "Di", "Fay", "Gus", "Zed", "Yan", "Xu"], True, ["Ann"],
              ["Bo"]),
        _game(7, "spirit-chain", ["Bo", "Ed"], None),
    )
    rows: list[tuple] = [("", "season new", p, GARNET, 5, "starting garnets (season setting 'starting garnets')",
                          BY_SEASON, None) for p in everyone]
    rows += [("1", "endgame", "Ann", TOKEN, 2, "the sole winner earns two Tokens of Life", BY_RESULT, None),
             *(("1", "endgame", p, GARNET, n, f"{n * 100 + 12} coins at the end: 1 garnet per 100 coins", BY_RESULT,
                None) for p, n in zip(everyone, (3, 1, 2, 1, 1, 2, 1, 2))),
             ("2", "endgame", "Di", ELIMINATION, 1, "lost the Death Match", BY_RESULT, None),
             ("2", "endgame", "Di", GARNET, -6, "eliminated: their garnets are removed (season setting 'garnets of "
                                               "the eliminated')", BY_RESULT, None),
             ("3", "made", "Ann", TOKEN, -2, "a Token of Life protects in the Death Match picks right after the game "
                                            "that gave it: a new Main Match begins", BY_SEASON, None),
             ("", "by hand", "Gus", POWER_OF_LIGHT, 1, "the host's gift for the best-kept market stall", BY_HOST, None),
             ("3", "endgame", "Cy", TOKEN, 1, "a joint winner earns a Token of Life", BY_RESULT, None),
             ("3", "endgame", "Hal", TOKEN, 1, "a joint winner earns a Token of Life", BY_RESULT, None),
             ("3", "endgame", "Bo", GARNET, 2, "212 coins at the end: 1 garnet per 100 coins", BY_RESULT, None),
             ("3", "correction", "Bo", GARNET, -1, "the coins were 112, not 212", BY_HOST, "last"),
             ("4", "endgame", "Fay", ELIMINATION, 1, "lost the Death Match", BY_RESULT, None),
             ("5", "endgame", "Gus", ELIMINATION, 1, "lost the Death Match", BY_RESULT, None),
             ("6", "made", "Cy", TOKEN, -1, "a new Main Match begins", BY_SEASON, None),
             ("6", "made", "Hal", TOKEN, -1, "a new Main Match begins", BY_SEASON, None),
             *(("6", "endgame", p, GUEST, 1, "a guest of the Red Meadow", BY_RESULT, None)
               for p in ("Di", "Fay", "Gus")),
             ("6", "endgame", "Ann", COSMOS, 2, "the Blue Meadow's two stars", BY_RESULT, None),
             ("6", "endgame", "Ann", TOKEN, 1, "the Pyramid's winner earns a Token of Life", BY_RESULT, None),
             ("", "by hand", "Cy", POWER_OF_DARK, 1, "found in the Pyramid's apex", BY_HOST, None)]
    entries = []
    for number, (game, at, player, what, amount, why, by, corrects) in enumerate(rows, 1):
        entries.append(Entry(number, WHEN, game, at, player, what, amount, why, by,
                             number - 1 if corrects == "last" else corrects))
    settings = SeasonSettings(5, everyone, garnets_public=garnets_public)
    return Season("Season of Ash", 3, everyone, settings, games, tuple(entries))


# ---- random seasons ------------------------------------------------------------------------------

NAMES = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), min_size=1, max_size=12).map(
    str.strip).filter(bool)


@st.composite
def seasons(draw, garnets_public: bool | None = None) -> Season:
    """A season of 2 to 6 players, up to 5 games and up to 30 ledger rows of anything, by anyone."""
    cast = tuple(draw(st.lists(NAMES, min_size=2, max_size=6, unique_by=str.casefold)))
    public = draw(st.booleans()) if garnets_public is None else garnets_public
    games = []
    for number in range(1, draw(st.integers(0, 5)) + 1):
        game = draw(st.sampled_from(game_names()))
        players = tuple(draw(st.lists(st.sampled_from(cast), min_size=1, unique=True)))
        over = draw(st.sampled_from([None, False, True]))
        winners = tuple(draw(st.lists(st.sampled_from(players), max_size=2, unique=True))) if over else ()
        candidates = tuple(draw(st.lists(st.sampled_from(players), max_size=2, unique=True))) if over else ()
        loser = players[-1] if over and match_of(game) == DEATH_MATCH else None
        games.append(_game(number, game, players, over, winners, candidates, loser))
    numbers = ["", *(g.number for g in games)]
    entries = []
    for number in range(1, draw(st.integers(0, 30)) + 1):
        corrects = draw(st.one_of(st.none(), st.integers(1, number - 1))) if number > 1 else None
        entries.append(Entry(number, WHEN, draw(st.sampled_from(numbers)),
                             draw(st.sampled_from(["endgame", "by hand", "made"])),
                             draw(st.sampled_from(cast)), draw(st.sampled_from(THINGS)),
                             draw(st.integers(-3, 3).filter(bool)), draw(NAMES), draw(st.sampled_from(BY)), corrects))
    return Season(draw(NAMES), 1, cast, SeasonSettings(0, cast, garnets_public=public), tuple(games), tuple(entries))


def hidden_from_public(season: Season, entry: Entry) -> bool:
    """Whether the public may not know `entry`: an artefact, or a garnet when garnets are private."""
    return entry.what in ARTEFACTS or (entry.what == GARNET and not season.settings.garnets_public)


def hidden_from(season: Season, player: str, entry: Entry) -> bool:
    """Whether `player`'s own `season` tab must not depend on `entry`: another's row, but a garnet
    when garnets are public (everyone's show there)."""
    return entry.player != player and not (entry.what == GARNET and season.settings.garnets_public)


def twin(season: Season, hidden, data, players=None) -> Season:
    """`season` with every row `hidden(entry)` changed: its amount, why and where, and its player
    to one of `players` (kept when None), the rows' numbers and order kept."""
    out = []
    for e in season.entries:
        if hidden(e):
            e = replace(e, amount=data.draw(st.integers(-5, 5).filter(bool)), why=data.draw(NAMES),
                        at=data.draw(st.sampled_from(["endgame", "by hand"])),
                        player=data.draw(st.sampled_from(players)) if players else e.player)
        out.append(e)
    return replace(season, entries=tuple(out))


def demo_season(where) -> Season:
    """The season `sheets-host season demo` plays (seed 1), played into the folder `where`."""
    from pathlib import Path

    from sheets_host.backends.kinds import open_backend
    from sheets_host.season.demo import demo

    where = Path(where)
    report = demo(open_backend("xlsx", str(where)), lambda g: open_backend("xlsx", str(where / g.where)), 1,
                  where / "record.json", say=lambda line: None)
    assert report.passed, "season verify refused the demo's record"
    return report.season


if __name__ == "__main__":
    # python -m tests.season.seasons: the docs' pictures of the sample season (docs/season.md) and
    # of the demo's (README: `sheets-host season demo`), made again.
    import importlib.util
    import io
    import tempfile
    from pathlib import Path

    from PIL import Image

    from sheets_host.season import picture
    from sheets_host.season.books import seen

    path = Path(__file__).resolve().parents[2] / "scripts" / "render_books.py"
    spec = importlib.util.spec_from_file_location("render_books", path)
    render_books = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(render_books)
    render_books.small(Image.open(io.BytesIO(picture.draw(seen(sample())))), render_books.DOCS / "season.png")
    with tempfile.TemporaryDirectory() as folder:
        played = demo_season(Path(folder) / "demo-season")
        render_books.small(Image.open(io.BytesIO(picture.draw(seen(played)))), render_books.DOCS / "season-demo.png")
        # The week as the host and a player see it (docs/season.md): the host's `decisions` tab, the
        # first Death Match pick's tab in its candidate's book, and the public `week` tab.
        import shutil
        from sheets_host.season.asking import PICK_TAB
        where, pieces = Path(folder) / "demo-season", Path(folder) / "pieces"
        pieces.mkdir()
        first = next(d for d in played.decisions if d.key == "pick 1")
        book = where / played.game(first.game).where / "players" / f"{first.player}.xlsx"
        copies = (render_books.split(where / "host.xlsx", pieces, only="decisions", name="week-host")
                  + render_books.split(book, pieces, only=PICK_TAB, name="week-pick")
                  + render_books.split(where / "public.xlsx", pieces, only="week", name="week-public"))
        drawn = Path(folder) / "drawn"
        drawn.mkdir()
        render_books.draw(copies, pieces, drawn, shutil.which("soffice"), shutil.which("pdftoppm"))
        for name in ("week-host", "week-pick", "week-public"):
            render_books.small(Image.open(next(drawn.glob(f"{name}-*.png"))), render_books.DOCS / f"season-{name}.png",
                               height=260)
