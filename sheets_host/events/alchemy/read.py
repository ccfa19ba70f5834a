"""The submit tab `alchemy` (columns action, item, quantity, priority) read into an `AlchemySubmission`.

Only what is invalid is dropped, each with a problem naming its row and column and saying what is
allowed; a cell never raises. Names are read in any case and spacing (`cells.as_choice`).
"""

from __future__ import annotations

from collections.abc import Sequence

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError, Problem, RowRef, SubmitRow
from sheets_host.kit.game import Parsed
from sheets_host.kit.table import Column, TabSchema
from . import rules
from .state import AlchemyState, AlchemySubmission, Attempt

ACTIONS = ("harvest", "buy", "machine", "engineer")
ACTION_ALIASES = {"gather": "harvest", "purchase": "buy", "make": "engineer", "craft": "engineer",
                  "build": "engineer"}
MOST = 10**6  # a bound for typed numbers, far above any purse
MOST_ATTEMPTS = 99  # each unit of an engineer row is one attempt: keep a round quick to resolve

SUBMIT_TAB = TabSchema("alchemy", (
    Column("action", doc="harvest, buy, machine or engineer; one row per action"),
    Column("item", doc="harvest, buy: a material; machine: a machine; engineer: a construct"),
    Column("quantity", doc="buy: how many (blank is 1); engineer: how many attempts (blank is 1); "
                           "otherwise blank"),
    Column("priority", doc="engineer only: 1 is tried first; rows without a priority are tried after, "
                           "in a random order"),
), "Your round of Alchemy: what you harvest and buy, the machine you buy, the constructs you engineer.")


def parse(state: AlchemyState, player: str, rows: Sequence[SubmitRow]) -> Parsed[AlchemySubmission]:
    a, held = state.alchemy, state.holdings(player)
    problems: list[Problem] = []
    harvest: dict[str, SubmitRow] = {}
    buys: list[tuple[str, int]] = []
    coins = held.coins
    machine: tuple[str, SubmitRow] | None = None
    attempts: list[Attempt] = []
    parts: dict[str, tuple[RowRef, ...]] = {}  # harvests are added once the energy is known
    for row in rows:
        if cells.is_blank(row.get("action")):
            problems.append(row.problem("action", f"the cell is empty (allowed: {', '.join(ACTIONS)}); row dropped"))
            continue
        action = row.read("action", lambda v: cells.as_choice(v, ACTIONS, "an action", ACTION_ALIASES), problems)
        if action is None:
            continue
        if action != "engineer" and not cells.is_blank(row.get("priority")):
            problems.append(row.problem("priority", "ignored: only engineer rows take a priority"))
        if action == "harvest":
            material = row.read("item", lambda v: cells.as_choice(v, a.materials, "a material"), problems)
            if material in harvest:
                problems.append(row.problem("item", f"{material} is harvested in row {harvest[material].row} "
                                                    "already; a material is harvested once a round; row dropped"))
            elif material:
                harvest[material] = row
                if cells.text(row.get("quantity")) not in ("", "1"):
                    problems.append(row.problem("quantity", f"{cells.quote(row.get('quantity'))} ignored: you "
                                                            "harvest a material once and the rules set the yield"))
        elif action == "buy":
            material = row.read("item", lambda v: cells.as_choice(v, a.materials, "a material"), problems)
            quantity = _quantity(row, problems, MOST) if material else None
            if quantity is None:
                continue
            price = a.materials[material].price
            if price is None:
                problems.append(row.problem("item", f"{material} cannot be bought; materials with a price: "
                                                    f"{', '.join(a.buyable)}; row dropped"))
            elif price * quantity > coins:
                problems.append(row.problem("quantity", f"{quantity} {material} cost {price * quantity} coins and "
                                                        f"you have {coins} left for them; row dropped"))
            else:
                coins -= price * quantity
                parts[buy_part(len(buys))] = (row.ref,)
                buys.append((material, quantity))
        elif action == "machine":
            name = row.read("item", lambda v: cells.as_choice(v, a.machines, "a machine"), problems)
            if name and machine:
                problems.append(row.problem("action", f"one machine a round (row {machine[1].row} buys "
                                                      f"{machine[0]}); row dropped"))
            elif name and not state.can_buy_machine(player, name):
                problems.append(row.problem("item", f"you own {name} already; each machine is bought once; "
                                                    "row dropped"))
            elif name:
                machine = (name, row)
        else:
            attempt = _attempt(state, row, problems)
            if attempt:
                parts[engineer_part(len(attempts))] = (row.ref,)
                attempts.append(attempt)
    if machine and a.machines[machine[0]].coins > coins:
        problems.append(machine[1].problem("item", f"{machine[0]} costs {a.machines[machine[0]].coins} coins and you "
                                                   f"will have {coins} after your purchases; row dropped"))
        machine = None
    if machine:
        parts[MACHINE_PART] = (machine[1].ref,)
    kept = _fitting_harvest(state, player, harvest, problems)
    parts |= {harvest_part(m): (harvest[m].ref,) for m in kept}
    submission = AlchemySubmission(kept, tuple(buys), machine[0] if machine else None, tuple(attempts))
    if submission == AlchemySubmission():
        return Parsed(None, tuple(problems), "nothing")
    return Parsed(submission, tuple(problems), describe(state, player, submission), parts)


# Each part of a submission as `parse` keys it and the resolver's fates name it: a material
# harvested, a purchase and an engineer row by their place among the submission's.
MACHINE_PART = "machine"


def harvest_part(material: str) -> str:
    return f"harvest {material}"


def buy_part(index: int) -> str:
    return f"buy {index + 1}"


def engineer_part(index: int) -> str:
    return f"engineer {index + 1}"


def _quantity(row: SubmitRow, problems: list[Problem], most: int) -> int | None:
    return row.read("quantity", lambda v: 1 if cells.is_blank(v) else cells.as_int(v, 1, most, "how many"), problems)


def _attempt(state: AlchemyState, row: SubmitRow, problems: list[Problem]) -> Attempt | None:
    construct = row.read("item", lambda v: cells.as_choice(v, state.alchemy.constructs, "a construct"), problems)
    quantity = _quantity(row, problems, MOST_ATTEMPTS) if construct else None
    if quantity is None:
        return None
    priority = None
    if not cells.is_blank(row.get("priority")):
        try:
            priority = cells.as_int(row.get("priority"), 1, MOST, "a priority, 1 first")
        except CellError as e:
            problems.append(row.problem("priority", f"{e}; ignored: the row is tried in random order with the "
                                                    "rows without a priority"))
    return Attempt(construct, quantity, priority)


def _fitting_harvest(state: AlchemyState, player: str, harvest: dict[str, SubmitRow],
                     problems: list[Problem]) -> tuple[str, ...]:
    """The harvest if it fits the round's energy; otherwise nothing (the text's default for an
    invalid harvest), with the fewest rows to drop to make it fit."""
    a = state.alchemy
    energy, cost = rules.energy(a, state.holdings(player).machines), rules.harvest_energy(a, list(harvest))
    if cost <= energy:
        return tuple(harvest)
    drop = rules.fewest_to_drop(a, list(harvest), energy)
    message = (f"your harvest (rows {_rows(harvest, harvest)}) costs {cost} energy and you have {energy}: "
               f"nothing is harvested; drop row{'s' * (len(drop) > 1)} {_rows(harvest, drop)} to fit")
    problems += [row.problem("item", message) for row in harvest.values()]  # each row it drops
    return ()


def _rows(harvest: dict[str, SubmitRow], materials: Sequence[str]) -> str:
    return ", ".join(f"{harvest[m].row} ({m})" for m in materials)


def describe(state: AlchemyState, player: str, s: AlchemySubmission) -> str:
    """One line saying what counts."""
    a = state.alchemy
    energy = rules.energy(a, state.holdings(player).machines)
    parts = [f"harvest {', '.join(s.harvest)} ({rules.harvest_energy(a, s.harvest)} of {energy} energy)"
             if s.harvest else "no harvest"]
    if s.buy:
        spent = sum(a.materials[m].price * n for m, n in s.buy)
        parts.append(f"buy {', '.join(f'{m} ×{n}' for m, n in s.buy)} ({spent} coins)")
    if s.machine:
        m = a.machines[s.machine]
        also = f", and {m.material_quantity} {m.material} if you hold them after the harvest" if m.material else ""
        parts.append(f"machine {s.machine} ({m.coins} coins{also})")
    first = sorted((t for t in s.engineer if t.priority is not None), key=lambda t: t.priority)
    rest = [t for t in s.engineer if t.priority is None]
    if first or rest:
        order = [f"{i}. {_times(t)}" for i, t in enumerate(first, 1)]
        if rest:
            order.append(("then " if first else "") + "in random order: " + ", ".join(_times(t) for t in rest))
        parts.append("engineer " + "; ".join(order))
    return "; ".join(parts)


def _times(t: Attempt) -> str:
    return t.construct if t.quantity == 1 else f"{t.construct} ×{t.quantity}"


def submit_rows(s: AlchemySubmission) -> list[dict]:
    """How a submission is typed into the submit tab (the inverse of `parse`)."""
    rows = [{"action": "harvest", "item": m} for m in s.harvest]
    rows += [{"action": "buy", "item": m, "quantity": n} for m, n in s.buy]
    if s.machine:
        rows.append({"action": "machine", "item": s.machine})
    rows += [{"action": "engineer", "item": t.construct, "quantity": t.quantity, "priority": t.priority}
             for t in s.engineer]
    return rows
