"""Wind Guide Me's submit tab (kind, site, position, stone, light: one row per stone) read into a
`WindSubmission`.

Reading a cell is this module's (a `CellError`: not a kind, not a number in range); whether a stone
may go where its row puts it is the state's to say (`WindState.stone_refusal`, `light_refusal`,
`fake_refusal`, `fake_sites`). Only what is invalid is dropped, with a message naming the row and
column and saying what is allowed.
"""

from __future__ import annotations

from collections.abc import Sequence

from sheets_host.kit import cells
from sheets_host.kit.cells import CellError, Problem, SubmitRow
from sheets_host.kit.game import Parsed
from sheets_host.kit.table import Column, TabSchema
from . import rules, seating
from .rules import POSITIONS
from .state import FAKE_PART, Kind, Placement, Player, WindState, WindSubmission

KINDS = tuple(k.value for k in Kind)
KIND_ALIASES = {"real": "stone", "wind stone": "stone", "standard": "stone",
                "dark": "fake", "fake stone": "fake", "power of dark": "fake"}

SUBMIT_TAB = TabSchema("submit", (
    Column("kind", "text", doc="stone: an ordinary wind stone from your hand (blank also means stone); "
                               "fake: Power of Dark's fake stone (once a game)"),
    Column("site", "text", doc=f"a ritual site (1 to {seating.SITES}) you sit at and have not used; one row per site"),
    Column("position", "text", doc=f"1 to {POSITIONS}: 1 is the top of the circle, then clockwise"),
    Column("stone", "text", doc=f"the power ({rules.MIN_POWER} to {rules.MAX_POWER}) of a stone from your hand; "
                                "for a fake: its stated power"),
    Column("light", "text", optional=True,
           doc=f"Power of Light only: the stone's new power, {rules.MIN_POWER} to {rules.MAX_POWER}, up to "
               f"{rules.LIGHT_REACH} away; blank: its own power"),
), "One row per stone you place this round.")


def parse(state: WindState, player: Player, rows: Sequence[SubmitRow]) -> Parsed[WindSubmission]:
    problems: list[Problem] = []
    stones: list[Placement] = []
    kept: list[SubmitRow] = []  # the row of each stone, then of the fake
    fake: Placement | None = None
    fake_row: SubmitRow | None = None
    light_used = False
    for row in rows:
        kind = row.read("kind", lambda v: Kind.STONE if cells.is_blank(v) else Kind(cells.as_choice(
            v, KINDS, "a kind", KIND_ALIASES)), problems)
        if kind is None:
            continue
        values = {}
        for column, lo, hi, what in (("site", 1, len(state.sites), "a site"),
                                     ("position", 1, POSITIONS, "a position"),
                                     ("stone", rules.MIN_POWER, rules.MAX_POWER, "a power")):
            value = row.read(column, lambda v: cells.as_int(v, lo, hi, what), problems)
            if value is not None:
                values[column] = value
        if len(values) < 3:
            continue
        site, position, power = values["site"], values["position"], values["stone"]
        new_power = power
        if not cells.is_blank(row.get("light")):
            try:
                new_power = cells.as_int(row.get("light"), rules.MIN_POWER, rules.MAX_POWER, "a power")
            except CellError as e:
                problems.append(row.problem("light", f"{e}; the stone is placed with its own power"))
            else:
                why = state.light_refusal(player, power, new_power, light_used, kind)
                if why:
                    problems.append(row.problem("light", f"{why}; the stone is placed with its own power"))
                    new_power = power
                else:
                    light_used = new_power != power
        if kind is Kind.FAKE:
            why = state.fake_refusal(player, site, fake is not None)
            if why:
                problems.append(row.problem("kind", f"{why}; row dropped"))
            else:
                fake, fake_row = Placement(site, position, 0, power), row
            continue
        refusal = state.stone_refusal(player, site, power, stones)
        if refusal:
            column, why = refusal
            problems.append(row.problem(column, f"{why}; row dropped"))
            if new_power != power:
                light_used = False
            continue
        stones.append(Placement(site, position, power, new_power))
        kept.append(row)
    if fake_row and not stones:
        problems.append(fake_row.problem(None, "no valid stone this round: the fake is not placed either"))
    elif fake_row and fake.site not in state.fake_sites(player, [s.site for s in stones]):
        problems.append(fake_row.problem("site", f"the fake stone cannot go to site {fake.site}, where your real "
                                                 "stone goes this round; fake dropped"))
        fake_row = fake = None
    if not stones:
        if rows:
            problems.append(Problem(player, "no valid stone: nothing is placed this round and the "
                                            "missed-round penalty applies"))
        return Parsed(None, tuple(problems), "nothing")
    submission = WindSubmission(tuple(stones), fake)
    kept += [fake_row] if fake_row else []
    parts = {key: (row.ref,) for (key, _), row in zip(submission.parts(), kept)}
    return Parsed(submission, tuple(problems), describe(submission), parts)


def describe(submission: WindSubmission) -> str:
    """One line saying what counts."""
    return "; ".join(placement_text(placement, key == FAKE_PART) for key, placement in submission.parts())


def placement_text(placement: Placement, fake: bool = False) -> str:
    """A stone of a submission as its player reads it: "stone 4 (Light: power 6) at site 3, position 2"."""
    if fake:
        return f"fake stone of power {placement.power} at site {placement.site}, position {placement.position}"
    light = f" (Light: power {placement.power})" if placement.power != placement.from_hand else ""
    return f"stone {placement.from_hand}{light} at site {placement.site}, position {placement.position}"


def submit_rows(submission: WindSubmission) -> list[dict]:
    """How a submission is typed into the submit tab (the inverse of `parse`)."""
    rows = [{"kind": Kind.STONE.value, "site": p.site, "position": p.position, "stone": p.from_hand,
             "light": p.power if p.power != p.from_hand else None} for p in submission.stones]
    if submission.fake:
        f = submission.fake
        rows.append({"kind": Kind.FAKE.value, "site": f.site, "position": f.position, "stone": f.power,
                     "light": None})
    return rows
