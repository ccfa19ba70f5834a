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

CI runs 40 games a game; `SHEETS_HOST_DEEP=1` runs 400. The worked examples from the rule texts
live with each game's tests.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheets_host.engine.play import bot_states, bots, default_settings
from sheets_host.games import get_game
from sheets_host.games.pyramid_superiority.meadows import NO_ONE, Meadow
from sheets_host.kit.result import (COSMOS, GARNET, GUEST, HOST, POWER_OF_DARK, POWER_OF_LIGHT, TOKEN,
                                    GameResult)

CASES = 400 if os.environ.get("SHEETS_HOST_DEEP") == "1" else 40
GAMES = ["wind-guide-me", "magicians-market", "pyramid-superiority", "spirit-chain", "academy-of-witchcraft-arts"]


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


def played(game, seed: int, count: int | None):
    """Every state of a whole game by bots, and the settings it was played with."""
    players = bots(game, count)
    config, data = config_for(game, players), default_settings(game)["data"]
    first = game.setup(players, seed, config, data)
    if game.name == "academy-of-witchcraft-arts":  # garnets held before the pregame, to spend on the lists
        first = replace(first, garnets={p: i % 4 for i, p in enumerate(players)})
    return list(bot_states(game, players, seed, config, data, state=first)), config, data


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


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), count=st.integers(0, 16))
def test_a_finished_game_s_result_agrees_with_what_the_game_shows(name, seed, count):
    game = get_game(name)
    states, config, data = played(game, seed, players_for(game, count))
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


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), count=st.integers(0, 16), pick=st.integers(0, 20))
def test_a_decision_owed_becomes_what_it_gives_once_the_host_types_it(name, seed, count, pick):
    game = get_game(name)
    states, config, data = played(game, seed, players_for(game, count))
    before = game.result(states[-1])
    # Magician's Market's tied Elimination Candidates take a whole order: its own tests type one.
    for owed in (o for o in before.owed if o.setting != "elimination candidates"):
        choice = owed.choices[pick % len(owed.choices)]
        after = game.result(reloaded(game, states[-1], {**config, owed.setting: choice}, data))
        assert owed.setting not in {o.setting for o in after.owed}
        given_by(owed.setting, choice, before, after)

