"""What the season's readers see, all derived from the host's season book: the public season book,
in every game of the season each player's own `season` tab, and what is posted (`seen`, the
public season that the post's text and picture are made from alone).

Private information stays private: a player's tab holds their own standing, balances and ledger
rows (another's garnets only when the season makes garnets public); the public book holds what
the rule texts announce (Tokens of Life, cosmos, eliminations, guests, each game's winners and
candidates), garnets only when public, and never an artefact. Readers' ledgers number their own
rows (1, 2, 3...): the host's numbering would show where private rows stand between them.

Every tab is laid out for people (`kit.layout`): header frozen, numbers right-aligned, the why
wrapped, and each standing in its colour (the cell's own words say it, as a game's colour rule).

>>> from sheets_host.season.state import SeasonSettings
>>> season = Season("s", 1, ("Ann", "Bo"), SeasonSettings(), entries=(
...     Entry(1, "t", "", "by hand", "Bo", ELIMINATION, 1, "took himself off"),
...     Entry(2, "t", "", "by hand", "Ann", POWER_OF_LIGHT, 1, "a gift")))
>>> [(p.player, p.standing, p.kind) for p in seen(season).cast]
[('Ann', 'still in', 'in'), ('Bo', 'eliminated by the host', 'out')]
>>> public_tabs(season)["ledger"][["row", "player", "what"]].values.tolist()
[[1, 'Bo', 'elimination']]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import pandas as pd

from sheets_host.backends import Backend, Book
from sheets_host.games import get_game
from sheets_host.kit import cells
from sheets_host.kit.errors import BookError
from sheets_host.kit.layout import HEADING_FILL, MIN_WIDTH, NEXT_FILL, Palette, TabLayout, lay_out, lay_out_tab, row_height, tint
from sheets_host.kit.result import (ARTEFACTS, COSMOS, DEATH_MATCH, ELIMINATION, GARNET, GUEST, POWER_OF_LIGHT,
                                    TOKEN)
from sheets_host.kit.table import Column, TabSchema
from .ledger import Entry
from .state import Season, SeasonGame
from .week import ASKED, DECIDED, NOT_COUNTED, VOID, asked_of
from .tabs import CAST_TAB, DECISIONS_TAB, GAMES_TAB, LEDGER_TAB, PLAN_TAB, SEASON_TAB as HOST_SEASON_TAB

SEASON_TAB = "season"  # each player's tab in each game's books

# Colours, shared by the picture (PNG) and the books' cells (tinted): a standing's, a match's.
BACKGROUND, INK, MUTED, RULE = (250, 249, 246), (40, 40, 40), (120, 120, 120), (214, 210, 202)
IN, OUT, GUESTING = "in", "out", "guest"  # a standing's kind
STANDING_COLOURS = {IN: (46, 125, 50), OUT: (150, 60, 55), GUESTING: (110, 80, 160)}
MATCH_COLOURS = {"Main Match": (41, 98, 168), DEATH_MATCH: (176, 42, 42)}
WHY_WIDTH = 50  # characters: a why column wider wraps, so that a ledger reads as rows
SIGNED = "+#,##0;-#,##0;0"  # an amount in a reader's ledger: +2 earned, -2 spent
UNDER_WAY = "under way"


def plural(what: str) -> str:
    """
    >>> plural(TOKEN), plural(GARNET), plural(COSMOS), plural(POWER_OF_LIGHT)
    ('Tokens of Life', 'garnets', 'cosmos', 'Power of Light')
    """
    return {TOKEN: "Tokens of Life", GARNET: "garnets"}.get(what, what)


# ---- the public season: what anyone may know, and all that the post and the picture are given ----

@dataclass(frozen=True)
class GameSeen:
    number: str
    title: str
    match: str
    players: tuple[str, ...]
    over: bool
    winners: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()  # Elimination Candidates, number 1 first
    left: tuple[str, ...] = ()  # eliminated by this game


@dataclass(frozen=True)
class PlayerSeen:
    player: str
    out: str | None  # the game that eliminated them ("": the host's own row); None: still in
    guest: tuple[str, ...]  # the games they are a guest of ("": by the host's own row)
    tokens: int
    cosmos: int
    garnets: int | None  # None unless the season makes garnets public

    @property
    def kind(self) -> str:
        return IN if self.out is None else GUESTING if self.guest else OUT

    @property
    def standing(self) -> str:
        """
        >>> PlayerSeen("Di", "2", ("6",), 0, 0, None).standing, PlayerSeen("Bo", "", (), 0, 0, None).standing
        ('eliminated in game 2; a guest in game 6', 'eliminated by the host')
        """
        return self._words("eliminated")

    @property
    def short(self) -> str:
        """The standing in fewer words, for a picture.

        >>> PlayerSeen("Di", "2", ("6",), 0, 0, None).short, PlayerSeen("Ann", None, (), 0, 0, None).short
        ('out in game 2; a guest in game 6', 'still in')
        """
        return self._words("out")

    def _words(self, eliminated: str) -> str:
        words = "still in" if self.out is None else f"{eliminated} {_in_game(self.out)}"
        return words + ("; a guest " + ", ".join(map(_in_game, self.guest)) if self.guest else "")


@dataclass(frozen=True)
class SeasonSeen:
    name: str
    games: tuple[GameSeen, ...]
    cast: tuple[PlayerSeen, ...]
    garnets_public: bool

    @property
    def still_in(self) -> tuple[PlayerSeen, ...]:
        return tuple(p for p in self.cast if p.out is None)


def _in_game(game: str) -> str:
    return f"in game {game}" if game else "by the host"


def player_seen(season: Season, player: str) -> PlayerSeen:
    """A player as anyone may know them: their standing, Tokens of Life and cosmos, garnets only
    when public. A guest of a game is one whose guest rows of it still count."""
    guest: dict[str, int] = {}
    for e in season.entries:
        if e.player == player and e.what == GUEST:
            guest[e.game] = guest.get(e.game, 0) + e.amount
    return PlayerSeen(player, season.eliminated.get(player), tuple(g for g, n in guest.items() if n > 0),
                      season.held(player, TOKEN), season.held(player, COSMOS),
                      season.held(player, GARNET) if season.settings.garnets_public else None)


def seen(season: Season) -> SeasonSeen:
    """The season as anyone may know it: each game's result, each player's standing, Tokens of
    Life and cosmos, garnets only when public, no artefact."""
    games = []
    for g in season.games:
        t = g.settlement
        over = bool(t and t.over)
        games.append(GameSeen(g.number, get_game(g.game).title, g.match, g.players, over,
                              t.winners if over else (), t.candidates if over else (),
                              tuple(p for p, n in season.eliminated.items() if n == g.number)))
    return SeasonSeen(season.name, tuple(games), tuple(player_seen(season, p) for p in season.cast),
                      season.settings.garnets_public)


def public_things(season: Season) -> tuple[str, ...]:
    return (TOKEN, COSMOS, ELIMINATION, GUEST) + ((GARNET,) if season.settings.garnets_public else ())


# ---- the books' tabs --------------------------------------------------------------------------

PUBLIC_CAST = TabSchema("cast", (
    Column("player"), Column("standing", doc="still in, or the game that eliminated them (and any game they are a "
                                             "guest of since)"),
    Column(plural(TOKEN), "int", doc="held now"), Column(COSMOS, "int", doc="held now"),
    Column(plural(GARNET), "int", optional=True, doc="held now (the season makes garnets public)")),
    "Everyone in the season and where they stand.")
PUBLIC_GAMES = TabSchema("games", (
    Column("game", "int"), Column("title"), Column("match"), Column("players"),
    Column("winners", doc=f"'{UNDER_WAY}' until the game is over"),
    Column("Elimination Candidates", doc="number 1 first"), Column("left the season")),
    "Each game of the season, in order.")
PUBLIC_LEDGER = TabSchema("ledger", (
    Column("row", "int", doc="this ledger's own numbering"), Column("when"), Column("game", "int"), Column("at"),
    Column("player"), Column("what"), Column("amount", "int", doc="+ earned or given, - spent, used or taken away"),
    Column("why"), Column("corrects", "int", doc="the row of this ledger a correction corrects")),
    "Every public change (Tokens of Life, cosmos, eliminations, guests; garnets when public), never edited: a "
    "correction is a row of its own.")
PUBLIC_WEEK = TabSchema("week", (
    Column("game", "int", doc="the game whose result asks it"), Column("asked of"), Column("what"),
    Column("asked at"), Column("deadline"), Column("outcome", doc="what was decided, and by whom (a draw of the "
                                                                  "season's when nobody decided)")),
    "Each decision the week between games asks, and each Death Match pick, in order: who decides what by when, and "
    "what was decided. What anyone typed is not shown.")
OWN_LEDGER = TabSchema(SEASON_TAB, (
    Column("what"), Column("held", "int", doc="what you hold now: the sum of your changes below"),
    Column("change", "int", doc="+ earned or given, - spent, used or taken away"),
    Column("why"), Column("game", "int"), Column("at"), Column("when"), Column("row", "int", doc="your row's number")),
    "A player's own standing, balances and ledger rows.")


def _ledger_rows(entries: Sequence[Entry]) -> list[tuple[int, Entry, int | None]]:
    """Each row with its number in this reader's ledger and that of the row it corrects (None
    when it corrects none, or one the reader does not see)."""
    numbers = {e.number: k for k, e in enumerate(entries, 1)}
    return [(k, e, numbers.get(e.corrects)) for k, e in enumerate(entries, 1)]


def _ledger(entries: Sequence[Entry]) -> pd.DataFrame:
    return pd.DataFrame([[k, e.when, int(e.game) if e.game else None, e.at or None, e.player, e.what, e.amount, e.why,
                          corrects] for k, e, corrects in _ledger_rows(entries)],
                        columns=PUBLIC_LEDGER.header, dtype=object)


def public_tabs(season: Season) -> dict[str, pd.DataFrame]:
    view = seen(season)
    shown = PUBLIC_CAST.header if view.garnets_public else PUBLIC_CAST.header[:-1]
    cast = pd.DataFrame([[p.player, p.standing, p.tokens, p.cosmos, p.garnets][:len(shown)] for p in view.cast],
                        columns=shown, dtype=object)
    games = pd.DataFrame([[int(g.number), g.title, g.match, ", ".join(g.players),
                           ", ".join(g.winners) if g.over else UNDER_WAY, ", ".join(g.candidates), ", ".join(g.left)]
                          for g in view.games], columns=PUBLIC_GAMES.header, dtype=object)
    things = public_things(season)
    return {"cast": cast, "games": games, "ledger": _ledger([e for e in season.entries if e.what in things]),
            "week": week_frame(season)}


def week_frame(season: Season) -> pd.DataFrame:
    """The week's asks as everyone may see them: who decides what by when, and each outcome (the
    rule texts make each public: Tokens of Life, candidates, picks, cosmos); never an answer typed."""
    rows, outcomes = [], {(d.game, d.key, d.basis): d for d in season.decisions if d.how == DECIDED}
    voided = {(d.game, d.key, d.basis): d for d in season.decisions if d.how == VOID}
    for d in season.decisions:
        if d.how != ASKED:
            continue
        done, void = outcomes.get((d.game, d.key, d.basis)), voided.get((d.game, d.key, d.basis))
        outcome = (f"{done.choice} ({done.note})" if done else "open")
        if void:
            outcome += f"; voided: {void.note}"
        rows.append([int(d.game), d.player, d.note, d.when, d.deadline, outcome])
    return pd.DataFrame(rows, columns=PUBLIC_WEEK.header, dtype=object)


def season_tab(season: Season, player: str) -> pd.DataFrame:
    """A player's own `season` tab: the season, their standing and balances (saying who else sees
    each), then their ledger rows, oldest first. Its `kinds` (attrs) mark each row for its layout."""
    words = player_seen(season, player).standing
    public = season.settings.garnets_public
    rows: list[tuple[str, list[object]]] = [("season", ["season", None, None, season.name]),
                                           ("standing", ["standing", None, None, words])]
    for ask, deadline, last in asked_of(season, player):  # the week's asks, first: what they must do now
        where = "death match pick" if ask.is_pick else "decision"
        told = (f"; what you typed, {last.typed!r}, does not count: {last.note}" if last and last.how == NOT_COUNTED
                else f"; {last.choice!r} counted, waiting for the others deciding with you" if last else "")
        rows.append(("asked", ["asked of you", None, None, f"{ask.yours}: type your choice in your '{where}' tab "
                               f"of game {ask.game}'s book by {deadline}{told}"]))
    for what in (TOKEN, GARNET, COSMOS, *ARTEFACTS):
        seen_by = "everyone sees them"
        if what in ARTEFACTS:
            seen_by = "only you see it"
        elif what == GARNET and not public:
            seen_by = "only you see yours (garnets are private)"
        rows.append(("held", [plural(what), season.held(player, what), None, seen_by]))
    if public:
        rows.append(("held", ["everyone's garnets", None, None,
                              ", ".join(f"{p} {season.held(p, GARNET)}" for p in season.cast)]))
    own = [e for e in season.entries if e.player == player]
    rows.append(("", []))
    rows.append(("heading", ["your ledger: each change to what you hold, oldest first" if own else
                             "your ledger: no change yet"]))
    for k, e, corrects in _ledger_rows(own):
        why = e.why + (f" (corrects your row {corrects})" if corrects else "")
        rows.append(("row", [e.what, None, e.amount, why, int(e.game) if e.game else None, e.at or None, e.when, k]))
    width = len(OWN_LEDGER.header)
    frame = pd.DataFrame([cells + [None] * (width - len(cells)) for _, cells in rows], columns=OWN_LEDGER.header,
                         dtype=object)
    frame.attrs["kinds"] = [kind for kind, _ in rows]
    return frame


# ---- layouts ----------------------------------------------------------------------------------

def standing_palette(texts: Sequence[object]) -> Palette:
    """Each standing shown in its colour (still in left plain): the standings `texts` of a tab,
    each its own words, so the colour sits beside what it means."""
    colours = {}
    for text in texts:
        words = cells.text(text)
        if words.startswith("eliminated"):
            colours[words] = tint(STANDING_COLOURS[GUESTING if "a guest" in words else OUT])
    return Palette(colours, ("standing",))


def wrapped(frame: pd.DataFrame, layout: TabLayout, names: Sequence[str] = ("why", "about", "owed", "note"),
            width: int = WHY_WIDTH) -> TabLayout:
    """`layout` with the columns `names` at most `width` wide, their longer text wrapped, and
    every row as tall as its wrapped cells need."""
    columns = [replace(c, width=width, wrap=True) if name in names and c.width > width and not c.clip else c
               for name, c in zip(frame.columns, layout.columns)]
    wrapping = [k for k, c in enumerate(columns) if c.wrap]
    heights = {}
    for r, row in enumerate([tuple(frame.columns), *frame.itertuples(index=False, name=None)] if wrapping else []):
        if height := row_height((row[k], columns[k].width) for k in wrapping):
            heights[r] = height
    return replace(layout, columns=tuple(columns), heights=heights)


def _signed(frame: pd.DataFrame, layout: TabLayout) -> TabLayout:
    """A reader's changes with their sign (+2, -2)."""
    return replace(layout, columns=tuple(replace(c, number_format=SIGNED) if name in ("amount", "change") else c
                                         for name, c in zip(frame.columns, layout.columns)))


def _read_only(frame: pd.DataFrame, schema: TabSchema, palettes: Sequence[Palette] = (),
               fills: Mapping[tuple[int, int], str] = {}) -> TabLayout:
    """A reader's tab: its schema's notes, no dropdowns (nothing there is typed), wrapped and signed."""
    layout = lay_out(frame, tab=schema.name, notes={c.name: c.doc for c in schema.columns if c.doc},
                     palettes=palettes, fills=fills)
    return _signed(frame, wrapped(frame, layout))


def public_layouts(tabs: Mapping[str, pd.DataFrame]) -> dict[str, TabLayout]:
    schemas = {s.name: s for s in (PUBLIC_CAST, PUBLIC_GAMES, PUBLIC_LEDGER, PUBLIC_WEEK)}
    return {name: _read_only(frame, schemas[name], [standing_palette(frame.get("standing", ()))])
            for name, frame in tabs.items()}


def season_tab_layout(tab: pd.DataFrame) -> TabLayout:
    """A player's `season` tab: their standing in its colour, the heading of their ledger shaded
    as a heading."""
    kinds, why = tab.attrs["kinds"], list(tab.columns).index("why")
    fills = {}
    for r, kind in enumerate(kinds, 1):
        if kind == "heading":
            fills.update({(r, c): HEADING_FILL for c in range(len(tab.columns))})
        elif kind == "asked":
            fills[r, why] = NEXT_FILL
        elif kind == "standing" and (colour := standing_palette([words := tab.iat[r - 1, why]]).colour(words)):
            fills[r, why] = colour
    layout = _read_only(tab, OWN_LEDGER, fills=fills)
    # The heading runs on across the empty cells right of it: the first column is as wide as the rest of it.
    first = max(len(cells.text(v)) for k, v in zip(["", *kinds], ["what", *tab["what"]]) if k != "heading")
    return replace(layout, columns=(replace(layout.columns[0], width=max(MIN_WIDTH, first + 2)), *layout.columns[1:]))


def host_layouts(tabs: Mapping[str, pd.DataFrame]) -> dict[str, TabLayout]:
    """The layouts of the host's season book's tabs (`tabs.host_tabs`, each whole): from their
    schemas (notes and dropdowns, the host may type there), the long texts wrapped, each standing
    in its colour. The ledger's is the whole tab's, for its appended rows to take (`Book.write`'s
    `shown`)."""
    schemas = {s.name: s for s in (HOST_SEASON_TAB, CAST_TAB, GAMES_TAB, LEDGER_TAB, DECISIONS_TAB, PLAN_TAB)}
    out = {}
    for name, frame in tabs.items():
        palettes = [standing_palette(frame["standing"])] if "standing" in frame.columns else []
        layout = (lay_out_tab(frame, schemas[name], palettes=palettes) if name in schemas else
                  lay_out(frame, tab=name, palettes=palettes))
        out[name] = wrapped(frame, layout)
    return out


def balances_frame(season: Season) -> pd.DataFrame:
    """Each player's standing and balances, for the host (derived from the ledger, never read back)."""
    things = (TOKEN, GARNET, COSMOS, *ARTEFACTS)
    return pd.DataFrame([[p, player_seen(season, p).standing, *(season.held(p, t) for t in things)]
                         for p in season.cast], columns=["player", "standing", *things], dtype=object)


# ---- delivery ---------------------------------------------------------------------------------

def deliver_public(backend: Backend, season: Season) -> None:
    """The public season book, made whole from the season (made first when a killed `season new`
    left none)."""
    try:
        book = backend.book("public")
    except BookError:
        book = backend.create("public", f"{season.name} (season)", public=True)
    write_public(book, season)


def write_public(book: Book, season: Season) -> None:
    tabs = public_tabs(season)
    book.write(tabs, layouts=public_layouts(tabs), first=["cast", "games", "ledger", "week"])


def deliver_season_tabs(game_backend: Backend, season: Season, game: SeasonGame) -> None:
    """Each cast member's book in game `game` gets their `season` tab (a spectator has none)."""
    with game_backend.hold("season"):
        for player in game.players:
            if player in season.cast:
                tab = season_tab(season, player)
                game_backend.book(f"player:{player}").write({SEASON_TAB: tab},
                                                            layouts={SEASON_TAB: season_tab_layout(tab)})


# ---- the post's text ----------------------------------------------------------------------------

def _names(players: Sequence[str]) -> str:
    return ", ".join(players) or "none"


def _held(p: PlayerSeen) -> str:
    held = [f"{n} {plural(what) if n != 1 else what}" for what, n in ((TOKEN, p.tokens), (COSMOS, p.cosmos),
                                                                     (GARNET, p.garnets)) if n]
    return f"{p.player} ({', '.join(held)})" if held else p.player


def summary(view: SeasonSeen) -> str:
    """The season so far in Markdown, for Discord: each game's winners, candidates and who left;
    who is still in (with what they hold that is public); who left, and when."""
    done = [g for g in view.games if g.over]
    lines = [f"## {view.name}: the season so far" + (f", after game {done[-1].number}" if done else "")]
    for g in view.games:
        head = f"**Game {g.number}: {g.title}** ({g.match})"
        if not g.over:
            lines.append(f"- {head}: {UNDER_WAY} ({_names(g.players)})")
            continue
        said = [f"won by {_names(g.winners)}"]
        if g.candidates:
            said.append(f"Elimination Candidates: {_names(g.candidates)}")
        if g.left:
            said.append(f"{_names(g.left)} left the season")
        lines.append(f"- {head}: " + "; ".join(said))
    if not view.games:
        lines.append("No game played yet.")
    lines.append(f"**Still in ({len(view.still_in)}):** " + _names([_held(p) for p in view.still_in]))
    out = [p for p in view.cast if p.kind != IN]
    if out:
        lines += ["**Left the season:**", *(f"- {_held(p)}: {p.standing}" for p in out)]
    return "\n".join(lines)
