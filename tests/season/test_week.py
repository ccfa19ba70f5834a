"""The week between games on offline books, with Grant, Contest and Duel (`contest.py`): a decision
a result leaves to a player asked in their book and given to the game, the Elimination
Candidates' picks in pick order, the Death Matches made from them, and the plan's next Main Match."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest

from sheets_host.backends.kinds import open_backend
from sheets_host.engine import commands as engine
from sheets_host.engine.host import open_session
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.result import TOKEN
from sheets_host.season import commands as season
from sheets_host.season import steps
from sheets_host.season.asking import CHOICE, DECISION_TAB, PICK_TAB
from sheets_host.season.state import Planned
from sheets_host.season.week import ANSWERED, ASKED, DECIDED, NOT_COUNTED, week

from tests.conftest import FIXED
from . import contest

CAST = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]


class Clock:
    def __init__(self):
        self.now = FIXED

    def __call__(self):
        return self.now

    def hours(self, n: float) -> None:
        self.now += timedelta(hours=n)


@pytest.fixture
def where(monkeypatch, tmp_path) -> Path:
    contest.install(monkeypatch, tmp_path)
    return tmp_path / "season"


@pytest.fixture
def clock() -> Clock:
    return Clock()


def backend(where: Path):
    return open_backend("xlsx", str(where))


def opener(where: Path):
    return lambda g: open_backend("xlsx", str(where / g.where))


def new(where: Path, clock, **settings):
    season.new_season(backend(where), "Larks", CAST, 7, settings=settings, clock=clock)


def step(where: Path, clock):
    return steps.step(backend(where), opener(where), clock, death_match="duel")


def read(where: Path):
    return season.read(backend(where))


def play(where: Path, number: str, scores: dict[str, int], clock) -> None:
    """The players of game `number` type their scores and its one round is resolved."""
    g = read(where).game(number)
    game = backend(where / g.where)
    for player, score in scores.items():
        game.book(f"player:{player}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(game, early=True, clock=clock)


def type_choice(where: Path, number: str, player: str, tab: str, typed: str) -> None:
    """A player types into their ask tab's choice cell, as a person does in the book."""
    book = backend(where / read(where).game(number).where).book(f"player:{player}")
    frame = book.read([tab])[tab].copy()
    frame.loc[frame.index[0], CHOICE] = typed
    book.write({tab: frame})


def tab(where: Path, number: str, player: str, name: str) -> pd.DataFrame | None:
    return backend(where / read(where).game(number).where).book(f"player:{player}").read([name]).get(name)


def answered(where: Path, clock, *answers: tuple[str, str, str]):
    """A step, then each (player, tab, typed) of game 1 typed and a step after it: the last step's report."""
    report = step(where, clock)
    for player, name, typed in answers:
        type_choice(where, "1", player, name, typed)
        report = step(where, clock)
    return report


@pytest.fixture
def granted(where, clock):
    """Game 1 (Grant) played: Ann wins alone, Ed and Fay are the candidates (Fay number 2: lowest
    last); Ann owes one more Token of Life to Bo, Cy or Di."""
    new(where, clock)
    steps.plan(backend(where), [Planned("grant", "games/1"), Planned("contest")])
    report = step(where, clock)
    assert [m.game.game for m in report.made] == ["grant"], report
    play(where, "1", {"Ann": 9, "Bo": 6, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2}, clock)
    return where


def test_a_decision_the_result_leaves_to_a_player_is_asked_in_their_book_with_the_choices(granted, clock):
    report = step(granted, clock)
    asked = tab(granted, "1", "Ann", DECISION_TAB)
    assert asked is not None and asked.iloc[0]["choices"] == "Bo, Cy, Di"
    assert "open" in asked.iloc[0]["status"]
    assert [a.players for a in report.asked] == [("Ann",)]
    for other in ("Bo", "Ed"):
        assert tab(granted, "1", other, DECISION_TAB) is None  # asked of Ann alone
    assert any("Ann to decide one more Token of Life" in w for w in report.waiting), report.waiting
    again = step(granted, clock)  # nothing typed: nothing more written
    assert again.asked == [] and again.made == []
    assert [d.how for d in read(granted).decisions] == [ASKED]


def test_a_candidate_as_the_extra_token_is_refused_naming_what_is_allowed_and_archived_as_typed(granted, clock):
    report = answered(granted, clock, ("Ann", DECISION_TAB, "Fay"))
    assert any("'Fay' is not one of the choices; allowed: Bo, Cy, Di" in p for p in report.problems), report.problems
    rows = read(granted).decisions
    assert [(d.how, d.typed) for d in rows] == [(ASKED, ""), (NOT_COUNTED, "Fay")]
    assert read(granted).held("Fay", TOKEN) == 0
    told = tab(granted, "1", "Ann", "season")  # Ann reads it in her own book, with what is allowed
    told = told[told["what"] == "asked of you"].iloc[0]["why"]
    assert "what you typed, 'Fay', does not count: tab 'decision', cell A2: 'Fay' is not one of the choices; " \
           "allowed: Bo, Cy, Di" in told
    public = backend(granted).book("public").read(["week"])["week"]  # what Ann typed is hers and the host's
    assert public[["asked of", "what", "outcome"]].values.tolist() == [["Ann", "one more Token of Life", "open"]]


def test_the_players_choice_is_given_to_the_game_settled_and_then_the_picks_begin(granted, clock):
    report = answered(granted, clock, ("Ann", DECISION_TAB, " cy "))
    now = read(granted)
    assert [(d.how, d.choice) for d in now.decisions][:3] == [(ASKED, ""), (ANSWERED, "Cy"), (DECIDED, "Cy")]
    assert now.held("Cy", TOKEN) == 1  # the game's own result, settled
    session = open_session(backend(granted / "games/1"))
    assert session.config["bonus token"] == "Cy"
    assert "decided: Cy" in tab(granted, "1", "Ann", DECISION_TAB).iloc[0]["status"]
    # The redo that gave it is published with its reason: what was given and by what, never the value.
    public = backend(granted / "games/1").book("public").read()
    said = [" ".join(str(v) for v in row) for frame in public.values() for row in frame.itertuples(index=False)]
    assert any("config 'bonus token' given (decided in the season's week" in line for line in said)
    assert not any("given: Cy" in line for line in said)
    # Candidate 1 is Ed (the higher of the two lowest): asked first; Fay waits.
    pick = tab(granted, "1", "Ed", PICK_TAB)
    assert pick is not None and pick.iloc[0]["choices"] == "Bo, Di"  # Ann and Cy hold Tokens of Life
    assert tab(granted, "1", "Fay", PICK_TAB) is None
    assert [a.key for a in report.asked] == ["pick 1"]


def test_each_candidate_sees_the_picks_before_theirs_and_a_picked_player_is_no_longer_available(granted, clock):
    answered(granted, clock, ("Ann", DECISION_TAB, "Cy"), ("Ed", PICK_TAB, "Di"))
    second = tab(granted, "1", "Fay", PICK_TAB).iloc[0]
    assert second["choices"] == "Bo" and second["picks before yours"] == "Elimination Candidate 1 Ed picked Di"
    public = backend(granted).book("public").read(["week"])["week"]
    assert public["outcome"].tolist() == ["Cy (Ann's choice)", "Di (Ed's choice)", "open"]


def test_a_protected_player_typed_as_a_pick_is_refused(granted, clock):
    report = answered(granted, clock, ("Ann", DECISION_TAB, "Cy"), ("Ed", PICK_TAB, "Ann"))
    assert any("'Ann' is not one of the choices; allowed: Bo, Di" in p for p in report.problems), report.problems
    assert week(read(granted)).asks[0].key == "pick 1"


def test_nobody_deciding_by_the_deadline_gives_the_seasons_draw_the_same_however_often(granted, clock):
    step(granted, clock)
    clock.hours(25)
    report = step(granted, clock)
    drawn = [d for d in read(granted).decisions if d.how == DECIDED]
    assert drawn[0].choice in ("Bo", "Cy", "Di") and "drawn: nobody decided by the deadline" in drawn[0].note
    assert report.decided[0].choice == drawn[0].choice


def test_the_picks_make_the_death_matches_one_after_another_then_the_plans_next_main_match(granted, clock):
    report = answered(granted, clock, ("Ann", DECISION_TAB, "Cy"), ("Ed", PICK_TAB, "Di"), ("Fay", PICK_TAB, "Bo"))
    assert [(m.game.game, m.game.players) for m in report.made] == [("duel", ("Ed", "Di"))]
    assert open_session(backend(granted / "games/2-duel")).config["death match opponent"] == "Di"
    play(granted, "2", {"Ed": 2, "Di": 5}, clock)
    report = step(granted, clock)
    assert [(m.game.game, m.game.players) for m in report.made] == [("duel", ("Fay", "Bo"))]
    play(granted, "3", {"Fay": 7, "Bo": 5}, clock)
    report = step(granted, clock)
    assert [m.game.game for m in report.made] == ["contest"]
    now = read(granted)
    assert list(now.eliminated) == ["Ed", "Bo"] and now.game("4").players == ("Ann", "Cy", "Di", "Fay")


def test_a_redo_that_changes_the_candidates_asks_the_picks_again_and_a_begun_death_match_is_refused(granted, clock):
    answered(granted, clock, ("Ann", DECISION_TAB, "Cy"), ("Ed", PICK_TAB, "Di"), ("Fay", PICK_TAB, "Bo"))
    assert read(granted).game("2").players == ("Ed", "Di")
    # Bo's score is corrected to 1 and the last round redone: Bo and Fay are the candidates now.
    game = backend(granted / "games/1")
    archive = game.book("host").read(["archive"])["archive"]
    mask = (archive["player"] == "Bo")
    archive.loc[mask, "score"] = 1
    game.book("host").write({"archive": archive})
    engine.resolve(game, redo=True, clock=clock)
    report = step(granted, clock)
    now = read(granted)
    assert len(now.games) == 1, "the Death Match made from the voided picks was dropped before it began"
    assert any("dropped before it began" in line for line in report.lines)
    assert week(now).asks[0].key == "pick 1" and week(now).asks[0].players == ("Fay",)
    # Made again from new picks, begun, then the Main Match redone back: refused, naming what to undo.
    answered(granted, clock, ("Fay", PICK_TAB, "Di"), ("Bo", PICK_TAB, "Ed"))
    assert read(granted).game("2").players == ("Fay", "Di")
    play(granted, "2", {"Fay": 1}, clock)
    archive.loc[mask, "score"] = 6
    game.book("host").write({"archive": archive})
    engine.resolve(game, redo=True, clock=clock)
    report = step(granted, clock)
    assert any("has begun: undo its rounds" in p and "season drop SEASON 2" in p for p in report.problems), report
    assert read(granted).game("1").settlement.candidates == ("Fay", "Bo")  # held back, as it was


def test_when_the_season_leaves_it_to_the_host_nobody_deciding_waits_for_season_decide(where, clock):
    new(where, clock, **{"when nobody decides": "the host decides", "decision hours": 2})
    steps.plan(backend(where), [Planned("grant", "games/1")])
    step(where, clock)
    play(where, "1", {"Ann": 9, "Bo": 6, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2}, clock)
    step(where, clock)
    clock.hours(3)
    report = step(where, clock)
    assert any("nobody decided one more Token of Life by the deadline: sheets-host season decide SEASON 1 "
               "'bonus token'" in line for line in report.host), report.host
    assert not [d for d in read(where).decisions if d.how == DECIDED]
    with pytest.raises(SheetsHostError, match="'Ed' is not one of the choices; allowed: Bo, Cy, Di"):
        steps.decide(backend(where), "1", "bonus token", "Ed", opener(where), clock)
    steps.decide(backend(where), "1", "Bonus Token", "di", opener(where), clock)
    step(where, clock)
    assert read(where).held("Di", TOKEN) == 1
    assert tab(where, "1", "Ed", PICK_TAB) is not None  # the picks begin


def test_a_decision_the_rules_leave_to_the_host_is_the_hosts_and_the_game_refuses_a_bad_one(where, clock):
    new(where, clock)
    steps.plan(backend(where), [Planned("grant", "games/1")])
    step(where, clock)
    play(where, "1", {"Ann": 9, "Bo": 9, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2}, clock)  # Ann and Bo tie
    report = step(where, clock)
    assert any("season decide SEASON 1 'bonus token' CHOICE" in line for line in report.host), report.host
    assert tab(where, "1", "Ann", DECISION_TAB) is None  # nothing asked in a book
    with pytest.raises(SheetsHostError, match="'Zed' is not a player"):
        steps.decide(backend(where), "1", "bonus token", "Zed", opener(where), clock)
    steps.decide(backend(where), "1", "bonus token", "Cy", opener(where), clock)
    step(where, clock)
    assert read(where).held("Cy", TOKEN) == 1


def test_a_player_picked_twice_and_eliminated_in_the_first_death_match_is_picked_again(where, clock):
    new(where, clock, **{"one player in two death matches": "yes"})
    steps.plan(backend(where), [Planned("contest", "games/1")])
    step(where, clock)
    play(where, "1", {"Ann": 9, "Bo": 6, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2}, clock)
    answered(where, clock, ("Ed", PICK_TAB, "Di"), ("Fay", PICK_TAB, "Di"))  # the season lets one player in two
    play(where, "2", {"Ed": 8, "Di": 2}, clock)  # Di is eliminated
    report = step(where, clock)
    assert any("pick 2 voided: Di was eliminated in game 2: Fay picks again" in line for line in report.lines), report
    ask = week(read(where)).asks[0]
    assert ask.players == ("Fay",) and "Di" not in ask.choices
    assert "open" in tab(where, "1", "Fay", PICK_TAB).iloc[0]["status"]


def test_the_players_season_tab_says_what_is_asked_of_them(granted, clock):
    step(granted, clock)
    season_tab = tab(granted, "1", "Ann", "season")
    asked = season_tab[season_tab["what"] == "asked of you"]
    assert len(asked) == 1 and "type your choice in your 'decision' tab of game 1's book by" in asked.iloc[0]["why"]
    assert (tab(granted, "1", "Bo", "season")["what"] == "asked of you").sum() == 0


def test_season_next_makes_the_death_match_the_picks_made_and_before_them_says_what_it_waits_for(granted, clock):
    step(granted, clock)
    with pytest.raises(SheetsHostError, match="no Death Match is picked yet \\(Ann to decide one more Token of Life\\)"):
        season.next_game(backend(granted), "duel", "games/2", "xlsx", opener(granted), clock=clock)
    answered(granted, clock, ("Ann", DECISION_TAB, "Cy"), ("Ed", PICK_TAB, "Di"))
    steps.decide(backend(granted), "1", "pick 2", "Bo", opener(granted), clock)  # the host's hand: no step since
    made = season.next_game(backend(granted), "duel", "games/2", "xlsx", opener(granted), clock=clock)
    assert made.game.players == ("Ed", "Di") and made.game.given == {"death match opponent": "Di"}


def test_when_every_player_a_candidate_could_pick_holds_a_token_the_pick_and_its_death_match_stand(where, clock):
    """Regression: Magician's Market of seven gives four Tokens of Life and three candidates, so every
    player a candidate could pick is protected; the week let the pick stand (its ruling) but making
    the Death Match refused it, and the step crashed."""
    new(where, clock)
    steps.plan(backend(where), [Planned("contest", "games/1")])
    step(where, clock)
    play(where, "1", {"Ann": 9, "Bo": 9, "Cy": 9, "Di": 9, "Ed": 3, "Fay": 2}, clock)  # four winners, two candidates
    report = answered(where, clock, ("Ed", PICK_TAB, "Ann"), ("Fay", PICK_TAB, "Bo"))
    assert not report.problems, report.problems
    assert [(m.game.game, m.game.players) for m in report.made] == [("duel", ("Ed", "Ann"))]


def test_a_game_the_step_cannot_make_is_a_problem_named_never_a_crash(where, clock):
    new(where, clock)
    steps.plan(backend(where), [Planned("contest", "games/taken")])
    season.new_season(backend(where / "games/taken"), "Other", ["Xi", "Yo"], 1, clock=clock)  # something else is there
    report = step(where, clock)
    assert report.made == [] and any("the next game could not be made" in p for p in report.problems), report


def test_a_game_that_cannot_take_the_players_left_is_refused_before_the_season_records_it(where, clock):
    """Regression: the plan's next game (Wind Guide Me takes seven) was recorded, then refused by the
    game: the season held a game that was never made, and every later command stopped on it."""
    new(where, clock)
    with pytest.raises(SheetsHostError, match="Contest takes 3 to 20 players; the season would give it 2: Ann, Bo"):
        season.next_game(backend(where), "contest", "games/1", "xlsx", opener(where), ["Ann", "Bo"], clock=clock)
    with pytest.raises(SheetsHostError, match="unknown setting 'colour'"):  # refused by the game: unrecorded
        season.next_game(backend(where), "contest", "games/1", "xlsx", opener(where), clock=clock,
                         settings={"colour": "red"})
    assert read(where).games == ()
    made = season.next_game(backend(where), "contest", "games/1", "xlsx", opener(where), clock=clock)
    assert made.game.number == "1"


def test_the_death_matches_and_the_next_main_match_are_made_with_the_hosts_settings_deadlines_after_each(
        granted, clock):
    """The host sets once what every Death Match is made with (`season plan --death-matches`), and a
    planned Main Match's first deadline as hours after it is made: `watch SEASON` has deadlines to
    play each game on, with nobody typing a date."""
    steps.plan(backend(granted), [Planned("contest", own={"first deadline": "+24", "round hours": "12"})], drop=[2],
               death_matches={"first deadline": "+2", "round hours": "1"})
    answered(granted, clock, ("Ann", DECISION_TAB, "Cy"), ("Ed", PICK_TAB, "Di"))
    clock.hours(0.5)

    def config(number: str) -> dict:
        return open_session(backend(granted / read(granted).game(number).where)).config

    def hours_after(hours: float) -> str:
        return (clock.now + timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M")

    made_2 = hours_after(2)
    answered(granted, clock, ("Fay", PICK_TAB, "Bo"))
    assert config("2")["first deadline"] == made_2 == read(granted).game("2").own["first deadline"]
    assert config("2")["round hours"] == 1
    clock.hours(3)
    play(granted, "2", {"Ed": 2, "Di": 5}, clock)
    step(granted, clock)  # each Death Match its own deadline, after its own making
    assert config("3")["first deadline"] == hours_after(2)
    play(granted, "3", {"Fay": 7, "Bo": 5}, clock)
    step(granted, clock)
    assert config("4")["first deadline"] == hours_after(24) and config("4")["round hours"] == 12


def test_death_match_settings_the_host_types_wrong_in_the_season_tab_are_named_by_cell(granted, clock):
    host = backend(granted).book("host")
    tab = host.read(["season"])["season"].copy()
    tab.loc[tab["key"] == "death match settings", "value"] = "max cycles=0; first deadline=tomorrow"
    host.write({"season": tab})
    with pytest.raises(SchemaErrors) as e:  # every season command stops, naming the cell, until it is put right
        step(granted, clock)
    said = str(e.value)
    row = tab.index[tab["key"] == "death match settings"][0]  # a frame's index is its rows in the sheet
    assert f"tab 'season', row {row}, column 'death match settings'" in said, said
    assert "max cycles='0': a whole number >= 1" in said
    assert "first deadline='tomorrow': hours after the game is made, e.g. +24" in said


class Killed(BaseException):
    """A kill: nothing after it runs (not even an `except Exception`)."""


class KilledAtWrite:
    """A game's backend whose `at`th write of its host book is a kill, before the write."""

    def __init__(self, backend, at: int, writes: list[int]):
        self._backend, self._at, self._writes = backend, at, writes

    def book(self, role: str):
        book, at, writes = self._backend.book(role), self._at, self._writes

        class Book:
            def write(self, *args, **kwargs):
                if role == "host":
                    writes[0] += 1
                    if writes[0] == at:
                        raise Killed
                return book.write(*args, **kwargs)

            def __getattr__(self, name):
                return getattr(book, name)

        return Book()

    def __getattr__(self, name):
        return getattr(self._backend, name)


@pytest.mark.parametrize("at", [1, 2, 3])
def test_a_step_killed_at_any_write_of_giving_a_decision_ends_with_it_given_and_its_round_resolved_again_once(
        granted, clock, at):
    """A kill between the config's write and the round's redo left the value given and the round
    never resolved again: the game's result read the config, so the season no longer owed it, and
    the redo's books, root and post were lost."""
    from sheets_host.engine import commitments

    step(granted, clock)
    type_choice(granted, "1", "Ann", DECISION_TAB, "Cy")
    writes = [0]

    def killing(g):
        b = backend(granted / g.where)
        return KilledAtWrite(b, at, writes) if g.number == "1" else b

    try:
        steps.step(backend(granted), killing, clock, death_match="duel")
    except Killed:
        pass
    step(granted, clock)
    session = open_session(backend(granted / "games/1"))
    host = commitments.current(commitments.read(session.tabs, session.players), 1, "host")
    assert session.config["bonus token"] == "Cy" and '"bonus token": "Cy"' in host[-1]["text"], at
    redone = session.tabs["log"][session.tabs["log"]["kind"] == "redo"]
    assert len(redone) == 2, redone  # its two lines: "resolved again from attempt 1", "round 1 re-resolved"
