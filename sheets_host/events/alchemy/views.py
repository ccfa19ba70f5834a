"""What Alchemy shows: each participant their own holdings and rounds, everyone the participants
(and at the end their gems), the announcement, the host's log, and what `simulate` measures.

The text: "At the end of each round, you will be privately told your number of gems and
materials. Locations, constructs, and sales will not be revealed." So nothing public names a
location, a construct or a sale before the end, and a private view holds only its reader's values.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from fractions import Fraction

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.game import Example, Fate, HowTo

from . import bots, rules
from .read import ACTIONS, MACHINE_PART, SUBMIT_TAB, buy_part, engineer_part, harvest_part, submit_rows
from .state import Alchemy, AlchemyState, AlchemySubmission, Drop, Report

HISTORY_COLUMNS = ["round", "energy", "harvest", "harvest energy", "bought", "machine", "machines did",
                   "made", "failed attempts", "sold", "gems", "refused"]


def gems_number(gems: Fraction) -> float:
    """Gems in a column of numbers, to the hundredth (the book shows every row with 2 decimals).

    >>> gems_number(Fraction(27, 2)), gems_number(Fraction(21, 5) * Fraction(3, 5))
    (13.5, 2.52)
    """
    return float(round(gems, 2))


def gems_text(gems: Fraction) -> str:
    """Gems as shown: 2 decimals (they are kept exact).

    >>> gems_text(Fraction(27, 2)), gems_text(Fraction(21, 5) * Fraction(3, 5))
    ('13.50', '2.52')
    """
    return f"{float(round(gems, 2)):.2f}"


def stock_items(a: Alchemy, stock: Mapping[str, int]) -> list[str]:
    """Materials in the materials tab's order, those not held left out."""
    return [f"{m} ×{stock[m]}" for m in a.materials if stock.get(m)]


def stock_text(a: Alchemy, stock: Mapping[str, int]) -> str:
    return ", ".join(stock_items(a, stock)) or "nothing"


def refusal(d: Drop) -> str:
    """A part the rules refused, as `my alchemy rounds` and `my submissions` both say it."""
    return f"{d.part} {d.value}: not {d.why}"


def _refused(drops: Iterable[Drop]) -> str:
    return "; ".join(map(refusal, drops))


def _machined(report: Report) -> str:
    return ", ".join(f"{m} {n:+d}" for m, n in report.machined.items())


def _history_row(a: Alchemy, number: int, r: Report) -> dict:
    return {"round": number, "energy": r.energy, "harvest": stock_text(a, r.harvested) if r.harvested else None,
            "harvest energy": r.cost, "bought": ", ".join(f"{m} ×{n}" for m, n in r.bought) or None,
            "machine": r.machine, "machines did": _machined(r) or None, "made": ", ".join(r.made) or None, "failed attempts": ", ".join(r.failed) or None,
            "sold": "; ".join(f"{s.construct}: {gems_text(a.constructs[s.construct].value)} × "
                              f"{float(s.multiplier):g} = {gems_text(s.gems)}" for s in r.sales) or None,
            "gems": gems_number(sum((s.gems for s in r.sales), Fraction(0))), "refused": _refused(r.dropped) or None}


def private_view(state: AlchemyState, player: str) -> dict[str, pd.DataFrame]:
    a, h = state.alchemy, state.holdings(player)
    me = [("player", player), ("rounds played", state.round), ("gems", gems_number(h.gems)), ("coins", h.coins),
          ("energy next round", rules.energy(a, h.machines)), ("materials", stock_text(a, h.materials)),
          ("machines", ", ".join(h.machines) or "none"),
          ("constructs sold so far", ", ".join(c for c in a.constructs if c in h.sold) or "none")]
    rounds = [_history_row(a, result.number, result.reports[player]) for result in reversed(state.history)]
    return {"my alchemy": pd.DataFrame(me, columns=["what", "value"], dtype=object),
            "my alchemy rounds": pd.DataFrame(rounds, columns=HISTORY_COLUMNS, dtype=object)}


def public_view(state: AlchemyState, over: bool) -> dict[str, pd.DataFrame]:
    """The participants; at the end their gems (the text reveals nothing else)."""
    if not over:
        return {"alchemy participants": pd.DataFrame({"participant": list(state.participants)})}
    return {"alchemy participants": pd.DataFrame(
        [{"participant": p, "gems": gems_number(state.holdings(p).gems)} for p in state.participants])}


def announcement(before: AlchemyState, after: AlchemyState, over: bool) -> list[str]:
    lines = [f"**Alchemy**, round {after.round}: harvested, engineered and sold. Each participant is told "
             "their gems and materials privately."]
    if over:
        lines += ["", "Alchemy's final gems:"]
        lines += [f"- {p}: {gems_text(after.holdings(p).gems)}"
                  for p in sorted(after.participants, key=lambda p: -after.holdings(p).gems)]
    return lines


def log(after: AlchemyState) -> list[str]:
    """The host's lines for the round just resolved (they name private things)."""
    a, result = after.alchemy, after.history[-1]
    lines = []
    for p, r in result.reports.items():
        row = _history_row(a, result.number, r)
        lines.append(f"Alchemy {p}: " + "; ".join(f"{k} {v}" for k, v in row.items()
                                                   if k not in ("round", "refused") and v is not None))
        lines += [f"Alchemy {p}: {d.part} {d.value} refused: not {d.why}" for d in r.dropped]
    return lines


def fates(after: AlchemyState, submissions: Mapping[str, AlchemySubmission | None]) -> dict[str, list[Fate]]:
    """What the round just played did with each part of each participant's submission, from the
    round's reports: a part the rules refused did not count (its refusal as `my alchemy rounds`
    says it), nor an engineer row none of whose attempts made its construct. The default does
    nothing: no part."""
    result = after.history[-1]
    return {p: _fates(submissions.get(p) or AlchemySubmission(), r) for p, r in result.reports.items()}


def _fates(s: AlchemySubmission, r: Report) -> list[Fate]:
    refused = {MACHINE_PART if d.part == "machine" else buy_part(d.index): refusal(d)
               for d in r.dropped if d.part != "harvest"}
    harvest = "; ".join(refusal(d) for d in r.dropped if d.part == "harvest")  # the harvest is refused whole
    out = [Fate(harvest_part(m), f"harvest {m} ×{r.harvested[m]}") if m in r.harvested
           else Fate(harvest_part(m), f"harvest {m}", harvest) for m in s.harvest]
    out += [Fate(buy_part(i), f"buy {m} ×{n}", refused.get(buy_part(i), "")) for i, (m, n) in enumerate(s.buy)]
    if s.machine:
        out.append(Fate(MACHINE_PART, f"machine {s.machine}", refused.get(MACHINE_PART, "")))
    return out + _engineered(s, r)


def _engineered(s: AlchemySubmission, r: Report) -> list[Fate]:
    """Each engineer row's attempts that made its construct. Materials held only fall while
    constructs are engineered, so a construct's attempts that succeed are its first ones as tried:
    priority rows first, by priority, then the others (whose attempts at one construct are alike)."""
    made = Counter(r.made)
    got = {}
    for i, t in sorted(enumerate(s.engineer), key=lambda it: (it[1].priority is None, it[1].priority or 0)):
        got[i] = min(t.quantity, made[t.construct])
        made[t.construct] -= got[i]
    out = []
    for i, t in enumerate(s.engineer):
        failed = t.quantity - got[i]
        what = f"engineer {t.construct}" + (f" ×{t.quantity}" if t.quantity > 1 else "")
        if got[i]:
            what += f": {got[i]} made" + (f", {failed} failed" if failed else "")
        why = "" if got[i] else (f"{'every attempt' if failed > 1 else 'the attempt'} failed: the materials its "
                                 "recipe needs were not held when it was tried (nothing lost)")
        out.append(Fate(engineer_part(i), what, why))
    return out


def how_to_submit(state: AlchemyState, player: str) -> HowTo:
    """One idea a line, each within 200 characters (a long list goes on over several lines)."""
    a, h = state.alchemy, state.holdings(player)
    rows = submit_rows(bots.greedy(state, player, random.Random(0)))[:4] or [{"action": "harvest",
                                                                            "item": next(iter(a.materials))}]
    lines = (
        f"Round {state.round + 1}: one row per action.",
        f"You hold {h.coins} coins and {rules.energy(a, h.machines)} energy this round; machines: "
        f"{', '.join(h.machines) or 'none'}.",
        *cells.lines_of("Your materials: ", stock_items(a, h.materials)),
        "harvest: a material (each once a round). It costs its energy, less x − 1 for x different materials "
        "at one location.",
        f"A harvest yields {a.harvest_base} less the other participants harvesting at its location, at least 1.",
        "A harvest costing more than your energy harvests nothing.",
        "buy: a material and how many (blank is 1), paid in row order; they arrive with the harvest.",
        *cells.lines_of("Prices in coins: ", [f"{m} {a.materials[m].price}" for m in a.buyable]),
        "machine: one a round, each machine once, paid after your purchases from your coins and what you hold "
        "after the harvest; it works from this round on.",
        "engineer: a construct; quantity = attempts (blank is 1); priority 1 is tried first, rows without a "
        "priority after, in random order. A failed attempt loses nothing.",
        "Everything made is sold this round; per set, by everyone: 1 sold ×1.5, 2 ×1.25, 3 ×1, 4 ×0.75, 5+ ×0.6.",
    )
    return HowTo(lines, (Example.of(SUBMIT_TAB.header, rows, tab=SUBMIT_TAB.name),), "nothing happens for you this round")


def submit_choices(state: AlchemyState, player: str) -> dict[str, list[str]]:
    a = state.alchemy
    machines = [m for m in a.machines if state.can_buy_machine(player, m)]
    return {"action": list(ACTIONS), "item": [*a.materials, *machines, *a.constructs]}


def summary(state: AlchemyState) -> dict[str, float]:
    """Gems' spread, and how often each construct, set and machine was made or bought in the event."""
    a = state.alchemy
    gems = [float(state.holdings(p).gems) for p in state.participants]
    made = Counter(c for result in state.history for r in result.reports.values() for c in r.made)
    bought = Counter(r.machine for result in state.history for r in result.reports.values() if r.machine)
    return {"gems min": min(gems), "gems mean": sum(gems) / len(gems), "gems max": max(gems),
            **{f"made {c}": float(made[c]) for c in a.constructs},
            **{f"set {s}": float(sum(made[c] for c, k in a.constructs.items() if k.set == s)) for s in a.sets},
            **{f"machine {m}": float(bought[m]) for m in a.machines}}
