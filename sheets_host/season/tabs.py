"""The season books' tabs as schemas, and the season read from and written to them.

The host's season book holds the `season` tab (its name, seed and settings, key and value as a
game's config), the `cast`, the `games` (each with what it was given and its settled result) and
the `ledger`; `balances` is written for the host to read and never read back. Every tab is checked
whole on read: a problem names the tab, row and column (`SchemaErrors`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaError, SchemaErrors, SheetsHostError
from sheets_host.kit.result import MATCHES, THINGS, Owed
from sheets_host.kit.table import Column, TabSchema
from .ledger import BY, Entry, seals
from .state import (GARNETS_REMOVED, GARNETS_TO_WINNER, PICKS_BY_HOST, PICKS_DRAWN, TOKEN_NEXT_PICKS, TOKEN_SEASON,
                    Planned, Season, SeasonGame, SeasonSettings, Settlement)
from .takes import DEATH_MATCH_GAME, host_settings, pairs, pairs_text
from .week import HOWS, Decision

# Each setting with its default and the rule it comes from (`season --help`, docs/season.md).
SETTINGS = (
    Column("starting garnets", "int", lo=0,
           doc="garnets each player holds when the season begins (the rule texts spend and earn them; none gives a "
               "start; default 0)"),
    Column("gamewide tiebreak", optional=True,
           doc="the whole cast, best first, comma-separated; the Academy's ties end in it. Blank at `season new`: "
               "drawn from the season's seed"),
    Column("garnets of the eliminated", "choice", (GARNETS_REMOVED, GARNETS_TO_WINNER),
           doc="removed (as on The Genius from its third season; the default) or to the winner (of the Death Match "
               "that eliminated them, as in its second)"),
    Column("garnets public", "bool", doc="yes: everyone's garnets are in the public season book; no (the default): "
                                         "each player sees only their own"),
    Column("token of life lasts", "choice", (TOKEN_NEXT_PICKS, TOKEN_SEASON),
           doc="next death match picks (the default, as on the show): a Token of Life protects in the Death Match "
               "picks right after the game that gave it, and is gone when the next Main Match is made; the season: "
               "until the host takes it away (`season give`)"),
    Column("decision hours", "float", lo=0,
           doc="how long a player has for each decision a game leaves them and each Death Match pick (default 24)"),
    Column("when nobody decides", "choice", (PICKS_DRAWN, PICKS_BY_HOST),
           doc="drawn (the default): at the deadline the season draws among the choices from its seed, and says so "
               "publicly; the host decides: it waits for `season decide`"),
    Column("one player in two death matches", "bool",
           doc="no (the default): a player already picked is no longer available to the candidates after; yes: they "
               "may be picked again"),
    Column("death match settings", optional=True,
           doc="the host's settings for each Death Match the season makes, key=value; ... (Spirit Chain's, as `sheets-"
               "host games spirit-chain` lists them), e.g. first deadline=+24; round hours=24 (a first deadline as "
               "hours after the Death Match is made); blank: the game's defaults, with no deadlines"),
)
DEFAULTS = {"starting garnets": 0, "gamewide tiebreak": "", "garnets of the eliminated": GARNETS_REMOVED,
            "garnets public": "no", "token of life lasts": TOKEN_NEXT_PICKS, "decision hours": 24,
            "when nobody decides": PICKS_DRAWN, "one player in two death matches": "no", "death match settings": ""}
SEASON_TAB = TabSchema("season", (Column("key"), Column("value", optional=True)),
                       "The season's name, seed and settings.")
CAST_TAB = TabSchema("cast", (Column("player"), Column("email", optional=True)),
                     "Everyone who plays the season, in the order they were given.")
GAMES_TAB = TabSchema("games", (
    Column("game no", "int", lo=1), Column("game"), Column("match", "choice", MATCHES), Column("where"),
    Column("backend", "choice", ("xlsx", "gsheets")), Column("players"), Column("seed", "int"), Column("made"),
    Column("made after row", "int", lo=0, doc="the ledger's last row when the game was made: it was made from rows "
                                             "1 to this one"),
    Column("given", "json", optional=True, doc="each setting the season gave the game, as given"),
    Column("host settings", "json", optional=True, doc="the host's own settings for the game (`--set`)"),
    Column("settled at", optional=True), Column("over", "bool", optional=True),
    Column("winners", optional=True), Column("candidates", optional=True, doc="Elimination Candidates, number 1 first"),
    Column("loser", optional=True), Column("owed", optional=True, doc="decisions still to be made, ';'-separated"),
    Column("owed decisions", "json", optional=True, doc="the same, as the season reads them: who, what, among which "
                                                       "choices, into which setting of the game")),
    "Each game of the season, what it was given and its result as last settled.")
LEDGER_TAB = TabSchema("ledger", (
    Column("row", "int", lo=1), Column("when"), Column("game no", "int", lo=1, optional=True),
    Column("at", optional=True), Column("player"), Column("what", "choice", THINGS), Column("amount", "int"),
    Column("why"), Column("by", "choice", BY), Column("corrects", "int", lo=1, optional=True),
    Column("seal", optional=True, doc="a digest of the row and the one before: an edited row is found")),
    "Every change, one row, never edited: a correction is a row of its own naming the row it corrects.")
DECISIONS_TAB = TabSchema("decisions", (
    Column("row", "int", lo=1), Column("when"), Column("game no", "int", lo=1), Column("key"), Column("player"),
    Column("how", "choice", HOWS), Column("choice", optional=True), Column("typed", optional=True),
    Column("deadline", optional=True), Column("note", optional=True), Column("basis", optional=True)),
    "The week between games, one row each, never edited: each decision asked (with its deadline), each answer read "
    "from a player's book (counted or not, as typed), each outcome.")
PLAN_TAB = TabSchema("plan", (
    Column("game"), Column("where", optional=True), Column("players", optional=True), Column("red", optional=True),
    Column("green", optional=True), Column("host settings", "json", optional=True)),
    "The Main Matches in order, those made included: `watch SEASON` makes the next once the week is over.")


def names(raw: object) -> tuple[str, ...]:
    """
    >>> names(" Ann, Bo ,"), names(None)
    (('Ann', 'Bo'), ())
    """
    return tuple(n.strip() for n in ("" if cells.is_blank(raw) else cells.text(raw)).split(",") if n.strip())


def read_settings(records: list[dict], cast: tuple[str, ...]) -> tuple[str, int, SeasonSettings]:
    """The season's name, seed and settings from the `season` tab's key/value rows."""
    raw = {cells.fold(cells.text(r["key"])): (r["value"], r["_row"]) for r in records}
    errors, values = [], {}

    def row_of(key: str) -> int | None:
        return raw.get(cells.fold(key), (None, None))[1]

    for col in (Column("name"), Column("seed", "int"), *SETTINGS):
        value, row = raw.get(cells.fold(col.name), (DEFAULTS.get(col.name), None))
        try:
            values[col.name] = col.parse(value)
        except ValueError:
            errors.append(SchemaError("season", row, col.name, cells.text(value), col.expected()))
    tiebreak = names(values.get("gamewide tiebreak"))
    if not errors and sorted(tiebreak) != sorted(cast):
        errors.append(SchemaError("season", row_of("gamewide tiebreak"), "gamewide tiebreak",
                                  ", ".join(tiebreak), "every player of the cast once: " + ", ".join(cast)))
    death_match = {}
    if not errors:
        try:
            death_match = host_settings(DEATH_MATCH_GAME, pairs(values["death match settings"]),
                                        "Spirit Chain's settings, key=value; ...", later=True)
        except SheetsHostError as e:
            errors.append(SchemaError("season", row_of("death match settings"), "death match settings",
                                      cells.text(values["death match settings"]), str(e)))
    if errors:
        raise SchemaErrors(errors)
    return values["name"], values["seed"], SeasonSettings(
        values["starting garnets"], tiebreak, values["garnets of the eliminated"], values["garnets public"],
        values["token of life lasts"], values["decision hours"], values["when nobody decides"],
        values["one player in two death matches"], death_match)


def load(tabs: Mapping[str, pd.DataFrame]) -> Season:
    """The season from its host book's tabs; SchemaErrors name every problem."""
    missing = [t.name for t in (SEASON_TAB, CAST_TAB, GAMES_TAB, LEDGER_TAB) if t.name not in tabs]
    if missing:
        raise SchemaErrors([SchemaError(t, None, None, None, "the tab, as `season new` made it") for t in missing])
    cast_rows = CAST_TAB.records(tabs["cast"])
    cast = tuple(cells.text(r["player"]) for r in cast_rows)
    seen: dict[str, int] = {}
    for r in cast_rows:
        other = seen.setdefault(cells.fold(cells.text(r["player"])), r["_row"])
        if other != r["_row"]:
            raise SchemaErrors([SchemaError("cast", r["_row"], "player", cells.text(r["player"]),
                                            f"a player named once (also in row {other})")])
    emails = {cells.text(r["player"]): cells.text(r["email"]) for r in cast_rows if r["email"]}
    name, seed, settings = read_settings(SEASON_TAB.records(tabs["season"]), cast)
    games = []
    for r in GAMES_TAB.records(tabs["games"]):
        settlement = None
        if r["settled at"]:
            settlement = Settlement(cells.text(r["settled at"]), bool(r["over"]), names(r["winners"]),
                                    names(r["candidates"]), r["loser"] or None,
                                    tuple(Owed(tuple(o["players"]), o["what"], tuple(o["choices"]), o["setting"])
                                          for o in json.loads(r["owed decisions"] or "[]")))
        games.append(SeasonGame(str(r["game no"]), r["game"], r["match"], cells.text(r["where"]), r["backend"],
                                names(r["players"]), r["seed"], cells.text(r["made"]), json.loads(r["given"]) if r["given"] else {},
                                settlement, json.loads(r["host settings"]) if r["host settings"] else {},
                                r["made after row"]))
    entries = []
    errors = []
    ledger = LEDGER_TAB.records(tabs["ledger"], cast)
    for r in ledger:
        if r["player"] not in cast:
            errors.append(SchemaError("ledger", r["_row"], "player", r["player"], "one of the cast: " + ", ".join(cast)))
        entries.append(Entry(r["row"], cells.text(r["when"]), str(r["game no"] or ""), cells.text(r["at"] or ""),
                             r["player"], r["what"], r["amount"], cells.text(r["why"]), r["by"], r["corrects"]))
    numbers = [e.number for e in entries]
    if numbers != list(range(1, len(entries) + 1)):
        errors.append(SchemaError("ledger", None, "row", None, "rows numbered 1, 2, 3... in order, none edited away"))
    else:
        for r, seal in zip(ledger, seals(entries)):
            if cells.text(r["seal"] or "") != seal:
                errors.append(SchemaError("ledger", r["_row"], "seal", cells.text(r["seal"] or ""),
                                          f"row {r['row']} as it was written: rows are never edited (put it back; "
                                          "a change is a new row: sheets-host season correct)"))
                break
    if errors:
        raise SchemaErrors(errors)
    decisions = tuple(Decision(r["row"], cells.text(r["when"]), str(r["game no"]), cells.text(r["key"]),
                               cells.text(r["player"]), r["how"], *(cells.text(r[c] or "") for c in
                                                                    ("choice", "typed", "note", "basis", "deadline")))
                      for r in DECISIONS_TAB.records(tabs[DECISIONS_TAB.name])) if DECISIONS_TAB.name in tabs else ()
    plan = tuple(Planned(cells.text(r["game"]), cells.text(r["where"] or ""), names(r["players"]), names(r["red"]),
                         names(r["green"]), json.loads(r["host settings"]) if r["host settings"] else {})
                 for r in PLAN_TAB.records(tabs[PLAN_TAB.name])) if PLAN_TAB.name in tabs else ()
    return Season(name, seed, cast, settings, tuple(games), tuple(entries), emails, decisions, plan)


def season_frame(season: Season) -> pd.DataFrame:
    s = season.settings
    values = {"name": season.name, "seed": season.seed, "starting garnets": s.starting_garnets,
              "gamewide tiebreak": ", ".join(s.tiebreak), "garnets of the eliminated": s.eliminated_garnets,
              "garnets public": "yes" if s.garnets_public else "no", "token of life lasts": s.token_lasts,
              "decision hours": s.decision_hours, "when nobody decides": s.picks_default,
              "one player in two death matches": "yes" if s.twice_picked else "no",
              "death match settings": pairs_text(s.death_match)}
    about = {c.name: c.doc for c in SETTINGS} | {"name": "the season's name", "seed": "every game's seed derives from it"}
    return pd.DataFrame([[k, v, about[k]] for k, v in values.items()], columns=["key", "value", "about"], dtype=object)


def games_frame(season: Season) -> pd.DataFrame:
    rows = []
    for g in season.games:
        t = g.settlement
        rows.append([int(g.number), g.game, g.match, g.where, g.backend, ", ".join(g.players), g.seed, g.made, g.made_after,
                     json.dumps(dict(g.given), ensure_ascii=False) if g.given else None,
                     json.dumps(dict(g.own), ensure_ascii=False) if g.own else None,
                     t.at if t else None, ("yes" if t.over else "no") if t else None,
                     ", ".join(t.winners) if t else None, ", ".join(t.candidates) if t else None,
                     t.loser if t else None, "; ".join(t.owed) if t else None,
                     json.dumps([{"players": list(o.players), "what": o.what, "choices": list(o.choices),
                                  "setting": o.setting} for o in t.owed_decisions], ensure_ascii=False)
                     if t and t.owed_decisions else None])
    return pd.DataFrame(rows, columns=GAMES_TAB.header, dtype=object)


def ledger_frame(entries: Sequence[Entry], start: int = 0) -> pd.DataFrame:
    """The ledger's rows from row `start` + 1 on (each sealed after all the rows before it)."""
    return pd.DataFrame([[e.number, e.when, int(e.game) if e.game else None, e.at or None, e.player, e.what, e.amount,
                          e.why, e.by, e.corrects, seal] for e, seal in zip(entries, seals(entries))][start:],
                        columns=LEDGER_TAB.header, dtype=object)


def host_tabs(season: Season) -> dict[str, pd.DataFrame]:
    return {"season": season_frame(season),
            "cast": pd.DataFrame([[p, season.emails.get(p)] for p in season.cast], columns=CAST_TAB.header,
                                 dtype=object),
            "games": games_frame(season), "ledger": ledger_frame(season.entries),
            DECISIONS_TAB.name: decisions_frame(season.decisions),
            PLAN_TAB.name: pd.DataFrame([[p.game, p.where or None, ", ".join(p.players) or None,
                                          ", ".join(p.red) or None, ", ".join(p.green) or None,
                                          json.dumps(dict(p.own), ensure_ascii=False) if p.own else None]
                                         for p in season.plan], columns=PLAN_TAB.header, dtype=object)}


def decisions_frame(decisions: Sequence[Decision], start: int = 0) -> pd.DataFrame:
    return pd.DataFrame([[d.number, d.when, int(d.game), d.key, d.player, d.how, d.choice or None, d.typed or None,
                          d.deadline or None, d.note or None, d.basis or None] for d in decisions][start:],
                        columns=DECISIONS_TAB.header, dtype=object)
