"""Tally: a small game of two submit tabs, one of them a grid, for the engine's tests of games
whose submission spans several tabs (the festival's shape, before the festival plays).

Each round every player orders apples and pears (the `orders` tab, rows) and marks cells of a
2x2 board with an x (the `board` tab, a grid whose first column holds the ranks 2 and 1). The
state counts what each player ordered and which cells they marked; three rounds, the board only
in the first two."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import Problem, SubmitRow
from sheets_host.kit.game import Example, Fate, Game, HowTo, Outcome, Parsed, Window
from sheets_host.kit.table import Column, SubmitTab, TabSchema

ITEMS = ("apple", "pear")
FILES, RANKS = ("A", "B"), ("2", "1")
ORDERS = SubmitTab(TabSchema("orders", (Column("item", "choice", ITEMS, doc="apple or pear"),
                                        Column("count", "int", lo=1, doc="how many"))))
BOARD = SubmitTab(TabSchema("board", (Column("rank"), *(Column(f, doc="x to mark the cell") for f in FILES))),
                  labels=RANKS)
ROUNDS = 3


@dataclass(frozen=True)
class Tally:
    players: tuple[str, ...]
    round: int = 1
    counts: tuple[tuple[str, str, int], ...] = ()  # (player, item, count), sorted
    marks: tuple[tuple[str, str], ...] = ()  # (player, cell), sorted


@dataclass(frozen=True)
class Order:
    counts: Mapping[str, int]
    marks: frozenset[str]


class TallyGame(Game[Tally, Order]):
    name = "tally"
    title = "Tally"
    min_players, max_players = 2, 6
    state_tabs = (TabSchema("counts", (Column("player", "player"), Column("item", "choice", ITEMS), Column("count", "int", lo=0))),
                  TabSchema("marks", (Column("player", "player"), Column("cell"))),
                  TabSchema("turn", (Column("round", "int", lo=1),)))
    submit_tab = ORDERS.schema

    def submit_tabs(self, state: Tally, player: str) -> tuple[SubmitTab, ...]:
        return (ORDERS, BOARD) if state.round <= 2 else (ORDERS,)

    def every_submit_tab(self) -> tuple[SubmitTab, ...]:
        return (ORDERS, BOARD)

    def setup(self, players, seed, config, data) -> Tally:
        return Tally(tuple(players))

    def load(self, players, tabs, config, data) -> Tally:
        return Tally(tuple(players), tabs["turn"][0]["round"],
                     tuple(sorted((r["player"], r["item"], r["count"]) for r in tabs["counts"])),
                     tuple(sorted((r["player"], r["cell"]) for r in tabs["marks"])))

    def dump(self, state: Tally) -> dict[str, list[dict]]:
        return {"counts": [{"player": p, "item": i, "count": n} for p, i, n in state.counts],
                "marks": [{"player": p, "cell": c} for p, c in state.marks],
                "turn": [{"round": state.round}]}

    def players(self, state: Tally) -> list[str]:
        return list(state.players)

    def round(self, state: Tally) -> int:
        return state.round

    def is_over(self, state: Tally) -> bool:
        return state.round > ROUNDS

    def parse(self, state: Tally, player: str, rows: Sequence[SubmitRow], window: Window = Window()) -> Parsed[Order]:
        problems: list[Problem] = []
        counts: dict[str, int] = {}
        marks = set()
        parts: dict[str, tuple] = {}  # "order apple", "mark A2": the rows each came from
        for row in rows:
            if row.tab == "orders":
                item = row.read("item", lambda v: cells.as_choice(v, ITEMS, "an item"), problems)
                count = row.read("count", lambda v: cells.as_int(v, 1, 99, "a count"), problems)
                if item and count:
                    counts[item] = counts.get(item, 0) + count
                    parts[f"order {item}"] = parts.get(f"order {item}", ()) + (row.ref,)
            else:
                for file in FILES:
                    if not cells.is_blank(row.get(file)):
                        if cells.fold(cells.text(row.get(file))) == "x":
                            marks.add(f"{file}{cells.text(row.get('rank'))}")
                            parts[f"mark {file}{cells.text(row.get('rank'))}"] = (row.ref,)
                        else:
                            problems.append(row.problem(file, f"{cells.quote(row.get(file))} is not x; cell ignored"))
        kept = ", ".join(f"{n} {i}" for i, n in sorted(counts.items())) + (f"; marks {' '.join(sorted(marks))}" if marks else "")
        return Parsed(Order(counts, frozenset(marks)) if counts or marks else None, tuple(problems), kept or "nothing",
                      parts)

    def how_to_submit(self, state: Tally, player: str) -> list[HowTo]:
        return [HowTo(("orders: one row per item (apple or pear) with a count", "board: an x in each cell to mark"),
                      (Example(tuple(ORDERS.header), (("apple", "2"),), tab="orders"),), "nothing is ordered")]

    def default(self, state: Tally, player: str) -> Order:
        return Order({}, frozenset())

    def resolve(self, state: Tally, submissions, rng: random.Random) -> Outcome[Tally]:
        counts = {(p, i): n for p, i, n in state.counts}
        marks = set(state.marks)
        for player, order in submissions.items():
            order = order or self.default(state, player)
            for item, n in order.counts.items():
                counts[player, item] = counts.get((player, item), 0) + n
            marks |= {(player, c) for c in order.marks}
        new = replace(state, round=state.round + 1, counts=tuple(sorted((p, i, n) for (p, i), n in counts.items())),
                      marks=tuple(sorted(marks)))
        def fates():  # every order and mark counts
            return {p: [Fate(f"order {i}", f"{n} {i}") for i, n in sorted((o or self.default(state, p)).counts.items())]
                    + [Fate(f"mark {c}", f"mark {c}") for c in sorted((o or self.default(state, p)).marks)]
                    for p, o in submissions.items()}
        return Outcome(self, new, [f"round {state.round} tallied"], fates)

    def public_view(self, state: Tally) -> dict[str, pd.DataFrame]:
        totals = {p: sum(n for q, _, n in state.counts if q == p) for p in state.players}
        return {"totals": pd.DataFrame([{"player": p, "ordered": n} for p, n in totals.items()])}

    def private_view(self, state: Tally, player: str) -> dict[str, pd.DataFrame]:
        return {"mine": pd.DataFrame([{"item": i, "count": n} for p, i, n in state.counts if p == player],
                                     columns=["item", "count"]),
                "my marks": pd.DataFrame([{"cell": c} for p, c in state.marks if p == player], columns=["cell"])}

    def bot(self, state: Tally, player: str, rng: random.Random) -> Order:
        return Order({i: rng.randint(1, 3) for i in ITEMS if rng.random() < 0.7},
                     frozenset(f + r for f in FILES for r in RANKS if rng.random() < 0.4))

    def submit_rows(self, submission: Order) -> list[dict]:
        rows = [{"tab": "orders", "item": i, "count": n} for i, n in sorted(submission.counts.items())]
        return rows + [{"tab": "board", "rank": r, **{f: "x" if f + r in submission.marks else None for f in FILES}}
                       for r in RANKS]

    def standings(self, state: Tally) -> pd.DataFrame:
        return self.public_view(state)["totals"].sort_values("ordered", ascending=False)

    def announcement(self, before: Tally, after: Tally) -> str:
        return f"**Round {before.round}** tallied."


GAME = TallyGame()


def install(monkeypatch, tmp_path) -> None:
    """Make `tally` a game the engine knows, with its template (no settings) in `tmp_path`."""
    from sheets_host.engine import creation, host

    (tmp_path / "templates" / "tally").mkdir(parents=True)
    (tmp_path / "templates" / "tally" / "config.csv").write_text("key,value\n")
    real = creation.get_game

    def get_game(name: str) -> Any:
        return GAME if cells.fold(str(name)) == "tally" else real(name)

    for module in (creation, host):
        monkeypatch.setattr(module, "get_game", get_game)
    monkeypatch.setattr(creation, "TEMPLATES", tmp_path / "templates")
