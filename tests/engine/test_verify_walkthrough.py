"""docs/verify.md's walkthrough, run as it is written: a player catches a rewritten day 2 with the
one round root they kept. Every command the page shows (`    $ ...`) is run in order, and what the
page shows it printing is what it prints (whitespace aside: output wraps at 100 columns; a `...`
line stands for lines left out), so the page cannot drift from the tool."""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.cli.main import app
from sheets_host.engine import commands as engine, play
from sheets_host.engine.play import bot_names, bots_submit
from sheets_host.engine.verify import load_record

from tests.conftest import fixed_clock

DOCS = Path(__file__).parents[2] / "docs" / "verify.md"
# The salt key a game draws at random when it is made, fixed here so that the page's roots are the ones printed.
SALT_KEY = "5a1710ad" * 4
COMMANDS = [
    "sheets-host demo magicians-market games/market --players 5 --seed 5",
    'grep "Round root" games/market/announcements/round-02.md > kept.txt',
    "cat kept.txt",
    "sheets-host record games/market real-record.json",
    "sheets-host replay games/market games/market-new",
    "sheets-host record games/market-new record.json",
    "sheets-host verify record.json --against games/market-new",
    "sheets-host verify record.json --roots kept.txt",
    "sheets-host verify real-record.json --roots kept.txt",
]


def shown(section: str) -> list[tuple[str, list[str]]]:
    """Each command the page's `section` shows (a `    $ ` line) and the lines shown under it (indented
    like it, up to the next command or the next paragraph)."""
    text = DOCS.read_text(encoding="utf-8")
    body = text[text.index(f"\n## {section}"):]
    end = body.find("\n## ", 1)
    body = body if end < 0 else body[:end]
    out: list[tuple[str, list[str]]] = []
    under = False  # in what the last command printed
    for line in body.splitlines():
        if line.startswith("    $ "):
            out.append((line[len("    $ "):], []))
            under = True
        elif under and (line.startswith("    ") or not line.strip()):
            out[-1][1].append(line[4:])
        else:
            under = False
    return out


def words(text: str) -> str:
    return " ".join(text.split())


def printed_as_shown(lines: list[str], printed: str) -> bool:
    """What the page shows is what was printed: each part between `...` lines, in order, whole
    (the first from the output's start, the last to its end)."""
    # Spaces around each part: a part matches whole words only.
    parts = [(" " + words("\n".join(p)) + " ").replace("  ", " ") for p in _split(lines)]
    said = f" {words(printed)} "
    if len(parts) == 1:
        return said == parts[0]
    if not (said.startswith(parts[0]) and said.endswith(parts[-1])):
        return False
    at = len(parts[0]) - 1
    for part in parts[1:-1]:
        at = said.find(part, at)
        if at < 0:
            return False
        at += len(part) - 1
    return at <= len(said) - len(parts[-1])


def _split(lines: list[str]) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for line in lines:
        if line.strip() == "...":
            parts.append([])
        else:
            parts[-1].append(line)
    return parts


def run(command: str, folder: Path) -> tuple[int, str]:
    """A command as a player or host types it: sheets-host's through typer, the shell's by the shell."""
    if command.startswith("sheets-host "):
        result = CliRunner().invoke(app, shlex.split(command)[1:])
        return result.exit_code, result.output
    done = subprocess.run(command, shell=True, cwd=folder, capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def rewrite_day_2(folder: Path) -> None:
    """What the page says the host does in a spreadsheet program: Ada's day-2 bid of 3 made 6 in the
    host book's archive, and the rounds tab's `rows read` (each round's fingerprint) cleared."""
    book = XlsxBackend(folder).book("host")
    tabs = book.read(["archive", "rounds"])
    archive = tabs["archive"]
    bid = archive.index[(archive["round"].astype(str) == "2") & (archive["player"] == "Ada")
                        & (archive["action"] == "bid")]
    assert [str(a).strip() for a in archive.loc[bid, "amount"]] == ["3"], "the page says Ada bid 3 on day 2"
    archive.loc[bid, "amount"] = 6
    book.write({"archive": archive, "rounds": tabs["rounds"].assign(**{"rows read": None})})


@pytest.mark.slow(22)
def test_the_walkthrough_in_the_docs_is_what_the_tool_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sheets_host.engine.creation.new_salt", lambda: SALT_KEY)
    monkeypatch.setattr(play, "demo", functools.partial(play.demo, clock=fixed_clock))
    steps = shown("A walkthrough")
    assert [command for command, _ in steps] == COMMANDS
    said = {}
    for command, lines in steps:
        if command.startswith("sheets-host replay"):
            rewrite_day_2(tmp_path / "games" / "market")
        code, said[command] = run(command, tmp_path)
        assert code == (1 if "check(s) failed" in said[command] else 0), said[command]
        if any(line.strip() for line in lines):
            assert printed_as_shown(lines, said[command]), f"$ {command}\n{said[command]}"
    # What the page says of them: the forged record lacks the root Ada kept; the real one holds it.
    kept = re.search(r"`([0-9a-f]{64})`", (tmp_path / "kept.txt").read_text())[1]
    walkthrough = DOCS.read_text(encoding="utf-8").split("\n## A walkthrough", 1)[1].split("\n## ", 1)[0]
    assert set(re.findall(r"Round root: `([0-9a-f]{64})`", walkthrough)) == {kept}  # the post shown, the line kept
    assert f"FAIL the root you kept, {kept}" in words(said[COMMANDS[-2]])
    assert f"ok the root you kept, {kept}: day 2's root" in words(said[COMMANDS[-1]])


def test_printed_as_shown_compares_whole_parts_in_order():
    assert printed_as_shown(["a b", "c"], "a\n b c\n")
    assert not printed_as_shown(["a b"], "a b c")
    assert printed_as_shown(["a", "...", "c", "...", "e"], "a b c d e")
    assert not printed_as_shown(["a", "...", "d", "...", "c"], "a b c d e")
    assert not printed_as_shown(["a", "...", "e"], "a b c d")
    assert not printed_as_shown(["day 2", "..."], "day 20 resolved")
    assert printed_as_shown(["a", "...", "b", "...", "c"], "a b c")
    assert printed_as_shown(["a", "..."], "a")


def a_game_with_a_redo_an_undo_and_an_edit(folder: Path) -> str:
    """The game of the page's `verify` sample: four days of Magician's Market by bots; before day 2
    the host moves a sale of day 1 to another market; day 3 is redone, day 4 undone and resolved
    again, each with a reason. Returns every announcement as a player saved it when it was posted."""
    backend = XlsxBackend(folder)
    engine.new_game(backend, "magicians-market", bot_names(5), 5, clock=fixed_clock, settings={"days": 4})
    saved = []

    def day(number: int, **resolve) -> None:
        if not resolve.get("redo"):
            bots_submit(backend, engine.open_session(backend, fixed_clock), 5)
        engine.resolve(backend, early=True, clock=fixed_clock, **resolve)
        saved.append((folder / "announcements" / f"round-{number:02d}.md").read_text(encoding="utf-8"))

    day(1)
    book = backend.book("host")
    sales = book.read(["sales"])["sales"]
    sales.loc[sales.index[0], "market"] = next(p for p in bot_names(5) if p != sales.loc[sales.index[0], "market"])
    book.write({"sales": sales})
    day(2, reason="a sale of day 1 was recorded at the wrong market")
    day(3)
    day(3, redo=True, reason="Blaise's gift was read from the wrong row")
    day(4)
    engine.undo(backend, fixed_clock, reason="day 4's deadline was announced a day late")
    day(4)
    return "\n\n".join(saved)


@pytest.mark.slow(8)
def test_the_verify_sample_in_the_docs_is_what_the_tool_prints(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sheets_host.engine.creation.new_salt", lambda: SALT_KEY)
    (tmp_path / "saved-posts.txt").write_text(a_game_with_a_redo_an_undo_and_an_edit(tmp_path / "games" / "market"),
                                              encoding="utf-8")
    assert run("sheets-host record games/market market-record.json", tmp_path)[0] == 0
    steps = shown("`verify`")
    assert [command for command, _ in steps] == [
        "sheets-host verify market-record.json --against games/market --roots saved-posts.txt"]
    for command, lines in steps:
        code, printed = run(command, tmp_path)
        assert code == 0 and printed_as_shown(lines, printed), printed
    # The encoding's example of a link is this game's undo, and the announcement shown, its redone day 3's.
    doc = DOCS.read_text(encoding="utf-8")
    undo = next(c for c in load_record(tmp_path / "market-record.json")["commitments"] if c["kind"] == "undo")
    assert f"\n    {undo['text']}\n" in doc and f"`{undo['commitment']}`" in doc
    announced = (tmp_path / "games" / "market" / "announcements" / "round-03.md").read_text(encoding="utf-8")
    commitments = announced[announced.index("### Commitments"):].strip()
    assert "\n".join("    " + line if line else "" for line in commitments.splitlines()) in doc
