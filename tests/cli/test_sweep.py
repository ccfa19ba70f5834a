"""`sheets-host sweep` as a designer uses it: a table and its picture written, progress on stderr
and never in --json, every value checked before any game is played; `--cluster` without Dask says
how to install it."""

import csv
import io
import json

from PIL import Image
from typer.testing import CliRunner

from sheets_host.cli.main import app

runner = CliRunner()


def test_sweep_writes_a_row_per_combination_and_strategy_as_csv_png_and_json(tmp_path):
    result = runner.invoke(app, ["sweep", "wind-guide-me", "--set", "rounds=2,3", "--set", "stones per round=1",
                                 "--games", "3", "--workers", "1", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)  # progress went to stderr
    assert "sweep: 6 of 6 games (100%)" in result.stderr
    assert [r["settings"] for r in data["rows"]] == [{"rounds": "2", "stones per round": "1"},
                                                      {"rounds": "3", "stones per round": "1"}]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "wind-guide-me.csv").read_text())))
    assert [(r["rounds"], r["bots"], r["games"]) for r in rows] == [("2", "random", "3"), ("3", "random", "3")]
    assert {"win share Ada", "score spread", "default: missed round", "winning score"} <= set(rows[0])
    assert abs(sum(float(v) for k, v in rows[0].items() if k.startswith("win share ")) - 1) < 0.01
    assert Image.open(tmp_path / "wind-guide-me.png").size[0] == 960
    assert data["files"]["png"] == str(tmp_path / "wind-guide-me.png")


def test_the_academy_sweeps_each_strategy_on_the_terminal(tmp_path):
    result = runner.invoke(app, ["sweep", "academy-of-witchcraft-arts", "--set", "alchemy starting coins=20", "--games", "1",
                                 "--workers", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert any(" random " in line for line in lines) and any(" greedy " in line for line in lines)
    assert f"table: {tmp_path / 'academy-of-witchcraft-arts.csv'}" in lines


def test_a_value_a_setting_refuses_stops_the_sweep_before_any_game(tmp_path):
    result = runner.invoke(app, ["sweep", "wind-guide-me", "--set", "rounds=5,9", "--games", "2", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "--set rounds=9: '9' is refused; rounds is a whole number from 1 to 7" in result.output
    assert "games" not in result.stderr.replace("--games", "") and not list(tmp_path.iterdir())
    result = runner.invoke(app, ["sweep", "wind-guide-me", "--set", "roundz=5", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown setting 'roundz'" in result.output
    result = runner.invoke(app, ["sweep", "wind-guide-me", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "at least one --set" in result.output


def test_a_combination_the_game_refuses_names_it(tmp_path):
    result = runner.invoke(app, ["sweep", "wind-guide-me", "--set", "light holders=Ada,Nobody", "--games", "1",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 2 and "the settings light holders=Nobody are refused" in result.output


def test_values_holding_a_comma_are_parted_by_a_bar(tmp_path):
    result = runner.invoke(app, ["sweep", "pyramid-superiority", "--set", "garnets=Ada: 5, Blaise: 2|Ada: 0",
                                 "--games", "1", "--workers", "1", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    assert [r["settings"]["garnets"] for r in json.loads(result.stdout)["rows"]] == ["Ada: 5, Blaise: 2", "Ada: 0"]


def test_cluster_without_dask_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setitem(__import__("sys").modules, "distributed", None)  # as if the extra were not installed
    result = runner.invoke(app, ["simulate", "wind-guide-me", "--games", "1", "--cluster", "tcp://127.0.0.1:8786"])
    assert result.exit_code == 2 and 'pip install "sheets-host[cluster]"' in result.output
    assert "Traceback" not in result.output
