"""What a finished game gives the season (issue 36): `Game.result`, one typed value from the
game's own end-of-game rules.

Over whole games by bots in every game, the result:
- is None until the game is over, and the same value however often it is asked and from the
  state read back from its tabs;
- names only the game's participants (a Pyramid's guests too), the host only where a decision is
  owed to no player;
- agrees with what the game itself shows at the end: its standings, announcement, host tabs and
  log (figure by figure, game by game, below);
- turns each decision it owes into what that decision gives once the host types the setting.

The games are those of a few seeds a game, chosen so that together they take every path a result
has (`PATHS`: each kind of decision owed and who owes it, tied and sole winners, no candidate and
three, the fewest and the most players); a test asserts each path is still taken, so a change in
the bots or the rules cannot silently drop one. Each game is played once for all the tests here;
`SHEETS_HOST_DEEP=1` plays 400 more a game. The worked examples from the rule texts live with each
game's tests.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import replace

import pytest

from sheets_host.engine.play import bot_states, bots, default_settings
from sheets_host.games import get_game
from sheets_host.games.pyramid_superiority.meadows import NO_ONE, Meadow
from sheets_host.kit.result import (COSMOS, GARNET, GUEST, HOST, POWER_OF_DARK, POWER_OF_LIGHT, TOKEN,
                                    GameResult)

GAMES = ["wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", "academy-of-witchcraft-arts"]
# Seeds (a seed's players: `players_for(game, seed)`) taking every path of `PATHS` between them, and one
# or two more; found by playing 200 seeds a game and covering their paths.
SEEDS = {"wind-guide-me": (0, 1, 2), "magicians-market": (7, 17, 50, 3), "pyramid-superiority": (0, 1, 2),
         "spirit-chain": (0, 1, 2), "academy-of-witchcraft-arts": (101, 132, 5)}
if os.environ.get("SHEETS_HOST_DEEP") == "1":
    SEEDS = {name: (*seeds, *range(1000, 1400)) for name, seeds in SEEDS.items()}
PATHS = {
    "wind-guide-me": {"1 candidates", "one winner", "sole winner: 2 Tokens of Life", "Token of Life gained",
                      "Power of Light lost", "Power of Dark lost", "fewest players", "most players"},
    "magicians-market": {"0 candidates", "1 candidates", "3 candidates", "one winner", "tied winners",
                         "owed elimination candidates by the host", "owed extra token of life by the host",
                         "owed extra token of life by players", "Token of Life gained", "garnet gained",
                         "fewest players", "most players"},
    "pyramid-superiority": {"1 candidates", "one winner", "owed green meadow cosmos by players",
                            "owed red meadow cosmos by players", "Token of Life gained", "cosmos gained", "garnet lost",
                            "guest gained", "fewest players", "most players"},
    "spirit-chain": {"0 candidates", "one winner", "elimination gained", "fewest players", "most players"},
    "academy-of-witchcraft-arts": {"0 candidates", "1 candidates", "one winner", "tied winners",
                                   "sole winner: 2 Tokens of Life", "owed candidate choice by players",
                                   "Token of Life gained", "garnet gained", "garnet lost", "fewest players",
                                   "most players"},
}


def config_for(game, players) -> dict:
    """The template's settings, with what exercises the result: artefacts held, garnets to spend."""
    config = dict(default_settings(game)["config"])
    if game.name == "wind-guide-me":
        config.update({"light holders": ", ".join(players[:3]), "dark holders": ", ".join(players[2:5])})
    if game.name == "pyramid-superiority":
        config["garnets"] = ", ".join(f"{p}: 4" for p in players[:3])
    return config


def players_for(game, count: int) -> int:
    """A player count the game takes, from any whole number. Not 4 in the Academy: Summoner's
    Dream then sometimes finds no one left to invade and its bots' game crashes (seed 26; reported
    apart, not the result's to fix)."""
    low = game.min_players + (game.name == "academy-of-witchcraft-arts")
    return low + count % (game.max_players - low + 1)


@functools.cache
def played(name: str, seed: int):
    """Every state of a whole game by bots, and the settings it was played with (played once for
    every test here: the states are never changed)."""
    game = get_game(name)
    players = bots(game, players_for(game, seed))
    config, data = config_for(game, players), default_settings(game)["data"]
    first = game.setup(players, seed, config, data)
    if game.name == "academy-of-witchcraft-arts":  # garnets held before the pregame, to spend on the lists
        first = replace(first, garnets={p: i % 4 for i, p in enumerate(players)})
    return list(bot_states(game, players, seed, config, data, state=first)), config, data


def paths(game, end) -> set[str]:
    """The paths of `PATHS` a game ending in state `end` took."""
    result, players = game.result(end), len(game.players(end))
    taken = {f"owed {o.setting} by {'the host' if o.players == (HOST,) else 'players'}" for o in result.owed}
    taken |= {f"{c.what} {'gained' if c.amount > 0 else 'lost'}" for c in result.changes}
    taken |= {"sole winner: 2 Tokens of Life" for p in result.winners if result.earned(p, TOKEN) == 2}
    taken |= {f"{len(result.candidates)} candidates", "tied winners" if len(result.winners) > 1 else "one winner"}
    fewest, most = players == players_for(game, 0), players == game.max_players
    return taken | ({"fewest players"} if fewest else set()) | ({"most players"} if most else set())


def reloaded(game, state, config, data):
    """The state as the engine reads it back from the host book's tabs, with `config`."""
    tabs = {name: [{"_row": i + 2, **r} for i, r in enumerate(rows)] for name, rows in game.dump(state).items()}
    return game.load(game.players(state), tabs, config, data)


# ---- what each game itself shows at the end ------------------------------------------------------


def agrees_magicians_market(game, state, result: GameResult, config) -> None:
    table = game.standings(state).set_index("player")
    for p in state.players:
        assert result.earned(p, TOKEN) == table.loc[p, "Tokens of Life"]
        assert result.earned(p, GARNET) == table.loc[p, "garnets"]
    numbers = {p: n for p, n in table["Elimination Candidate"].items() if n != ""}
    assert {p: n for n, p in enumerate(result.candidates, 1)}.items() <= numbers.items()
    decided = [n for n in range(1, 4) if n in numbers.values()]
    assert len(result.candidates) == next(n for n in range(1, 5) if n not in decided) - 1
    assert set(result.winners) == set(table.index[table["rank"] == 1])


def agrees_wind_guide_me(game, state, result, config) -> None:
    table = game.standings(state).set_index("player")
    assert set(result.winners) == {p for p in state.players if table.loc[p, "result"].startswith("winner")}
    for p in state.players:
        earned = re.match(r"winner: (\d) Token", table.loc[p, "result"])
        assert result.earned(p, TOKEN) == (int(earned.group(1)) if earned else 0)
    assert result.candidates == tuple(p for p in state.players if table.loc[p, "result"] == "Elimination Candidate")
    stones = game.dump(state)["stones"]
    for artefact, used in ((POWER_OF_LIGHT, lambda r: r["kind"] != "fake" and r["power"] != r["from hand"]),
                           (POWER_OF_DARK, lambda r: r["kind"] == "fake")):
        rounds = {r["player"]: r["round"] for r in stones if used(r)}
        assert {c.player: c.why for c in result.changes if c.what == artefact} == \
            {p: f"used in round {n}" for p, n in rounds.items()}
        assert all(c.amount == -1 for c in result.changes if c.what == artefact)


def agrees_pyramid_superiority(game, state, result, config) -> None:
    table = game.standings(state).set_index("player")
    blue = state.settings.players
    assert result.winners == tuple(p for p in blue if table.loc[p, "result"].startswith("winner"))
    assert result.candidates == tuple(p for p in blue if table.loc[p, "result"].startswith("Elimination Candidate"))
    for p in result.winners:
        assert result.earned(p, TOKEN) == 1 and result.earned(p, COSMOS) >= 1
    spent = {}
    for lines in state.ledger.log.values():
        for line in lines:
            if m := re.match(r"(.+) spends (\d+) garnets", line):
                spent[m.group(1)] = spent.get(m.group(1), 0) + int(m.group(2))
    assert {p: -result.earned(p, GARNET) for p in blue if result.earned(p, GARNET)} == spent
    assert {c.player for c in result.changes if c.what == GUEST} == set(state.settings.meadows[Meadow.RED])
    guest_winners = {p for p in table.index if table.loc[p, "result"].endswith("winner: 1 cosmos to give a finalist")}
    assert {o.players[0] for o in result.owed if o.setting.endswith("cosmos")} == guest_winners


def agrees_spirit_chain(game, state, result, config) -> None:
    table = game.standings(state).set_index("player")
    assert result.winners == (table.index[0],) and table.loc[result.winners[0], "result"].startswith("winner")
    assert table.loc[result.loser, "result"] == "loses the Death Match"
    assert result.eliminated == (result.loser,) and result.loser != result.winners[0]


def agrees_academy(game, state, result, config) -> None:
    table = game.standings(state).set_index("player")
    assert set(result.winners) == {p for p in state.players if table.loc[p, "result"] in ("winner", "sole winner")}
    sole = [p for p in state.players if table.loc[p, "result"] == "sole winner"]
    for p in state.players:
        assert result.earned(p, TOKEN) == (2 if p in sole else 1 if p in result.winners else 0)
        assert sum(c.amount for c in result.changes if c.player == p and c.what == GARNET and c.amount > 0) == \
            table.loc[p, "garnets earned"]
        assert -sum(c.amount for c in result.changes if c.player == p and c.what == GARNET and c.amount < 0) == \
            state.preferences[p].garnets
    assert result.candidates == tuple(p for p in state.players if table.loc[p, "result"] == "Elimination Candidate")
    assert bool(result.owed) == any(table["result"] == "may be chosen as Elimination Candidate")


AGREES = {"magicians-market": agrees_magicians_market, "wind-guide-me": agrees_wind_guide_me,
          "pyramid-superiority": agrees_pyramid_superiority, "spirit-chain": agrees_spirit_chain,
          "academy-of-witchcraft-arts": agrees_academy}


EVERY_GAME = [(name, seed) for name in GAMES for seed in SEEDS[name]]


@pytest.mark.parametrize("name", GAMES)
def test_the_seeds_take_every_path_of_the_result(name):
    game = get_game(name)
    taken = set().union(*(paths(game, played(name, seed)[0][-1]) for seed in SEEDS[name]))
    assert PATHS[name] <= taken, f"no seed takes {PATHS[name] - taken}"


@pytest.mark.parametrize("name, seed", EVERY_GAME)
def test_a_finished_game_s_result_agrees_with_what_the_game_shows(name, seed):
    game = get_game(name)
    states, config, data = played(name, seed)
    assert all(game.result(s) is None for s in states[:-1])
    end = states[-1]
    result = game.result(end)
    assert result is not None and result == game.result(end) == game.result(reloaded(game, end, config, data))
    everyone = set(game.players(end))
    assert set(result.players) <= everyone and set(result.winners) <= set(result.players)
    assert set(result.candidates) <= set(result.players) and len(set(result.candidates)) == len(result.candidates)
    assert {c.player for c in result.changes} <= everyone
    for owed in result.owed:
        assert set(owed.players) <= everyone | {HOST} and set(owed.choices) <= everyone | {NO_ONE}
        assert owed.setting in game.host_decisions and owed.choices
    AGREES[name](game, end, result, config)


# ---- the decisions owed, typed by the host --------------------------------------------------------


def given_by(setting: str, choice: str, before: GameResult, after: GameResult) -> None:
    """What typing `choice` into `setting` gives, in the result."""
    if setting == "extra token of life":
        assert after.earned(choice, TOKEN) == before.earned(choice, TOKEN) + 1
    elif setting.endswith("meadow cosmos"):
        assert after.earned(choice, COSMOS) == before.earned(choice, COSMOS) + (choice != NO_ONE)
    elif setting == "tie winner":
        assert after.winners == (choice,) and after.earned(choice, TOKEN) == 1
    else:  # the Elimination Candidate: the winners', the tie winner's or the sole winner's choice
        assert after.candidates == (choice,)


@pytest.mark.parametrize("name, seed", EVERY_GAME)
def test_a_decision_owed_becomes_what_it_gives_once_the_host_types_it(name, seed):
    game = get_game(name)
    states, config, data = played(name, seed)
    before = game.result(states[-1])
    # Magician's Market's tied Elimination Candidates take a whole order: its own tests type one.
    for owed in (o for o in before.owed if o.setting != "elimination candidates"):
        for choice in owed.choices:  # every choice the host may type
            after = game.result(reloaded(game, states[-1], {**config, owed.setting: choice}, data))
            assert owed.setting not in {o.setting for o in after.owed}
            given_by(owed.setting, choice, before, after)

