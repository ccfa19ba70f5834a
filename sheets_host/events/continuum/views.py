"""What each reader sees of Elemental Continuum.

Public: every tile broken (whose board, which cell) and every ward broken (its cells, element and
points), never who fired nor bolts that broke nothing; at the end the ranking alone, no scores.
Private: the player's own board with its damage, their wards, their bolts and what each did, and
their contributions so far.
"""

from __future__ import annotations

import random
from fractions import Fraction

import pandas as pd

from sheets_host.kit.game import Example, Fate, HowTo, defaults_fired
from sheets_host.kit.layout import Palette, tint
from . import rules
from .bots import random_bot
from .read import BOARD, BOARD_PART, BOLTS, WARDS, bolt_part, submit_rows
from .state import ELEMENTS, FILES, POINTS, RANKS, ContinuumState, Element

# The rule text's colours: fire red, water blue, wind green, earth yellow, neutral grey.
COLOURS = {Element.FIRE: (220, 60, 50), Element.WATER: (50, 110, 220), Element.WIND: (60, 170, 80),
           Element.EARTH: (230, 190, 40), Element.NEUTRAL: (150, 150, 150)}
BROKEN = "✕"
MY_BOARD = "my board"  # the private tab of a player's board, coloured by element


def points_number(points: Fraction) -> float:
    """Points as a number to the hundredth, for a cell (a spreadsheet shows 4.0 as 4).

    >>> points_number(Fraction(7, 3)), points_number(Fraction(4))
    (2.33, 4.0)
    """
    return float(round(points, 2))


def points_text(points: Fraction) -> str:
    """
    >>> points_text(Fraction(7, 3)), points_text(Fraction(4))
    ('2.33', '4')
    """
    return f"{float(points):.2f}".rstrip("0").rstrip(".")


def tile_text(element: Element, points: int, broken: bool) -> str:
    """A cell of `my board`. The brackets keep it from reading as a label a player types in the
    board tab ("Fire2"), a fire ward worth 2.

    >>> tile_text(Element.FIRE, 6, False), tile_text(Element.NEUTRAL, 1, True)
    ('fire (6)', 'neutral (1) ✕')
    """
    return f"{element.value} ({points})" + (f" {BROKEN}" if broken else "")


def palettes() -> tuple[Palette, ...]:
    """Every cell of `my board` in its element's colour (a broken tile paler)."""
    out = {}
    for element, rgb in COLOURS.items():
        for points in (POINTS if element is not Element.NEUTRAL else (1,)):
            out[tile_text(element, points, False)] = tint(rgb)
            out[tile_text(element, points, True)] = tint(rgb, 0.85)
    return (Palette(out, FILES, (MY_BOARD,)),)


def private_view(state: ContinuumState, player: str) -> dict[str, pd.DataFrame]:
    out = {}
    board = state.boards.get(player)
    if board is not None:
        broken = rules.broken_cells(state, player)
        grid = [{"rank": rank, **{f: tile_text(board.ward_at(f + rank).element, board.ward_at(f + rank).points,
                                               f + rank in broken) for f in FILES}} for rank in reversed(RANKS)]
        out[MY_BOARD] = pd.DataFrame(grid, columns=["rank", *FILES])
        out["my wards"] = pd.DataFrame([{
            "ward": w.label, "element": w.element.value, "points": w.points, "cells": " ".join(w.cells),
            "tiles broken": sum(c in broken for c in w.cells),
            "status": "broken" if rules.ward_broken(state, player, w) else "standing"} for w in board.wards],
            columns=["ward", "element", "points", "cells", "tiles broken", "status"])
    mine = [("player", player), ("rounds played", state.rounds_played),
            ("board", "drawn from the seed (none valid in round 1)" if player in state.defaulted else
             "yours" if board else "not set yet"),
            ("points from my standing wards", rules.standing_points(state, player)),
            ("points from wards I helped break", points_number(rules.contributions(state, player))),
            ("tiles I broke", rules.tiles_broken_by(state, player))]
    out["my continuum"] = pd.DataFrame(mine, columns=["what", "value"], dtype=object)
    bolts = [{"round": n, "cell": b.cell, "element": b.element.value, "what it did": rules.bolt_effect(state, player, n, b)}
             for firer, n, b in reversed(state.bolts) if firer == player]
    out["my bolts"] = pd.DataFrame(bolts, columns=["round", "cell", "element", "what it did"])
    return out


def fates(after: ContinuumState) -> dict[str, list[Fate]]:
    """What the round just played did with each part of each participant's submission: round 1
    their board set (or one drawn, the default's part), later every bolt fired, with what it did
    as `my bolts` says it. The rules refuse neither."""
    number = after.rounds_played
    if number == 1:
        return {p: [Fate(BOARD_PART, "a board drawn for you" if p in after.defaulted else "your board")]
                for p in after.participants}
    fired = {p: [b for firer, n, b in after.bolts if firer == p and n == number] for p in after.participants}
    return {p: [Fate(bolt_part(i), f"{b.element.value} bolt at {b.cell} ({rules.bolt_effect(after, p, number, b)})")
                for i, b in enumerate(fired[p])] for p in after.participants}


def public_view(state: ContinuumState, over: bool) -> dict[str, pd.DataFrame]:
    tiles = [{"round": t.round, "board": t.board, "cell": t.cell} for t in state.tile_breaks]
    wards = [{"round": w.round, "board": w.board, "element": w.ward.element.value, "points": w.ward.points,
              "cells": " ".join(w.ward.cells)} for w in state.ward_breaks]
    out = {"continuum tiles broken": pd.DataFrame(tiles, columns=["round", "board", "cell"]),
           "continuum wards broken": pd.DataFrame(wards, columns=["round", "board", "element", "points", "cells"])}
    if over:  # "a full ranking of players according to their scores will be revealed", not the scores
        ranked = rules.placements(state, list(state.participants))
        out["continuum ranking"] = pd.DataFrame([{"place": p.place, "player": p.player} for p in ranked])
    return out


def announcement(before: ContinuumState, after: ContinuumState, over: bool) -> list[str]:
    if before.rounds_played == 0:
        lines = ["**Elemental Continuum**, round 1: every participant's board is set."]
        if after.defaulted:
            lines.append(f"Drawn from the seed (no valid board): {', '.join(after.defaulted)}.")
        return lines
    number = after.rounds_played
    lines = [f"**Elemental Continuum**, round {number}: bolts fired."]
    tiles = [t for t in after.tile_breaks if t.round == number]
    for board in after.participants:
        broken = [t.cell for t in tiles if t.board == board]
        if broken:
            lines.append(f"- {board}'s board: {', '.join(broken)} broken")
    for w in (w for w in after.ward_breaks if w.round == number):
        lines.append(f"- **{w.board}'s {w.ward.element.value} ward worth {w.ward.points} breaks**: {' '.join(w.ward.cells)}")
    if not tiles:
        lines.append("No tile broke.")
    if over:
        ranked = rules.placements(after, list(after.participants))
        lines += ["", "Elemental Continuum's final ranking: " + ", ".join(f"{p.place}. {p.player}" for p in ranked)]
    return lines


def log(after: ContinuumState) -> list[str]:
    """The host's lines (they name who fired)."""
    number = after.rounds_played
    if number == 1:
        return [f"Continuum {p}: board {'drawn' if p in after.defaulted else 'set'}" for p in after.participants]
    lines = [f"Continuum {firer}: {b.element.value} at {b.cell}" for firer, n, b in after.bolts if n == number]
    lines += [f"Continuum: {w.board}'s {w.ward.element.value} {w.ward.points} breaks; shares "
              + ", ".join(f"{p} {points_text(s)}" for p, s in w.shares.items()) for w in after.ward_breaks if w.round == number]
    return lines


def how_to_submit(state: ContinuumState, player: str) -> HowTo:
    if state.rounds_played == 0:
        return HowTo((f"Round 1: lay out your board in the '{BOARD.name}' tab and name your wards in '{WARDS.name}'.",
                      "Board: ranks 8 (top) to 1 down the first column, files A to H across, like a chessboard. "
                      "Type a ward's label in each of its 5 cells, neutral in the 4 neutral cells.",
                      "12 wards, each 5 edge-connected cells (any pentomino, repeats allowed): 3 of each element, "
                      "four worth 2, four worth 4, four worth 6.",
                      "Wards: one row per ward: its label, element (fire, water, wind, earth) and points (2, 4 or 6).",
                      "The 4 neutral cells are one ward worth 1, placed as you like."),
                     (Example(tuple(WARDS.header), (("F1", "fire", "6"),), f"and F1 typed in A1 to A5 of '{BOARD.name}'",
                              WARDS.name),),
                     "one board is drawn for you from the seed, and shown in 'my board'")
    rows = submit_rows(random_bot(state, player, random.Random(0)))
    return HowTo((f"Round {state.rounds_played + 1}: two bolts, a cell (A1 to H8) and an element each.",
                  "A bolt strikes that cell on every other participant's board, never yours.",
                  "A tile breaks by one bolt of the element that beats it (fire beats wind, wind earth, earth water, "
                  "water fire), by two of its own element, or, neutral, by three of any.",
                  "Bolts add up over rounds on a tile not yet broken; 3 broken tiles break the whole ward.",
                  "Breaking a ward earns its points shared by the bolts that broke its tiles."),
                 (Example.of(BOLTS.header, rows, tab=BOLTS.name),), "no bolt is fired")


def summary(state: ContinuumState) -> dict[str, float]:
    """How often wards break, the tiles broken, and the score spread."""
    scores = [float(rules.score(state, p)) for p in state.participants]
    return {"wards broken": float(len(state.ward_breaks)), "tiles broken": float(len(state.tile_breaks)),
            "score min": min(scores), "score mean": sum(scores) / len(scores), "score max": max(scores),
            **{f"{e.value} wards broken": float(sum(w.ward.element is e for w in state.ward_breaks)) for e in ELEMENTS},
            **defaults_fired({"a board drawn": len(state.defaulted)})}
