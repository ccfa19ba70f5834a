"""Summoner's Dream's data tabs: the maps, tracks and ranges drawn, the Towers and Familiars level by
level, and what is on sale each round; checking them together and reading them into a `Catalogue`.

The original game's spreadsheet is not available, so the host fills these in; the layout lets the
original be typed in (one row per kind per level, maps and ranges drawn as grids), and the shipped
sample (`templates/academy-of-witchcraft-arts/summoning *.csv`) plays as it stands.

>>> c = catalogue(sample_data())
>>> len(c.maps), c.towers["Gan"].ground.value, c.familiars["Fox"].cost, c.sales[1][0]
(8, 'road', 30, 'Tae')
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar


from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError
from sheets_host.kit.table import TEMPLATES, Column, TabSchema, csv_records
from .maps import MAP_COLUMNS, MAPS, RANGE_COLUMNS, RANGES, TRACKS, read_maps, read_ranges
from .state import (FAMILIAR_LEVELS, ROUNDS, TOWER_LEVELS, Ability, Catalogue, Effect, FamiliarKind, FamiliarLevel,
                    Ground, MapKind, TowerKind, TowerLevel)

SAMPLE = TEMPLATES / "academy-of-witchcraft-arts"
NOTE = Column("note", optional=True, doc="the shipped rows say `sample`")
MAPS_OF_A_KIND = 4  # each round each participant chooses among 2 Blessed Land and 2 Grotto-Heaven maps

MAPS_TAB = TabSchema(MAPS, (
    Column("map", doc="the map's name, on every row of its drawing (no commas)"),
    Column("row", "int", lo=1, doc="1, 2, ... from the top (north)"),
    Column("A", optional=True, doc="the tile in column A: R road, A or B the road tile on the edge where Track A or "
                                   "B begins, E the Treasure tile (one), L Blessed Land or H Grotto-Heaven (where "
                                   "Towers stand; one kind a map), # scenery"),
    *(Column(letter, optional=True, doc=f"the tile in column {letter}, as in A") for letter in MAP_COLUMNS[1:]),
    NOTE,
), "Each map drawn one character a tile, its rows consecutive; every tile drawn, every row as wide.")
TRACKS_TAB = TabSchema(TRACKS, (
    Column("map", doc="a map of the maps tab"),
    Column("track", "choice", ("A", "B"), doc="Track A (Party A's) or B"),
    Column("cells", doc="its tiles from the entrance to E, space-separated, like `A3 B3 B4 ... E`"),
    NOTE,
), "Tracks the drawing does not settle (a road that forks); any other track is followed along the road.")
RANGES_TAB = TabSchema(RANGES, (
    Column("range", doc="the range's name, on every row of its drawing"),
    Column("row", "int", lo=1, doc="1, 2, ... from the top (north: the way the Tower faces)"),
    Column("A", optional=True, doc="column A: T the Tower's tile (one), x in range, . or blank not"),
    *(Column(letter, optional=True, doc=f"column {letter}, as in A") for letter in RANGE_COLUMNS[1:]),
    NOTE,
), "Tower ranges drawn facing north; a Tower always reaches its own tile too.")
TOWERS_TAB = TabSchema("summoning towers", (
    Column("tower", doc="the Tower's name, on each of its 3 rows (no commas; not ending in a number)"),
    Column("level", "int", lo=1, hi=TOWER_LEVELS, doc="1 as bought; 2 and 3 its upgrades"),
    Column("price", "int", lo=0, doc="level 1: the Tower's cost in coins; 2 and 3: the upgrade's price"),
    Column("damage", "int", lo=0, doc="damage a strike deals each Familiar it hits"),
    Column("interval", "int", lo=1, doc="time units between strikes (1: every time unit)"),
    Column("range", doc="a range of the ranges tab"),
    Column("effect", "choice", tuple(e.value for e in Effect), optional=True,
           doc="blank or none: strikes every Familiar in range; single: only the one nearest E (on its tile, the "
               "lowest slot first); slow: `amount` more time units a tile for `duration`; stun: no move for "
               "`duration`; burn: `amount` damage every time unit for `duration`; bane: `amount` more damage to "
               "`against`"),
    Column("amount", "int", lo=1, optional=True, doc="slow, burn, bane: how much"),
    Column("duration", "int", lo=1, optional=True, doc="slow, stun, burn: for how many time units"),
    Column("against", optional=True, doc="bane: a Familiar of the familiars tab"),
    Column("ground", "choice", tuple(g.value for g in Ground), optional=True,
           doc="land (blank): it stands on the map's L or H tiles; road: on road tiles (Gan); same at every level"),
    Column("description", optional=True, doc="the level in words, as players read it"),
    NOTE,
), "One row per Tower per level, each the full stats at that level.")
FAMILIARS_TAB = TabSchema("summoning familiars", (
    Column("familiar", doc="the Familiar's name, on each of its 6 rows (no commas; not ending in a number)"),
    Column("level", "int", lo=1, hi=FAMILIAR_LEVELS, doc="1 as bought; level X is an upgrade bought from round X"),
    Column("cost", "int", lo=0, optional=True, doc="level 1 only: its cost, and each upgrade's"),
    Column("health", "int", lo=1, doc="the damage it takes to kill"),
    Column("pace", "int", lo=1, doc="time units a tile (1: a tile every time unit)"),
    Column("ability", "choice", tuple(a.value for a in Ability), optional=True,
           doc="blank or none; resist: `amount` less damage a strike from `against` (blank: every Tower); "
               "heal: adjacent Familiars regain `amount` each time unit; flies: `against` never touches it; "
               "sturdy: never slowed nor stunned"),
    Column("amount", "int", lo=1, optional=True, doc="resist, heal: how much"),
    Column("against", optional=True, doc="resist (blank: all), flies: a Tower of the towers tab"),
    Column("description", optional=True, doc="the level in words, as players read it"),
    NOTE,
), "One row per Familiar per level, each the full stats at that level.")
SALES_TAB = TabSchema("summoning sales", (
    Column("round", "int", lo=1, hi=ROUNDS, doc=f"1 to {ROUNDS}, a row each (a round without a row sells nothing)"),
    Column("on sale", doc="the Towers and Familiars sold that round, comma-separated"),
    NOTE,
), "What can be bought each round; every Tower and Familiar at least once.")
DATA_TABS = (MAPS_TAB, TRACKS_TAB, RANGES_TAB, TOWERS_TAB, FAMILIARS_TAB, SALES_TAB)

# Which of amount, duration and against each effect and ability uses: (required, allowed blank).
EFFECT_USES = {Effect.NONE: ((), ()), Effect.SINGLE: ((), ()), Effect.SLOW: (("amount", "duration"), ()),
               Effect.STUN: (("duration",), ()), Effect.BURN: (("amount", "duration"), ()),
               Effect.BANE: (("amount", "against"), ())}
ABILITY_USES = {Ability.NONE: ((), ()), Ability.RESIST: (("amount",), ("against",)), Ability.HEAL: (("amount",), ()),
                Ability.FLIES: (("against",), ()), Ability.STURDY: ((), ())}
NEEDED = {"amount": "an amount", "duration": "a duration in time units", "against": "a name"}


def _kinds(tab: TabSchema, rows: Sequence[dict], levels: int, errors: list[SchemaError]) -> dict[str, list[dict]]:
    """A levelled tab's kinds (name as first typed, read in any case and spacing; rows in any order),
    each with its rows by level; a level missing or repeated, or a bad name, is an error (the kind
    is still named, so what refers to it is not an error too)."""
    key = tab.columns[0].name
    rows_of: dict[str, dict[int, dict]] = {}
    names: dict[str, str] = {}  # folded -> as first typed
    for r in rows:
        name = names.setdefault(cells.fold(r[key]), r[key])
        at = rows_of.setdefault(name, {})
        if r["level"] in at:
            errors.append(SchemaError(tab.name, r.get("_row"), "level", r["level"], f"a level of {name} not given "
                                      f"already (row {at[r['level']].get('_row')} gives it)"))
        at.setdefault(r["level"], r)
    for name, at in rows_of.items():
        first = min(at.values(), key=lambda r: r.get("_row") or 0)
        missing = [str(n) for n in range(1, levels + 1) if n not in at]
        if re.search(r",|\d$", name):
            errors.append(SchemaError(tab.name, first.get("_row"), key, name, "a name without a comma that does not "
                                      "end in a number (units are named like `Yi 2`, lists with commas)"))
        if missing:
            errors.append(SchemaError(tab.name, first.get("_row"), key, name, f"a {key} with a row for each level 1 "
                                      f"to {levels} (level {', '.join(missing)} missing)"))
    if not rows:
        errors.append(SchemaError(tab.name, None, key, "", f"a tab with at least one {key}"))
    return {name: [at[n] for n in sorted(at)] for name, at in rows_of.items()}


def _refer(tab: TabSchema, r: dict, column: str, allowed: Sequence[str], what: str,
           errors: list[SchemaError], raw: object = None) -> str | None:
    """The name in a cell (or `raw`, a part of it) read among `allowed`; None and an error if it is not."""
    raw = r[column] if raw is None else raw
    try:
        return None if cells.is_blank(raw) else cells.as_choice(raw, allowed, what)
    except CellError as e:
        errors.append(SchemaError(tab.name, r.get("_row"), column, raw, f"{what} ({e})"))
        return None


def _uses(tab: TabSchema, r: dict, what: str, uses: tuple[tuple[str, ...], tuple[str, ...]],
          columns: Sequence[str], errors: list[SchemaError]) -> None:
    """The columns a row's effect or ability needs are filled in, and those it does not use are blank."""
    required, allowed = uses
    for column in columns:
        if column in required and cells.is_blank(r[column]):
            errors.append(SchemaError(tab.name, r.get("_row"), column, "", f"{NEEDED[column]}, which {what} needs"))
        elif column not in required + allowed and not cells.is_blank(r[column]):
            errors.append(SchemaError(tab.name, r.get("_row"), column, r[column], f"used by {what}: leave it blank"))


T = TypeVar("T")


def _key(data: Mapping[str, list[dict]]) -> tuple:
    """The data tabs' content as a key: the same content reads the same (a game reads its data
    tabs every command; `simulate` plays thousands of games on one)."""
    return tuple(tuple(tuple(r.items()) for r in data.get(tab.name, ())) for tab in DATA_TABS)


def _remembered(read: Callable[[Mapping[str, list[dict]]], T]) -> Callable[[Mapping[str, list[dict]]], T]:
    seen: dict[tuple, T] = {}

    @functools.wraps(read)
    def remembered(data: Mapping[str, list[dict]]) -> T:
        key = _key(data)
        if key not in seen:
            if len(seen) >= 4:  # a few data sets at once at most (tests); never grows without end
                seen.clear()
            seen[key] = read(data)
        return seen[key]

    return remembered


def check_data(data: Mapping[str, list[dict]]) -> list[SchemaError]:
    """Every problem of the data tabs at once (see `_check_data`)."""
    return list(_check_data(data))


@_remembered
def _check_data(data: Mapping[str, list[dict]]) -> tuple[SchemaError, ...]:
    """Problems across the data tabs (each already read through its schema), all at once: the
    drawings (see maps.py), too few maps of a kind, a Tower or Familiar without its levels, a
    column its effect or ability needs left blank or one it does not use filled in, a name no tab
    gives or two tabs give, a round on sale twice, a kind never on sale."""
    maps, errors = read_maps(data[MAPS], data[TRACKS])
    errors += read_ranges(data[RANGES])[1]
    for kind in MapKind:
        of = [name for name, m in maps.items() if m.kind is kind]
        if len(of) < MAPS_OF_A_KIND:
            errors.append(SchemaError(MAPS, None, "map", ", ".join(of) or "none", f"{MAPS_OF_A_KIND} or more "
                                      f"{kind.value} maps drawn without problems (each round each participant chooses "
                                      "among 2 of each kind)"))
    ranges = list(dict.fromkeys(r["range"] for r in data[RANGES]))
    towers = _kinds(TOWERS_TAB, data[TOWERS_TAB.name], TOWER_LEVELS, errors)
    familiars = _kinds(FAMILIARS_TAB, data[FAMILIARS_TAB.name], FAMILIAR_LEVELS, errors)
    tower_at = {cells.fold(name): rows[0].get("_row") for name, rows in towers.items()}
    for name, rows in familiars.items():
        if cells.fold(name) in tower_at:
            errors.append(SchemaError(FAMILIARS_TAB.name, rows[0].get("_row"), "familiar", name, "a name no Tower "
                                      f"has (row {tower_at[cells.fold(name)]} of the towers tab; sales list both "
                                      "together)"))
    for name, rows in towers.items():
        for r in rows:
            _refer(TOWERS_TAB, r, "range", ranges, "a range of the ranges tab", errors)
            effect = Effect(r["effect"] or Effect.NONE.value)
            _uses(TOWERS_TAB, r, f"effect {effect.value}", EFFECT_USES[effect], ("amount", "duration", "against"),
                  errors)
            if effect is Effect.BANE:
                _refer(TOWERS_TAB, r, "against", list(familiars), "a Familiar of the familiars tab", errors)
            ground = rows[0]["ground"] or Ground.LAND.value
            if (r["ground"] or Ground.LAND.value) != ground:
                errors.append(SchemaError(TOWERS_TAB.name, r.get("_row"), "ground", r["ground"] or "",
                                          f"{ground}, as at level {rows[0]['level']}: a Tower stands on the same "
                                          "ground at every level"))
    for name, rows in familiars.items():
        for r in rows:
            if r["level"] == 1 and r["cost"] is None:
                errors.append(SchemaError(FAMILIARS_TAB.name, r.get("_row"), "cost", "", f"a cost: level 1 gives "
                                          f"what {name} costs, and each of its upgrades"))
            elif r["level"] > 1 and r["cost"] is not None:
                errors.append(SchemaError(FAMILIARS_TAB.name, r.get("_row"), "cost", r["cost"], f"blank on level "
                                          f"{r['level']}: an upgrade costs what level 1 gives (the text)"))
            ability = Ability(r["ability"] or Ability.NONE.value)
            _uses(FAMILIARS_TAB, r, f"ability {ability.value}", ABILITY_USES[ability], ("amount", "against"), errors)
            if ability in (Ability.RESIST, Ability.FLIES):
                _refer(FAMILIARS_TAB, r, "against", list(towers), "a Tower of the towers tab", errors)
    _check_sales(data[SALES_TAB.name], [*towers, *familiars], errors)
    return tuple(errors)


def _check_sales(rows: Sequence[dict], kinds: Sequence[str], errors: list[SchemaError]) -> None:
    seen: dict[int, int | None] = {}
    sold: set[str] = set()
    for r in rows:
        if r["round"] in seen:
            errors.append(SchemaError(SALES_TAB.name, r.get("_row"), "round", r["round"],
                                      f"a round without another row (row {seen[r['round']]} is round {r['round']})"))
        seen.setdefault(r["round"], r.get("_row"))
        for part in cells.text(r["on sale"]).split(","):
            if part.strip():
                sold.add(_refer(SALES_TAB, r, "on sale", kinds, "a Tower or Familiar", errors, part.strip()))
    never = [k for k in kinds if k not in sold]
    if never:
        errors.append(SchemaError(SALES_TAB.name, None, "on sale", ", ".join(never), "on sale in any round: every "
                                  "Tower and Familiar is on sale at least once (the text: each is in the sales pool)"))


@_remembered
def catalogue(data: Mapping[str, list[dict]]) -> Catalogue:
    """The rules data from the data tabs, already checked by `check_data`; names in other tabs are
    read in any case and spacing and given as their own tab types them."""
    maps, _ = read_maps(data[MAPS], data[TRACKS])
    ranges, _ = read_ranges(data[RANGES])
    ignored: list[SchemaError] = []
    tower_rows = _kinds(TOWERS_TAB, data[TOWERS_TAB.name], TOWER_LEVELS, ignored)
    familiar_rows = _kinds(FAMILIARS_TAB, data[FAMILIARS_TAB.name], FAMILIAR_LEVELS, ignored)

    def named(raw: object, names: Sequence[str]) -> str | None:
        return None if cells.is_blank(raw) else cells.as_choice(raw, names, "a name")

    towers = {name: TowerKind(name, Ground(rows[0]["ground"] or Ground.LAND.value), tuple(
        TowerLevel(r["price"], r["damage"], r["interval"], ranges[named(r["range"], list(ranges))],
                   Effect(r["effect"] or Effect.NONE.value), r["amount"] or 0, r["duration"] or 0,
                   named(r["against"], list(familiar_rows))) for r in rows), rows[0]["description"] or "")
        for name, rows in tower_rows.items()}
    familiars = {name: FamiliarKind(name, rows[0]["cost"], tuple(
        FamiliarLevel(r["health"], r["pace"], Ability(r["ability"] or Ability.NONE.value), r["amount"] or 0,
                      named(r["against"], list(tower_rows))) for r in rows), rows[0]["description"] or "")
        for name, rows in familiar_rows.items()}
    kinds = [*towers, *familiars]
    sales = {r["round"]: tuple(named(p, kinds) for p in cells.text(r["on sale"]).split(",") if p.strip())
             for r in data[SALES_TAB.name]}
    return Catalogue(maps, towers, familiars, {n: sales.get(n, ()) for n in range(1, ROUNDS + 1)})


def sample_data() -> dict[str, list[dict]]:
    """The shipped sample data tabs (`templates/academy-of-witchcraft-arts/`), read through the schemas."""
    return csv_records(SAMPLE, DATA_TABS)
