"""The host's screen (issue 34, part 7): every command's output fits a 100-column terminal, in
every game, and a command that cannot post for want of a webhook names the way to do without.

Regression: `check` on the Academy printed lines 408 characters wide (the table's `counts`), and
`extend` in a game without a public webhook failed without naming `--no-post`.

What may be wider (`kit.console`): a word no space breaks (a file's path, an address), alone on its
line so that it can be copied, and machine output (`--json`).
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.discord import post as posting
from sheets_host.engine import commands as engine
from sheets_host.engine.play import bot_names, bots_submit, host_types
from sheets_host.fakes.discord import FakeDiscord
from sheets_host.games import get_game, names

WIDTH = 100
runner = CliRunner()


def columns(line: str) -> int:
    """The terminal columns a line takes (an emoji two), measured apart from `kit.console`."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def too_wide(output: str) -> list[str]:
    return [line for line in output.splitlines() if columns(line) > WIDTH and len(line.split()) > 1]


class Host:
    """Runs commands as a host types them, keeping every line wider than the screen by command."""

    def __init__(self) -> None:
        self.wide: dict[str, list[str]] = {}

    def run(self, *args: str, label: str = "", code: int | None = 0, env: dict | None = None) -> str:
        result = runner.invoke(app, list(args), env=env)
        assert not result.exception or isinstance(result.exception, SystemExit), (args, result.exception)
        assert code is None or result.exit_code == code, (args, result.output)
        if wide := too_wide(result.output):
            self.wide.setdefault(label or args[0], []).extend(wide)
        return result.output


@pytest.fixture(scope="module")
def fake():
    with FakeDiscord() as server:
        yield server


@pytest.mark.slow(30)
@pytest.mark.parametrize("name", names())
def test_every_commands_output_fits_a_100_column_terminal_in_every_game(name, tmp_path, fake, monkeypatch):
    """What a command prints of a game (its settings, what each player's submission counts for,
    the problems, the nudges, the announcement, the record's checks) fits, two rounds in."""
    game = get_game(name)
    players = bot_names(game.max_players if name == "academy-of-witchcraft-arts" else game.min_players)
    where = str(tmp_path / "game")
    hooks = tmp_path / "webhooks"
    hooks.write_text("".join(f"{p} {fake.url(str(10 + i), 'secret')}\n" for i, p in enumerate(players)))
    monkeypatch.setenv(posting.WEBHOOKS_ENV, str(hooks))
    host = Host()
    host.run("games", name)
    host.run("new", name, where, "--players", ",".join(players), "--set", "first deadline=2099-11-23 18:00",
             "--set", "round hours=24")
    host.run("extend", where, "--hours", "1", "--webhook", fake.url("1", "public"))
    backend = XlsxBackend(Path(where))
    for _ in range(2):
        session = engine.open_session(backend)
        if host_types(backend, session, 3):
            session = engine.open_session(backend)
        bots_submit(backend, session, 3)
        host.run("check", where)
        host.run("remind", where, "--dry-run")
        host.run("lock", where)
        host.run("status", where)
        host.run("resolve", where, "--early", "--allow-empty")
        host.run("post", where, "--dry-run")
    host.run("undo", where)
    host.run("resolve", where, "--early", "--allow-empty")
    host.run("resolve", where, "--redo")
    host.run("watch", where, "--once", "--no-post")
    host.run("record", where, str(tmp_path / "record.json"), "--force")
    host.run("verify", str(tmp_path / "record.json"), "--against", where, code=None)
    host.run("simulate", name, "--games", "1")
    assert host.wide == {}


@pytest.mark.slow(60)
def test_a_whole_game_and_the_benchmarks_fit_a_100_column_terminal(tmp_path, fake):
    """The commands whose output is the same in every game but for its figures: a demo to the
    final standings (the Academy's, the widest table), posting, replay, errors, the benchmarks."""
    host = Host()
    host.run("games")
    where = str(tmp_path / "demo")
    host.run("demo", "academy-of-witchcraft-arts", where, "--players", "4")
    host.run("post", where, "--webhook", fake.url("1", "public"))
    host.run("replay", where, str(tmp_path / "replayed"))
    host.run("check", where, code=2, label="an error")
    host.run("bench", "wind-guide-me", "--in-process-only", "--rounds", "1")
    host.run("bench", "wind-guide-me", "--google", "--rounds", "1", label="bench --google")
    host.run("bench", "spirit-chain", "--watch", "--rounds", "2", label="bench --watch")
    host.run("bench", "wind-guide-me", "--watch", label="bench --watch")
    assert host.wide == {}


@pytest.mark.parametrize("command, instead", [
    (["extend", "{where}", "--hours", "2"], "--no-post"),
    (["watch", "{where}", "--once"], "--no-post"),
    (["post", "{where}"], "--dry-run"),
    (["remind", "{where}"], "check")])
def test_a_command_with_no_webhook_names_the_way_to_do_without(command, instead, tmp_path, monkeypatch):
    for variable in (posting.WEBHOOK_ENV, posting.WEBHOOKS_ENV):
        monkeypatch.delenv(variable, raising=False)
    where = str(tmp_path / "game")
    runner.invoke(app, ["new", "wind-guide-me", where, "--players", ",".join(bot_names(7)),
                        "--set", "first deadline=2099-11-23 18:00"])
    if command[0] == "post":
        engine.resolve(XlsxBackend(Path(where)), early=True, allow_empty=True)
    def deadline() -> str:
        return engine.status(XlsxBackend(Path(where))).deadline.split(" (")[0]

    before = deadline()
    result = runner.invoke(app, [part.format(where=where) for part in command])
    assert result.exit_code == 2 and instead in result.output, result.output
    assert "no Discord webhook" in result.output or "no players' webhooks file" in result.output
    assert too_wide(result.output) == []
    assert deadline() == before  # refused before anything moved
