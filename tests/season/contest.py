"""Contest and Duel: two one-round games for the season's tests, played through real books in a
fraction of a real game's time, whose results are as varied as a season needs.

Each player types a score from 1 to 9 into their `submit` tab (blank: 1). Contest (a Main
Match): the highest scores win a Token of Life each, the two lowest are Elimination Candidates
(the lowest last), every 3 points earn a garnet, a 9 earns a cosmos. Duel (a Death Match of two):
the higher score wins, a tie goes to the Death Match Opponent; the loser is eliminated.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Fate, Game, HowTo, Outcome, Parsed, Window
from sheets_host.kit.result import (COSMOS, DEATH_MATCH, ELIMINATION, GARNET, MAIN_MATCH, TOKEN, Change,
                                    HOST, GameResult, Owed)
from sheets_host.kit.table import Column, TabSchema

SCORE = TabSchema("submit", (Column("score", "int", lo=1, hi=9, doc="1 to 9"),))


@dataclass(frozen=True)
class Scores:
    players: tuple[str, ...]
    scores: tuple[tuple[str, int], ...] = ()  # empty until the round is resolved
    opponent: str = ""


class Contest(Game[Scores, int]):
    name, title, match_type = "contest", "Contest", MAIN_MATCH
    min_players, max_players = 3, 20
    submit_tab = SCORE
    state_tabs = (TabSchema("scores", (Column("player", "player"), Column("score", "int", lo=1, hi=9))),)
    settings: tuple[Column, ...] = ()

    def setup(self, players, seed, config, data) -> Scores:
        return Scores(tuple(players), (), cells.text(config.get("death match opponent") or ""))

    def load(self, players, tabs, config, data) -> Scores:
        return Scores(tuple(players), tuple((r["player"], r["score"]) for r in tabs["scores"]),
                      cells.text(config.get("death match opponent") or ""))

    def dump(self, state: Scores) -> dict[str, list[dict]]:
        return {"scores": [{"player": p, "score": s} for p, s in state.scores]}

    def players(self, state: Scores) -> list[str]:
        return list(state.players)

    def round(self, state: Scores) -> int:
        return 2 if state.scores else 1

    def is_over(self, state: Scores) -> bool:
        return bool(state.scores)

    def parse(self, state: Scores, player: str, rows: Sequence[SubmitRow], window: Window = Window()) -> Parsed[int]:
        problems: list = []
        for row in rows:
            score = row.read("score", lambda v: cells.as_int(v, 1, 9, "a score"), problems)
            if score:
                return Parsed(score, tuple(problems), f"score {score}", {"score": (row.ref,)})
        return Parsed(None, tuple(problems), "nothing")

    def how_to_submit(self, state: Scores, player: str) -> list[HowTo]:
        return [HowTo(("score: 1 to 9",), (), "a score of 1")]

    def default(self, state: Scores, player: str) -> int:
        return 1

    def resolve(self, state: Scores, submissions, rng: random.Random) -> Outcome[Scores]:
        scores = tuple((p, submissions.get(p) or 1) for p in state.players)
        return Outcome(self, replace(state, scores=scores), ["scored"],
                       lambda: {p: [Fate("score", f"score {s}")] for p, s in scores if submissions.get(p)})

    def public_view(self, state: Scores) -> dict[str, pd.DataFrame]:
        return {"scores": pd.DataFrame(list(state.scores), columns=["player", "score"])}

    def private_view(self, state: Scores, player: str) -> dict[str, pd.DataFrame]:
        return {}

    def bot(self, state: Scores, player: str, rng: random.Random) -> int:
        return rng.randint(1, 9)

    def submit_rows(self, submission: int) -> list[dict]:
        return [{"score": submission}]

    def standings(self, state: Scores) -> pd.DataFrame:
        return self.public_view(state)["scores"].sort_values("score", ascending=False)

    def announcement(self, before: Scores, after: Scores) -> str:
        return "**Scored.**"

    def result(self, state: Scores) -> GameResult | None:
        if not state.scores:
            return None
        scores = dict(state.scores)
        best = max(scores.values())
        winners = tuple(p for p in state.players if scores[p] == best)
        changes = [Change(p, TOKEN, 1, "the highest score earns a Token of Life") for p in winners]
        changes += [Change(p, GARNET, s // 3, f"{s} points: a garnet per 3") for p, s in state.scores if s >= 3]
        changes += [Change(p, COSMOS, 1, "a 9 earns a cosmos") for p, s in state.scores if s == 9]
        lowest = sorted(state.players, key=lambda p: (scores[p], -state.players.index(p)), reverse=True)
        candidates = tuple(p for p in lowest if p not in winners)[-2:]
        return GameResult(MAIN_MATCH, state.players, winners, tuple(changes), candidates)


class Duel(Contest):
    name, title, match_type = "duel", "Duel", DEATH_MATCH
    min_players = max_players = 2
    settings = (Column("death match opponent", optional=True, doc="wins a tie"),)

    def result(self, state: Scores) -> GameResult | None:
        if not state.scores:
            return None
        (a, x), (b, y) = state.scores
        winner = a if x > y else b if y > x else state.opponent or b
        loser = b if winner == a else a
        return GameResult(DEATH_MATCH, state.players, (winner,),
                          (Change(loser, ELIMINATION, 1, "lost the Death Match"),), loser=loser)


class Grant(Contest):
    """Contest, and its first winner grants one more Token of Life to a player neither a winner nor
    a candidate (config `bonus token`, owed to them until given)."""

    name, title = "grant", "Grant"
    settings = (Column("bonus token", optional=True, doc="whom the first winner grants one more Token of Life"),)
    host_decisions = ("bonus token",)

    def setup(self, players, seed, config, data) -> Scores:
        return replace(super().setup(players, seed, config, data), opponent=cells.text(config.get("bonus token") or ""))

    def load(self, players, tabs, config, data) -> Scores:
        return replace(super().load(players, tabs, config, data), opponent=cells.text(config.get("bonus token") or ""))

    def result(self, state: Scores) -> GameResult | None:
        done = super().result(state)
        if done is None:
            return None
        may = tuple(p for p in state.players if p not in done.winners and p not in done.candidates)
        if state.opponent in may:
            return replace(done, changes=done.changes + (Change(state.opponent, TOKEN, 1, "granted by the winner"),))
        decides = (done.winners[0],) if len(done.winners) == 1 else (HOST,)  # tied winners: the host decides
        owed = (Owed(decides, "one more Token of Life", may, "bonus token"),) if may else ()
        return replace(done, owed=owed)

    def check_config(self, config, players) -> list[str]:
        bonus = cells.text(config.get("bonus token") or "")
        return [f"config 'bonus token': {bonus!r} is not a player"] if bonus and bonus not in players else []


GAMES = {g.name: g for g in (Contest(), Duel(), Grant())}


def install(monkeypatch, tmp_path) -> None:
    """Make Contest and Duel games the engine and the season know, with their templates."""
    import sheets_host.games
    from sheets_host.engine import creation, host, replaying
    from sheets_host.season import books, takes

    for name in GAMES:
        (tmp_path / "templates" / name).mkdir(parents=True, exist_ok=True)
        (tmp_path / "templates" / name / "config.csv").write_text(
            "key,value\n" + {"duel": "death match opponent,\n", "grant": "bonus token,\n"}.get(name, ""))
    real = creation.get_game

    def get_game(name: str) -> Any:
        return GAMES.get(cells.fold(str(name))) or real(name)

    for module in (creation, host, replaying, books, takes, sheets_host.games):  # the last: imports in functions
        monkeypatch.setattr(module, "get_game", get_game)
    monkeypatch.setattr(creation, "TEMPLATES", tmp_path / "templates")
