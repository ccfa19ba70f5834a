"""`simulate` and `demo` of the Academy: each bot strategy played and reported side by side, all
three events run by the tool, the same seed giving the same festival."""

import json

from typer.testing import CliRunner

from sheets_host.cli.main import app
from sheets_host.engine.play import bot_names, default_settings, play_in_memory, simulate
from sheets_host.games import get_game

runner = CliRunner()
GAME = get_game("academy-of-witchcraft-arts")


def test_simulate_plays_random_and_greedy_bots_and_reports_usage_side_by_side():
    # 8 games: over 3, a share near 0.8 (Familiars reaching E in round 1) can come out 1 by chance.
    result = runner.invoke(app, ["simulate", "academy-of-witchcraft-arts", "--games", "8", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [r["bots"] for r in data["by_bots"]] == ["random", "greedy"]
    for report in data["by_bots"]:
        averages = report["averages"]
        assert report["games"] == 8 and report["games_per_minute"] > 0
        assert {"alchemy gems min", "alchemy gems mean", "alchemy gems max", "sole winner",
                "winner's average", "candidate's average"} <= set(averages)
        assert any(k.startswith("alchemy made ") for k in averages)  # every construct
        assert any(k.startswith("alchemy set ") for k in averages) and any(k.startswith("alchemy machine ") for k in averages)
        assert averages["alchemy gems min"] <= averages["alchemy gems mean"] <= averages["alchemy gems max"]
        assert 1 <= averages["winner's average"] <= averages["candidate's average"]
        # Summoner's Dream plays: Familiars reach E on every map and in every round, neither always
        # nor never; both sides are bought; every Tower and Familiar is bought somewhere
        reached = {k: v for k, v in averages.items() if k.startswith("summoning reached E ")}
        assert len(reached) == 8 + 6 and all(0.15 < v < 0.9 for v in reached.values()), reached
        assert averages["summoning coins on towers"] > 0 and averages["summoning coins on familiars"] > 0
        assert averages["summoning treasures min"] < 50 < averages["summoning treasures max"]
    greedy, random_ = data["by_bots"][1]["averages"], data["by_bots"][0]["averages"]
    assert greedy["alchemy gems mean"] > random_["alchemy gems mean"]  # the greedy bot makes the most valuable
    text = runner.invoke(app, ["simulate", "academy-of-witchcraft-arts", "--games", "2"]).output
    assert "random bots: 2 games" in text and "greedy bots: 2 games" in text and "alchemy gems mean" in text


def test_the_older_games_report_as_before_with_their_one_strategy():
    data = json.loads(runner.invoke(app, ["simulate", "wind-guide-me", "--games", "2", "--json"]).output)
    assert data["game"] == "wind-guide-me" and data["bots"] == "random" and "by_bots" not in data
    assert list(get_game("wind-guide-me").bots()) == ["random"]


def test_a_simulated_festival_ends_with_every_event_ranked_and_repeats_by_seed():
    defaults = default_settings(GAME)
    names = bot_names(9)
    one = play_in_memory(GAME, names, 5, defaults["config"], defaults["data"], "greedy")
    again = play_in_memory(GAME, names, 5, defaults["config"], defaults["data"], "greedy")
    assert GAME.is_over(one) and GAME.dump(one) == GAME.dump(again)
    assert one.rankings == {}  # nothing hosted by hand
    assert one.events["continuum"].rounds_played == 6  # run by the tool
    summoning = one.events["summoning"]
    assert summoning.rounds_played == 6 - summoning.first_round + 1 and len(summoning.invasions) > 0
    standings = GAME.standings(one)
    assert sorted(standings["player"]) == sorted(names) and list(standings["rank"]) == sorted(standings["rank"])
    winners = standings[standings["result"].isin(["winner", "sole winner"])]
    assert set(winners["rank"]) == {1} and (winners["result"] == "sole winner").sum() == (len(winners) == 1)
    assert sum(len(m) for m in one.assignment.values()) == 18 and max(len(m) for m in one.assignment.values()) <= 7


def test_an_unknown_strategy_is_refused_naming_the_strategies():
    try:
        simulate("academy-of-witchcraft-arts", 1, 1, strategy="clever")
    except ValueError as e:
        assert "no 'clever' bots; allowed: random, greedy" in str(e)
    else:
        raise AssertionError("an unknown strategy was played")


def test_demo_plays_the_pregame_and_six_rounds_of_the_three_events(tmp_path):
    result = runner.invoke(app, ["demo", "academy-of-witchcraft-arts", str(tmp_path / "aw")])
    assert result.exit_code == 0, result.output
    resolved = [line for line in result.output.splitlines() if ": resolved" in line]
    assert resolved[0].startswith("pregame: resolved") and resolved[-1].startswith("round 6: resolved")
    final = (tmp_path / "aw" / "announcements" / "round-07.md").read_text()
    assert "The festival's endgame" in final and "Elimination Candidate" in final
    assert "Summoner's Dream's final Treasures" in final
    private = tmp_path / "aw" / "announcements" / "private"
    assert len(list(private.iterdir())) >= 7 and all(list(p.glob("round-*.png")) for p in private.iterdir())


def test_tied_winners_share_rank_1_in_the_standings():
    """Regression: tied winners were ranked 1 and 2 though both are winners."""
    defaults = default_settings(GAME)
    for seed in range(60):
        standings = GAME.standings(play_in_memory(GAME, bot_names(10), seed, defaults["config"], defaults["data"]))
        winners = standings[standings["result"] == "winner"]
        if len(winners) > 1:
            assert list(winners["rank"]) == [1] * len(winners)
            assert standings[standings["result"] != "winner"]["rank"].min() == len(winners) + 1
            return
    raise AssertionError("no festival of 60 had tied winners")
