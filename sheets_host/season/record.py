"""`season record` and `season verify`: a season's record after its games, and anyone's check of it
offline (docs/verify.md, "A season's record").

The record is one JSON file: the season's name, seed, cast (never an email) and settings; each game
of its `games` tab (number, game, match, players, seed, when it was made and after which ledger
row, what it was given, its result as last settled) with that game's own record
(`engine.record.make_record`); and the whole ledger.

`verify_season` checks each game's record as `verify` does (`engine.verify.verified`), plays each
game again to its end and takes its result (`Game.result`), then recomputes the ledger from the
season's start (`recompute.py`) and compares it with the record's, naming the game, the player,
the thing and both figures for each difference. The host's own rows are the host's word: listed,
not checked, as `verify` lists a game's redos and undos.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sheets_host.backends import Backend
from sheets_host.engine import verify as verifying
from sheets_host.engine.checks import Check
from sheets_host.engine.host import Clock, now_utc, stamp
from sheets_host.engine.record import make_record, tool_version, write_json
from sheets_host.kit.errors import RoundError, SchemaErrors, SheetsHostError
from sheets_host.kit.result import MATCHES, THINGS
from . import recompute
from .commands import game_seed, read
from .ledger import BY, BY_HOST, Entry
from .state import Season, SeasonGame, Settlement
from .tabs import read_settings, season_frame

FORMAT = "sheets-host season record"
VERSION = 1
OpenGame = Callable[[SeasonGame], Backend]


# ---- season record ------------------------------------------------------------------------------

def make_season_record(backend: Backend, open_game: OpenGame, force: bool = False,
                       clock: Clock = now_utc) -> dict[str, Any]:
    """The season's record; refused while a game is not over unless `force` (as `record`)."""
    season = read(backend)
    games = []
    for g in season.games:
        try:
            record = make_record(open_game(g), force, clock)
        except RoundError as e:
            raise RoundError(f"game {g.number} ({g.game}, {g.where}): {e}") from None
        t = g.settlement
        games.append({"number": g.number, "game": g.game, "match": g.match, "players": list(g.players),
                      "seed": g.seed, "made": g.made, "made after row": g.made_after, "given": dict(g.given),
                      "settled": None if t is None else {"over": t.over, "winners": list(t.winners),
                                                         "candidates": list(t.candidates), "loser": t.loser},
                      "record": record})
    settings = {k: v for k, v in zip(*(season_frame(season)[c] for c in ("key", "value"))) if k not in ("name", "seed")}
    return {"format": FORMAT, "version": VERSION, "tool": tool_version(), "written at": stamp(clock()),
            "complete": all(g["record"]["complete"] for g in games), "name": season.name, "seed": season.seed,
            "cast": list(season.cast), "settings": settings, "games": games,
            "ledger": [{"row": e.number, "when": e.when, "game": e.game, "at": e.at, "player": e.player,
                        "what": e.what, "amount": e.amount, "why": e.why, "by": e.by, "corrects": e.corrects}
                       for e in season.entries]}


def write_season_record(backend: Backend, open_game: OpenGame, out: Path, force: bool = False,
                        clock: Clock = now_utc) -> dict[str, Any]:
    record = make_season_record(backend, open_game, force, clock)
    write_json(record, out)
    return record


# ---- reading it back ----------------------------------------------------------------------------

FIELDS = {"name": str, "seed": int, "cast": list, "settings": dict, "games": list, "ledger": list}
GAME_FIELDS = {"number": str, "game": str, "match": str, "players": list, "seed": int, "made": str,
               "made after row": int, "given": dict, "settled": (dict, type(None)), "record": dict}
ROW_FIELDS = {"row": int, "when": str, "game": str, "at": str, "player": str, "what": str, "amount": int, "why": str,
              "by": str, "corrects": (int, type(None))}


@dataclass(frozen=True)
class SeasonRecord:
    """A season's record as read: its start (no game, no row), its games with their own records
    and results as the games tab settled them, and its ledger."""

    start: Season
    games: tuple[SeasonGame, ...]
    records: tuple[dict[str, Any], ...]
    ledger: tuple[Entry, ...]
    complete: bool


def load_season_record(path: Path) -> SeasonRecord:
    """The record at `path`; refused, naming what it lacks, when it cannot be verified."""
    record = verifying.of_format(verifying.read_json(path), str(path), FORMAT, VERSION)

    def damaged(what: str) -> SheetsHostError:
        return SheetsHostError(f"{path} is damaged: {what} (docs/verify.md, \"A season's record\")")

    if wrong := verifying.lacking(record, FIELDS):
        raise damaged(f"it lacks {', '.join(wrong)}")
    cast = record["cast"]
    if not cast or not all(isinstance(p, str) and p for p in cast):
        raise damaged("its 'cast' is not a list of names")
    values = {"name": record["name"], "seed": record["seed"], **record["settings"]}
    try:
        _, _, settings = read_settings([{"key": k, "value": v, "_row": None} for k, v in values.items()], tuple(cast))
    except SchemaErrors as e:
        raise damaged(f"its settings: {e}") from None
    games, records = [], []
    for n, g in enumerate(record["games"], 1):
        if not isinstance(g, dict) or (wrong := verifying.lacking(g, GAME_FIELDS)):
            raise damaged(f"its game {n} lacks {', '.join(wrong) if isinstance(g, dict) else 'everything'}")
        if g["match"] not in MATCHES:
            raise damaged(f"its game {n}'s 'match' is {g['match']!r}, not one of {', '.join(MATCHES)}")
        t = g["settled"]
        games.append(SeasonGame(g["number"], g["game"], g["match"], "", "", tuple(g["players"]), g["seed"], g["made"],
                                dict(g["given"]), t and Settlement("", bool(t.get("over")), tuple(t.get("winners") or ()),
                                                                   tuple(t.get("candidates") or ()), t.get("loser")),
                                made_after=g["made after row"]))
        records.append(verifying.checked_record(g["record"], f"{path}, game {g['number']}'s record"))
    ledger = []
    for n, r in enumerate(record["ledger"], 1):
        if not isinstance(r, dict) or (wrong := verifying.lacking(r, ROW_FIELDS)):
            raise damaged(f"its ledger's row {n} lacks {', '.join(wrong) if isinstance(r, dict) else 'everything'}")
        if r["what"] not in THINGS or r["by"] not in BY:
            raise damaged(f"its ledger's row {r['row']}: 'what' is one of {', '.join(THINGS)} and 'by' one of "
                          f"{', '.join(BY)}")
        ledger.append(Entry(r["row"], r["when"], r["game"], r["at"], r["player"], r["what"], r["amount"], r["why"],
                            r["by"], r["corrects"]))
    return SeasonRecord(Season(record["name"], record["seed"], tuple(cast), settings), tuple(games), tuple(records),
                        tuple(ledger), bool(record.get("complete")))


# ---- season verify ------------------------------------------------------------------------------

@dataclass
class SeasonVerified:
    """Every check, each game's redos, undos and edits of the state, and the host's own ledger rows."""

    checks: list[Check]
    history: dict[str, list[str]]  # game number -> what the host did besides resolving
    host: list[str]


def verify_season(season: SeasonRecord) -> SeasonVerified:
    start, ledger = season.start, season.ledger
    played, history, games = [], {}, {}  # games: number -> its checks
    for index, (g, record) in enumerate(zip(season.games, season.records)):
        done = verifying.verified(record)
        name = f"game {g.number} ({done.game.title if done.game else g.game})"
        games[g.number] = [Check(f"{name}: {c.what}", c.differences, c.compared) for c in done.checks]
        games[g.number].append(_of_the_season(start, index, g, record))
        history[g.number] = verifying.history(record)
        result, why = None, ""
        if done.end is None:
            why = "it cannot be played again from its record to its end"
        elif done.game.is_over(done.end):
            result = done.game.result(done.end)
            why = "" if result else f"{done.game.title} gives no result the season can read"
        played.append(recompute.Played(g, result))
        if why:
            games[g.number].append(Check(f"game {g.number}: its result", [why]))
    again = recompute.recomputed(start, played, ledger)
    for index, p in enumerate(played):
        number = p.game.number
        check = Check(f"game {number}: its result, played again from its record, is what the ledger and the games "
                      "tab hold" if p.result else f"game {number}: not over, so the ledger holds no row of its result")
        check.differences += recompute.result_rows(p, again, ledger) + _settled(p)
        games[number] += [recompute.made(start, played, ledger, index, season.records[index]["settings"]), check]
    checks = [recompute.numbered(ledger), recompute.starting_garnets(start, ledger)]
    checks += [c for number in games for c in games[number]]
    checks.append(recompute.balances(start.cast, again, ledger))
    if not any(p.result for p in played):  # a check that compared nothing must not pass
        checks.append(Check("a game's result compared with the ledger", [
            "no game of the season is over in the record: no result was compared with the ledger"]))
    host = [f"row {e.number} ({e.when}{f', game {e.game}' if e.game else ''}): {e.player} {e.amount:+d} {e.what}: "
            f"{e.why}" + (f" (corrects row {e.corrects}" + (", withdrawn with it" if recompute.absorbed(ledger, e)
                                                           else "") + ")" if e.corrects else "")
            for e in ledger if e.by == BY_HOST]
    return SeasonVerified(checks, history, host)


def _of_the_season(start: Season, index: int, g: SeasonGame, record: Mapping[str, Any]) -> Check:
    """The game's record is of the game the season made: its number in order, the game, the players
    and the seed the season's seed gives it."""
    check = Check(f"game {g.number}: its record is of the game the season made (game, players, seed from the season's)")
    if g.number != str(index + 1):
        check.differences.append(f"it is the season's game {index + 1}, numbered {g.number}")
    if record["game"] != g.game:
        check.differences.append(f"the games tab says {g.game}; its record is of {record['game']}")
    if tuple(record["players"]) != g.players:
        check.differences.append(f"the games tab says {', '.join(g.players)}; its record's players are "
                                 f"{', '.join(record['players'])}")
    seed = game_seed(start, str(index + 1))
    if not record["seed"] == g.seed == seed:
        check.differences.append(f"the season's seed gives it seed {seed}; the games tab says {g.seed}, its record "
                                 f"{record['seed']}")
    return check


def _settled(p: recompute.Played) -> list[str]:
    """The games tab's result (winners, Elimination Candidates, loser) as the game's result gives it."""
    t, r = p.game.settlement, p.result
    if r is None:
        return [] if t is None or not t.over else ["the games tab says it is over; its record's game is not"]
    if t is None or not t.over:
        return ["the games tab does not hold its result: run `season settle` before `season record`"]
    out = []
    for what, told, given in (("winners", t.winners, r.winners), ("Elimination Candidates", t.candidates, r.candidates),
                              ("loser", (t.loser,) if t.loser else (), (r.loser,) if r.loser else ())):
        if tuple(told) != tuple(given):
            out.append(f"the games tab's {what}: {', '.join(told) or 'none'}; its result gives "
                       f"{', '.join(given) or 'none'}")
    return out
