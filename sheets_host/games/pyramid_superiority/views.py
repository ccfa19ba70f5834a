"""What each reader sees of Pyramid Superiority, and what a participant is told to submit.

Public: everyone's type, each meadow's proposed pieces with their stars, the pyramid (by position
and from the top), every point scored and each scoring round; the standings at the end. Never a
bid nor anyone's chips. A meadow's book: its guests' pieces, bids (as counted) and star attempts.
A participant's book: their chips (and garnets), points and today's stage; a player's also every
player's bid and the winner's choice. The announcement tells the day's stages in public terms.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from sheets_host.kit.game import Example, Fate, HowTo, defaults_fired
from sheets_host.kit.result import COSMOS, GARNET, GUEST, HOST, MAIN_MATCH, TOKEN, Change, GameResult, Owed
from sheets_host.kit.layout import Palette, tint
from . import colours, rules
from .ledger import ConstructionResult, ProposalResult
from .meadows import COSMOS_KEYS, DAYS, GUEST_MEADOWS, NO_ONE, ROUNDS, Meadow, Name, Player, Proposal
from .read import SUBMIT_TAB
from .rules import CORNERS, MULTIPLIERS, NOTATION, POSITIONS, ROTATION_COST, Corner, Piece
from .state import PyramidState, PyramidSubmission, RowKind, parts_of

STAR_MARK = "★"
PIECES_READ = ("pieces read", NOTATION)  # the legend row under the pieces of a `me` tab
PROPOSED_PIECE = f"proposed piece ({NOTATION})"  # the column's header carries its legend


def palettes() -> tuple[Palette, ...]:
    """Types in the picture's colours (a starred cell too) where a column holds a piece's cells or
    a type, each meadow in its colour where one names a meadow (a player's piece choice, typed as
    `red`, too), and both in a `me` tab's values and the submit tab's."""
    types, meadows = {}, {}
    for kind, rgb in colours.COLOURS.items():
        types[kind.value] = types[f"{kind.value} {STAR_MARK}"] = tint(rgb)
    for meadow in Meadow:
        meadows[meadow.title] = tint(colours.MEADOW_COLOURS[meadow.value])
    for meadow in GUEST_MEADOWS:
        meadows[meadow.value] = tint(colours.MEADOW_COLOURS[meadow.value])
    return (Palette(types, ("type", *CORNERS, "column *")), Palette(meadows, ("meadow", "piece")),
            Palette({**types, **meadows}, ("value",), ("me", SUBMIT_TAB.name)))


def how_to_submit(state: PyramidState, player: Name) -> HowTo:
    guest, day = state.is_guest(player), state.day
    if state.over:
        return HowTo(("The game is over: nothing to submit.",))
    if not state.submits(player):
        return HowTo((f"Day {day}: the proposal stages are over; guests have nothing to submit.",) if guest else
                     ("Day 1: players have nothing to submit; the guests propose the first pieces today.",
                      "From day 2 you build with the pieces proposed the day before."))
    purse = state.ledger.purses[player]
    header = tuple(SUBMIT_TAB.header)
    if guest:
        piece = state.pieces[(day, player)]
        star = state.default_star(player, 0)
        lines = (f"Day {day} of {DAYS}: the proposal stage of round {day}; one row per item.",
                 f"bid: chips for your meadow's proposal; every bid is paid (you hold {purse.chips} chips).",
                 "star: the cell to star on your piece as proposed: top-left, top-right, bottom-left or bottom-right.",
                 f"rotate (optional): 90, 180 or 270, clockwise; {ROTATION_COST} chips, paid only if it is proposed.",
                 f"Your piece for round {day}: {piece.text()} ({NOTATION}); you are {state.types[player].value}, "
                 f"a guest of the {state.settings.meadow_of(player).title}.")
        rows = (("bid", str(min(2, purse.chips)), ""), ("star", star.value, ""))
        return HowTo(lines, (Example(header, rows),), f"you bid 0 and your star goes on {star.value}")
    r = day - 1
    places = rules.buildable(state.ledger.pyramid)
    default = rules.default_position(state.ledger.pyramid)
    lines = [f"Day {day} of {DAYS}: the construction stage of round {r}; one row per item.",
             f"bid: chips; every bid is paid, in chips, then in garnets once chips run out (you hold "
             f"{purse.chips} chips, {purse.garnets} garnets).",
             "piece: red or green, the meadow whose proposed piece you build if you win.",
             f"position: where you build if you win; open now: {', '.join(p.name for p in places)}.",
             f"rotate (optional): 90, 180 or 270, clockwise; {ROTATION_COST} chips, paid only if you win."]
    bid = min(3, purse.total)
    rows = [("bid", str(bid), ""), ("piece", GUEST_MEADOWS[-1].value, ""),
            ("position", (places or [default])[0].name, "")]
    if state.transfers_open:
        guests = state.settings.guests
        lines.append(f"send: chips in 'value' to a guest in 'to' ({', '.join(guests)}); any number of rows, chips only.")
        if state.chips_left(player, bid) >= 1:  # what is left after the bid can be sent
            rows.append(("send", "1", guests[0]))
    else:
        lines.append("No chips can be sent today: the last construction stage has no transfers.")
    return HowTo(tuple(lines), (Example(header, tuple(rows)),),
                 f"you bid 0 and build the Red Meadow's piece at {default.name}")


def submit_choices(state: PyramidState, player: Name) -> dict[str, list[str]]:
    if state.over or not state.submits(player):
        return {}
    guest = state.is_guest(player)
    can_turn = state.rotation_paid(player, 0)  # else a rotation is never paid
    can_send = not guest and state.transfers_open and state.chips_left(player, 0) > 0  # chips only
    kinds = [k.value for k in state.row_kinds(player)
             if (k is not RowKind.ROTATE or can_turn) and (k is not RowKind.SEND or can_send)]
    turns = ["90", "180", "270"] if can_turn else []
    if guest:
        return {"what": kinds, "value": [*CORNERS, *turns]}
    places = [p.name for p in rules.buildable(state.ledger.pyramid)]
    choices = {"what": kinds, "value": [m.value for m in GUEST_MEADOWS] + places + turns}
    if can_send:
        choices["to"] = list(state.settings.guests)
    return choices


def public_view(state: PyramidState) -> dict[str, pd.DataFrame]:
    led, s = state.ledger, state.settings
    people = pd.DataFrame([{"meadow": m.title, "participant": n, "role": "player" if m is Meadow.BLUE else "guest",
                            "type": state.types[n].value, "points": led.points(n)}
                           for m in Meadow for n in s.meadows[m]])
    proposed = pd.DataFrame([{"round": r, "meadow": m.title, **piece_columns(p.piece), "star": p.piece.star.value}
                             for (r, m), p in sorted(led.proposed.items(), key=lambda kv: (kv[0][0], GUEST_MEADOWS.index(kv[0][1])))],
                            columns=["round", "meadow", *CORNERS, "star"])
    over = state.over
    open_now = set() if over or state.day == 1 else set(rules.buildable(led.pyramid))
    pyramid = pd.DataFrame([{
        "position": p.name, "round built": led.placed.get(p),
        **(piece_columns(led.pyramid[p]) if p in led.pyramid else dict.fromkeys(CORNERS)),
        "star": led.pyramid[p].star.value if p in led.pyramid else None,
        "can be built today": "" if p in led.pyramid else ("yes" if p in open_now else "no")}
        for p in POSITIONS])
    grid = rules.top_view(led.pyramid)
    top = pd.DataFrame([[f"row {i + 1}", *(cell_text(c) for c in row)] for i, row in enumerate(grid)],
                       columns=[f"from the top ({STAR_MARK}: the star)",
                                *(f"column {j + 1}" for j in range(rules.SIDE))])
    points = pd.DataFrame([{"day": a.day, "participant": a.name, "what": a.what, "points": a.points}
                           for a in led.awards], columns=["day", "participant", "what", "points"])
    tabs = {"participants": people, "proposed pieces": proposed, "pyramid": pyramid, "from the top": top,
            "points": points, "scoring rounds": scoring_frame(state)}
    if over:
        tabs["standings"] = standings(state)
    return tabs


def private_view(state: PyramidState, player: Name) -> dict[str, pd.DataFrame]:
    led, s = state.ledger, state.settings
    purse = led.purses[player]
    meadow = s.meadow_of(player)
    me: list[tuple[str, object]] = [("you", player), ("meadow", meadow.title), ("type", state.types[player].value),
                                    ("chips", purse.chips)]
    if state.is_guest(player):
        me.append(("points", led.points(player)))
        if state.day <= ROUNDS:
            piece = state.pieces[(state.day, player)]
            me += [("today", f"day {state.day}: the proposal stage of round {state.day}"),
                   (f"your piece for round {state.day}", piece.text()), PIECES_READ,
                   ("if you submit nothing", f"bid 0, star on {state.default_star(player, 0).value}")]
        else:
            me.append(("today", "game over" if state.over else "day 15: nothing for guests to submit"))
    else:
        start = s.garnets.get(player, 0)
        me += [("garnets left", f"{purse.garnets} of {start}"), ("garnets used", start - purse.garnets),
               ("points", led.points(player))]
        if state.day == 1:
            me.append(("today", "day 1: nothing to submit; the guests propose the first pieces"))
        elif not state.over:
            r = state.day - 1
            me += [("today", f"day {state.day}: the construction stage of round {r}"
                             + (" (the last: no transfers)" if r == ROUNDS else "")),
                   *((f"the {m.title}'s piece", p.text()) for m, p in state.offers().items()), PIECES_READ,
                   ("positions you can build on", ", ".join(p.name for p in rules.buildable(led.pyramid))),
                   ("if you submit nothing", f"bid 0, the Red Meadow's piece at "
                                             f"{rules.default_position(led.pyramid).name}")]
        else:
            me.append(("today", "game over"))
    tabs = {"me": pd.DataFrame(me, columns=["what", "value"])}
    if not state.is_guest(player):
        tabs["construction"] = construction_frame(state)
    statement = [{"day": e.day, "what": e.what, "chips": e.chips or None, "chips left": e.purse.chips}
                 | ({} if state.is_guest(player) else {"garnets": e.garnets or None, "garnets left": e.purse.garnets})
                 for e in led.statements.get(player, [])]
    columns = ["day", "what", "chips", "chips left"] + ([] if state.is_guest(player) else ["garnets", "garnets left"])
    tabs["my statement"] = pd.DataFrame(statement, columns=columns)
    return tabs


def fates(before: PyramidState, after: PyramidState) -> dict[Name, list[Fate]]:
    """What the day just played did with each part of each submission of the day (the default's,
    for the silent), from the ledger's record of its stages: a bid over what its bidder held
    counted 0; a guest's rotation turns only a proposed piece, and a player's piece, rotation and
    position count only for the one who won the right to build; a rotation not paid, a position
    replaced by the default and a transfer beyond the chips left were dropped, as `my statement`
    says."""
    day, led, out = before.day, after.ledger, {}
    for name in before.players:
        if not before.submits(name):
            continue
        if before.is_guest(name):
            sub, result = after.proposals[(day, name)], led.proposed[(day, before.settings.meadow_of(name))]
        else:
            sub, result = after.constructions[(day - 1, name)], led.built[day - 1]
        out[name] = [_fate(key, kind, index, name, sub, result) for key, kind, index in parts_of(sub)]
    return out


def _fate(key: str, kind: RowKind, index: int, name: Name, sub: PyramidSubmission,
          result: ProposalResult | ConstructionResult) -> Fate:
    """What the stage did with one part of `name`'s submission."""
    guest, won = isinstance(sub, Proposal), result.winner == name
    if kind is RowKind.BID:
        if result.bids[name] != sub.bid:
            return Fate(key, f"bid {sub.bid}", f"it was more than your {'chips' if guest else 'chips and garnets'}: "
                                               "it counted as 0")
        if guest:
            return Fate(key, f"bid {sub.bid}: " + ("your" if won else f"{result.winner}'s") + " piece was proposed")
        return Fate(key, f"bid {sub.bid}: " + ("you" if won else result.winner) + " won the right to build")
    if kind is RowKind.STAR:
        return Fate(key, f"star attempt on {sub.star.value}: the star went on {result.piece.star.value}")
    if kind is RowKind.SEND:
        t = sub.transfers[index]
        return Fate(key, f"send {t.chips} to {t.guest}", result.dropped[name][index] or "")
    if kind is RowKind.ROTATE:
        what = f"turned {90 * sub.rotation}°"
    else:
        what = f"the {sub.meadow.title}'s piece" if kind is RowKind.PIECE else f"at {sub.position.name}"
    if not won:  # the rest is the builder's, or turns a proposed piece
        return Fate(key, what, "your piece was not proposed: it was not turned and cost nothing" if guest
                    else f"{result.winner} won the right to build")
    if kind is RowKind.ROTATE:
        return (Fate(key, f"{what} ({ROTATION_COST} chips)") if result.rotation
                else Fate(key, what, f"you could not pay {ROTATION_COST} chips for it after your bid"))
    if kind is RowKind.POSITION:
        return Fate(key, what, result.moved or "")
    if not sub.position:  # the piece tells where the default put it: no position was typed
        return Fate(key, f"{what}, built at {result.position.name}, the default position")
    return Fate(key, what)


def groups(state: PyramidState) -> dict[str, tuple[Name, ...]]:
    """Each guest meadow's shared book, 'meadow:red' and 'meadow:green' -> its guests."""
    return {f"meadow:{m.value}": state.settings.meadows[m] for m in GUEST_MEADOWS}


def group_view(state: PyramidState, role: str) -> dict[str, pd.DataFrame]:
    meadow = Meadow(role.split(":", 1)[1])
    led, guests = state.ledger, state.settings.meadows[meadow]
    dealt = pd.DataFrame([{"round": r, "guest": g, "type": state.types[g].value, **piece_columns(state.pieces[(r, g)])}
                          for r in range(1, min(state.day, ROUNDS) + 1) for g in guests],
                         columns=["round", "guest", "type", *CORNERS])
    rounds = []
    for (r, m), result in sorted(led.proposed.items(), key=lambda kv: kv[0][0]):
        if m is meadow:
            for g in guests:
                won = g == result.winner
                rounds.append({"round": r, "guest": g, "type": state.types[g].value, "bid": result.bids[g],
                               "star attempt": result.attempts[g].value,
                               "proposed": ("yes" + (f", turned {90 * result.rotation}°" if result.rotation else ""))
                               if won else "", "star on": result.piece.star.value,
                               PROPOSED_PIECE: result.piece.text()})
    return {"pieces": dealt,
            "proposals": pd.DataFrame(rounds, columns=["round", "guest", "type", "bid", "star attempt", "proposed",
                                                       "star on", PROPOSED_PIECE])}


def announcement(title: str, before: PyramidState, after: PyramidState) -> str:
    day, led = before.day, after.ledger
    lines = [f"## {title}: day {day} of {DAYS}", ""]
    if day <= ROUNDS:
        lines += [f"### Proposal stage, round {day}", ""]
        lines += [f"- {m.title} proposes {led.proposed[(day, m)].piece.text()} "
                  f"(star on {led.proposed[(day, m)].piece.star.value})" for m in GUEST_MEADOWS]
        lines += ["", f"Pieces read {NOTATION}."]
        lines += ["", "| guest | meadow | type | points |", "|---|---|---|---:|"]
        lines += [f"| {g} | {after.settings.meadow_of(g).title} | {after.types[g].value} | {led.points(g)} |"
                  for g in after.settings.guests]
        lines.append("")
    if day >= 2:
        r = day - 1
        built = next(p for p, rr in led.placed.items() if rr == r)
        lines += [f"### Construction stage, round {r}", "",
                  f"A piece is built at **{built.name}**: {led.pyramid[built].text()} ({NOTATION}).", "",
                  "| player | type | points |", "|---|---|---:|"]
        lines += [f"| {p} | {after.types[p].value} | {led.points(p)} |" for p in after.settings.players]
        lines.append("")
        if r in MULTIPLIERS:
            frame = scoring_frame(after)
            lines += [f"**Scoring round after round {r} (x{MULTIPLIERS[r]})**", "",
                      "| player | type | cells | largest group | overall bonus | points |", "|---|---|---:|---:|---:|---:|"]
            lines += [f"| {x['player']} | {x['type']} | {x['cells']} | {x['largest group']} | "
                      f"{x['overall bonus']} | {x['points']} |" for x in frame.to_dict("records") if x["round"] == r]
            lines.append("")
    if day < DAYS:
        lines.append(f"Day {day + 1}: " + ("the guests propose the pieces of round "
                                           f"{day + 1}; " if day + 1 <= ROUNDS else "")
                     + f"the players build with round {day}'s pieces.")
    if after.over:
        lines += ["### Final standings", "", "| rank | name | meadow | type | points | result |",
                  "|---:|---|---|---|---:|---|"]
        lines += [f"| {row.rank} | {row.player} | {row.meadow} | {row.type} | {row.points} | {row.result} |"
                  for row in standings(after).itertuples()]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Ending:
    """The end as the rules decide it: the one home of the standings, the host's to-do and the
    season's `result`."""

    points: Mapping[Name, int]
    winner: Mapping[Meadow, Name | None]  # the Blue Meadow's: None while all three tie and the host has not typed it
    candidate: Player | None  # None while the tie winner's choice is awaited
    all_tied: bool  # the three players tie: the previous Main Match's winner wins and chooses


def ending(state: PyramidState) -> Ending:
    led, s = state.ledger, state.settings
    points = {n: led.points(n) for n in state.players}
    winner = {m: rules.best({n: points[n] for n in s.meadows[m]}, state.types) for m in Meadow}
    blue = {n: points[n] for n in s.players}
    candidate, all_tied = rules.worst(blue, state.types), winner[Meadow.BLUE] is None
    if all_tied:  # the host records the tie winner and their choice
        winner[Meadow.BLUE], candidate = s.tie_winner, s.elimination_candidate
    return Ending(points, winner, candidate, all_tied)


def standings(state: PyramidState) -> pd.DataFrame:
    end, s = ending(state), state.settings
    rows = []
    for meadow in Meadow:
        names, points = s.meadows[meadow], end.points
        winner, loser = end.winner[meadow], end.candidate if meadow is Meadow.BLUE else None
        rank = {n: 1 + sum(points[m] > points[n] for m in names) for n in names}
        for n in names:
            if winner and n != winner and points[n] == points[winner]:
                rank[n] += 1
        if loser and any(points[n] == points[loser] for n in names if n not in (loser, winner)):
            rank[loser] += 1
        for n in sorted(names, key=lambda n: (rank[n], -points[n])):
            rows.append({"rank": rank[n], "player": n, "meadow": meadow.title, "type": state.types[n].value,
                         "points": points[n], "result": _result(meadow, n, winner, loser)})
    return pd.DataFrame(rows, columns=["rank", "player", "meadow", "type", "points", "result"])


def _result(meadow: Meadow, name: Name, winner: Name | None, loser: Name | None) -> str:
    if meadow is not Meadow.BLUE:
        if winner is None:
            return "all three tied: the host settles"
        return f"{meadow.title} winner: 1 cosmos to give a finalist" if name == winner else ""
    if winner is None:
        return "all three tied: the previous Main Match's winner wins and chooses the Elimination Candidate (tell the host)"
    if name == winner:
        return "winner: 1 cosmos and a Token of Life"
    if loser is None:
        return "tied: the winner chooses the Elimination Candidate (tell the host)"
    return "Elimination Candidate (Death Match)" if name == loser else "Death Match"


def host_decisions(state: PyramidState) -> list[str]:
    """What the host still has to record at the end, and where: for the host's log (the public
    standings only say to tell the host; players read no config keys)."""
    if not state.over:
        return []
    end, lines = ending(state), []
    if end.winner[Meadow.BLUE] is None:
        lines.append("to decide: the Blue Meadow's three players tie: write the previous Main Match's winner in "
                     "config 'tie winner' and the Elimination Candidate they choose in config 'elimination candidate'")
    elif end.candidate is None:
        lines.append("to decide: the Blue Meadow's winner chooses the Elimination Candidate among the tied: write it "
                     "in config 'elimination candidate'")
    for meadow, key in COSMOS_KEYS.items():
        if meadow not in state.settings.cosmos_to:
            lines.append(f"to decide: the {meadow.title}'s winner, {end.winner[meadow] or 'when settled'}, may give 1 "
                         f"cosmos to a finalist: write the player, or '{NO_ONE}', in config {key!r}")
    return lines


def result(state: PyramidState) -> GameResult | None:
    """What the game gives the season (`players` the Blue Meadow): the winner's cosmos and Token of
    Life, the Elimination Candidate, the garnets spent as chips, a guest's part for each of the Red
    Meadow (eliminated players), and each guest meadow winner's extra cosmos to the finalist they
    give it to. What the host has not typed yet is owed: the tie winner and their choice when the
    three tie, and each meadow winner's cosmos."""
    if not state.over:
        return None
    end, s = ending(state), state.settings
    winner, candidate = end.winner[Meadow.BLUE], end.candidate
    changes = [Change(winner, COSMOS, 1, "the winner receives a cosmos and a Token of Life"),
               Change(winner, TOKEN, 1, "the winner receives a cosmos and a Token of Life")] if winner else []
    changes += [Change(p, GARNET, -n, f"{n} garnet(s) spent as chips, once out of chips") for p in s.players
                if (n := s.garnets.get(p, 0) - state.ledger.purses[p].garnets)]
    changes += [Change(g, GUEST, 1, "a guest in the Red Meadow") for g in s.meadows[Meadow.RED]]
    changes += [Change(to, COSMOS, 1, f"given by {end.winner[m]}, winner of the {m.title}") for m in GUEST_MEADOWS
                if end.winner[m] and (to := s.cosmos_to.get(m, NO_ONE)) != NO_ONE]
    owed = []
    if winner is None:
        owed.append(Owed((HOST,), "the winner: all three tied, the previous Main Match's winner wins", s.players,
                         "tie winner"))
    if candidate is None:
        owed.append(Owed((winner,) if winner else (HOST,), "the Elimination Candidate",
                         tuple(p for p in s.players if p != winner), "elimination candidate"))
    owed += [Owed((end.winner[m],) if end.winner[m] else (HOST,), "1 cosmos to give a finalist", (*s.players, NO_ONE),
                  key) for m, key in COSMOS_KEYS.items() if m not in s.cosmos_to]
    return GameResult(MAIN_MATCH, s.players, (winner,) if winner else (), tuple(changes),
                      (candidate,) if candidate else (), owed=tuple(owed))


def summary(state: PyramidState) -> dict[str, float]:
    led, s = state.ledger, state.settings
    points = [led.points(p) for p in s.players]
    return {"winning points": max(points), "lowest points": min(points),
            "guest winning points": sum(max(led.points(g) for g in s.meadows[m]) for m in GUEST_MEADOWS) / 2,
            "garnets used": sum(s.garnets.get(p, 0) - led.purses[p].garnets for p in s.players),
            **defaults_fired({"the default position": sum(1 for r, b in led.built.items() if b.moved or
                                                          state.constructions[(r, b.winner)].position is None)})}


def piece_columns(piece: Piece) -> dict[str, str]:
    return {c.value: t.value + (f" {STAR_MARK}" if piece.star is c else "") for c, t in zip(Corner, piece.cells)}


def cell_text(cell: rules.Cell | None) -> str | None:
    return None if cell is None else cell.type.value + (f" {STAR_MARK}" if cell.starred else "")


def scoring_frame(state: PyramidState) -> pd.DataFrame:
    rows = []
    for sc in state.ledger.scorings:
        for p in state.settings.players:
            score = sc.scores[state.types[p]]
            rows.append({"round": sc.round, "multiplier": sc.multiplier, "player": p, "type": state.types[p].value,
                         "cells": score.cells, "largest group": score.largest, "overall bonus": score.overall,
                         "subtotal": score.total, "points": score.total * sc.multiplier})
    return pd.DataFrame(rows, columns=["round", "multiplier", "player", "type", "cells", "largest group",
                                       "overall bonus", "subtotal", "points"])


def construction_frame(state: PyramidState) -> pd.DataFrame:
    """What the players are told after each construction stage: every bid and the winner's choice."""
    players = state.settings.players
    rows = [{"round": r, **{f"bid: {p}": b.bids[p] for p in players}, "winner": b.winner,
             "piece": b.meadow.title, "turned": f"{90 * b.rotation}°" if b.rotation else "",
             "position": b.position.name} for r, b in sorted(state.ledger.built.items())]
    return pd.DataFrame(rows, columns=["round", *(f"bid: {p}" for p in players), "winner", "piece", "turned", "position"])
