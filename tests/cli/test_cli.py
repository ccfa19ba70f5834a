"""The command line as a host uses it: errors are one clear line, never a traceback."""

import pytest
from typer.testing import CliRunner

from sheets_host.cli.main import app

from tests.conftest import PLAYERS

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


def test_games_lists_the_games_and_a_games_settings_with_defaults_and_meaning():
    result = runner.invoke(app, ["games"])
    assert result.exit_code == 0 and "wind-guide-me: Wind Guide Me (7 players)" in result.output
    assert "magicians-market: Magician's Market (4-20 players)" in result.output
    result = runner.invoke(app, ["games", "Wind Guide Me"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    rounds = lines.index("  rounds = 7")
    assert "rounds in the game" in lines[rounds + 1] and "from 1 to 7" in lines[rounds + 1]
    assert "  light holders = (blank)" in lines and "  round hours = (blank)" in lines
    assert "  seed = " not in result.output  # --seed sets it
    result = runner.invoke(app, ["games", "nope"])
    assert result.exit_code == 2 and "no game called 'nope'; allowed: " in result.output


def test_every_game_folder_holds_the_game_of_its_name():
    from sheets_host.games import get_game, names

    assert names() == ["academy-of-witchcraft-arts", "magicians-market", "pyramid-superiority", "spirit-chain",
                       "wind-guide-me"]
    assert [get_game(n).name for n in names()] == names()


def test_a_set_without_equals_or_with_an_unknown_key_is_an_error_naming_the_settings(tmp_path):
    where = str(tmp_path / "wgm")
    for item, says in [("rounds", "--set 'rounds' has no '=': write --set \"rounds=VALUE\""),
                       ("round=3", "unknown setting 'round'"), ("seed=3", "given by --seed")]:
        result = runner.invoke(app, ["new", "wind-guide-me", where, "--players", ",".join(PLAYERS), "--set", item])
        said = " ".join(result.output.split())  # as one line, however the screen's width wrapped it
        assert result.exit_code == 2 and says in said, result.output
        assert item.startswith("seed") or "wind-guide-me settings: rounds, stones per round," in said
    assert not (tmp_path / "wgm").exists()


HEAVY = ("pandas", "numpy", "openpyxl", "PIL", "rich", "gspread", "sheets_host.engine", "sheets_host.backends",
         "sheets_host.discord", "sheets_host.watch", "sheets_host.fakes", "sheets_host.games.")


def test_help_imports_neither_pandas_nor_openpyxl_nor_the_games():
    """Start-up: `sheets-host --help` needs typer and the games' names, nothing else heavy."""
    import subprocess
    import sys

    code = ("import sys; sys.argv = ['sheets-host', '--help']\n"
            "from sheets_host.cli.main import app\n"
            "try:\n    app()\nexcept SystemExit:\n    pass\n"
            "print(' '.join(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    *help_lines, modules = done.stdout.strip().splitlines()
    assert any("games" in line for line in help_lines)
    loaded = [m for m in modules.split() if any(m == h or m.startswith(h if h.endswith(".") else h + ".")
                                                 for h in HEAVY)]
    assert loaded == []


def test_the_host_is_told_of_days_in_a_game_of_days(tmp_path):
    """Issue 9: Magician's Market calls its rounds days, to the host as to the players."""
    where = str(tmp_path / "mm")
    result = runner.invoke(app, ["new", "magicians-market", where, "--players", "Ann,Bo,Cy,Di"])
    assert result.exit_code == 0 and "Day 1 is open" in result.output
    result = runner.invoke(app, ["check", where])
    assert result.exit_code == 0 and result.output.startswith("day 1\n")
    result = runner.invoke(app, ["resolve", where])
    assert result.exit_code == 2 and "nobody has submitted anything for day 1" in result.output
    result = runner.invoke(app, ["status", where])
    assert "Magician's Market: day 1, deadline" in result.output
    assert "round" not in result.output


def test_a_closed_pipe_ends_quietly(capsys):
    """`sheets-host simulate GAME | head -1` once printed "error: [Errno 32] Broken pipe"."""
    import typer

    from sheets_host.cli.options import friendly

    @friendly
    def printing():
        raise BrokenPipeError(32, "Broken pipe")

    with pytest.raises(typer.Exit) as ended:
        printing()
    assert ended.value.exit_code == 0 and "error" not in capsys.readouterr().err
