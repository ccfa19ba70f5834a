"""`sheets-host season` as a host types it, and `watch --season` settling a game once it is over."""

from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from sheets_host.backends.kinds import open_backend
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.season import commands as season
from sheets_host.season.tabs import SETTINGS

from . import contest

runner = CliRunner()


def said(*args: str):
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.output.split())


def test_season_help_names_every_setting_with_its_default():
    code, text = said("season", "--help")
    assert code == 0
    for column in SETTINGS:
        assert f"'{column.name}'" in text, column.name
    for default in ("default 0", "removed (default", "no (default)", "next death match picks (default"):
        assert default in text


def test_a_season_played_from_the_command_line_and_settled_by_watch(monkeypatch, tmp_path):
    contest.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    code, text = said("season", "new", "larks", "--cast", "Ann,Bo,Cy,Di", "--seed", "3", "--set", "garnets public=yes")
    assert code == 0 and "season 'larks': 4 players" in text
    code, text = said("season", "next", "larks", "contest", "games/1")
    assert code == 0 and "game 1: Contest (Main Match) for Ann, Bo, Cy, Di" in text
    code, text = said("season", "settle", "larks")
    assert code == 0 and "game 1 (contest): not over: not begun" in text
    game = open_backend("xlsx", "larks/games/1")
    for player, score in zip(("Ann", "Bo", "Cy", "Di"), (9, 5, 3, 2)):
        game.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(game, early=True)
    code, text = said("watch", "larks/games/1", "--no-post", "--once", "--season", "larks")
    assert code == 0 and "season: game 1 (contest)" in text and "ledger row(s) written" in text
    code, text = said("season", "settle", "larks")
    assert code == 0 and "nothing to write" in text
    code, text = said("season", "give", "larks", "bo", "Power of Dark", "1", "--why", "a prize")
    assert code == 0 and "Bo +1 Power of Dark (a prize)" in text
    number = len(season.read(open_backend("xlsx", "larks")).entries)
    code, text = said("season", "correct", "larks", str(number), "-1", "--why", "granted by mistake")
    assert code == 0 and f"corrects row {number}" in text
    code, text = said("season", "give", "larks", "Zed", "garnet", "1", "--why", "x")
    assert code == 2 and "Zed" in text and "a player of the cast" in text


def test_settle_names_a_game_it_cannot_read_and_exits_non_zero(monkeypatch, tmp_path):
    contest.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    said("season", "new", "larks", "--cast", "Ann,Bo,Cy")
    said("season", "next", "larks", "contest", "games/1")
    (tmp_path / "larks/games/1/host.xlsx").unlink()
    code, text = said("season", "settle", "larks")
    assert code == 1 and "game 1 (contest, games/1)" in text and "not settled" in text


@pytest.mark.parametrize("args, words", [
    (("season", "next", "larks", "duel", "games/2", "--players", "Ann"), "a Death Match is two players"),
    (("season", "next", "larks", "pyramid-superiority", "games/2", "--players", "Ann,Bo,Cy"), "Red Meadow"),
    (("season", "next", "larks", "contest", "games/2", "--red", "Ann"), "Pyramid Superiority's meadows"),
])
def test_season_next_refuses_what_the_season_forbids_naming_it(monkeypatch, tmp_path, args, words):
    contest.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    said("season", "new", "larks", "--cast", "Ann,Bo,Cy")
    code, text = said(*args)
    assert code == 2 and words in text, text


def test_season_next_takes_the_hosts_own_settings_but_never_one_the_season_gives(monkeypatch, tmp_path):
    contest.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    said("season", "new", "larks", "--cast", "Ann,Bo,Cy,Di,Ed,Fay,Gus")
    code, text = said("season", "next", "larks", "wind-guide-me", "games/1", "--set", "light holders=Ann")
    assert code == 2 and "--set light holders: given by the season" in text
    code, text = said("season", "next", "larks", "contest", "games/1", "--set", "round hours=24",
                      "--set", "first deadline=2026-12-01 18:00")
    assert code == 0, text
    config = open_backend("xlsx", "larks/games/1").book("host").read(["config"])["config"]
    assert dict(zip(config["key"], config["value"]))["round hours"] == 24
    assert season.read(open_backend("xlsx", "larks")).games[0].own == {"round hours": "24",
                                                                       "first deadline": "2026-12-01 18:00"}


def test_the_week_from_the_command_line_plan_step_decide_and_drop(monkeypatch, tmp_path):
    contest.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    said("season", "new", "larks", "--cast", "Ann,Bo,Cy,Di,Ed", "--seed", "3")
    code, text = said("season", "step", "larks")
    assert code == 0 and "nothing to do" in text and "season plan SEASON --add GAME" in text
    code, text = said("season", "plan", "larks", "--add", "grant", "--where", "games/1")
    assert code == 0 and text == ("1. grant at games/1 Death Matches: Spirit Chain's defaults, no deadlines (set them: "
                                  "--death-matches --set KEY=VALUE)")
    code, text = said("season", "plan", "larks", "--add", "duel")
    assert code == 2 and "the plan is of Main Matches; Death Matches come from the picks" in text
    code, text = said("season", "step", "larks")
    assert code == 0 and "game 1: Grant (Main Match) made for Ann, Bo, Cy, Di, Ed at games/1" in text
    code, text = said("season", "plan", "larks", "--drop", "1")
    assert code == 2 and "plan row 1 (grant) is made already" in text
    game = open_backend("xlsx", "larks/games/1")
    for player, score in zip(("Ann", "Bo", "Cy", "Di", "Ed"), (9, 6, 5, 3, 2)):
        game.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(game, early=True)
    code, text = said("season", "step", "larks")
    assert code == 0 and "waiting: game 1: Ann to decide one more Token of Life by" in text
    code, text = said("season", "decide", "larks", "1", "bonus token", "Di")
    assert code == 2 and "'Di' is not one of the choices; allowed: Bo, Cy" in text
    code, text = said("season", "decide", "larks", "1", "bonus token", "bo")
    assert code == 0 and "game 1: bonus token = Bo (the host's decision)" in text
    code, text = said("season", "drop", "larks", "1")
    assert code == 2 and "game 1 has begun: undo its rounds first" in text


def test_the_host_plans_deadlines_before_the_day_is_known_and_a_setting_typed_wrong_is_named(monkeypatch, tmp_path):
    contest.install(monkeypatch, tmp_path)
    monkeypatch.chdir(tmp_path)
    said("season", "new", "larks", "--cast", "Ann,Bo,Cy,Di,Ed", "--set",
         "death match settings=first deadline=+2; round hours=1")
    code, text = said("season", "plan", "larks")
    assert code == 0 and text.endswith("Death Matches: first deadline=+2; round hours=1"), text
    code, text = said("season", "plan", "larks", "--death-matches", "--set", "max cycles=0", "--set", "colour=red",
                      "--set", "first deadline=2026-12-01 18:00")
    assert code == 2 and "--death-matches --set: max cycles='0': a whole number >= 1" in text
    assert "'colour' is not a Spirit Chain setting" in text and "hours after the game is made, e.g. +24" in text
    code, text = said("season", "plan", "larks", "--death-matches", "--set", "max cycles=3", "--set", "round hours=2")
    assert code == 0 and text.endswith("Death Matches: max cycles=3; round hours=2"), text
    code, text = said("season", "plan", "larks", "--add", "wind-guide-me", "--set", "light holders=Ann")
    assert code == 2 and "'light holders' is given by the season from its ledger, not by hand" in text
    code, text = said("season", "plan", "larks", "--add", "contest", "--set", "first deadline=+24")
    assert code == 0 and text.startswith("1. contest (first deadline=+24)"), text
    code, text = said("season", "step", "larks")
    config = open_backend("xlsx", "larks/games/1-contest").book("host").read(["config"])["config"]
    made = season.read(open_backend("xlsx", "larks")).games[0]
    assert dict(zip(config["key"], config["value"]))["first deadline"] == made.own["first deadline"] != "+24"
