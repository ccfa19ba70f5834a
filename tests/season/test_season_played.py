"""Issue 36's season, played by the commands alone with the real games and no typing in any config:
Magician's Market, two Spirit Chain Death Matches, Wind Guide Me with artefacts from the ledger,
a third Death Match, the Academy with garnets from the ledger, and Pyramid Superiority with the
eliminated as its Red Meadow. Bots play each game through its books (`engine.play.play_out`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sheets_host.backends.kinds import open_backend
from sheets_host.engine import commands as engine
from sheets_host.engine.play import play_out
from sheets_host.kit.result import ELIMINATION, GARNET, GUEST, POWER_OF_DARK, POWER_OF_LIGHT, TOKEN
from sheets_host.season import commands as season
from sheets_host.season.books import SEASON_TAB
from sheets_host.season.ledger import standing

from tests.conftest import fixed_clock

CAST = ("Ann", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal", "Ivy", "Jo")
SHORT = {"magicians-market": {"days": "2"}, "spirit-chain": {"max cycles": "1", "time controls": "no"},
         "wind-guide-me": {"rounds": "2"}, "academy-of-witchcraft-arts": {"rounds": "2"}, "pyramid-superiority": {}}


def play_next(where: Path, game: str, players=(), **options):
    at = season.read(open_backend("xlsx", str(where)))
    number = at.next_number()
    made = season.next_game(open_backend("xlsx", str(where)), game, f"games/{number}", "xlsx",
                            lambda g: open_backend("xlsx", str(where / g.where)), players, clock=fixed_clock,
                            settings=SHORT[game], **options)
    play_out(open_backend("xlsx", str(where / made.game.where)), int(number), say=lambda line: None, clock=fixed_clock)
    report = season.settle(open_backend("xlsx", str(where)), lambda g: open_backend("xlsx", str(where / g.where)),
                           clock=fixed_clock)
    assert not report.problems, report.problems
    return season.read(open_backend("xlsx", str(where))), made.game


def death_match(where: Path):
    held = season.read(open_backend("xlsx", str(where)))
    candidate = held.candidates_owed()[0]
    opponent = next(p for p in held.still_in if p != candidate and held.held(p, TOKEN) <= 0
                    and p not in held.candidates_owed())
    return play_next(where, "spirit-chain", [candidate, opponent])


@pytest.mark.slow(40)
def test_a_season_of_every_game_played_by_the_commands_alone(tmp_path):
    where = tmp_path / "larks"
    season.new_season(open_backend("xlsx", str(where)), "Larks", CAST, 5, settings={"starting garnets": 1},
                      clock=fixed_clock)
    held, mm = play_next(where, "magicians-market")
    assert len(held.games[0].settlement.candidates) == 3
    assert sum(held.held(p, TOKEN) for p in CAST) >= 1
    for _ in range(2):
        held, dm = death_match(where)
        assert dm.given == {"death match opponent": dm.players[1]}
        assert held.eliminated[held.games[-1].settlement.loser] == dm.number
    light, dark = held.still_in[:2]
    season.give(open_backend("xlsx", str(where)), light, POWER_OF_LIGHT, 1, "a prize", clock=fixed_clock)
    season.give(open_backend("xlsx", str(where)), dark, POWER_OF_DARK, 1, "a prize", clock=fixed_clock)
    held, wgm = play_next(where, "wind-guide-me", held.still_in[:7])
    assert wgm.given == {"light holders": light, "dark holders": dark}
    held, _ = death_match(where)
    assert len(held.eliminated) == 3
    garnets = {p: held.held(p, GARNET) for p in held.still_in}
    held, academy = play_next(where, "academy-of-witchcraft-arts")
    config = open_backend("xlsx", str(where / academy.where)).book("host").read(["config"])["config"]
    typed = dict(zip(config["key"], config["value"]))
    assert typed["garnets"] == ", ".join(f"{p}: {n}" for p, n in garnets.items())
    assert held.games[-1].settlement.over
    out = list(held.eliminated)
    held, pyramid = play_next(where, "pyramid-superiority", held.still_in[:3], green=["Xan", "Yu", "Zoe"])
    assert pyramid.given["red meadow"] == ", ".join(out[-3:])
    assert {e.player for e in held.entries if e.what == GUEST and e.game == pyramid.number} == set(out[-3:])
    # Every game is in the ledger once, as its own result gives it.
    for g in held.games:
        session = engine.open_session(open_backend("xlsx", str(where / g.where)), fixed_clock)
        result = session.game.result(session.state)
        rows = sorted(e.change for e in standing(held.entries, g.number) if not e.why.startswith("eliminated:"))
        assert rows == sorted((c.player, c.what, c.amount, c.why) for c in result.changes if c.player in CAST), g
    assert sum(held.held(p, ELIMINATION) for p in CAST) == 3
    # Each player's season tab in the last game is their own.
    for player in pyramid.players[:6]:
        tab = open_backend("xlsx", str(where / pyramid.where)).book(f"player:{player}").read([SEASON_TAB])[SEASON_TAB]
        assert not any(other in tab.to_string() for other in CAST if other != player)
