"""What Summoner's Dream shows: each participant their coins, units, Treasures, offered maps and
what their invasions and defences did; everyone the map pool and this round's sale; at the end the
Treasures and the tie chain. The text: "The number of players' Treasures will not be announced
until the end of the game" and "Other players will not be told which map you have selected", so
nothing public names a map chosen, a target, a Treasure count or a battle before the end.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.game import Example, Fate, HowTo
from . import rules
from .read import (ATTACK, DEFENCE, MAP_PART, ORDERS, PARTIES_PART, SHOP, TABS, TARGET_PART, purchase_part, slot_part,
                   submit_rows, tower_part)
from .state import (FAMILIAR_LEVELS, Invasion, SummoningState, SummoningSubmission, TOWER_LEVELS, Tile, Unit,
                    cell_name)
from sheets_host.kit.layout import Palette
from .maps import MAPS, MAP_COLUMNS

# Tile characters as the maps tab draws them, coloured as the text's sheet colours them.
PALETTE = {Tile.ROAD.value: "E8DCC0", Tile.ENTRANCE_A.value: "E8DCC0", Tile.ENTRANCE_B.value: "E8DCC0",
           Tile.TREASURE.value: "7FE5F0", Tile.BLESSED_LAND.value: "6FA86A", Tile.GROTTO_HEAVEN.value: "6F8FD8",
           Tile.SCENERY.value: "B8B8B8"}


# What each tile's character stands for, as the picture's legend says it.
TILE_NAMES = {Tile.ROAD.value: "road", Tile.ENTRANCE_A.value: "where Tracks A and B begin",
              Tile.ENTRANCE_B.value: "where Tracks A and B begin", Tile.TREASURE.value: "the Treasure",
              Tile.BLESSED_LAND.value: "Blessed Land", Tile.GROTTO_HEAVEN.value: "Grotto-Heaven",
              Tile.SCENERY.value: "scenery"}


def palettes() -> tuple[Palette, ...]:
    """A map's tiles in the text's sheet colours, on the maps tab's cells alone (a facing of E or
    a track named A is no tile), with its key saying what each character stands for."""
    return (Palette(PALETTE, MAP_COLUMNS, (MAPS,), TILE_NAMES),)


def map_rows(state: SummoningState, names: Sequence[str]) -> pd.DataFrame:
    """Maps drawn as the maps tab draws them: a row per map row, a tile character a cell."""
    width = max(len(row) for name in names for row in state.catalogue.maps[name].tiles)
    columns = [chr(ord("A") + c) for c in range(width)]
    rows = [{"map": name, "kind": m.kind.value, "row": r + 1, **{c: t.value for c, t in zip(columns, line)}}
            for name in names for m in [state.catalogue.maps[name]] for r, line in enumerate(m.tiles)]
    return pd.DataFrame(rows, columns=["map", "kind", "row", *columns], dtype=object)


def _unit_row(state: SummoningState, unit: Unit, round_number: int) -> dict:
    tower = unit.kind in state.catalogue.towers
    problem = rules.upgrade_problem(state.catalogue, unit, round_number)
    return {"unit": unit.name, "kind": "Tower" if tower else "Familiar",
            "level": f"{unit.level} of {TOWER_LEVELS if tower else FAMILIAR_LEVELS}",
            "next level": problem or f"{rules.upgrade_price(state.catalogue, unit)} coins"}


def attack_lines(invasion: Invasion) -> list[str]:
    """The invader's report: each Familiar's fate (the defender's Tower kinds, never their units)."""
    out = []
    for f in invasion.fates:
        if f.reached:
            out.append(f"slot {f.slot} {f.unit}: reached E and stole a Treasure")
        else:
            kind = f.killer.rsplit(" ", 1)[0] if f.killer else "a Tower"
            out.append(f"slot {f.slot} {f.unit}: killed by {kind} at {cell_name(f.cell)}")
    return out


def defence_line(invasion: Invasion) -> str:
    """The defender's report of one invasion: how many came, got through, and which Towers killed."""
    kills = Counter(f.killer for f in invasion.fates if f.killer)
    by = ", ".join(f"{t} killed {n}" for t, n in sorted(kills.items())) or "none killed"
    return f"{len(invasion.fates)} Familiars came on {invasion.map}, {invasion.stolen} reached E; {by}"


def private_view(state: SummoningState, player: str) -> dict[str, pd.DataFrame]:
    h = state.holdings[player]
    number = state.round
    playing = number <= state.last_round
    me = [("player", player), ("Treasures", h.treasures),
          ("coins to spend this round" if playing else "coins", rules.purse(h) if playing else h.coins),
          ("familiars sent so far", h.sent), ("familiars your Towers killed", h.kills),
          ("towers built so far", h.built), ("invaded so far", ", ".join(h.invaded) or "nobody")]
    if playing:
        me += [("round", number), ("your maps this round", ", ".join(state.offers[number][player])),
               ("not yet invaded", ", ".join(rules.not_yet_invaded(state, player))),
               ("on sale this round", ", ".join(f"{k} {_cost(state, k)}" for k in rules.on_sale(state, number)))]
    units = [_unit_row(state, u, number) for u in (*h.towers, *h.familiars)]
    report = []
    for inv in reversed(state.invasions):
        if inv.invader == player:
            report += [{"round": inv.round, "what": f"your invasion of {inv.defender}", "report": line}
                       for line in attack_lines(inv)]
        if inv.defender == player:
            report.append({"round": inv.round, "what": "an invasion of your map", "report": defence_line(inv)})
    out = {"my summoning": pd.DataFrame(me, columns=["what", "value"], dtype=object),
           "my summoning units": pd.DataFrame(units, columns=["unit", "kind", "level", "next level"], dtype=object),
           "my summoning battles": pd.DataFrame(report, columns=["round", "what", "report"], dtype=object)}
    return out  # the four maps' drawings: in the public book's `summoning maps`, written once


def fates(submissions: Mapping[str, SummoningSubmission | None], played: Mapping[str, rules.Played]
          ) -> dict[str, list[Fate]]:
    """What the round just played did with each part of each participant's submission, from their
    turns as played: an order the rules refused, parties split again and a target invaded already
    did not count. A participant given the default is told its parts: the map, Towers and
    Familiars that stood, and the target drawn."""
    return {p: _fates(submissions.get(p), record) for p, record in played.items()}


def _fates(sub: SummoningSubmission | None, record: rules.Played) -> list[Fate]:
    t = record.turn
    parties = ", ".join(f"Party {p} " + (f"slot {a}" if a == b else f"slots {a}-{b}") for p, (a, b) in t.parties.items())
    if sub is None:
        return [Fate(MAP_PART, f"map {t.map}, as last round's if offered again, else the first of your four"),
                Fate("towers", f"{len(t.stands)} Tower{'s' * (len(t.stands) != 1)} where they stood last round"),
                Fate("familiars", f"{len(t.slots)} Familiar{'s' * (len(t.slots) != 1)} in last round's slots, "
                                  f"new ones at random ({parties})"),
                Fate(TARGET_PART, f"invade {t.target}, drawn at random")]
    out = [Fate(purchase_part(i), f"{what} {name}", record.refused.get(i, "")) for i, (what, name) in enumerate(sub.orders)]
    if sub.map:
        out.append(Fate(MAP_PART, f"map {t.map}"))
    if sub.stands is not None:  # placed as typed: the parser kept only Towers that may stand there
        out += [Fate(tower_part(s.tower), f"{s.tower} on {cell_name(s.cell)} facing {s.facing.value}")
                for s in t.stands]
    out += [Fate(slot_part(slot), f"slot {slot}: {name}", "" if t.slots.get(slot) == name else f"you own no {name}")
            for slot, name in (sub.slots or {}).items()]
    if sub.parties:
        out.append(Fate(PARTIES_PART, parties, f"{record.split}; the parties played: {parties}"
                        if record.split else ""))
    if sub.target:
        out.append(Fate(TARGET_PART, f"invade {t.target}", "" if t.target == sub.target else
                        f"you invaded {sub.target} already: {t.target} was drawn at random"))
    return out


def _cost(state: SummoningState, kind: str) -> int:
    c = state.catalogue
    return c.towers[kind].cost if kind in c.towers else c.familiars[kind].cost


def public_view(state: SummoningState, over: bool) -> dict[str, pd.DataFrame]:
    """The map pool ("All map options will be presented on the spreadsheet"), the sales so far, the
    participants; at the end their Treasures and the tie chain."""
    sales = [{"round": r, "on sale": ", ".join(f"{k} ({_cost(state, k)})" for k in rules.on_sale(state, r))}
             for r in range(state.first_round, min(state.round, state.last_round) + 1)]
    people = [{"participant": p} for p in state.participants]
    if over:
        people = [{"participant": p, "Treasures": t, "familiars sent": s, "familiars killed": k, "towers built": b}
                  for p in state.participants for t, s, k, b in [rules.tie_chain(state, p)]]
    return {"summoning maps": map_rows(state, list(state.catalogue.maps)),
            "summoning sales": pd.DataFrame(sales, columns=["round", "on sale"], dtype=object),
            "summoning participants": pd.DataFrame(people)}


def announcement(before: SummoningState, after: SummoningState, over: bool) -> list[str]:
    number = before.round
    lines = [f"**Summoner's Dream**, round {number}: every participant invaded one territory. Each is told "
             "privately what their Familiars and Towers did."]
    if not over and after.round <= after.last_round:
        lines.append(f"On sale in round {after.round}: {', '.join(rules.on_sale(after, after.round)) or 'nothing'}.")
    if over:
        lines += ["", "Summoner's Dream's final Treasures:"]
        lines += [f"- {p}: {after.holdings[p].treasures}"
                  for p in sorted(after.participants, key=lambda p: -after.holdings[p].treasures)]
    return lines


def log(after: SummoningState) -> list[str]:
    """The host's lines for the round just resolved (they name private things)."""
    number = after.first_round + after.rounds_played - 1
    lines = []
    for p, t in after.turns[-1].items():
        lines.append(f"Summoner's Dream {p}: bought {', '.join(t.buys) or 'nothing'}; upgraded "
                     f"{', '.join(t.upgrades) or 'nothing'}; map {t.map}; {len(t.stands)} Towers; "
                     f"{len(t.slots)} Familiars; target {t.target}")
    for inv in after.invasions:
        if inv.round == number:
            lines.append(f"Summoner's Dream {inv.invader} invaded {inv.defender} on {inv.map}: "
                         f"{len(inv.fates)} sent, {inv.stolen} reached E")
    return lines


def how_to_submit(state: SummoningState, player: str) -> HowTo:
    """One idea a line, each within 200 characters."""
    h = state.holdings[player]
    number = state.round
    from .bots import random_bot  # an example made of this player's real options

    typed = submit_rows(random_bot(state, player, random.Random(0)))
    examples = tuple(Example.of(tab.header, [r for r in typed if r["tab"] == tab.name][:3], tab=tab.name)
                     for tab in TABS if any(r["tab"] == tab.name for r in typed))
    lines = (
        f"Round {number}: you have {rules.purse(h)} coins to spend and {h.treasures} Treasures.",
        *cells.lines_of("Your maps this round: ", list(state.offers[number][player])),
        *cells.lines_of("On sale: ", [f"{k} {_cost(state, k)}" for k in rules.on_sale(state, number)]),
        f"'{SHOP.name}': a kind to buy (quantity: how many) or one of your units to upgrade one level; in the "
        "order typed while coins last.",
        "Coins on Towers may not be more than twice those on Familiars, nor the other way round (upgrades count "
        "to their side).",
        "Familiar level X is for sale from round X on; Tower upgrades any round; one level at a time.",
        f"'{ORDERS.name}': one row: your map, your target, Party A's and Party B's slots (like 1-6 and 7-12).",
        f"'{DEFENCE.name}': a Tower, its cell (like C4) and facing N, E, S or W; Gan on road, others on land.",
        f"'{ATTACK.name}': a Familiar in each slot you use; each party a range of slots, at least half the "
        "other's Familiars; all Familiars are sent.",
    )
    return HowTo(lines, examples or (Example(tuple(ORDERS.header), ((state.offers[number][player][0], "", "", ""),),
                                             tab=ORDERS.name),),
                 "last round's map, Towers and Familiars stand (new Familiars in empty slots at random); the target "
                 "is drawn")


def summary(state: SummoningState) -> dict[str, float]:
    """Treasures' spread, the share of Familiars reaching E per map and per round, coins spent on
    each side, and how often each kind is bought."""
    treasures = [state.holdings[p].treasures for p in state.participants]
    out = {"treasures min": float(min(treasures)), "treasures max": float(max(treasures))}
    for key, group in (("map", lambda i: i.map), ("round", lambda i: i.round)):
        sent, reached = Counter(), Counter()
        for inv in state.invasions:
            sent[group(inv)] += len(inv.fates)
            reached[group(inv)] += inv.stolen
        out |= {f"reached E {key} {k}": reached[k] / sent[k] for k in sorted(sent) if sent[k]}
    bought = Counter(k for turns in state.turns for t in turns.values() for k in t.buys)
    out |= {"coins on towers": float(sum(h.spent_on_towers for h in state.holdings.values())),
            "coins on familiars": float(sum(h.spent_on_familiars for h in state.holdings.values()))}
    out |= {f"bought {k}": float(bought[k]) for k in (*state.catalogue.towers, *state.catalogue.familiars)}
    return out
