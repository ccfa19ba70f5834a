"""`season demo`: a whole short season by bots, every handover made by `season step`, its record
accepted by `season verify`; and the defects playing it found, each held by a test on Contest and
Duel (`contest.py`)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from sheets_host.cli.main import app
from sheets_host.fakes.google import FakeGoogle, fake_backend
from sheets_host.games import names as game_names
from sheets_host.engine import commands as engine
from sheets_host.engine.host import open_session
from sheets_host.kit.result import DEATH_MATCH, ELIMINATION, TOKEN
from sheets_host.season import commands as season
from sheets_host.season import picture, steps
from sheets_host.season.books import seen
from sheets_host.season.demo import PLAN, START, demo
from sheets_host.season.asking import DECISION_TAB, PICK_TAB
from sheets_host.season.record import load_season_record, verify_season, write_season_record
from sheets_host.season.state import Planned
from sheets_host.season.week import ANSWERED, DECIDED, NOT_COUNTED

from tests.conftest import FIXED
from tests.test_docs_pictures import PICTURE, ROOT, render_books
from . import contest
from .test_week import backend, opener, type_choice
from .test_week import play as played_by


def play(where: Path, number: str, scores: dict[str, int]) -> None:
    played_by(where, number, scores, lambda: FIXED)

CAST = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]
runner = CliRunner()


# ---- the demo -----------------------------------------------------------------------------------

@pytest.mark.slow(90)
def test_the_season_demo_plays_every_game_to_the_final_with_no_host_and_verify_accepts_its_record(tmp_path):
    where = tmp_path / "demo-season"
    result = runner.invoke(app, ["season", "demo", str(where)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "every check passed"
    held = season.read(backend(where))
    assert {g.game for g in held.games} == set(game_names())  # every game of the tool
    assert [g.game for g in held.games if g.match != DEATH_MATCH] == list(PLAN)
    assert held.games[-1].match == DEATH_MATCH and len(held.still_in) == 2  # the final
    assert sum(held.held(p, ELIMINATION) for p in held.cast) == len(held.cast) - 2
    # The bots answered every way a person does: untidy, refused first, and not at all.
    rows = held.decisions
    assert any(d.how == ANSWERED and d.typed != d.choice for d in rows)
    assert any(d.how == NOT_COUNTED for d in rows) and "refused: game" in result.output
    assert any(d.how == DECIDED and d.note.startswith("drawn: nobody decided") for d in rows)
    assert "the demo clock moves past the deadline" in result.output
    # Nothing took the real time: every stamp is the demo clock's.
    stamps = [e.when for e in held.entries] + [d.when for d in rows] + [g.made for g in held.games]
    assert all(START.strftime("%Y-%m") in when for when in stamps), sorted(set(stamps))
    for g in held.games:
        assert START.strftime("%Y-%m") in open_session(backend(where / g.where)).last_resolved["resolved at"]
    # The README shows this season's picture (python -m tests.season.seasons draws it again).
    drawn = Image.open(io.BytesIO(picture.draw(seen(held))))
    assert render_books.DOCS / "season-demo.png" in [(ROOT / link).resolve() for link in
                                                     PICTURE.findall((ROOT / "README.md").read_text())]
    copy = Image.open(render_books.DOCS / "season-demo.png")
    assert copy.size == render_books.shrink(drawn).size, "another picture: python -m tests.season.seasons"
    assert render_books.lost_colours(drawn, copy) == {}


@pytest.mark.slow(40)
def test_the_season_demo_plays_on_google_sheets(tmp_path):
    """A shorter season (Wind Guide Me for seven, its Death Match) on the fake Google API: games
    made as new spreadsheets, the bots typing in their spreadsheets, its record verified."""
    fake = FakeGoogle()
    made, _ = fake_backend(fake=fake)
    opener_ = lambda g: fake_backend(g.where if g.where != "-" else "", fake=fake)[0]  # noqa: E731
    report = demo(made, opener_, 1, tmp_path / "record.json", place=steps.new_spreadsheets, say=lambda line: None,
                  plan=("wind-guide-me",), players=7)
    assert report.passed, [c.lines() for c in report.verified.checks if not c.ok]
    assert [g.game for g in report.season.games] == ["wind-guide-me", "spirit-chain"]
    assert all(g.where.startswith("https://docs.google.com/spreadsheets/d/") for g in report.season.games)
    assert len(report.season.still_in) == 6 and report.season.games[-1].settlement.over


# ---- what playing it found ----------------------------------------------------------------------


def step(where: Path, clock=lambda: FIXED):
    return steps.step(backend(where), opener(where), clock, death_match="duel")


def answered(where: Path, number: str, *answers: tuple[str, str, str]):
    """Each (player, tab, typed) typed in turn into game `number`'s ask tab, a step before each
    and after the last; the last step's report."""
    for player, tab, typed in answers:
        step(where)
        type_choice(where, number, player, tab, typed)
    return step(where)


@pytest.fixture
def where(monkeypatch, tmp_path) -> Path:
    contest.install(monkeypatch, tmp_path)
    where = tmp_path / "season"
    season.new_season(backend(where), "Larks", CAST, 7, clock=lambda: FIXED)
    return where


def test_a_pick_of_a_protected_player_when_everyone_left_is_protected_makes_its_death_match(where):
    """Four tie for the highest score: every player a candidate may pick holds a Token of Life, so
    the protection gives way (`week.eligible`'s ruling); the Death Match made from that pick was
    refused by `season next`'s own check, and `season step` stopped with it."""
    steps.plan(backend(where), [Planned("contest")])
    step(where)
    play(where, "1", {"Ann": 9, "Bo": 9, "Cy": 9, "Di": 9, "Ed": 3, "Fay": 2})
    report = answered(where, "1", ("Ed", PICK_TAB, "Ann"), ("Fay", PICK_TAB, "Bo"))
    assert not report.problems, report.problems
    now = season.read(backend(where))
    assert [(g.game, g.players) for g in now.games[1:]] == [("duel", ("Ed", "Ann"))]
    assert now.held("Ann", TOKEN) == 1


def test_a_decision_given_to_its_game_is_resolved_at_the_steps_time(where):
    """`give_decision`'s redo of the last round took the real time, not the step's clock: the
    game's books and the season's ledger said when the host's machine ran it."""
    steps.plan(backend(where), [Planned("grant")])
    step(where)
    play(where, "1", {"Ann": 9, "Bo": 6, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2})
    step(where)
    type_choice(where, "1", "Ann", DECISION_TAB, "Cy")
    later = FIXED.replace(hour=15)
    report = step(where, lambda: later)
    assert any("bonus token = Cy given" in line for line in report.lines), report.lines
    session = open_session(backend(where / "games/1-grant"))
    assert session.last_resolved["resolved at"] == "2026-11-22 15:00:00 UTC"


def verified(where: Path, tmp_path: Path) -> dict[str, list[str]]:
    """`season record` then `season verify`: each failed check with its differences."""
    out = tmp_path / "record.json"
    write_season_record(backend(where), opener(where), out, clock=lambda: FIXED)
    return {c.what: c.differences for c in verify_season(load_season_record(out)).checks if not c.ok}


def test_a_season_whose_death_match_was_dropped_and_made_again_from_new_picks_verifies(where, tmp_path):
    """Decisions given by a redo of the last round, a Death Match made from picks a second redo
    voided (dropped by the step), made again from the new picks, and the Tokens of Life that
    stopped protecting when the next Main Match was made: `season verify` accepts it all."""
    steps.plan(backend(where), [Planned("grant"), Planned("contest")])
    step(where)
    play(where, "1", {"Ann": 9, "Bo": 6, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2})
    answered(where, "1", ("Ann", DECISION_TAB, "Cy"), ("Ed", PICK_TAB, "Di"), ("Fay", PICK_TAB, "Bo"))
    assert season.read(backend(where)).game("2").players == ("Ed", "Di")
    game = backend(where / "games/1-grant")
    archive = game.book("host").read(["archive"])["archive"]
    archive.loc[archive["player"] == "Bo", "score"] = 1
    game.book("host").write({"archive": archive})
    engine.resolve(game, redo=True, clock=lambda: FIXED)
    report = step(where)
    assert any("dropped before it began" in line for line in report.lines)
    type_choice(where, "1", "Fay", PICK_TAB, "Di")
    answered(where, "1", ("Bo", PICK_TAB, "Ed"))
    now = season.read(backend(where))
    assert [g.players for g in now.games[1:]] == [("Fay", "Di")]
    play(where, "2", {"Fay": 1, "Di": 5})
    step(where)
    play(where, "3", {"Bo": 7, "Ed": 2})
    step(where)
    now = season.read(backend(where))
    assert [g.game for g in now.games] == ["grant", "duel", "duel", "contest"]
    assert any(e.game == "4" and e.at == "made" for e in now.entries)  # Ann's and Cy's Tokens stop protecting
    play(where, "4", {"Ann": 9, "Bo": 8, "Cy": 5, "Di": 4})
    step(where)
    assert verified(where, tmp_path) == {}


def test_a_season_whose_main_match_was_dropped_before_it_began_and_made_again_verifies(where, tmp_path):
    """`season drop` of a Main Match whose making took Tokens of Life away (rows withdrawn), made
    again under the same number: `season verify` accepts it."""
    steps.plan(backend(where), [Planned("contest"), Planned("contest")])
    step(where)
    play(where, "1", {"Ann": 9, "Bo": 6, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2})
    answered(where, "1", ("Ed", PICK_TAB, "Bo"), ("Fay", PICK_TAB, "Cy"))
    play(where, "2", {"Ed": 5, "Bo": 5})
    step(where)
    play(where, "3", {"Fay": 1, "Cy": 5})
    step(where)
    now = season.read(backend(where))
    assert now.game("4").game == "contest" and any(e.game == "4" and e.at == "made" for e in now.entries)
    steps.drop(backend(where), "4", opener(where), clock=lambda: FIXED)
    report = step(where)
    assert [m.game.number for m in report.made] == ["4"]
    play(where, "4", {p: 5 for p in season.read(backend(where)).game("4").players})
    step(where)
    assert verified(where, tmp_path) == {}
