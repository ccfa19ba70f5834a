"""`bench`: in-process and fresh-process resolve times, bots beyond the name list, JSON."""

import json

from typer.testing import CliRunner

from sheets_host.cli.main import app
from sheets_host.engine.play import bot_names

runner = CliRunner()


def test_bot_names_go_on_past_the_list_all_distinct():
    names = bot_names(45)
    assert len(set(names)) == 45 and names[:2] == ["Ada", "Blaise"] and names[20:22] == ["Ada 2", "Blaise 2"]
    assert names[40] == "Ada 3"


def test_more_bots_than_the_game_takes_is_an_error_not_a_smaller_game():
    result = runner.invoke(app, ["bench", "magicians-market", "--players", "21", "--in-process-only"])
    assert result.exit_code == 2 and "Magician's Market takes 4 to 20 players; --players asked for 21" in result.output
    result = runner.invoke(app, ["simulate", "spirit-chain", "--players", "3", "--games", "1"])
    assert result.exit_code == 2 and "Spirit Chain takes 2 players" in result.output


def test_bench_reports_in_process_and_fresh_process_times_as_json():
    result = runner.invoke(app, ["bench", "wind-guide-me", "--rounds", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["game"] == "wind-guide-me" and data["players"] == 7 and data["rounds"] == 1
    assert len(data["resolve_seconds"]) == 1 and data["mean_resolve_seconds"] > 0
    fresh = data["end_to_end"]
    assert len(fresh["wall_seconds"]) == 1 and fresh["mean_wall_seconds"] > 0 and fresh["mean_cpu_seconds"] > 0
    result = runner.invoke(app, ["bench", "wind-guide-me", "--rounds", "1", "--in-process-only"])
    assert result.exit_code == 0 and "resolve in process" in result.output and "fresh process" not in result.output


def test_bench_google_prints_requests_per_book_and_the_largest_request():
    result = runner.invoke(app, ["bench", "wind-guide-me", "--google", "--rounds", "1"])
    assert result.exit_code == 0, result.output
    lines = [line.strip() for line in result.output.splitlines()]
    assert lines[0].startswith("wind-guide-me: 7 players, 1 rounds") and "every spreadsheet at the floor" in lines
    assert any(line.split()[:2] == ["each", "player's"] for line in lines)
    assert any(line.startswith("Largest request: new ") for line in lines[-3:])  # wrapped to the screen


def test_bench_google_with_a_latency_times_each_command_as_the_requests_wait_it_out():
    result = runner.invoke(app, ["bench", "wind-guide-me", "--google", "--rounds", "1", "--latency", "20", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["latency_ms"] == 20 and data["in_flight"] == 12
    (played,) = data["per_round"]
    # A check's lease, its reads, its writes and the lease's release come one after another.
    assert played["check_seconds"] >= 4 * 0.020 and played["check_cpu_seconds"] > 0
    assert set(data["seconds"]) == set(data["cpu_seconds"]) == {"status", "check", "resolve"}
    result = runner.invoke(app, ["bench", "wind-guide-me", "--google", "--rounds", "1", "--latency", "20"])
    assert any(line.startswith("Wall time at 20 ms a request, 12 requests in flight at most")
               for line in result.output.splitlines()), result.output


def test_bench_watch_prints_reads_and_bytes_a_minute_of_a_watched_duel_and_of_an_idle_game():
    result = runner.invoke(app, ["bench", "spirit-chain", "--google", "--watch", "--rounds", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["parts"] == 2 and 0 < data["max_reads"] <= 30 and data["mean_bytes"] > 0
    assert data["typed"] and data["stamped_past_a_boundary"] == 0
    idle = runner.invoke(app, ["bench", "magicians-market", "--watch", "--players", "4", "--json"])
    assert idle.exit_code == 0, idle.output
    data = json.loads(idle.output)
    assert data["most_requests_a_minute_quiet"] == 1 and data["seconds_until_status_shows_it"] < 60
