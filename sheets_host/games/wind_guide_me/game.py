"""Wind Guide Me (Main Match, 7 players, 7 rounds): the game as the engine sees it.

State is the seating and every stone ever placed; hands, open sites, artefact use and the round
are all derived from those, so a host editing the `stones` tab cannot make them disagree.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pandas as pd

from ... import cells
from ...cells import CellError, Problem, SubmitRow
from ...errors import SchemaError, SchemaErrors
from ...game import Game, Outcome, Parsed, Window
from ...layout import tint
from ...table import Column, TabSchema
from . import colours, rules, seating
from .rules import POSITIONS, Request, Stone

SITE_COUNT = 21
KIND_ALIASES = {"real": "stone", "wind stone": "stone", "standard": "stone",
                "dark": "fake", "fake stone": "fake", "power of dark": "fake"}


@dataclass(frozen=True)
class Settings:
    rounds: int
    per_round: int
    collapse_over: int
    missed_penalty: float
    hand: tuple[int, ...]
    light_holders: frozenset[str]
    dark_holders: frozenset[str]
    elimination_candidate: str | None


@dataclass(frozen=True)
class Placed:
    """A stone placed at a site; `gone` is the round a fake disappeared in (0 while it stands)."""

    site: int
    position: int
    stone: Stone
    gone: int = 0


@dataclass(frozen=True)
class Placement:
    """One row of a submission: a stone from the hand (`from_hand`) placed with `power`."""

    site: int
    position: int
    from_hand: int
    power: int


@dataclass(frozen=True)
class Orders:
    """A player's submission for one round; `missed` when nothing valid was submitted."""

    stones: tuple[Placement, ...] = ()
    fake: Placement | None = None
    missed: bool = False


@dataclass(frozen=True)
class WindState:
    players: tuple[str, ...]
    sites: tuple[tuple[str, ...], ...]  # site n is sites[n-1]; seat k is position k+1
    placed: tuple[Placed, ...]
    missed: tuple[tuple[int, str], ...]  # (round, player)
    settings: Settings = field(compare=False)

    @cached_property
    def round(self) -> int:
        """Every round, every player either placed a real stone or missed: so the next round is
        one past the last recorded."""
        rounds = [p.stone.round for p in self.placed if not p.stone.fake] + [r for r, _ in self.missed]
        return max(rounds, default=0) + 1

    @cached_property
    def boards(self) -> dict[int, dict[int, Stone]]:
        boards: dict[int, dict[int, Stone]] = {n: {} for n in range(1, len(self.sites) + 1)}
        for p in self.placed:
            if not p.gone:
                boards[p.site][p.position] = p.stone
        return boards

    def hand(self, player: str) -> Counter:
        used = Counter(p.stone.from_hand for p in self.placed if p.stone.player == player and not p.stone.fake)
        return Counter(self.settings.hand) - used

    def open_sites(self, player: str) -> list[int]:
        used = {p.site for p in self.placed if p.stone.player == player and not p.stone.fake}
        return [n for n, seats in enumerate(self.sites, 1) if player in seats and n not in used]

    def light_ready(self, player: str) -> bool:
        return player in self.settings.light_holders and not any(
            p.stone.player == player and not p.stone.fake and p.stone.power != p.stone.from_hand
            for p in self.placed)

    def dark_ready(self, player: str) -> bool:
        return player in self.settings.dark_holders and not any(
            p.stone.player == player and p.stone.fake for p in self.placed)

    def missed_rounds(self, player: str) -> int:
        return sum(1 for _, p in self.missed if p == player)


SITES_TAB = TabSchema("sites", (Column("site", "int", lo=1, hi=SITE_COUNT),) + tuple(
    Column(f"position {k}", "player") for k in range(1, POSITIONS + 1)),
    "Who sits where at each ritual site. Editable before round 1; validated.")
STONES_TAB = TabSchema("stones", (
    Column("round", "int", lo=1), Column("site", "int", lo=1, hi=SITE_COUNT),
    Column("position", "int", lo=1, hi=POSITIONS), Column("asked", "int", lo=1, hi=POSITIONS),
    Column("player", "player"), Column("kind", "choice", ("stone", "fake")),
    Column("from hand", "int", lo=0, hi=rules.MAX_POWER, doc="the stone taken from the hand; 0 for a fake"),
    Column("power", "int", lo=rules.MIN_POWER, hi=rules.MAX_POWER),
    Column("gone in round", "int", lo=1, optional=True, doc="when a fake disappeared; blank while it stands"),
), "Every stone placed so far, fake stones included.")
MISSED_TAB = TabSchema("missed", (Column("round", "int", lo=1), Column("player", "player")),
                       "Rounds in which a player placed nothing (each costs the missed-round penalty).")
HAND_TAB = TabSchema("hand", (Column("power", "int", lo=rules.MIN_POWER, hi=rules.MAX_POWER),
                                Column("count", "int", lo=0, hi=20)),
                     "The wind stones every player starts with.")
SUBMIT_TAB = TabSchema("submit", (
    Column("kind", "text", doc="stone: an ordinary wind stone from your hand (blank also means stone); "
                               "fake: Power of Dark's fake stone (once a game)"),
    Column("site", "text", doc=f"a ritual site (1 to {SITE_COUNT}) you sit at and have not used; one row per site"),
    Column("position", "text", doc=f"1 to {POSITIONS}: 1 is the top of the circle, then clockwise"),
    Column("stone", "text", doc=f"the power ({rules.MIN_POWER} to {rules.MAX_POWER}) of a stone from your hand; "
                                "for a fake: its stated power"),
    Column("light", "text", optional=True,
           doc=f"Power of Light only: the stone's new power, {rules.MIN_POWER} to {rules.MAX_POWER}, up to "
               f"{rules.LIGHT_REACH} away; blank: its own power"),
), "One row per stone you place this round.")


class WindGuideMe(Game[WindState, Orders]):
    name = "wind-guide-me"
    title = "Wind Guide Me"
    min_players = max_players = 7
    data_tabs = (HAND_TAB,)
    state_tabs = (SITES_TAB, STONES_TAB, MISSED_TAB)
    frozen_tabs = ("sites",)
    submit_tab = SUBMIT_TAB
    settings = (
        Column("rounds", "int", lo=1, hi=7, doc="rounds in the game"),
        Column("stones per round", "int", lo=1, hi=3, doc="real stones each player places a round"),
        Column("collapse over", "int", lo=1, doc="a site with more power than this fails"),
        Column("missed round penalty", "float", lo=0, doc="distance taken off the final score per missed round"),
        Column("light holders", "text", optional=True, doc="players holding Power of Light, comma-separated"),
        Column("dark holders", "text", optional=True, doc="players holding Power of Dark, comma-separated"),
        Column("elimination candidate", "text", optional=True,
               doc="the winners' choice when several tie for the lowest score"),
    )
    round_word = "round"

    def how_to_submit(self, state: WindState, player: str) -> list[str]:
        s = state.settings
        if self.is_over(state):
            return ["The game is over: nothing to submit."]
        hand, sites = state.hand(player), state.open_sites(player)
        lines = [f"Round {state.round} of {s.rounds}: place {s.per_round} stone(s), one row each: "
                 "kind | site | position | stone | light.",
                 "kind: stone for an ordinary wind stone from your hand (a blank kind also means stone).",
                 f"site: a site you sit at and have not used, a different one for each stone; yours: {_list(sites)}.",
                 f"position: 1 is the top of the site's circle, then clockwise to {POSITIONS}.",
                 f"stone: the power of a stone from your hand; your stones: {_hand_text(hand)}.",
                 "A position asked for by several stones goes to the player seated first clockwise from it "
                 "(itself included).",
                 "The other stones move clockwise to the next free position; your seats: the seating rows of "
                 "your 'private' tab."]
        if state.light_ready(player):
            lines.append(f"Power of Light (once a game): on one stone's row, its new power in 'light' (up to "
                         f"{rules.LIGHT_REACH} away, {rules.MIN_POWER} to {rules.MAX_POWER}).")
        if state.dark_ready(player):
            lines.append("Power of Dark (once a game): one more row, kind fake, at a site you sit at where no "
                         "real stone of yours goes this round; 'stone' is its stated power.")
        lines += self._examples(state, player)
        lines.append(f"Nothing valid by the deadline: nothing is placed and a penalty of {s.missed_penalty:g} "
                     "is taken off your final score.")
        return lines

    def _examples(self, state: WindState, player: str) -> list[str]:
        """Example rows made of the player's own stones, open sites and free positions."""
        pool = sorted(state.hand(player).elements(), reverse=True)
        sites = state.open_sites(player)
        stones = [(site, _free_position(state, site, player), power)
                  for site, power in zip(sites, pool)][:state.settings.per_round]
        if not stones:
            return []
        rows = [f"`stone | {site} | {position} | {power} |`" for site, position, power in stones]
        lines = [f"Example: {' and '.join(rows)} ({'one row' if len(rows) == 1 else 'one row each'})."]
        site, position, power = stones[0]
        if state.light_ready(player):
            new = power - 2 if power - 2 >= rules.MIN_POWER else power + 2
            lines.append(f"Example with Power of Light: `stone | {site} | {position} | {power} | {new}` places "
                         f"your {power} as a {new}.")
        if state.dark_ready(player):
            used = {site for site, _, _ in stones}
            other = next((n for n, seats in enumerate(state.sites, 1) if player in seats and n not in used), None)
            if other is not None:
                lines.append(f"Example fake stone: `fake | {other} | {_free_position(state, other, player)} | "
                             f"{pool[-1]} |` (any stated power from {rules.MIN_POWER} to {rules.MAX_POWER}).")
        return lines

    def submit_choices(self, state: WindState, player: str, tab: str = "submit") -> dict[str, list[str]]:
        if self.is_over(state):
            return {}
        hand = state.hand(player)
        dark = state.dark_ready(player)
        seated = [n for n, seats in enumerate(state.sites, 1) if player in seats]
        sites = seated if dark else state.open_sites(player)
        powers = range(rules.MIN_POWER, rules.MAX_POWER + 1)
        choices = {"kind": ["stone", "fake"] if dark else ["stone"],
                   "site": [str(n) for n in sites],
                   "position": [str(k) for k in range(1, POSITIONS + 1)],
                   "stone": [str(p) for p in powers if dark or hand[p] > 0]}
        if state.light_ready(player):
            choices["light"] = [str(p) for p in powers
                                if any(rules.light(h, p) is None for h in hand if hand[h] > 0)]
        return choices

    def palette(self) -> dict[str, str]:
        """The kind of a stone: a real one in the picture's stone colour, a fake one greyed."""
        return {"stone": tint(colours.STONE), "fake": tint(colours.MUTED)}

    # ---- setup and state tabs -------------------------------------------------------------

    def _settings(self, config: Mapping[str, Any], data: Mapping[str, list[dict]],
                  players: Sequence[str]) -> Settings:
        def names(key: str) -> frozenset[str]:
            raw = config.get(key) or ""
            return frozenset(cells.as_choice(n, players, "a player") for n in str(raw).split(",") if n.strip())

        hand = tuple(sorted(r["power"] for r in data["hand"] for _ in range(r["count"])))
        ec = config.get("elimination candidate")
        return Settings(config["rounds"], config["stones per round"], config["collapse over"],
                        float(config["missed round penalty"]), hand, names("light holders"),
                        names("dark holders"), cells.as_choice(ec, players, "a player") if ec else None)

    def check_config(self, config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
        problems = []
        for key in ("light holders", "dark holders", "elimination candidate"):
            for name in str(config.get(key) or "").split(","):
                if name.strip():
                    try:
                        cells.as_choice(name, players, "a player")
                    except CellError as e:
                        problems.append(f"config {key!r}: {e}")
        return problems

    def setup(self, players, seed, config, data) -> WindState:
        rng = random.Random(f"sheets-host/{seed}/seating")
        return WindState(tuple(players), tuple(seating.seat_sites(players, rng)), (), (),
                         self._settings(config, data, players))

    def load(self, players, tabs, config, data) -> WindState:
        site_rows = tabs["sites"]
        ordered = [None] * len(site_rows)
        errors = []
        for r in site_rows:
            if not 1 <= r["site"] <= len(site_rows) or ordered[r["site"] - 1] is not None:
                errors.append(SchemaError("sites", r["_row"], "site", r["site"], "each site number once"))
            else:
                ordered[r["site"] - 1] = tuple(r[f"position {k}"] for k in range(1, POSITIONS + 1))
        if errors:
            raise SchemaErrors(errors)
        problems = seating.check_seating(players, ordered)
        if problems:
            raise SchemaErrors([SchemaError("sites", None, None, p, "a valid seating") for p in problems])
        placed = tuple(Placed(r["site"], r["position"], Stone(
            r["player"], r["power"], r["kind"] == "fake", r["asked"], r["round"], r["from hand"]),
            r["gone in round"] or 0) for r in tabs["stones"])
        missed = tuple((r["round"], r["player"]) for r in tabs["missed"])
        state = WindState(tuple(players), tuple(ordered), placed, missed,
                          self._settings(config, data, players))
        self._check_stones(state, tabs["stones"])
        return state

    def _check_stones(self, state: WindState, rows: list[dict]) -> None:
        """The stones tab must describe a game that could have happened."""
        errors, standing, sites_used = [], set(), set()
        for r, p in zip(rows, state.placed):
            s = p.stone
            if s.player not in state.sites[p.site - 1]:
                errors.append(SchemaError("stones", r["_row"], "player", s.player, f"seated at site {p.site}"))
            if not p.gone and (p.site, p.position) in standing:
                errors.append(SchemaError("stones", r["_row"], "position", p.position,
                                          f"a free position at site {p.site} (two stones stand there)"))
            standing.add((p.site, p.position))
            if not s.fake:
                if (s.player, p.site) in sites_used:
                    errors.append(SchemaError("stones", r["_row"], "site", p.site, f"a site {s.player} has not used"))
                sites_used.add((s.player, p.site))
                if s.from_hand == 0 or rules.light(s.from_hand, s.power):
                    errors.append(SchemaError("stones", r["_row"], "power", s.power,
                                              "the stone's own power or a Power of Light change of it"))
        for player in state.players:
            over = -state.hand(player)  # Counter negation keeps what went below zero
            if over:
                errors.append(SchemaError("stones", None, "from hand", dict(over),
                                          f"stones {player} still had (more used than the hand holds)"))
        if errors:
            raise SchemaErrors(errors)

    def dump(self, state: WindState) -> dict[str, list[dict]]:
        return {
            "sites": [{"site": n, **{f"position {k}": p for k, p in enumerate(seats, 1)}}
                      for n, seats in enumerate(state.sites, 1)],
            "stones": [{"round": p.stone.round, "site": p.site, "position": p.position, "asked": p.stone.asked,
                        "player": p.stone.player, "kind": "fake" if p.stone.fake else "stone",
                        "from hand": p.stone.from_hand, "power": p.stone.power, "gone in round": p.gone or None}
                       for p in state.placed],
            "missed": [{"round": r, "player": p} for r, p in state.missed],
        }

    def players(self, state: WindState) -> list[str]:
        return list(state.players)

    def round(self, state: WindState) -> int:
        return state.round

    def is_over(self, state: WindState) -> bool:
        return state.round > state.settings.rounds

    # ---- submissions ----------------------------------------------------------------------

    def parse(self, state: WindState, player: str, rows: Sequence[SubmitRow], window: Window = Window()) -> Parsed[Orders]:
        problems: list[Problem] = []
        hand = state.hand(player)
        open_sites = state.open_sites(player)
        seated = [n for n, seats in enumerate(state.sites, 1) if player in seats]
        stones: list[Placement] = []
        fake: Placement | None = None
        light_used = False
        for row in rows:
            kind = row.read("kind", lambda v: "stone" if cells.is_blank(v) else cells.as_choice(
                v, ("stone", "fake"), "a kind", KIND_ALIASES), problems)
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
                    why = (("fake stones cannot take Power of Light" if kind == "fake" else None)
                           or ("you do not hold Power of Light" if player not in state.settings.light_holders else None)
                           or ("you have already used Power of Light" if not state.light_ready(player) else None)
                           or ("Power of Light is used on one stone only" if light_used else None)
                           or rules.light(power, new_power))
                    if why:
                        problems.append(row.problem("light", f"{why}; the stone is placed with its own power"))
                        new_power = power
                    else:
                        light_used = new_power != power
            if kind == "fake":
                why = (("you do not hold Power of Dark" if player not in state.settings.dark_holders else None)
                       or ("you have already used Power of Dark" if not state.dark_ready(player) else None)
                       or ("one fake stone only" if fake else None)
                       or (f"you do not sit at site {site}; your sites: {_list(seated)}" if site not in seated else None))
                if why:
                    problems.append(row.problem("kind", f"{why}; row dropped"))
                else:
                    fake = Placement(site, position, 0, power)
                continue
            why = ((f"you do not sit at site {site}; your open sites: {_list(open_sites)}" if site not in seated else None)
                   or (f"you already placed a stone at site {site}; your open sites: {_list(open_sites)}"
                       if site not in open_sites else None)
                   or (f"site {site} is already used by another row" if any(s.site == site for s in stones) else None)
                   or (f"you have no stone of power {power} left; your stones: {_hand_text(hand)}"
                       if hand[power] <= 0 else None)
                   or (f"only {state.settings.per_round} stones a round" if len(stones) >= state.settings.per_round else None))
            if why:
                problems.append(row.problem("site" if "site" in why else "stone", f"{why}; row dropped"))
                if new_power != power:
                    light_used = False
                continue
            hand[power] -= 1
            stones.append(Placement(site, position, power, new_power))
        if fake and any(s.site == fake.site for s in stones):
            problems.append(Problem(player, f"the fake stone cannot go to site {fake.site}, where your real "
                                            "stone goes this round; fake dropped"))
            fake = None
        if not stones:
            if rows:
                problems.append(Problem(player, "no valid stone: nothing is placed this round and the "
                                                "missed-round penalty applies"))
            return Parsed(None, tuple(problems), "nothing")
        orders = Orders(tuple(stones), fake)
        return Parsed(orders, tuple(problems), describe(orders))

    def default(self, state: WindState, player: str) -> Orders:
        return Orders(missed=True)

    def submit_rows(self, submission: Orders) -> list[dict]:
        rows = [{"kind": "stone", "site": p.site, "position": p.position, "stone": p.from_hand,
                 "light": p.power if p.power != p.from_hand else None} for p in submission.stones]
        if submission.fake:
            f = submission.fake
            rows.append({"kind": "fake", "site": f.site, "position": f.position, "stone": f.power, "light": None})
        return rows

    def bot(self, state: WindState, player: str, rng: random.Random) -> Orders:
        sites = rng.sample(state.open_sites(player), min(state.settings.per_round, len(state.open_sites(player))))
        pool = list(state.hand(player).elements())
        rng.shuffle(pool)
        stones = [Placement(site, rng.randint(1, POSITIONS), pool[i], pool[i]) for i, site in enumerate(sites)
                  if i < len(pool)]
        if stones and state.light_ready(player) and rng.random() < 0.3:
            s = stones[0]
            choices = [p for p in range(rules.MIN_POWER, rules.MAX_POWER + 1)
                       if p != s.from_hand and rules.light(s.from_hand, p) is None]
            stones[0] = Placement(s.site, s.position, s.from_hand, rng.choice(choices))
        fake = None
        others = [n for n, seats in enumerate(state.sites, 1) if player in seats and n not in sites]
        if stones and state.dark_ready(player) and rng.random() < 0.3:
            fake = Placement(rng.choice(others), rng.randint(1, POSITIONS), 0, rng.randint(1, rules.MAX_POWER))
        return Orders(tuple(stones), fake, missed=not stones)

    # ---- the round ------------------------------------------------------------------------

    def resolve(self, state: WindState, submissions: Mapping[str, Orders], rng: random.Random) -> Outcome:
        r, log = state.round, []
        placed = list(state.placed)
        if r == state.settings.rounds:
            placed = _fakes_gone(placed, r, lambda p: True, log, "at the start of the last round")
        boards = {n: {} for n in range(1, len(state.sites) + 1)}
        for p in placed:
            if not p.gone:
                boards[p.site][p.position] = p.stone
        requests: dict[int, list[Request]] = {}
        missed = list(state.missed)
        for player in state.players:
            orders = submissions.get(player) or self.default(state, player)
            if orders.missed or not orders.stones:
                missed.append((r, player))
                log.append(f"{player} placed nothing: missed-round penalty")
                continue
            for s in orders.stones:
                requests.setdefault(s.site, []).append(Request(player, s.position, s.power, False, s.from_hand))
            if orders.fake:
                f = orders.fake
                requests.setdefault(f.site, []).append(Request(player, f.position, f.power, True, 0))
        for site, site_requests in sorted(requests.items()):
            before = boards[site]
            after = rules.place_stones(state.sites[site - 1], before, site_requests, r)
            for position, stone in before.items():
                if after.get(position) is not stone:  # a fake yielded to a real stone
                    placed = [Placed(p.site, p.position, p.stone, r)
                              if (p.site, p.position, p.stone, p.gone) == (site, position, stone, 0) else p
                              for p in placed]
                    log.append(f"site {site}: {stone.player}'s fake stone at position {position} yields")
            for position, stone in sorted(after.items()):
                if before.get(position) is not stone:
                    placed.append(Placed(site, position, stone))
                    kind = "fake stone" if stone.fake else "stone"
                    log.append(f"site {site}: {stone.player}'s {kind} of power {stone.power} asked for "
                               f"position {stone.asked}, placed at {position}")
            for request in site_requests:
                if request.fake and not any(s.fake and s.player == request.player for s in after.values()):
                    log.append(f"site {site}: {request.player}'s fake stone found no room")
            boards[site] = after
        crowded = {n for n, board in boards.items() if len(board) >= 4}
        placed = _fakes_gone(placed, r, lambda p: p.site in crowded, log, "its site holds 4 stones")
        if r == state.settings.rounds:
            placed = _fakes_gone(placed, r, lambda p: True, log, "the game is over")
        return Outcome(self, WindState(state.players, state.sites, tuple(placed), tuple(missed), state.settings), log)

    # ---- the end --------------------------------------------------------------------------

    def activations(self, state: WindState) -> dict[int, rules.Activation]:
        return {n: rules.activate(board, state.settings.collapse_over) for n, board in state.boards.items()}

    def scores(self, state: WindState) -> dict[str, tuple[float, float, float]]:
        """player -> (distance, penalty, score), full precision."""
        act = self.activations(state)
        out = {}
        for player in state.players:
            mine = {p.site for p in state.placed if p.stone.player == player and not p.stone.fake}
            vectors = [(act[n].x, act[n].y) for n in sorted(mine) if not act[n].failed]
            penalty = state.missed_rounds(player) * state.settings.missed_penalty
            distance = rules.score(vectors, 0.0)
            out[player] = (distance, penalty, distance - penalty)
        return out

    def standings(self, state: WindState) -> pd.DataFrame:
        scores = self.scores(state)
        final = {p: s for p, (_, _, s) in scores.items()}
        winners, lowest = rules.top_and_bottom(final)
        tokens = rules.tokens_of_life(winners)
        ec = state.settings.elimination_candidate
        order = sorted(state.players, key=lambda p: -final[p])
        rows = []
        for player in order:
            distance, penalty, score = scores[player]
            rank = 1 + sum(1 for q in state.players if final[q] > final[player] + rules.EXACT)
            if player in winners:
                result = f"winner: {tokens} Token{'s' if tokens != 1 else ''} of Life" if tokens else \
                         "winner (more than 3 tied: immunity negated)"
            elif player in lowest and (len(lowest) == 1 or ec == player):
                result = "Elimination Candidate"
            elif player in lowest and ec not in lowest:
                result = "tied for lowest: the winners choose the Elimination Candidate"
            else:
                result = ""
            rows.append({"rank": rank, "player": player, "distance": round(distance, 2),
                         "missed rounds": state.missed_rounds(player), "penalty": round(penalty, 2),
                         "score": f"{score:.2f}", "result": result})
        return pd.DataFrame(rows)

    def summary(self, state: WindState) -> dict[str, float]:
        act = self.activations(state)
        final = [s for _, _, s in self.scores(state).values()]
        winners, _ = rules.top_and_bottom({p: s for p, (_, _, s) in self.scores(state).items()})
        return {"failed sites": sum(1 for a in act.values() if a.failed), "winning score": max(final),
                "lowest score": min(final), "tied winners": float(len(winners) > 1)}

    # ---- views ----------------------------------------------------------------------------

    def public_view(self, state: WindState) -> dict[str, pd.DataFrame]:
        over = self.is_over(state)
        act = self.activations(state) if over else {}
        rows = []
        for n, seats in enumerate(state.sites, 1):
            board = state.boards[n]
            row = {"site": n, **{f"position {k}": p for k, p in enumerate(seats, 1)},
                   "occupied": ", ".join(str(p) for p in sorted(board)) or "none", "stones": len(board),
                   "total power": rules.total_power(board) if len(board) >= 3 else None}
            if over:
                a = act[n]
                row.update({"powers by position": " ".join(str(board[k].power) if k in board else "-"
                                                           for k in range(1, POSITIONS + 1)),
                            "failed": a.failed or "", "length": None if a.failed else a.length,
                            "angle (degrees clockwise from position 1)": None if a.direction is None else
                            round((90 - math.degrees(a.direction)) % 360, 2)})
            rows.append(row)
        tabs = {"sites": pd.DataFrame(rows)}
        if over:
            tabs["standings"] = self.standings(state)
        return tabs

    def private_view(self, state: WindState, player: str) -> dict[str, pd.DataFrame]:
        mine = [p for p in state.placed if p.stone.player == player]
        stones = pd.DataFrame([{
            "round": p.stone.round, "site": p.site, "asked": p.stone.asked, "placed at": p.position,
            "kind": "fake" if p.stone.fake else "stone", "from hand": p.stone.from_hand or None,
            "power": p.stone.power, "status": f"gone in round {p.gone}" if p.gone else "standing"}
            for p in mine], columns=["round", "site", "asked", "placed at", "kind", "from hand", "power", "status"])
        me = [("round to play", state.round if not self.is_over(state) else "game over"),
              ("stones left", _hand_text(state.hand(player))),
              ("open sites", _list(state.open_sites(player))),
              ("Power of Light", _artefact(player in state.settings.light_holders, state.light_ready(player))),
              ("Power of Dark", _artefact(player in state.settings.dark_holders, state.dark_ready(player))),
              ("missed rounds", state.missed_rounds(player)),
              ("contested positions", "a position asked for by several stones goes to the player seated first "
                                      "clockwise from it (itself included); the others move on clockwise")]
        used = {p.site: p.stone.round for p in mine if not p.stone.fake}
        for n, seats in enumerate(state.sites, 1):
            if player in seats:
                board = state.boards[n]
                me.append((f"seating, site {n}",
                           ", ".join(f"{k} {p}" + (" (you)" if p == player else "") for k, p in enumerate(seats, 1))
                           + f"; occupied: {', '.join(map(str, sorted(board))) or 'none'}; "
                           + (f"you used it in round {used[n]}" if n in used else "open to you")))
        return {"private": pd.DataFrame(me, columns=["what", "value"]), "my stones": stones}

    def announcement(self, before: WindState, after: WindState) -> str:
        r = before.round
        lines = [f"## {self.title}: round {r} of {after.settings.rounds} resolved", "",
                 "| site | occupied positions | stones | total power |", "|---:|---|---:|---:|"]
        for n in range(1, len(after.sites) + 1):
            board = after.boards[n]
            total = rules.total_power(board) if len(board) >= 3 else "hidden"
            lines.append(f"| {n} | {', '.join(map(str, sorted(board))) or '-'} | {len(board)} | {total} |")
        if self.is_over(after):
            lines += ["", "### Final standings", "", "| rank | player | score | result |", "|---:|---|---:|---|"]
            for row in self.standings(after).itertuples():
                lines.append(f"| {row.rank} | {row.player} | {row.score} | {row.result} |")
        return "\n".join(lines) + "\n"

    def picture(self, state: WindState) -> bytes:
        from .picture import SiteView, draw_sites

        over = self.is_over(state)
        act = self.activations(state) if over else {}
        views = []
        for n, seats in enumerate(state.sites, 1):
            board = state.boards[n]
            a = act.get(n)
            views.append(SiteView(n, tuple(seats), {p: (s.power if over else None) for p, s in board.items()},
                                  rules.total_power(board) if len(board) >= 3 else None,
                                  a.failed if a else None, (a.x, a.y) if a and not a.failed else None))
        resultants = None
        if over:
            resultants = {}
            for player in state.players:
                mine = {p.site for p in state.placed if p.stone.player == player and not p.stone.fake}
                resultants[player] = (sum(act[n].x for n in mine if not act[n].failed),
                                      sum(act[n].y for n in mine if not act[n].failed))
        title = f"{self.title}: " + ("final" if over else f"after round {state.round - 1}")
        return draw_sites(views, title, resultants)


def _fakes_gone(placed: list[Placed], r: int, which, log: list[str], why: str) -> list[Placed]:
    out = []
    for p in placed:
        if p.stone.fake and not p.gone and which(p):
            log.append(f"site {p.site}: {p.stone.player}'s fake stone at position {p.position} disappears ({why})")
            p = Placed(p.site, p.position, p.stone, r)
        out.append(p)
    return out


def _free_position(state: WindState, site: int, player: str) -> int:
    """The player's own seat at `site` when free, else the first free position (for examples)."""
    seat = state.sites[site - 1].index(player) + 1
    board = state.boards[site]
    return next((k for k in (seat, *range(1, POSITIONS + 1)) if k not in board), seat)


def _list(numbers: Sequence[int]) -> str:
    return ", ".join(map(str, numbers)) or "none"


def _hand_text(hand: Counter) -> str:
    return " ".join(str(p) for p in sorted(hand.elements())) or "none"


def _artefact(held: bool, ready: bool) -> str:
    return "not held" if not held else ("ready" if ready else "used")


def describe(orders: Orders) -> str:
    parts = [f"stone {s.from_hand}" + (f" (Light: power {s.power})" if s.power != s.from_hand else "")
             + f" at site {s.site}, position {s.position}" for s in orders.stones]
    if orders.fake:
        parts.append(f"fake stone of power {orders.fake.power} at site {orders.fake.site}, "
                     f"position {orders.fake.position}")
    return "; ".join(parts)


GAME = WindGuideMe()
