"""The command line as a host uses it: errors are one clear line, never a traceback."""

from typer.testing import CliRunner

from sheets_host.cli import app

from .conftest import PLAYERS

runner = CliRunner()


def test_new_check_resolve_status_from_the_command_line(tmp_path):
    where = str(tmp_path / "wgm")
    result = runner.invoke(app, ["new", "wind-guide-me", where, "--players", ",".join(PLAYERS), "--seed", "4"])
    assert result.exit_code == 0 and "Round 1 is open" in result.output
    result = runner.invoke(app, ["check", where])
    assert result.exit_code == 0 and result.output.count("empty") == 7
    result = runner.invoke(app, ["resolve", where])
    assert result.exit_code == 2 and "nobody has submitted anything for round 1" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, ["status", where])
    assert "round 1, deadline no deadline set" in result.output


def test_unknown_game_and_missing_folder_are_one_line_errors(tmp_path):
    result = runner.invoke(app, ["new", "wind-guide-you", str(tmp_path), "--players", "a,b"])
    assert result.exit_code == 2 and "no game called 'wind-guide-you'; allowed: " in result.output
    assert "wind-guide-me" in result.output.split("allowed: ")[1]
    result = runner.invoke(app, ["resolve", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "no book for 'host'" in result.output


def test_simulate_reports_throughput_as_json():
    result = runner.invoke(app, ["simulate", "wind-guide-me", "--games", "3", "--json"])
    assert result.exit_code == 0 and '"games_per_minute"' in result.output and '"games": 3' in result.output
