"""Pyramid Superiority (Main Match, 3 players and 6 guests, 15 days): the game as the engine sees it.

Everyone who submits is an engine player: the 3 players (Blue Meadow) and the 6 guests (Red
Meadow: eliminated players; Green Meadow: spectators). One engine round is one day. The state is
what was dealt and what everyone submitted; chips, points and the pyramid are derived from it
(`ledger.account`), so a host's correction flows through everything after it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import pandas as pd

from ... import cells
from ...cells import CellError, Problem, SubmitRow
from ...errors import SchemaError, SchemaErrors
from ...game import Game, Outcome, Parsed, Window, rng_for
from ...layout import tint
from ...table import Column, TabSchema
from . import colours, rules
from .ledger import (DAYS, GUEST_MEADOWS, ROUNDS, Construction, Ledger, Meadow, Proposal, Settings, Transfer,
                     account)
from .rules import BY_NAME, MULTIPLIERS, POSITIONS, ROTATION_COST, Corner, Piece, Position, Type

TYPES = tuple(t.value for t in Type)
CORNERS = tuple(c.value for c in Corner)
CLOCKWISE_WORDS = ("degrees", "degree", "deg", "clockwise", "cw")  # words a rotation may carry
COUNTER_CLOCKWISE_WORDS = ("counterclockwise", "anticlockwise", "ccw", "acw")

# What people call things, beyond the names themselves (matched ignoring case, spaces, dashes).
ROW_KINDS = {"bid": ("bid", "bet"), "star": ("star", "stars", "star cell", "cell"),
             "rotate": ("rotate", "rotation", "turn", "orientation"),
             "piece": ("piece", "meadow", "which piece"),
             "position": ("position", "place", "location", "where", "spot"),
             "send": ("send", "transfer", "give", "chips to")}
GUEST_ROWS = ("bid", "star", "rotate")
PLAYER_ROWS = ("bid", "piece", "rotate", "position", "send")
CORNER_NAMES = {"tl": "top-left", "upper left": "top-left", "ul": "top-left", "nw": "top-left",
                "tr": "top-right", "upper right": "top-right", "ur": "top-right", "ne": "top-right",
                "bl": "bottom-left", "lower left": "bottom-left", "ll": "bottom-left", "sw": "bottom-left",
                "br": "bottom-right", "lower right": "bottom-right", "lr": "bottom-right", "se": "bottom-right"}
PIECE_NAMES = {"red meadow": "red", "r": "red", "eliminated": "red", "eliminated players": "red",
               "green meadow": "green", "g": "green", "spectators": "green"}
POSITION_NAMES = {**{f"b{n}": f"base {n}" for n in range(1, 10)},
                  **{f"m{n}": f"middle {n}" for n in range(1, 5)}, **{f"mid {n}": f"middle {n}" for n in range(1, 5)},
                  "top": "apex", "peak": "apex", "a": "apex"}
STAR_MARK = "★"

TYPES_TAB = TabSchema("types", (Column("participant", "player"), Column("type", "choice", TYPES)),
                      "Everyone's type, drawn from the seed (one of each in every meadow); public.")
PIECES_TAB = TabSchema("pieces", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("guest", "player"),
    *(Column(c, "choice", TYPES) for c in CORNERS)),
    "The piece each guest receives each round (dealt at the start of its proposal stage).")
PROPOSALS_TAB = TabSchema("proposals", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("guest", "player"), Column("bid", "int", lo=0),
    Column("star", "choice", CORNERS, doc="the star attempt, on the piece as proposed"),
    Column("rotation", "int", lo=0, hi=270, doc="degrees clockwise: 0, 90, 180 or 270")),
    "Every guest's proposal-stage submission (defaults included), as submitted.")
CONSTRUCTIONS_TAB = TabSchema("constructions", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("player", "player"), Column("bid", "int", lo=0),
    Column("piece", "choice", tuple(m.value for m in GUEST_MEADOWS), doc="which meadow's proposed piece"),
    Column("rotation", "int", lo=0, hi=270, doc="degrees clockwise: 0, 90, 180 or 270"),
    Column("position", "choice", tuple(BY_NAME), optional=True, doc="blank: the default position")),
    "Every player's construction-stage submission (defaults included), as submitted.")
TRANSFERS_TAB = TabSchema("transfers", (
    Column("round", "int", lo=1, hi=ROUNDS), Column("player", "player"), Column("guest", "player"),
    Column("chips", "int", lo=1)),
    "Chips players asked to send to guests, in the order asked (one beyond the chips is dropped).")
SUBMIT_TAB = TabSchema("submit", (
    Column("what", doc="guests: bid, star, rotate; players: bid, piece, rotate, position, send; one row each "
                       "(send: any number of rows)"),
    Column("value", doc="bid: chips (0 or more); star: top-left, top-right, bottom-left or bottom-right; "
                        "rotate: 90, 180 or 270 (clockwise); piece: red or green; position: base 1-9, middle 1-4 "
                        "or apex; send: chips"),
    Column("to", doc="send rows only: the guest who gets the chips; otherwise blank"),
), "What you submit today, one row per item.")


@dataclass(frozen=True)
class PyramidState:
    players: tuple[str, ...]  # everyone who submits, as given to `new`
    settings: Settings
    types: Mapping[str, Type]
    pieces: Mapping[tuple[int, str], Piece]  # (round, guest) -> the piece dealt
    proposals: Mapping[tuple[int, str], Proposal]  # (round, guest)
    constructions: Mapping[tuple[int, str], Construction]  # (round, player)

    @cached_property
    def days(self) -> int:
        """Days resolved: day d adds round d's proposals (d <= 14) and round d-1's constructions."""
        last_proposal = max((r for r, _ in self.proposals), default=0)
        last_construction = max((r for r, _ in self.constructions), default=0)
        return max(last_proposal, last_construction + 1 if last_construction else 0)

    @property
    def day(self) -> int:
        """The day to resolve next."""
        return self.days + 1

    @cached_property
    def ledger(self) -> Ledger:
        return account(self.settings, self.types, self.pieces, self.proposals, self.constructions, self.days)

    def is_guest(self, name: str) -> bool:
        return name in self.settings.guests

    def offers(self) -> dict[Meadow, Piece]:
        """The pieces the players choose from today: round (day - 1)'s proposals."""
        r = self.day - 1
        return {m: self.ledger.proposed[(r, m)].piece for m in GUEST_MEADOWS if (r, m) in self.ledger.proposed}


class PyramidSuperiority(Game[PyramidState, Proposal | Construction | None]):
    name = "pyramid-superiority"
    title = "Pyramid Superiority"
    min_players = max_players = 9
    state_tabs = (TYPES_TAB, PIECES_TAB, PROPOSALS_TAB, CONSTRUCTIONS_TAB, TRANSFERS_TAB)
    frozen_tabs = ("types",)  # announced at the start of the game
    submit_tab = SUBMIT_TAB
    settings = (
        Column("blue meadow", optional=True, doc="the 3 players, comma-separated; blank: the first 3 names given to new"),
        Column("red meadow", optional=True, doc="the 3 guests who are eliminated players; blank: names 4 to 6"),
        Column("green meadow", optional=True, doc="the 3 guests who are spectators; blank: names 7 to 9"),
        Column("player chips", "int", lo=0, doc="chips each player starts with"),
        Column("guest chips", "int", lo=0, doc="chips each guest starts with"),
        Column("garnets", optional=True, doc="garnets each player may spend once out of chips, e.g. 'Ada: 5, Cora: 2'"),
        Column("tie winner", optional=True, doc="only if all three players tie: the previous Main Match's winner"),
        Column("elimination candidate", optional=True, doc="only if all three players tie: the tie winner's choice"),
    )
    round_word = "day"

    def how_to_submit(self, state: PyramidState, player: str) -> list[str]:
        guest, day = state.is_guest(player), state.day
        if self.is_over(state):
            return ["The game is over: nothing to submit."]
        if not self.submits(state, player):
            return ([f"Day {day}: the proposal stages are over; guests have nothing to submit."] if guest else
                    ["Day 1: players have nothing to submit; the guests propose the first pieces today.",
                     "From day 2 you build with the pieces proposed the day before."])
        purse = state.ledger.purses[player]
        lines = []
        if guest:
            piece = state.pieces[(day, player)]
            star = default_star(state, player, 0)
            lines += [f"Day {day} of {DAYS}: the proposal stage of round {day}; one row per item: what | value.",
                      f"bid | chips: your bid for your meadow's proposal; every bid is paid (you hold {purse.chips} "
                      "chips).",
                      "star | cell: the cell to star, on your piece as proposed: top-left, top-right, bottom-left "
                      "or bottom-right.",
                      f"rotate | 90, 180 or 270 (optional): turns your piece clockwise; {ROTATION_COST} chips, paid "
                      "only if it is proposed.",
                      f"Your piece for round {day}: {piece.text()}; you are {state.types[player].value}, a guest "
                      f"of the {state.settings.meadow_of(player).title}.",
                      f"Example: rows `bid | {min(2, purse.chips)}` and `star | {star.value}`.",
                      f"Nothing valid by the deadline: you bid 0 and your star goes on {star.value}."]
            return lines
        r = day - 1
        places = rules.buildable(state.ledger.pyramid)
        default = rules.default_position(state.ledger.pyramid)
        lines += [f"Day {day} of {DAYS}: the construction stage of round {r}; one row per item: what | value | to.",
                  f"bid | chips: every bid is paid, in chips, then in garnets once chips run out (you hold "
                  f"{purse.chips} chips, {purse.garnets} garnets).",
                  "piece | red or green: the meadow whose proposed piece you build if you win.",
                  f"position | where you build if you win; open now: {', '.join(p.name for p in places)}.",
                  f"rotate | 90, 180 or 270 (optional): turns the piece clockwise; {ROTATION_COST} chips, paid only "
                  "if you win."]
        bid = min(3, purse.total)
        example = [f"`bid | {bid}`", f"`piece | {GUEST_MEADOWS[-1].value}`", f"`position | {(places or [default])[0].name}`"]
        if day < DAYS:
            guests = state.settings.guests
            lines.append(f"send | chips | guest: chips to a guest ({', '.join(guests)}); any number of rows, "
                         "chips only.")
            if purse.chips - min(purse.chips, bid) >= 1:  # what is left after the bid can be sent
                example.append(f"`send | 1 | {guests[0]}`")
        else:
            lines.append("No chips can be sent today: the last construction stage has no transfers.")
        lines += [f"Example: rows {', '.join(example)}.",
                  f"Nothing valid by the deadline: you bid 0 and build the Red Meadow's piece at {default.name}."]
        return lines

    def submit_choices(self, state: PyramidState, player: str, tab: str = "submit") -> dict[str, list[str]]:
        if self.is_over(state) or not self.submits(state, player):
            return {}
        purse = state.ledger.purses[player]
        guest = state.is_guest(player)
        can_turn = (purse.chips if guest else purse.total) >= ROTATION_COST  # else a rotation is never paid
        can_send = not guest and state.day < DAYS and purse.chips > 0  # chips only, and not on the last day
        kinds = [k for k in (GUEST_ROWS if guest else PLAYER_ROWS)
                 if (k != "rotate" or can_turn) and (k != "send" or can_send)]
        turns = ["90", "180", "270"] if can_turn else []
        if guest:
            return {"what": kinds, "value": [*CORNERS, *turns]}
        places = [p.name for p in rules.buildable(state.ledger.pyramid)]
        choices = {"what": kinds, "value": [m.value for m in GUEST_MEADOWS] + places + turns}
        if can_send:
            choices["to"] = list(state.settings.guests)
        return choices

    def palette(self) -> dict[str, str]:
        """Types in the picture's colours (a starred cell too), and each meadow in its colour."""
        out = {}
        for kind, rgb in colours.COLOURS.items():
            out[kind.value] = out[f"{kind.value} {STAR_MARK}"] = tint(rgb)
        for meadow in Meadow:
            out[meadow.title] = tint(colours.MEADOW_COLOURS[meadow.value])
        for meadow in GUEST_MEADOWS:  # a player's piece choice, typed in the submit tab
            out[meadow.value] = tint(colours.MEADOW_COLOURS[meadow.value])
        return out

    # ---- setup and state tabs -------------------------------------------------------------

    def _settings(self, config: Mapping[str, Any], players: Sequence[str]) -> tuple[Settings, list[str]]:
        problems: list[str] = []

        def names(key: str, within: Sequence[str], what: str) -> list[str]:
            out = []
            for n in str(config.get(key) or "").split(","):
                if n.strip():
                    try:
                        out.append(cells.as_choice(n, within, what))
                    except CellError as e:
                        problems.append(f"config {key!r}: {e}")
            return out

        keys = {m: f"{m.value} meadow" for m in Meadow}
        given = {m: names(keys[m], players, "a participant") for m in Meadow}
        if not any(given.values()):
            meadows = {m: tuple(players[3 * i:3 * i + 3]) for i, m in enumerate(Meadow)}
        else:
            meadows = {m: tuple(v) for m, v in given.items()}
            for m, v in given.items():
                if len(v) != 3 or len(set(v)) != 3:
                    problems.append(f"config {keys[m]!r}: {', '.join(v) or 'blank'} is not 3 different participants "
                                    "(name all three meadows, or leave all three blank)")
            everyone = [n for v in given.values() for n in v]
            left = [p for p in players if p not in everyone]
            twice = sorted({n for n in everyone if everyone.count(n) > 1})
            if left:
                problems.append(f"config meadows: {', '.join(left)} {'is' if len(left) == 1 else 'are'} in no meadow")
            if twice:
                problems.append(f"config meadows: {', '.join(twice)} in more than one meadow")
        garnets: dict[str, int] = {}
        for part in str(config.get("garnets") or "").split(","):
            if not part.strip():
                continue
            name, _, count = part.partition(":")
            try:
                player = cells.as_choice(name, meadows[Meadow.BLUE], "a player (Blue Meadow)")
                if player in garnets:  # which of two counts the host meant is not ours to guess
                    problems.append(f"config 'garnets': {player} is named twice (write each player once)")
                garnets[player] = cells.as_int(count, 0, 10_000, f"{player}'s garnets")
            except CellError as e:
                problems.append(f"config 'garnets': {e} (write e.g. 'Ada: 5, Cora: 2')")
        picks = {k: names(k, meadows[Meadow.BLUE], "a player (Blue Meadow)") for k in ("tie winner", "elimination candidate")}
        for key, picked in picks.items():
            if len(picked) > 1:
                problems.append(f"config {key!r}: one player, not {', '.join(picked)}")
        tie_winner, candidate = (p[0] if p else None for p in picks.values())
        if candidate and candidate == tie_winner:
            problems.append("config 'elimination candidate': the tie winner cannot be the Elimination Candidate")
        return Settings(meadows, config["player chips"], config["guest chips"], garnets, tie_winner,
                        candidate), problems

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        return self._settings(config, players)[1]

    def setup(self, players, seed, config, data) -> PyramidState:
        settings, _ = self._settings(config, players)
        rng = rng_for(seed, 0, "setup")
        types = {}
        for meadow in Meadow:
            kinds = list(Type)
            rng.shuffle(kinds)
            types.update(zip(settings.meadows[meadow], kinds))
        pieces = {(1, g): rules.deal_piece(types[g], rng.shuffle) for g in settings.guests}
        return PyramidState(tuple(players), settings, types, pieces, {}, {})

    def load(self, players, tabs, config, data) -> PyramidState:
        settings, _ = self._settings(config, players)
        errors: list[SchemaError] = []
        types = {}
        for r in tabs["types"]:
            if r["participant"] in types:
                errors.append(SchemaError("types", r["_row"], "participant", r["participant"], "listed once"))
            types[r["participant"]] = Type(r["type"])
        for meadow, names in settings.meadows.items():
            kinds = sorted(types[n].value for n in names if n in types)
            if kinds != sorted(TYPES):
                errors.append(SchemaError("types", None, "type", f"{meadow.title}: {', '.join(kinds)}",
                                          f"one of each type in the {meadow.title} ({', '.join(names)})"))

        def guest_row(tab: str, r: dict, column: str, within: Sequence[str], what: str) -> bool:
            if r[column] not in within:
                errors.append(SchemaError(tab, r["_row"], column, r[column], what))
                return False
            return True

        def once(tab: str, r: dict, column: str, kept: Mapping) -> bool:
            """One row per round and participant: a second would silently replace the first."""
            if (r["round"], r[column]) in kept:
                errors.append(SchemaError(tab, r["_row"], column, r[column], f"listed once for round {r['round']}"))
                return False
            return True

        pieces = {}
        for r in tabs["pieces"]:
            if guest_row("pieces", r, "guest", settings.guests, "a guest") and r["guest"] in types \
                    and once("pieces", r, "guest", pieces):
                cells_ = tuple(Type(r[c]) for c in CORNERS)
                if not rules.is_piece_of(cells_, types[r["guest"]]):
                    errors.append(SchemaError("pieces", r["_row"], "top-left", " ".join(t.value for t in cells_),
                                              f"two {types[r['guest']].value} cells and one of each other type"))
                pieces[(r["round"], r["guest"])] = Piece(cells_)
        proposals = {}
        for r in tabs["proposals"]:
            if guest_row("proposals", r, "guest", settings.guests, "a guest") and once("proposals", r, "guest", proposals) \
                    and self._degrees(r, "proposals", errors):
                proposals[(r["round"], r["guest"])] = Proposal(r["bid"], Corner(r["star"]), r["rotation"] // 90)
        constructions = {}
        for r in tabs["constructions"]:
            if guest_row("constructions", r, "player", settings.players, "a player (Blue Meadow)") \
                    and once("constructions", r, "player", constructions) and self._degrees(r, "constructions", errors):
                constructions[(r["round"], r["player"])] = Construction(
                    r["bid"], Meadow(r["piece"]), r["rotation"] // 90, BY_NAME[r["position"]] if r["position"] else None)
        for r in tabs["transfers"]:
            if guest_row("transfers", r, "player", settings.players, "a player (Blue Meadow)") \
                    and guest_row("transfers", r, "guest", settings.guests, "a guest"):
                key = (r["round"], r["player"])
                if key not in constructions:
                    errors.append(SchemaError("transfers", r["_row"], "round", r["round"],
                                              f"a round {r['player']} has a construction-stage row for"))
                else:
                    c = constructions[key]
                    constructions[key] = replace(c, transfers=c.transfers + (Transfer(r["guest"], r["chips"]),))
        if errors:
            raise SchemaErrors(errors)
        state = PyramidState(tuple(players), settings, types, pieces, proposals, constructions)
        self._check_complete(state)
        return state

    @staticmethod
    def _degrees(r: dict, tab: str, errors: list[SchemaError]) -> bool:
        if r["rotation"] % 90:
            errors.append(SchemaError(tab, r["_row"], "rotation", r["rotation"], "0, 90, 180 or 270"))
            return False
        return True

    @staticmethod
    def _check_complete(state: PyramidState) -> None:
        """Every resolved day must have everyone's row, and every dealt round's pieces."""
        d, s = state.days, state.settings
        errors = []
        for tab, keys, want in (
                ("proposals", state.proposals, [(r, g) for r in range(1, min(d, ROUNDS) + 1) for g in s.guests]),
                ("constructions", state.constructions, [(r, p) for r in range(1, d) for p in s.players]),
                ("pieces", state.pieces, [(r, g) for r in range(1, min(d + 1, ROUNDS) + 1) for g in s.guests])):
            for r, name in want:
                if (r, name) not in keys:
                    errors.append(SchemaError(tab, None, "round", r, f"present for {name} (day {d} is resolved)"))
            for r, name in keys:
                if (r, name) not in want:
                    errors.append(SchemaError(tab, None, "round", r, f"a round already played by {name} "
                                                                     f"({d} days are resolved)"))
        if errors:
            raise SchemaErrors(errors)

    def dump(self, state: PyramidState) -> dict[str, list[dict]]:
        def piece_cells(piece: Piece) -> dict:
            return {c.value: t.value for c, t in zip(Corner, piece.cells)}

        return {
            "types": [{"participant": n, "type": state.types[n].value} for n in state.players],
            "pieces": [{"round": r, "guest": g, **piece_cells(p)} for (r, g), p in sorted(state.pieces.items())],
            "proposals": [{"round": r, "guest": g, "bid": p.bid, "star": p.star.value, "rotation": 90 * p.rotation}
                          for (r, g), p in sorted(state.proposals.items())],
            "constructions": [{"round": r, "player": p, "bid": c.bid, "piece": c.meadow.value,
                               "rotation": 90 * c.rotation, "position": c.position.name if c.position else None}
                              for (r, p), c in sorted(state.constructions.items())],
            "transfers": [{"round": r, "player": p, "guest": t.guest, "chips": t.chips}
                          for (r, p), c in sorted(state.constructions.items()) for t in c.transfers],
        }

    def players(self, state: PyramidState) -> list[str]:
        return list(state.players)

    def round(self, state: PyramidState) -> int:
        return state.day

    def is_over(self, state: PyramidState) -> bool:
        return state.days >= DAYS

    def groups(self, state: PyramidState) -> dict[str, tuple[str, ...]]:
        return {f"meadow:{m.value}": state.settings.meadows[m] for m in GUEST_MEADOWS}

    # ---- submissions ----------------------------------------------------------------------

    def submits(self, state: PyramidState, player: str) -> bool:
        """Guests propose on days 1-14, players build on days 2-15."""
        return state.day <= ROUNDS if state.is_guest(player) else state.day > 1

    def parse(self, state: PyramidState, player: str, rows: Sequence[SubmitRow],
              window: Window = Window()) -> Parsed[Proposal | Construction | None]:
        guest = state.is_guest(player)
        if not self.submits(state, player):
            why = ("the proposal stages are over: guests have nothing to submit on day 15" if guest else
                   "day 1 has no construction stage (the first pieces are proposed today): players submit from day 2")
            return Parsed(None, (Problem(player, f"{why}; rows ignored"),) if rows else (), "nothing to submit today")
        problems: list[Problem] = []
        allowed = GUEST_ROWS if guest else PLAYER_ROWS
        found: dict[str, tuple[SubmitRow, Any]] = {}
        sends: list[tuple[SubmitRow, Transfer]] = []
        for row in rows:
            kind = row.read("what", lambda v: cells.as_choice(
                v, list(ROW_KINDS), "a row kind", {a: k for k, names in ROW_KINDS.items() for a in names}), problems)
            if kind is None:
                continue
            if kind not in allowed:
                who, stage = ("guests", "proposal") if guest else ("players", "construction")
                problems.append(row.problem("what", f"{kind!r} is not for {who} (the {stage} stage); "
                                                    f"allowed: {', '.join(allowed)}; row dropped"))
                continue
            if kind in found:
                problems.append(row.problem("what", f"a second {kind!r} row: the first (row {found[kind][0].row}) "
                                                    "counts; row dropped"))
                continue
            if kind != "send" and not cells.is_blank(row.get("to")):
                problems.append(row.problem("to", f"'to' is for send rows only; {cells.quote(row.get('to'))} ignored"))
            column = "value"
            try:
                value = self._value(kind, row.get("value"))
                if kind == "send":
                    column = "to"
                    if cells.is_blank(row.get("to")):
                        raise CellError("blank: name the guest who gets the chips")
                    sends.append((row, Transfer(cells.as_choice(row.get("to"), state.settings.guests, "a guest"),
                                                value)))
                else:
                    found[kind] = (row, value)
            except CellError as e:
                problems.append(row.problem(column, f"{e}; row dropped"))
        if not found and not sends:
            if rows:
                problems.append(Problem(player, "no valid row: the default applies"))
            return Parsed(None, tuple(problems), "nothing")
        values = {k: v for k, (_, v) in found.items()}
        if guest:
            submission = self._proposal(state, player, values)
        else:
            submission = Construction(values.get("bid", 0), values.get("piece", Meadow.RED), values.get("rotate", 0),
                                      values.get("position"), tuple(t for _, t in sends))
        notes = self._foresee(state, player, submission, {k: r for k, (r, _) in found.items()}, [r for r, _ in sends])
        return Parsed(submission, tuple(problems + notes), describe(state, player, submission))

    @staticmethod
    def _value(kind: str, raw: object) -> Any:
        if kind == "bid":
            return cells.as_int(raw, 0, 10_000, "a bid in chips")
        if kind == "star":
            return Corner(cells.as_choice(raw, CORNERS, "a cell", CORNER_NAMES))
        if kind == "rotate":
            return rotation(raw)
        if kind == "piece":
            return Meadow(cells.as_choice(raw, ("red", "green"), "a meadow's piece", PIECE_NAMES))
        if kind == "position":
            return BY_NAME[cells.as_choice(raw, tuple(BY_NAME), "a position", POSITION_NAMES)]
        return cells.as_int(raw, 1, 10_000, "chips to send")

    def _proposal(self, state: PyramidState, guest: str, values: Mapping[str, Any]) -> Proposal:
        bid, turns = values.get("bid", 0), values.get("rotate", 0)
        star = values.get("star")
        if star is None:  # on the piece as they would propose it: unturned if the turn cannot be paid
            paid = outlook(state, guest, Proposal(bid, Corner.TOP_LEFT, turns)).rotation_paid
            star = default_star(state, guest, turns if paid else 0)
        return Proposal(bid, star, turns)

    def _foresee(self, state: PyramidState, player: str, sub: Proposal | Construction,
                 rows: Mapping[str, SubmitRow], send_rows: Sequence[SubmitRow]) -> list[Problem]:
        """Tell now what the resolver will do with a rule that depends on chips or the pyramid."""
        view, notes = outlook(state, player, sub), []
        what = "chips" if isinstance(sub, Proposal) else "chips and garnets"

        def note(kind: str, message: str) -> None:
            notes.append(rows[kind].problem("value", message) if kind in rows else Problem(player, message))

        if view.bid != sub.bid:
            note("bid", f"you hold {view.holds} {what}: a bid of {sub.bid} is more, so it counts as 0")
        if sub.rotation and not view.rotation_paid:
            note("rotate", f"rotating costs {ROTATION_COST} after your bid of {view.bid}, and you would have "
                           f"{view.holds - view.bid} {what} left: if you win, the rotation is dropped")
        if view.position_why:
            note("position", f"{view.position_why}: if you win, your piece goes to the default position, "
                             f"{view.default.name}")
        for row, why in zip(send_rows, view.transfers):
            if why:
                notes.append(row.problem("value", f"{why}: this transfer is dropped"))
        return notes

    def default(self, state: PyramidState, player: str) -> Proposal | Construction | None:
        if state.is_guest(player):
            return Proposal(0, default_star(state, player, 0)) if state.day <= ROUNDS else None
        return Construction() if state.day >= 2 else None

    def submit_rows(self, submission: Proposal | Construction | None) -> list[dict]:
        if submission is None:
            return []
        rows = [{"what": "bid", "value": submission.bid}]
        if isinstance(submission, Proposal):
            rows.append({"what": "star", "value": submission.star.value})
        else:
            rows.append({"what": "piece", "value": submission.meadow.value})
            if submission.position:
                rows.append({"what": "position", "value": submission.position.name})
        if submission.rotation:
            rows.append({"what": "rotate", "value": 90 * submission.rotation})
        if isinstance(submission, Construction):
            rows += [{"what": "send", "value": t.chips, "to": t.guest} for t in submission.transfers]
        return rows

    def bot(self, state: PyramidState, player: str, rng: random.Random) -> Proposal | Construction | None:
        if self.default(state, player) is None:
            return None
        purse = state.ledger.purses[player]
        if state.is_guest(player):
            bid = rng.randint(0, min(purse.chips, 6))
            turns = rng.randint(1, 3) if purse.chips - bid >= ROTATION_COST and rng.random() < 0.2 else 0
            mine = state.pieces[(state.day, player)].rotated(turns)
            star = rng.choice([c for c in Corner if mine.cell(c) is state.types[player]] if rng.random() < 0.7
                              else list(Corner))
            return Proposal(bid, star, turns)
        bid = rng.randint(0, min(purse.total, 8))
        turns = rng.randint(1, 3) if purse.total - bid >= ROTATION_COST and rng.random() < 0.3 else 0
        places = rules.buildable(state.ledger.pyramid)
        position = rng.choice(places) if rng.random() < 0.8 else None
        transfers = ()
        left = purse.chips - min(purse.chips, bid) - ROTATION_COST
        if state.day < DAYS and left >= 3 and rng.random() < 0.2:
            transfers = (Transfer(rng.choice(state.settings.guests), rng.randint(1, 3)),)
        return Construction(bid, rng.choice(GUEST_MEADOWS), turns, position, transfers)

    # ---- the day --------------------------------------------------------------------------

    def resolve(self, state: PyramidState, submissions: Mapping[str, Proposal | Construction | None],
                rng: random.Random) -> Outcome:
        day, s = state.day, state.settings
        proposals, constructions, pieces = dict(state.proposals), dict(state.constructions), dict(state.pieces)
        if day <= ROUNDS:
            for g in s.guests:
                sub = submissions.get(g)
                proposals[(day, g)] = sub if isinstance(sub, Proposal) else self.default(state, g)
        if day >= 2:
            for p in s.players:
                sub = submissions.get(p)
                constructions[(day - 1, p)] = sub if isinstance(sub, Construction) else self.default(state, p)
        if day < ROUNDS:  # the next proposal stage's pieces
            for g in s.guests:
                pieces[(day + 1, g)] = rules.deal_piece(state.types[g], rng.shuffle)
        after = replace(state, pieces=pieces, proposals=proposals, constructions=constructions)
        # Seed the new state's ledger from this one's plus today: what replaying every day would
        # give (test_a_resolved_state_accounts_like_a_full_replay), at a fifteenth of the cost.
        after.__dict__["ledger"] = account(s, state.types, pieces, proposals, constructions, day, state.ledger)
        return Outcome(self, after, list(after.ledger.log[day]))

    # ---- the end --------------------------------------------------------------------------

    def standings(self, state: PyramidState) -> pd.DataFrame:
        led, s = state.ledger, state.settings
        rows = []
        for meadow in Meadow:
            names = s.meadows[meadow]
            points = {n: led.points(n) for n in names}
            types = {n: state.types[n] for n in names}
            winner, loser = rules.best(points, types), None
            if meadow is Meadow.BLUE:
                loser = rules.worst(points, types)
                if winner is None:  # all three tied: the host records the tie winner and their choice
                    winner, loser = s.tie_winner, s.elimination_candidate
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

    def summary(self, state: PyramidState) -> dict[str, float]:
        led, s = state.ledger, state.settings
        points = [led.points(p) for p in s.players]
        return {"winning points": max(points), "lowest points": min(points),
                "guest winning points": sum(max(led.points(g) for g in s.meadows[m]) for m in GUEST_MEADOWS) / 2,
                "moved to the default position": sum(1 for b in led.built.values() if b.moved),
                "garnets used": sum(s.garnets.get(p, 0) - led.purses[p].garnets for p in s.players)}

    # ---- views ----------------------------------------------------------------------------

    def public_view(self, state: PyramidState) -> dict[str, pd.DataFrame]:
        led, s = state.ledger, state.settings
        people = pd.DataFrame([{"meadow": m.title, "participant": n, "role": "player" if m is Meadow.BLUE else "guest",
                                "type": state.types[n].value, "points": led.points(n)}
                               for m in Meadow for n in s.meadows[m]])
        proposed = pd.DataFrame([{"round": r, "meadow": m.title, **piece_columns(p.piece), "star": p.piece.star.value}
                                 for (r, m), p in sorted(led.proposed.items(), key=lambda kv: (kv[0][0], GUEST_MEADOWS.index(kv[0][1])))],
                                columns=["round", "meadow", *CORNERS, "star"])
        over = self.is_over(state)
        open_now = set() if over or state.day == 1 else set(rules.buildable(led.pyramid))
        pyramid = pd.DataFrame([{
            "position": p.name, "round built": led.placed.get(p),
            **(piece_columns(led.pyramid[p]) if p in led.pyramid else dict.fromkeys(CORNERS)),
            "star": led.pyramid[p].star.value if p in led.pyramid else None,
            "can be built today": "" if p in led.pyramid else ("yes" if p in open_now else "no")}
            for p in POSITIONS])
        grid = rules.top_view(led.pyramid)
        top = pd.DataFrame([[f"row {i + 1}", *(cell_text(c) for c in row)] for i, row in enumerate(grid)],
                           columns=["from the top", *(f"column {j + 1}" for j in range(rules.SIDE))])
        points = pd.DataFrame([{"day": a.day, "participant": a.name, "what": a.what, "points": a.points}
                               for a in led.awards], columns=["day", "participant", "what", "points"])
        tabs = {"participants": people, "proposed pieces": proposed, "pyramid": pyramid, "from the top": top,
                "points": points, "scoring rounds": scoring_frame(state)}
        if over:
            tabs["standings"] = self.standings(state)
        return tabs

    def private_view(self, state: PyramidState, player: str) -> dict[str, pd.DataFrame]:
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
                       (f"your piece for round {state.day}", piece.text()),
                       ("if you submit nothing", f"bid 0, star on {default_star(state, player, 0).value}")]
            else:
                me.append(("today", "game over" if self.is_over(state) else "day 15: nothing for guests to submit"))
        else:
            start = s.garnets.get(player, 0)
            me += [("garnets left", f"{purse.garnets} of {start}"), ("garnets used", start - purse.garnets),
                   ("points", led.points(player))]
            if state.day == 1:
                me.append(("today", "day 1: nothing to submit; the guests propose the first pieces"))
            elif not self.is_over(state):
                r = state.day - 1
                me += [("today", f"day {state.day}: the construction stage of round {r}"
                                 + (" (the last: no transfers)" if r == ROUNDS else "")),
                       *((f"the {m.title}'s piece", p.text()) for m, p in state.offers().items()),
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

    def group_view(self, state: PyramidState, role: str) -> dict[str, pd.DataFrame]:
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
                                   "proposed piece": result.piece.text()})
        return {"pieces": dealt,
                "proposals": pd.DataFrame(rounds, columns=["round", "guest", "type", "bid", "star attempt", "proposed",
                                                           "star on", "proposed piece"])}

    def announcement(self, before: PyramidState, after: PyramidState) -> str:
        day, led = before.day, after.ledger
        lines = [f"## {self.title}: day {day} of {DAYS}", ""]
        if day <= ROUNDS:
            lines += [f"### Proposal stage, round {day}", ""]
            lines += [f"- {m.title} proposes {led.proposed[(day, m)].piece.text()} "
                      f"(star on {led.proposed[(day, m)].piece.star.value}, * marks it)" for m in GUEST_MEADOWS]
            lines += ["", "| guest | meadow | type | points |", "|---|---|---|---:|"]
            lines += [f"| {g} | {after.settings.meadow_of(g).title} | {after.types[g].value} | {led.points(g)} |"
                      for g in after.settings.guests]
            lines.append("")
        if day >= 2:
            r = day - 1
            built = next(p for p, rr in led.placed.items() if rr == r)
            lines += [f"### Construction stage, round {r}", "",
                      f"A piece is built at **{built.name}**: {led.pyramid[built].text()}.", "",
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
        if self.is_over(after):
            lines += ["### Final standings", "", "| rank | name | meadow | type | points | result |",
                      "|---:|---|---|---|---:|---|"]
            lines += [f"| {row.rank} | {row.player} | {row.meadow} | {row.type} | {row.points} | {row.result} |"
                      for row in self.standings(after).itertuples()]
        return "\n".join(lines) + "\n"

    def picture(self, state: PyramidState) -> bytes:
        from .picture import draw_pyramid

        over = self.is_over(state)
        title = f"{self.title}: " + ("final pyramid" if over else f"after day {state.days}")
        offers = {} if over else {m.title: p for m, p in state.offers().items()}
        return draw_pyramid(state.ledger.pyramid, title, offers)


# ---- small helpers ---------------------------------------------------------------------------


def rotation(raw: object) -> int:
    """Clockwise quarter turns from '90', '90°', '180 degrees', 'none'...; a counter-clockwise
    turn is read as its clockwise equal, and a word the reader does not know is refused rather
    than skipped (it might say the direction).

    >>> rotation("90°"), rotation(" 270 degrees clockwise "), rotation("none"), rotation(180.0)
    (1, 3, 0, 2)
    >>> rotation("90 counter-clockwise"), rotation("anticlockwise 180"), rotation("ccw 270")
    (3, 2, 1)
    """
    allowed = "a rotation: 0, 90, 180 or 270 (degrees clockwise)"
    said = cells.text(raw)
    if said.startswith("="):
        return cells.as_int(raw, 0, 270, allowed)  # refuses it: a formula is reported, not evaluated
    words = re.sub(r"\b(counter|anti)[\s-]+clockwise", r"\1clockwise", said.casefold()).replace("°", " ").split()
    backwards = any(w in COUNTER_CLOCKWISE_WORDS for w in words)
    words = [w for w in words if w not in CLOCKWISE_WORDS + COUNTER_CLOCKWISE_WORDS]
    if words in (["none"], ["no"]):
        return 0
    if len(words) > 1:
        raise CellError(f"{cells.quote(said)} is not {allowed}; e.g. '90', '180 degrees', '90 counter-clockwise'")
    degrees = cells.as_int(words[0] if words else raw, 0, 270, allowed)
    if degrees % 90:
        raise CellError(f"{cells.quote(said)} is not a multiple of 90 ({allowed})")
    return -(degrees // 90) % 4 if backwards else degrees // 90


def default_star(state: PyramidState, guest: str, turns: int) -> Corner:
    """The first cell of the guest's type in their own piece (as they would propose it)."""
    return state.pieces[(state.day, guest)].rotated(turns).first_cell_of(state.types[guest])


@dataclass(frozen=True)
class Outlook:
    """What the resolver will make of a submission, as far as it is known before the deadline
    (nothing changes a participant's chips or the pyramid between the submission and the stage)."""

    bid: int  # as counted
    holds: int  # chips (and garnets, for a player) before the bid
    rotation_paid: bool  # whether a rotation could be paid after the bid, if this bidder wins
    position_why: str | None = None  # why the position cannot be built on now
    default: Position | None = None  # the default position now
    transfers: tuple[str | None, ...] = ()  # per transfer, why it will be dropped (None: it is sent)


def outlook(state: PyramidState, player: str, sub: Proposal | Construction) -> Outlook:
    purse = state.ledger.purses[player]
    holds = purse.chips if isinstance(sub, Proposal) else purse.total
    bid = rules.bid_counted(sub.bid, holds)
    if isinstance(sub, Proposal):
        return Outlook(bid, holds, holds - bid >= ROTATION_COST)
    pyramid = state.ledger.pyramid
    left, fates = purse.chips - min(purse.chips, bid), []
    for t in sub.transfers:
        if state.day == DAYS:
            fates.append("no transfers in the last construction stage")
        elif t.chips > left:
            fates.append(f"you would have {left} chips left after your bid, and garnets cannot be sent")
        else:
            fates.append(None)
            left -= t.chips
    return Outlook(bid, holds, holds - bid >= ROTATION_COST,
                   sub.position and rules.why_not_here(pyramid, sub.position), rules.default_position(pyramid),
                   tuple(fates))


def describe(state: PyramidState, player: str, sub: Proposal | Construction) -> str:
    """What counts, in one line."""
    view = outlook(state, player, sub)
    bid = f"bid {view.bid}" + (f" ({sub.bid} is more than you hold)" if view.bid != sub.bid else "")
    turn = f" turned {90 * sub.rotation}°" if sub.rotation and view.rotation_paid else ""
    if isinstance(sub, Proposal):
        return f"{bid}, star {sub.star.value}" + (f", your piece{turn} if it is proposed" if turn else "")
    if sub.position is None:
        where = f"{view.default.name} (the default)"
    elif view.position_why:
        where = f"{view.default.name} (the default: {sub.position.name} cannot be built on now)"
    else:
        where = sub.position.name
    return f"{bid}; if you win: the {sub.meadow.title}'s piece{turn} at {where}" + "".join(
        f"; send {t.chips} to {t.guest}" for t, why in zip(sub.transfers, view.transfers) if why is None)


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


def _result(meadow: Meadow, name: str, winner: str | None, loser: str | None) -> str:
    if meadow is not Meadow.BLUE:
        if winner is None:
            return "all three tied: the host settles"
        return f"{meadow.title} winner: 1 cosmos to give a finalist" if name == winner else ""
    if winner is None:
        return "all three tied: the previous Main Match's winner wins and chooses the Elimination Candidate " \
               "(record them as 'tie winner' and 'elimination candidate' in the config)"
    if name == winner:
        return "winner: 1 cosmos and a Token of Life"
    if loser is None:
        return "tied: the winner chooses the Elimination Candidate (record it in the config)"
    return "Elimination Candidate (Death Match)" if name == loser else "Death Match"


GAME = PyramidSuperiority()
