"""A game played again from its record alone, as the engine played it, in memory.

The record (`record.py`) gives the start (game, players in seating order, seed, settings and data),
and each round: its window, the host's decisions and inputs, and, in the commitments, the rows that
counted for each player. A round is played as `commands._apply` plays it: the state it is
resolved from is the state the round before gave, as the host book holds it (its tabs through JSON)
with the host's inputs put in; each player's rows parsed by the game (the rule text's default for
none valid); `resolve` with the round's generator from the seed; the announcement with its
commitments. Nothing here reads or writes a book.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sheets_host.games import get_game
from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Game, rng_for
from .commitments import announced, of_attempt
from .host import frame, read_config, reindex, window_of
from .snapshots import snapshot_of
from .reading import Reading, parse


def body(text: str) -> dict[str, Any]:
    """The JSON object of a canonical text (`sheets-host/1 submission {...}`)."""
    return json.loads(text.split(" ", 2)[2])


@dataclass
class Start:
    """What the game starts from: the record's game, players, seed, settings and data."""

    game: Game
    players: list[str]
    seed: int
    settings: dict[str, Any]
    data: dict[str, list[dict]]

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> Start:
        game = get_game(record["game"])
        players = list(record["players"])
        # Through the data tabs' schemas, as the engine reads them from the host book.
        data = {tab.name: tab.records(reindex(frame(record["data"].get(tab.name, []), tab.header)), players)
                for tab in game.data_tabs}
        return cls(game, players, record["seed"], dict(record["settings"]), data)

    def config(self, decisions: Mapping[str, str] = {}) -> dict[str, Any]:
        """The config as the engine read it, with the host's `decisions` of a round."""
        values = {"game": self.game.name, "seed": self.seed, **self.settings, **decisions}
        return read_config(reindex(frame([{"key": k, "value": v} for k, v in values.items()], ["key", "value"])),
                           self.game)

    def setup(self) -> Any:
        return self.game.setup(self.players, self.seed, self.config(), self.data)

    def resolved_from(self, round_record: Mapping[str, Any], previous: Any) -> Any:
        """The state a round was resolved from: the state before it, with the host's inputs."""
        tabs = {**snapshot_of(self.game, previous), **round_record["host inputs"]}
        return self.game.load(self.players, tabs, self.config(round_record["host decisions"]), self.data)


def counted(game: Game, commitment: Mapping[str, Any]) -> list[SubmitRow]:
    """The rows a submission's commitment holds, as the parser reads them."""
    tabs = {game.tab_key(t.name): t for t in game.every_submit_tab()}
    data = body(commitment["text"])
    return [SubmitRow(data["player"], row["row"], list(tabs[row.get("tab")].header), dict(row["cells"]), row.get("tab"))
            for row in data["rows"]]


@dataclass
class Replayed:
    """One round played again: the state it was resolved from and the one it gave, each player's
    reading, and its announcement."""

    number: int
    before: Any
    after: Any
    readings: dict[str, Reading]
    text: str


def submissions_of(commitments: Sequence[Mapping[str, Any]], number: int, attempt: int) -> dict[str, Mapping]:
    """Each player's commitment to what counted in the attempt a round was resolved with."""
    return {r["player"]: r for r in of_attempt(commitments, number, attempt, "submission")}


def play_round(start: Start, round_record: Mapping[str, Any], previous: Any,
               commitments: Sequence[Mapping[str, Any]]) -> Replayed:
    game, number = start.game, round_record["round"]
    before = start.resolved_from(round_record, previous)
    mine = submissions_of(commitments, number, round_record["attempt"])
    readings, submissions = {}, {}
    for player in start.players:
        rows = counted(game, mine[player]) if player in mine and mine[player].get("text") else []
        readings[player] = reading = parse(game, before, player, rows, window_of(round_record))
        submissions[player] = (game.default(before, player) if reading.parsed.submission is None
                               else reading.parsed.submission)
    outcome = game.resolve(before, submissions, rng_for(start.seed, number, "resolve"))
    return Replayed(number, before, outcome.state, readings, announced(game, commitments, number, before, outcome.state))
