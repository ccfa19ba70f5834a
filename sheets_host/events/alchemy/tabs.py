"""Alchemy's tabs: the data tabs the host fills in, the state tab, and reading them.

The state tab holds one row per participant per round: the turn as played (the harvest, the
purchases and the machine named, the engineering attempts in the order tried). `load` walks those
rows again with the rules, which decide what came of them exactly as when the round was resolved,
so holdings can never disagree with what was played and `load` inverts `dump` exactly. A host's
correction is a correction of what a participant did: it is refused, naming tab, row and column,
only when it cannot be read (an unknown name, a round or participant missing or repeated).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any


from sheets_host.festival.event import rows_by_round
from sheets_host.kit import cells
from sheets_host.kit.cells import CellError
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import TEMPLATES, Column, TabSchema, csv_records
from . import rules
from .state import GOLD, Alchemy, AlchemyState, Construct, Effect, Location, Machine, Material, Recipe, Turn

SAMPLE = TEMPLATES / "academy-of-witchcraft-arts"
NOTE = Column("note", optional=True, doc="the shipped rows say `sample`")

LOCATIONS_TAB = TabSchema("alchemy locations", (
    Column("location"), Column("description", optional=True), NOTE,
), "Where materials are harvested.")
MATERIALS_TAB = TabSchema("alchemy materials", (
    Column("material", doc="the name used everywhere (no commas or ×); one must be `gold`"),
    Column("location", doc="a location of the locations tab"),
    Column("energy", "int", lo=0, doc="what harvesting it costs"),
    Column("price", "int", lo=1, optional=True, doc="coins for one; blank: it cannot be bought"),
    NOTE,
), "The raw materials.")
CONSTRUCTS_TAB = TabSchema("alchemy constructs", (
    Column("construct", doc="the name used everywhere (no commas or ×)"),
    Column("set", doc="its market set (the text: 7 sets of 3)"),
    Column("value", "float", lo=0, doc="market value in gems"),
    NOTE,
), "The constructs and their market values.")
RECIPES_TAB = TabSchema("alchemy recipes", (
    Column("construct"), Column("material"), Column("quantity", "int", lo=1), NOTE,
), "One row per material of a construct's recipe.")
MACHINES_TAB = TabSchema("alchemy machines", (
    Column("machine", doc="the name used everywhere (no commas or ×)"),
    Column("coins", "int", lo=0, doc="its cost in coins"),
    Column("material", optional=True, doc="a material it also costs; blank: none"),
    Column("material quantity", "int", lo=1, optional=True, doc="how many of that material (blank: 1)"),
    Column("effect", "choice", tuple(e.value for e in Effect),
           doc="transmute: turns up to `amount` of `from` into `to` every round; yield: `amount` more "
               "`from` when its owner harvests it; thrift: recipes need `amount` fewer `from`; energy: "
               "`amount` more energy a round from the next round on"),
    Column("from", optional=True, doc="the material it works on; blank for an energy machine"),
    Column("to", optional=True, doc="transmute only: what it makes"),
    Column("amount", "int", lo=1),
    Column("description", optional=True, doc="the effect in words, as players read it"),
    NOTE,
), "The machines: each participant buys at most one a round, each machine once.")
DATA_TABS = (LOCATIONS_TAB, MATERIALS_TAB, CONSTRUCTS_TAB, RECIPES_TAB, MACHINES_TAB)

TURNS_TAB = TabSchema("alchemy turns", (
    Column("round", "int", lo=1), Column("player", "player"),
    Column("harvest", optional=True, doc="the materials named to harvest, comma-separated; blank: none"),
    Column("buy", optional=True, doc="the purchases in order, like `quartz ×2, gold ×1`"),
    Column("machine", optional=True, doc="the machine named; blank: none"),
    Column("engineer", optional=True, doc="the attempts in the order tried, like `tin bird ×2, hand mirror`"),
), "Every participant's round as played: one row per participant per round (the rules derive the rest).")
STATE_TABS = (TURNS_TAB,)

STARTING_COINS = Column("alchemy starting coins", "int", lo=0, doc="each participant's coins at the start (500)")
ENERGY = Column("alchemy energy", "int", lo=0, doc="energy a round before machines (17)")
HARVEST_BASE = Column("alchemy harvest base", "int", lo=1, doc="a harvest's yield with nobody else at its "
                                                               "location (4)")
SETTINGS = (STARTING_COINS, ENERGY, HARVEST_BASE)
# What the Academy's endgame rewards (a garnet for the most gold left): hosted by hand, typed in.
FIGURES = (Column("gold held", "int", lo=0, optional=True, doc="gold left at the end (blank is 0)"),)
DEFAULTS = {STARTING_COINS.name: 500, ENERGY.name: 17, HARVEST_BASE.name: 4}  # the rule text's numbers
MOST = 999  # a bound for counts: more than any purse buys (prices are 1 or more), and quick to replay
_COUNTED = re.compile(r"^(.+?)(?:\s*×|\s+[x*])\s*(\d+)$", re.IGNORECASE)


# ---- the data tabs -------------------------------------------------------------------------------


def _setting(config: Mapping[str, Any], column: Column) -> int:
    value = config.get(column.name)
    return DEFAULTS[column.name] if value is None else value


def alchemy(config: Mapping[str, Any], data: Mapping[str, list[dict]]) -> Alchemy:
    """The rules data from the settings and the data tabs, already checked by `check_data`
    (names in other tabs are read in any case and spacing, as the host may type them)."""
    materials = [r["material"] for r in data[MATERIALS_TAB.name]]
    locations = [r["location"] for r in data[LOCATIONS_TAB.name]]
    constructs = [r["construct"] for r in data[CONSTRUCTS_TAB.name]]

    def named(raw: object, names: Sequence[str]) -> str | None:
        return None if cells.is_blank(raw) else cells.as_choice(raw, names, "a name")

    needs: dict[str, list[tuple[str, int]]] = {c: [] for c in constructs}
    for r in data[RECIPES_TAB.name]:
        needs[named(r["construct"], constructs)].append((named(r["material"], materials), r["quantity"]))
    return Alchemy(
        _setting(config, STARTING_COINS), _setting(config, ENERGY), _setting(config, HARVEST_BASE),
        tuple(Location(r["location"], r["description"] or "") for r in data[LOCATIONS_TAB.name]),
        {r["material"]: Material(r["material"], named(r["location"], locations), r["energy"], r["price"])
         for r in data[MATERIALS_TAB.name]},
        {r["construct"]: Construct(r["construct"], r["set"], Fraction(str(r["value"])))
         for r in data[CONSTRUCTS_TAB.name]},
        {c: Recipe(c, tuple(n)) for c, n in needs.items()},
        {r["machine"]: Machine(r["machine"], r["coins"], named(r["material"], materials),
                               r["material quantity"] or 1, Effect(r["effect"]), named(r["from"], materials),
                               named(r["to"], materials), r["amount"], r["description"] or "")
         for r in data[MACHINES_TAB.name]})


def check_data(data: Mapping[str, list[dict]]) -> list[SchemaError]:
    """Problems across the data tabs (each tab already read through its schema): a name used twice
    or holding a comma or ×, a reference to something no tab names, a construct without a recipe,
    no material called gold, a machine's `to` missing or out of place."""
    errors: list[SchemaError] = []
    names = {tab.name: _names(tab, data[tab.name], errors) for tab in (LOCATIONS_TAB, MATERIALS_TAB,
                                                                        CONSTRUCTS_TAB, MACHINES_TAB)}
    materials = names[MATERIALS_TAB.name]

    def refer(tab: TabSchema, r: dict, column: str, allowed: Sequence[str], what: str) -> str | None:
        try:
            return None if cells.is_blank(r[column]) else cells.as_choice(r[column], allowed, what)
        except CellError as e:
            errors.append(SchemaError(tab.name, r.get("_row"), column, r[column], f"{what} ({e})"))
            return None

    for r in data[MATERIALS_TAB.name]:
        refer(MATERIALS_TAB, r, "location", names[LOCATIONS_TAB.name], "a location of the locations tab")
    if materials and GOLD not in materials:
        errors.append(SchemaError(MATERIALS_TAB.name, None, "material", ", ".join(materials),
                                  f"a list with a material called {GOLD!r} (gold held is scored)"))
    in_recipes: dict[str, set[str]] = {}
    for r in data[RECIPES_TAB.name]:
        construct = refer(RECIPES_TAB, r, "construct", names[CONSTRUCTS_TAB.name], "a construct of the constructs tab")
        material = refer(RECIPES_TAB, r, "material", materials, "a material of the materials tab")
        if construct and material:
            if material in in_recipes.setdefault(construct, set()):
                errors.append(SchemaError(RECIPES_TAB.name, r.get("_row"), "material", material,
                                          f"a material not yet in {construct}'s recipe"))
            in_recipes[construct].add(material)
    for r in data[CONSTRUCTS_TAB.name]:
        if r["construct"] not in in_recipes:
            errors.append(SchemaError(CONSTRUCTS_TAB.name, r.get("_row"), "construct", r["construct"],
                                      "a construct with a recipe (no row of the recipes tab names it)"))
    for r in data[MACHINES_TAB.name]:
        refer(MACHINES_TAB, r, "material", materials, "a material of the materials tab")
        if r["material quantity"] is not None and cells.is_blank(r["material"]):
            errors.append(SchemaError(MACHINES_TAB.name, r.get("_row"), "material quantity", r["material quantity"],
                                      "blank when the machine costs no material"))
        source = refer(MACHINES_TAB, r, "from", materials, "a material of the materials tab")
        if (r["effect"] == Effect.ENERGY.value) != cells.is_blank(r["from"]):
            errors.append(SchemaError(MACHINES_TAB.name, r.get("_row"), "from", r["from"] or "",
                                      "blank for an energy machine, and a material for any other"))
        if r["effect"] == Effect.TRANSMUTE.value:
            target = refer(MACHINES_TAB, r, "to", materials, "a material of the materials tab")
            if target is None or target == source:
                errors.append(SchemaError(MACHINES_TAB.name, r.get("_row"), "to", r["to"] or "",
                                          "another material than `from`, which a transmuter makes"))
        elif not cells.is_blank(r["to"]):
            errors.append(SchemaError(MACHINES_TAB.name, r.get("_row"), "to", r["to"], "blank (only a transmuter "
                                                                                       "makes a material)"))
    return errors


def _names(tab: TabSchema, rows: list[dict], errors: list[SchemaError]) -> list[str]:
    """The names in a tab's first column; one that another row also uses (in any case or spacing),
    or that holds a comma or × (the turns tab lists names with them), is an error."""
    column, seen, out = tab.columns[0].name, {}, []
    for r in rows:
        name = r[column]
        if cells.fold(name) in seen:
            errors.append(SchemaError(tab.name, r.get("_row"), column, name,
                                      f"a name no other row uses (row {seen[cells.fold(name)]} does)"))
        elif re.search(r"[,×]", name):
            errors.append(SchemaError(tab.name, r.get("_row"), column, name, "a name without a comma or ×"))
        seen.setdefault(cells.fold(name), r.get("_row"))
        out.append(name)
    if not out:
        errors.append(SchemaError(tab.name, None, column, "", f"a tab with at least one {column}"))
    return out


def sample_data() -> dict[str, list[dict]]:
    """The shipped sample data tabs (`templates/academy-of-witchcraft-arts/`), read through the schemas."""
    return csv_records(SAMPLE, DATA_TABS)


# ---- the state tab --------------------------------------------------------------------------------


def dump(state: AlchemyState) -> dict[str, list[dict]]:
    rows = []
    for result in state.history:
        for player, report in result.reports.items():
            t = report.turn
            rows.append({"round": result.number, "player": player, "harvest": ", ".join(t.harvest) or None,
                         "buy": ", ".join(f"{m} ×{n}" for m, n in t.buy) or None, "machine": t.machine,
                         "engineer": _runs(t.engineer) or None})
    return {TURNS_TAB.name: rows}


def _runs(constructs: Sequence[str]) -> str:
    """Runs of the same construct counted, in order.

    >>> _runs(["tin bird", "tin bird", "hand mirror", "tin bird"])
    'tin bird ×2, hand mirror, tin bird'
    """
    runs: list[list] = []
    for c in constructs:
        if runs and runs[-1][0] == c:
            runs[-1][1] += 1
        else:
            runs.append([c, 1])
    return ", ".join(c if n == 1 else f"{c} ×{n}" for c, n in runs)


def _counted(raw: object, names: Sequence[str], what: str) -> list[tuple[str, int]]:
    """The names in a cell, comma-separated, each with an optional count (`quartz ×2`)."""
    out = []
    for part in cells.text(raw).split(","):
        m = _COUNTED.match(part.strip())
        name, count = (m.group(1), cells.as_int(m.group(2), 1, MOST, "a count")) if m else (part, 1)
        out.append((cells.as_choice(name, names, what), count))
    return out


def load(a: Alchemy, players: Sequence[str], tabs: Mapping[str, list[dict]]) -> AlchemyState:
    """The state from the turns tab, walked with the rules; SchemaErrors name what cannot be read."""
    errors: list[SchemaError] = []
    rounds = rows_by_round(TURNS_TAB.name, tabs[TURNS_TAB.name], players, 1, lambda r: _turn(a, r, errors), errors)
    numbers = list(rounds)
    if errors:
        raise SchemaErrors(errors)
    state = AlchemyState(a, tuple(players))
    for number in numbers:
        result = rules.resolve_round(a, number, {p: state.holdings(p) for p in players},
                                     {p: rounds[number][p][0] for p in players})
        state = AlchemyState(a, state.participants, state.history + (result,))
    return state


def _turn(a: Alchemy, r: dict, errors: list[SchemaError]) -> Turn | None:
    """A turns row's names, read in any case and spacing; None (with errors) if one is unknown."""
    read = {}
    for column, names, what in (("harvest", a.materials, "a material"), ("buy", a.materials, "a material"),
                                ("machine", a.machines, "a machine"), ("engineer", a.constructs, "a construct")):
        try:
            read[column] = [] if cells.is_blank(r[column]) else _counted(r[column], list(names), what)
        except CellError as e:
            errors.append(SchemaError(TURNS_TAB.name, r.get("_row"), column, r[column], f"a list of names ({e})"))
    if len(read) < 4:
        return None
    for column, why in (("harvest", "materials without a count (each is harvested once)"), ("machine", "one machine")):
        if sum(n for _, n in read[column]) > len(read[column]) or (column == "machine" and len(read[column]) > 1):
            errors.append(SchemaError(TURNS_TAB.name, r.get("_row"), column, r[column], why))
            return None
    return Turn(tuple(m for m, _ in read["harvest"]), tuple(read["buy"]),
                read["machine"][0][0] if read["machine"] else None,
                tuple(c for c, n in read["engineer"] for _ in range(n)))
