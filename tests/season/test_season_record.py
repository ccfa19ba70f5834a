"""A season's record and its check (`season record`, `season verify`), with Contest and Duel: an
honest season verifies clean, and each thing a host could change in the record is caught and named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule
from typer.testing import CliRunner

from sheets_host.cli.main import app
from sheets_host.engine import commands as engine
from sheets_host.kit.commitment import digest
from sheets_host.kit.errors import RoundError, SheetsHostError
from sheets_host.kit.result import COSMOS, GARNET, POWER_OF_LIGHT, TOKEN
from sheets_host.season import commands as season
from sheets_host.season.record import load_season_record, make_season_record, verify_season

from tests.conftest import fixed_clock
from . import contest
from .test_season_commands import backend, make, new, opener, play, settle
from .test_season_sequences import CAST, SeasonSequences

runner = CliRunner()


@pytest.fixture
def where(monkeypatch, tmp_path) -> Path:
    contest.install(monkeypatch, tmp_path)
    return tmp_path / "season"


def play_three_games(where: Path) -> None:
    """Three games: a Contest, the Duel of its last candidate (Di loses and leaves with her
    garnets), a host's row, and a second Contest (the first one's Tokens of Life stop protecting)."""
    new(where, **{"starting garnets": 1})
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    settle(where)
    make(where, "duel", ["Di", "Bo"])
    play(where, "2", {"Di": 5, "Bo": 5})
    settle(where)
    season.give(backend(where), "Cy", "Power of Light", 1, "won the side quest", clock=fixed_clock)
    make(where, "contest")
    play(where, "3", {"Ann": 3, "Bo": 8, "Cy": 6, "Ed": 1})
    settle(where)


@pytest.fixture(scope="module")
def three_games(tmp_path_factory) -> Path:
    """The season of `play_three_games`, played once for the module: each test changes a copy."""
    root = tmp_path_factory.mktemp("three-games")
    with pytest.MonkeyPatch.context() as monkeypatch:
        contest.install(monkeypatch, root)
        play_three_games(root / "season")
    return root / "season"


@pytest.fixture
def played(where, three_games) -> Path:
    """`where` holding a copy of the three games played (the books' places are relative to it)."""
    shutil.copytree(three_games, where)
    return where


def recorded(where: Path, tmp_path: Path, change=None, force: bool = False) -> Path:
    out = tmp_path / "larks-record.json"
    record = make_season_record(backend(where), opener(where), force, clock=fixed_clock)
    if change:
        change(record)
    out.write_text(json.dumps(record))
    return out


def failed(out: Path) -> dict[str, list[str]]:
    """Each failed check's line -> its differences."""
    return {c.what: c.differences for c in verify_season(load_season_record(out)).checks if not c.ok}


def test_an_honest_season_verifies_clean_and_lists_the_hosts_own_rows(played, tmp_path):
    where = played
    out = tmp_path / "larks-record.json"
    written = runner.invoke(app, ["season", "record", str(where), str(out)])
    assert written.exit_code == 0, written.output
    assert "the record of 3 game(s) and" in written.output
    result = runner.invoke(app, ["season", "verify", str(out)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "FAIL" not in result.output and lines[-1] == "every check passed"
    for words in ("ok    game 3: made from the ledger's rows 1 to", "ok    game 2 (Duel): seed:",
                  "ok    game 1: its result, played again from its record, is what the ledger and the games tab hold",
                  "ok    the balances:", "the host's own rows in the ledger (the host's word, taken as they are): 1"):
        assert any(line.startswith(words) for line in lines), words
    assert any("Cy +1 Power of Light: won the side quest" in line for line in lines)
    record = json.loads(out.read_text())
    assert record["format"] == "sheets-host season record" and record["complete"] is True
    assert [g["given"] for g in record["games"]] == [{}, {"death match opponent": "Bo"}, {}]
    assert "email" not in out.read_text()


def test_a_season_whose_game_is_not_over_is_refused_unless_forced_and_then_compares_no_result(where, tmp_path):
    new(where)
    make(where, "contest")
    with pytest.raises(RoundError, match=r"game 1 \(contest, games/1\): Contest is not over"):
        make_season_record(backend(where), opener(where), clock=fixed_clock)
    out = tmp_path / "early.json"
    out.write_text(json.dumps(make_season_record(backend(where), opener(where), force=True, clock=fixed_clock)))
    assert failed(out) == {"a game's result compared with the ledger": [
        "no game of the season is over in the record: no result was compared with the ledger"]}
    assert "written while a game was not over" in runner.invoke(app, ["season", "verify", str(out)]).output


def _row(record, number):
    return next(r for r in record["ledger"] if r["row"] == number)


def _garnets_of(record, player, game):
    return next(r for r in record["ledger"] if r["player"] == player and r["what"] == "garnet" and r["game"] == game
                and r["by"] == "result")


def test_a_ledger_rows_amount_changed_is_named_by_game_player_thing_and_both_figures(played, tmp_path):
    where = played
    out = recorded(where, tmp_path, lambda r: _garnets_of(r, "Ann", "1").update(amount=4))
    found = failed(out)
    assert set(found) == {"game 1: its result, played again from its record, is what the ledger and the games tab hold",
                          "the balances: each player's Tokens of Life, garnets, cosmos, artefacts, eliminations and "
                          "guest games recomputed from the season's start equal the ledger's"}
    row = _garnets_of(json.loads(recorded(where, tmp_path).read_text()), "Ann", "1")["row"]
    assert found[next(iter(found))] == [f"Ann's garnet: its result gives +3 ('9 points: a garnet per 3'); the ledger's "
                                        f"rows of the game that count give +4 (row {row}: '9 points: a garnet per 3')"]
    assert "Ann's garnet: recomputed 5, the ledger 6" in list(found.values())[1]


@pytest.mark.parametrize("renumber", [False, True])
def test_a_ledger_row_taken_out_is_caught_whether_or_not_the_rows_after_it_are_renumbered(played, tmp_path, renumber):
    where = played

    def take_out(record):
        gone = _garnets_of(record, "Bo", "1")
        record["ledger"].remove(gone)
        for r in record["ledger"]:
            if renumber and r["row"] > gone["row"]:
                r["row"] -= 1
                r["corrects"] = r["corrects"] - 1 if r["corrects"] and r["corrects"] > gone["row"] else r["corrects"]
        for g in record["games"]:
            if renumber and g["made after row"] >= gone["row"]:
                g["made after row"] -= 1

    found = failed(recorded(where, tmp_path, take_out))
    if not renumber:
        assert any("are not in the record's ledger" in d for d in found["the ledger: its rows numbered 1, 2, 3... in "
                                                                        "order, none taken out"])
    result = found["game 1: its result, played again from its record, is what the ledger and the games tab hold"]
    assert result == ["Bo's garnet: its result gives +2 ('7 points: a garnet per 3'); the ledger's rows of the game "
                      "that count give nothing"]


def test_a_games_result_changed_in_its_record_is_caught_by_its_commitments_and_by_the_ledger(played, tmp_path):
    where = played

    def rescore(record):  # Cy's score of game 3 made 9 in the committed text, the commitment made again
        commitments = record["games"][2]["record"]["commitments"]
        mine = next(c for c in commitments if c["kind"] == "submission" and c["player"] == "Cy")
        mine["text"] = mine["text"].replace('"score":"6"', '"score":"9"')
        mine["commitment"] = digest(mine["text"])

    found = failed(recorded(where, tmp_path, rescore))
    assert any(d.startswith("the commitments in the record's seating order") for d in
               found["game 3 (Contest): round 1: what counted, the host's inputs and the round root"])
    result = found["game 3: its result, played again from its record, is what the ledger and the games tab hold"]
    assert any(d.startswith("Cy's cosmos: its result gives +1 ('a 9 earns a cosmos'); the ledger's rows of the game "
                            "that count give nothing") for d in result)
    assert any(d.startswith("the games tab's winners: Bo; its result gives Cy") for d in result)


def test_a_games_setting_or_a_given_value_changed_is_caught_and_named(played, tmp_path):
    where = played
    found = failed(recorded(where, tmp_path, lambda r: r["games"][1]["record"]["settings"].update(
        {"death match opponent": "Di"})))
    made = next(d for w, d in found.items() if w.startswith("game 2: made"))
    assert made == ["config 'death match opponent' is 'Di' in the game's record; the season gave 'Bo'"]
    # The tie now goes to Di: the Duel's loser and every row of its result differ.
    assert any(d.startswith("the games tab's loser: Di; its result gives Bo") for d in
               found["game 2: its result, played again from its record, is what the ledger and the games tab hold"])

    found = failed(recorded(where, tmp_path, lambda r: r["games"][1]["given"].update({"death match opponent": "Ann"})))
    made = next(d for w, d in found.items() if w.startswith("game 2: made"))
    assert "'death match opponent': the ledger before it gives 'Bo'; the game was given 'Ann'" in made


def test_tokens_of_life_expired_are_checked_against_the_ledger_before_the_main_match(played, tmp_path):
    where = played
    found = failed(recorded(where, tmp_path, lambda r: r["ledger"].remove(next(
        e for e in r["ledger"] if e["game"] == "3" and e["at"] == "made"))))
    made = next(d for w, d in found.items() if w.startswith("game 3: made"))
    assert made == ["Ann: held 1 Token(s) of Life before it, so -1 stop protecting; the ledger's rows of its making "
                    "give nothing (no row)"]


def test_a_damaged_season_record_is_refused_in_one_line_naming_what_it_lacks(played, tmp_path):
    where = played
    out = recorded(where, tmp_path, lambda r: r["ledger"][0].pop("amount"))
    with pytest.raises(SheetsHostError, match=r"damaged: its ledger's row 1 lacks 'amount' \(int\)"):
        load_season_record(out)
    out = recorded(where, tmp_path, lambda r: r["games"][0]["record"].pop("rounds"))
    with pytest.raises(SheetsHostError, match=r"game 1's record is damaged: it lacks 'rounds'"):
        load_season_record(out)
    out.write_text(json.dumps({"format": "sheets-host record", "version": 1}))
    result = runner.invoke(app, ["season", "verify", str(out)])
    assert result.exit_code == 2 and "is not a sheets-host season record" in " ".join(result.output.split())


def test_a_death_match_is_never_made_from_a_main_match_undone_since_it_was_settled(where, tmp_path):
    """Regression: `season next` trusted the last settle, so a Duel was made from the candidates of
    a game undone since (season verify caught it after); now `next` settles every game first."""
    new(where)
    make(where, "contest")
    play(where, "1", {"Ann": 9, "Bo": 7, "Cy": 4, "Di": 2, "Ed": 3})
    settle(where)
    engine.undo(backend(where / "games/1"), clock=fixed_clock, reason="a late submission")
    with pytest.raises(SheetsHostError, match=r"game 1 \(contest, games/1\) is not over"):
        make(where, "duel", ["Di", "Bo"])
    assert len(season.read(backend(where)).games) == 1


def test_a_redo_after_settle_is_verified_as_settled_and_listed(played, tmp_path):
    where = played
    game = backend(where / "games/3")
    archive = game.book("host").read(["archive"])["archive"]
    archive.loc[archive["player"] == "Ed", "score"] = 9
    game.book("host").write({"archive": archive})
    engine.resolve(game, redo=True, clock=fixed_clock, reason="Ed's score was misread")
    unsettled = failed(recorded(where, tmp_path))
    assert "game 3: its result, played again from its record, is what the ledger and the games tab hold" in unsettled
    settle(where)
    out = recorded(where, tmp_path)
    assert failed(out) == {}
    assert any("Ed's score was misread" in line for line in verify_season(load_season_record(out)).history["3"])


class RecordedSeasons(SeasonSequences):
    """The random seasons of `test_season_sequences`, with the host's own rows besides: settled,
    the season's record verifies clean (only a season with no game over fails, on the one check
    that says nothing was compared)."""

    @precondition(lambda self: self._ready())
    @rule(death=st.booleans(), data=st.data())
    def a_whole_game(self, death, data):
        """A game made, played and settled in one step, so that seasons run long."""
        super().make(death, data)
        if self._open():
            self.play(data)
            self.settle()

    @rule(data=st.data(), player=st.sampled_from(CAST), amount=st.sampled_from([-2, -1, 1, 2]),
          what=st.sampled_from([TOKEN, GARNET, COSMOS, POWER_OF_LIGHT, None]))
    def host_row(self, data, player, amount, what):
        """A row of the host's: given (None: a correction of a row drawn from the ledger)."""
        rows = len(self.season().entries)
        if what is None and rows:
            season.correct(self.backend(), data.draw(st.integers(1, rows)), amount, "by hand", clock=fixed_clock)
        elif what is not None:
            season.give(self.backend(), player, what, amount, "by hand", clock=fixed_clock)
        self.delivered, self.settled_since = False, False  # an eliminated player's garnets settle again

    @rule()
    def verify(self):
        self.settle()
        record = make_season_record(self.backend(), self.open_game, force=True, clock=fixed_clock)
        out = self.folder / "record.json"
        out.write_text(json.dumps(record))
        done = verify_season(load_season_record(out))
        wrong = {c.what: c.differences for c in done.checks if not c.ok}
        over = [g for g in record["games"] if g["record"]["complete"]]
        assert wrong == ({} if over else {"a game's result compared with the ledger": [
            "no game of the season is over in the record: no result was compared with the ledger"]}), wrong
        assert len(done.host) == sum(e["by"] == "host" for e in record["ledger"])


TestRecordedSeasons = RecordedSeasons.TestCase
TestRecordedSeasons.settings = settings(max_examples=12, stateful_step_count=20, deadline=None,
                                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
TestRecordedSeasons.pytestmark = [pytest.mark.slow(30)]
