"""Summoner's Dream's submit tabs read into a `SummoningSubmission`.

Four tabs: `summoning` (one row: the map, the target, the two parties' slots), `summoning shop`
(one row an item: a kind to buy, or a unit to upgrade), `summoning defence` (one row a Tower: its
cell and facing) and `summoning attack` (slots 1 to 22, a Familiar each). Reading a cell is kept
apart from legality: the rules say what is for sale, affordable, placeable; only what is invalid is
dropped, each with a message naming it; what is left blank takes the text's default at resolve.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError, Problem, RowRef, SubmitRow
from sheets_host.kit.game import Parsed
from sheets_host.kit.table import Column, SubmitTab, TabSchema
from . import rules
from .state import PARTIES, SLOTS, Facing, Order, Stand, SummoningState, SummoningSubmission, Unit, cell_name

ORDERS = SubmitTab(TabSchema("summoning", (
    Column("map", doc="one of your four maps this round (secret); blank: your last map if offered, else the first"),
    Column("target", doc="whose territory you invade: one you have not invaded yet; blank: drawn at random"),
    Column("party A", doc="Party A's slots, e.g. 1-6 (they walk Track A); blank: the first half of your Familiars"),
    Column("party B", doc="Party B's slots, e.g. 7-12 (they walk Track B); blank: the rest"),
), "Your map, target and parties this round: one row."))
SHOP = SubmitTab(TabSchema("summoning shop", (
    Column("item", doc="a Tower or Familiar on sale (e.g. Yi) to buy, or one of yours (e.g. Yi 1) to upgrade"),
    Column("quantity", doc="how many to buy, or how many levels up (blank: 1)"),
), "What you buy this round, in order (coins run out in this order)."))
DEFENCE = SubmitTab(TabSchema("summoning defence", (
    Column("tower", doc="one of your Towers, e.g. Yi 1"),
    Column("cell", doc="its tile on your map, e.g. C4 (column letter, row number)"),
    Column("facing", doc="N, E, S or W (blank: north); its range turns with it"),
), "Your Towers on your map this round; blank: last round's, where they still fit."))
ATTACK = SubmitTab(TabSchema("summoning attack", (
    Column("slot", doc="fixed: slots 1 to 22"),
    Column("familiar", doc="one of your Familiars, e.g. Fox 2 (or just Fox: any Fox not yet in a slot)"),
), "Your Familiars in slots 1 to 22; blank: last round's, newly bought ones in empty slots at random."),
    labels=tuple(str(s) for s in range(1, SLOTS + 1)))
TABS = (ORDERS, SHOP, DEFENCE, ATTACK)
FACINGS = {"north": "N", "east": "E", "south": "S", "west": "W"}
MOST = 22  # a quantity above this is a typo: no round buys more than 22 of anything


def parse(state: SummoningState, player: str, rows: Sequence[SubmitRow]) -> Parsed[SummoningSubmission]:
    problems: list[Problem] = []
    parts: dict[str, tuple[RowRef, ...]] = {}
    by_tab = {t.name: [r for r in rows if r.tab == t.name] for t in TABS}
    orders = _orders(state, by_tab[SHOP.name], problems)
    bought = rules.shop(state, player, [o for o, _ in orders], state.round)
    for i, why in sorted(bought.refused.items()):
        problems.append(orders[i][1].problem("item", f"{why}; not bought"))
    kept = tuple(orders[i][0] for i in bought.kept)
    parts |= {purchase_part(j): (orders[i][1].ref,) for j, i in enumerate(bought.kept)}
    head = by_tab[ORDERS.name][:1]
    for extra in by_tab[ORDERS.name][1:]:
        problems.append(extra.problem(None, "one row only (the first counts); row not read"))
    map_name = _map(state, player, head, problems)
    stands = _stands(state, map_name or rules.default_map(state, player), bought.towers, by_tab[DEFENCE.name],
                     problems, parts)
    slots = _slots(bought.familiars, by_tab[ATTACK.name], problems, parts)
    parties = _parties(head, problems)
    target = _target(state, player, head, problems)
    if parties and not slots:  # the parties are read with the slots typed this round
        problems.append(head[0].problem("party A", f"ignored: {rules.NO_SLOTS}"))
        parties = None
    elif parties and {u.name for u in bought.familiars} <= set(slots.values()):
        # Every Familiar in its slot: the parties as played are these, so the half rule is known now.
        split = rules.party_problem(slots, parties)
        if split:
            problems.append(head[0].problem("party A", f"{split}; parties split at the middle Familiar"))
            parties = None
    if slots is not None:
        for name in [u.name for u in bought.familiars if u.name not in slots.values()]:
            problems.append(Problem(player, f"{name} has no slot: it goes to an empty slot at random "
                                            "(all Familiars are sent)", tab=ATTACK.name))
    parts |= {part: (head[0].ref,) for part, typed in ((MAP_PART, map_name), (TARGET_PART, target),
                                                       (PARTIES_PART, parties)) if typed}
    sub = SummoningSubmission(kept, map_name, stands, slots, parties, target)
    if sub == SummoningSubmission():
        return Parsed(None, tuple(problems), "nothing: last round's map, Towers and Familiars stand, target drawn")
    return Parsed(sub, tuple(problems), summary(sub), parts)


# The parts of a submission as `parse` keys them and the resolver's fates name them: a purchase by
# its place among the submission's, a Tower and a slot by name.
MAP_PART, TARGET_PART, PARTIES_PART = "map", "target", "parties"


def purchase_part(index: int) -> str:
    return f"purchase {index + 1}"


def tower_part(tower: str) -> str:
    return f"tower {tower}"


def slot_part(slot: int) -> str:
    return f"slot {slot}"


def summary(sub: SummoningSubmission) -> str:
    """What counts, in one line for the player's status."""
    parts = []
    if sub.orders:
        parts.append(f"{len(sub.orders)} purchase{'s' * (len(sub.orders) != 1)}")
    if sub.map:
        parts.append(f"map {sub.map}")
    if sub.stands is not None:
        parts.append(f"{len(sub.stands)} Tower{'s' * (len(sub.stands) != 1)} placed")
    if sub.slots is not None:
        parts.append(f"{len(sub.slots)} Familiar{'s' * (len(sub.slots) != 1)} in slots")
    if sub.target:
        parts.append(f"invading {sub.target}")
    return ", ".join(parts)


def _item(state: SummoningState, raw: object) -> Order:
    """'Yi' buys a Yi; 'Yi 1' upgrades your Yi 1 (any case and spacing)."""
    kinds = [*state.catalogue.towers, *state.catalogue.familiars]
    t = cells.text(raw)
    unit = re.fullmatch(r"(.*?)\s*#?(\d+)", t)
    if unit and not any(cells.fold(k) == cells.fold(t) for k in kinds):
        return "upgrade", Unit(cells.as_choice(unit.group(1), kinds, "a Tower or Familiar"), int(unit.group(2))).name
    return "buy", cells.as_choice(t, kinds, "a Tower or Familiar")


def _orders(state: SummoningState, rows: Sequence[SubmitRow],
            problems: list[Problem]) -> list[tuple[Order, SubmitRow]]:
    out = []
    for row in rows:
        order = row.read("item", lambda v: _item(state, v), problems, "row not bought")
        count = row.read("quantity", lambda v: 1 if cells.is_blank(v) else cells.as_int(v, 1, MOST, "a quantity"),
                         problems, "row not bought")
        if order and count:
            out += [(order, row)] * count
    return out


def _map(state: SummoningState, player: str, head: Sequence[SubmitRow], problems: list[Problem]) -> str | None:
    if not head or cells.is_blank(head[0].get("map")):
        return None
    offered = state.offers[state.round][player]
    return head[0].read("map", lambda v: cells.as_choice(v, offered, "one of your maps this round"), problems,
                        f"your map will be {rules.default_map(state, player)}")


def _cell(raw: object) -> tuple[int, int]:
    m = re.fullmatch(r"([A-Za-z])\s*(\d{1,2})", cells.text(raw))
    if not m:
        raise CellError(f"{cells.quote(raw)} is not a cell (a column letter and a row number, like C4)")
    return int(m.group(2)) - 1, ord(m.group(1).upper()) - ord("A")


def _facing(raw: object) -> Facing:
    if cells.is_blank(raw):
        return Facing.NORTH
    letter = cells.as_choice(raw, list(FACINGS.values()), "a facing", aliases=FACINGS, allowed="N, E, S or W")
    return Facing(letter)


def _stands(state: SummoningState, map_name: str, towers: Sequence[Unit], rows: Sequence[SubmitRow],
            problems: list[Problem], parts: dict[str, tuple[RowRef, ...]]) -> tuple[Stand, ...] | None:
    if not rows:
        return None
    names = [u.name for u in towers]
    typed, typed_rows = [], []
    for row in rows:
        tower = row.read("tower", lambda v: cells.as_choice(v, names, "one of your Towers"), problems, "not placed")
        cell = row.read("cell", _cell, problems, "not placed")
        facing = row.read("facing", _facing, problems, "not placed")
        if tower and cell and facing:
            typed.append(Stand(tower, cell, facing))
            typed_rows.append(row)
    kept, refused = rules.legal_stands(state, map_name, towers, typed)
    for i, why in refused:
        problems.append(typed_rows[i].problem("cell", f"{why}; not placed"))
    parts |= {tower_part(typed[i].tower): (row.ref,) for i, row in enumerate(typed_rows)
              if i not in dict(refused)}
    return kept


def _slots(familiars: Sequence[Unit], rows: Sequence[SubmitRow], problems: list[Problem],
           parts: dict[str, tuple[RowRef, ...]]) -> dict[int, str] | None:
    rows = [r for r in rows if not cells.is_blank(r.get("familiar"))]
    if not rows:
        return None
    names = [u.name for u in familiars]
    kinds = list(dict.fromkeys(u.kind for u in familiars))
    out: dict[int, str] = {}
    seen: dict[int, SubmitRow] = {}  # slot -> the row that named it first
    for row in rows:
        if cells.text(row.get("slot")) not in ATTACK.labels:
            problems.append(row.problem("slot", f"{cells.quote(row.get('slot'))} is not a slot (1 to {SLOTS}): the "
                                                "first column is fixed; row not read"))
            continue
        slot = int(cells.text(row.get("slot")))
        if slot in seen:
            problems.append(row.problem("slot", f"slot {slot} is in row {seen[slot].row} already; row not read"))
            continue
        seen[slot] = row
        name = row.read("familiar", lambda v: cells.as_choice(v, names + kinds, "one of your Familiars"), problems,
                        "slot left empty")
        if name in kinds:  # a kind: its first unit not yet in a slot
            name = next((n for n in names if n.rsplit(" ", 1)[0] == name and n not in out.values()), None)
            if name is None:
                problems.append(row.problem("familiar", f"every {row.get('familiar')} is in a slot already; slot "
                                                        "left empty"))
                continue
        if name in out.values():
            problems.append(row.problem("familiar", f"{name} is in slot "
                                                    f"{next(s for s, n in out.items() if n == name)} already; slot "
                                                    "left empty"))
        elif name:
            out[slot] = name
            parts[slot_part(slot)] = (row.ref,)
    return out


def _range(raw: object) -> tuple[int, int]:
    m = re.fullmatch(r"(\d{1,2})\s*(?:(?:-|–|to)\s*(\d{1,2}))?", cells.text(raw))
    if not m:
        raise CellError(f"{cells.quote(raw)} is not a range of slots (like 1-6)")
    first, last = int(m.group(1)), int(m.group(2) or m.group(1))
    if not 1 <= first <= last <= SLOTS:
        raise CellError(f"{cells.quote(raw)} is not a range within slots 1-{SLOTS}, first to last")
    return first, last


def _parties(head: Sequence[SubmitRow], problems: list[Problem]) -> dict[str, tuple[int, int]] | None:
    if not head:
        return None
    typed = {p: head[0].read(f"party {p}", _range, problems, "parties split at the middle Familiar")
             for p in PARTIES if not cells.is_blank(head[0].get(f"party {p}"))}
    if len(typed) == 1:
        problems.append(head[0].problem(f"party {'B' if 'A' in typed else 'A'}", "blank: both parties' slots are "
                                        "needed; parties split at the middle Familiar"))
    if set(typed) != set(PARTIES) or None in typed.values():
        return None
    (a0, a1), (b0, b1) = typed["A"], typed["B"]
    if a0 <= b1 and b0 <= a1:
        problems.append(head[0].problem("party B", f"slots {b0}-{b1} overlap Party A's {a0}-{a1}; parties split "
                                                   "at the middle Familiar"))
        return None
    return typed


def _target(state: SummoningState, player: str, head: Sequence[SubmitRow], problems: list[Problem]) -> str | None:
    if not head or cells.is_blank(head[0].get("target")):
        return None
    left = rules.not_yet_invaded(state, player)
    return head[0].read("target", lambda v: cells.as_choice(v, left, "a participant you have not invaded yet"),
                        problems, "your target will be drawn at random")


def submit_rows(sub: SummoningSubmission) -> list[dict]:
    """How a submission is typed (bots type this way)."""
    out: list[dict] = [{"tab": SHOP.name, "item": name, "quantity": 1} for _, name in sub.orders]
    head = {"map": sub.map, "target": sub.target,
            **{f"party {p}": f"{a}-{b}" for p, (a, b) in (sub.parties or {}).items()}}
    if any(v is not None for v in head.values()):
        out.append({"tab": ORDERS.name, **head})
    out += [{"tab": DEFENCE.name, "tower": s.tower, "cell": cell_name(s.cell), "facing": s.facing.value}
            for s in sub.stands or ()]
    out += [{"tab": ATTACK.name, "slot": str(slot), "familiar": name} for slot, name in (sub.slots or {}).items()]
    return out


def submit_choices(state: SummoningState, player: str, tab: str) -> dict[str, list[str]]:
    """The dropdowns: this round's maps and targets, what is on sale and what can be upgraded, the
    participant's Towers and Familiars."""
    h = state.holdings[player]
    if tab == ORDERS.name:
        return {"map": list(state.offers.get(state.round, {}).get(player, ())),
                "target": rules.not_yet_invaded(state, player)}
    if tab == SHOP.name:
        return {"item": [*rules.on_sale(state, state.round), *(u.name for u in (*h.towers, *h.familiars))]}
    if tab == DEFENCE.name:
        return {"tower": [u.name for u in h.towers], "facing": list(FACINGS.values())}
    if tab == ATTACK.name:
        return {"familiar": [u.name for u in h.familiars]}
    return {}
