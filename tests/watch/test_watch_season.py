"""`watch SEASON` runs a season's week with a fake clock, against a fake Discord on the loopback
interface: a Grant (a Main Match whose winner owes one more Token of Life) and the Death Matches
its Elimination Candidates pick, with players who answer, answer wrongly, or never answer. Killed
at any moment (an exception from a book's write or a post) and started again, it decides, makes,
posts and nudges each thing once, loses no typed answer, and ends as a run never killed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import re
import traceback

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.kinds import open_backend
from sheets_host.discord.post import send_to_discord
from sheets_host.engine import commands as engine
from sheets_host.engine.deadlines import extend
from sheets_host.engine.delivery import delivered
from sheets_host.engine.host import stamp
from sheets_host.fakes.discord import FakeDiscord
from sheets_host.season import commands as season
from sheets_host.season import steps
from sheets_host.season.asking import CHOICE, tab_of
from sheets_host.season.state import Planned
from sheets_host.season.week import ANSWERED, ASKED, DECIDED, NOT_COUNTED, week
from sheets_host.kit.errors import BookError
from sheets_host.watch.loop import Watch
from sheets_host.watch.season import SeasonWatch

from tests.conftest import FIXED
from tests.season import contest

from .watching import Killable

CAST = ["Ann", "Bo", "Cy", "Di", "Ed", "Fay"]
# Grant: Ann wins alone and owes one more Token of Life (Bo, Cy or Di); Ed and Fay are the
# Elimination Candidates, Ed number 1. Each Duel: the candidate scores 2, the opponent 5.
SCORES = {"Ann": 9, "Bo": 6, "Cy": 5, "Di": 4, "Ed": 3, "Fay": 2}
# How the asked player answers each ask ("one more Token of Life", pick 1, pick 2): at once, a
# wrong name first and then a right one, late (after the reminder), or never (the season draws).
NOW, WRONG, LATE, NEVER = "now", "wrong", "late", "never"


class Kill(BaseException):
    """A kill: nothing after it runs (not even an `except Exception`)."""


class Killer:
    """Kills at the effects (a book's write, a message to Discord) whose numbers, counted over every
    life of the watch, are in `at`. The write that records a message Discord accepted goes with
    it: Discord cannot say whether it got a message, the one gap `watch` leaves (docs/discord.md)."""

    def __init__(self, at=()):
        self.at, self.count, self.kills, self.sent = set(at), 0, 0, False

    def effect(self, what: str) -> None:
        """Before a write to a book (`what`: "host", "book") or a message to Discord ("send")."""
        if what != "send" and self.sent:
            self.sent = False
            return
        self.count += 1
        if self.count in self.at:
            self.kills += 1
            raise Kill(self.count)
        self.sent = what == "send"


@dataclass
class Run:
    lines: list[str] = field(default_factory=list)
    public: list[str] = field(default_factory=list)  # what the public channel got, in order
    private: list[tuple[str, str]] = field(default_factory=list)  # (player, what) each player's channel got
    typed: list[tuple[str, str]] = field(default_factory=list)  # (player, text) each answer typed
    over: bool = False


def _xlsx(where: Path):
    return open_backend("xlsx", str(where))


def hooks_file(folder: Path, discord: FakeDiscord) -> Path:
    path = folder / "hooks"
    path.write_text("".join(f"{p} {discord.url(str(10 + i), f'p{i}')}\n" for i, p in enumerate(CAST)))
    return path


def play_season(where: Path, discord: FakeDiscord, how: tuple[str, str, str], killer: Killer | None = None,
                webhooks: bool = True, limit: int = 400) -> Run:
    """A season of a Grant, its decisions and its Death Matches, run by `watch SEASON` alone from
    `season new` until it waits for the plan; the players type as the books ask them."""
    now = [FIXED]

    def clock():
        return now[0]

    season.new_season(_xlsx(where), "Larks", CAST, 7, settings={"decision hours": 4}, clock=clock)
    steps.plan(_xlsx(where), [Planned("grant", "games/1")])
    url = discord.url("1", "public")
    players = {discord.url(str(10 + i), f"p{i}"): p for i, p in enumerate(CAST)}
    hooks = hooks_file(where.parent, discord) if webhooks else None
    run = Run()

    def send(address, message, message_id):
        if killer:
            killer.effect("send")
        if message is not None and message_id is None:
            if address == url:
                run.public.append(message.content)
            else:
                run.private.append((players[address], message.content))
        return send_to_discord(address, message, message_id)

    def opener(g):
        b = _xlsx(where / g.where)
        return Killable(b, killer) if killer else b

    def start() -> SeasonWatch:
        b = _xlsx(where)
        return SeasonWatch(Killable(b, killer) if killer else b, opener, url, clock, run.lines.append, send, hooks,
                           death_match="duel", check=timedelta(hours=1))

    watching, typed, answers = start(), set(), iter(how)
    plan: dict[tuple, tuple[str, int]] = {}  # each ask's behaviour and how often it was typed
    for _ in range(limit):
        _players_act(where, now[0], typed, plan, answers, run)
        try:
            wake = watching.step()
        except Kill:
            run.lines.append("killed")
            watching = start()
            continue
        if wake is None:
            run.over = True
            return run
        now[0] = max(wake, now[0] + timedelta(seconds=1))
    raise AssertionError(f"the season did not end in {limit} passes: {run.lines[-20:]}")


def _players_act(where: Path, now, typed: set, plan: dict, answers, run: Run) -> None:
    """The host gives a game its deadline when it opens, the players type their scores once its
    round reaches them, and each player asked types as `how` says."""
    s = season.read(_xlsx(where))
    for g in s.games:
        if g.settlement and g.settlement.over:
            continue
        b = _xlsx(where / g.where)
        try:
            session = engine.open_session(b)
        except BookError:  # recorded by the season, and the watch killed before it made the game
            continue
        record = session.open_round
        if record is None or g.number in typed or not all(
                delivered(b.book(f"player:{p}").read([ENGINE_TAB]).get(ENGINE_TAB)) >= session.commit.version
                for p in session.players):
            continue
        for p in session.players:
            score = SCORES[p] if g.game == "grant" else (2 if p == g.players[0] else 5)
            b.book(f"player:{p}").write({"submit": pd.DataFrame([{"score": score}])})
        extend(b, lambda: now, to=stamp(now + timedelta(hours=2))[:16])
        typed.add(g.number)
    for ask in week(s).asks:
        asked = next((d for d in s.decisions if (d.game, d.key, d.basis, d.how) == (ask.game, ask.key, ask.basis, ASKED)),
                     None)
        if asked is None:
            continue
        key = (ask.game, ask.key, ask.basis)
        if key not in plan:
            plan[key] = (next(answers, NOW), 0)
        behaviour, times = plan[key]
        opened = pd.Timestamp(asked.when.replace(" UTC", ""), tz="UTC")
        if behaviour == NEVER or times >= (2 if behaviour == WRONG else 1):
            continue
        if behaviour == LATE and now < opened + timedelta(hours=3, minutes=30):
            continue
        if behaviour == WRONG and times == 1 and not any(d.how == NOT_COUNTED and d.basis == ask.basis
                                                         for d in s.decisions):
            continue  # the wrong one not read yet
        player = ask.players[0]
        book = _xlsx(where / s.game(ask.game).where).book(f"player:{player}")
        frame = book.read([tab_of(ask)]).get(tab_of(ask))
        if frame is None:
            continue
        text = "Zed" if behaviour == WRONG and times == 0 else ask.choices[-1]
        frame = frame.copy()
        frame.loc[frame.index[0], CHOICE] = text
        book.write({tab_of(ask): frame})
        run.typed.append((player, text))
        plan[key] = (behaviour, times + 1)


def normal(text: str) -> str:
    """A text without what differs from play to play of the same season: the commitments' digests
    (each game's salts are its own secret), and the moments (a watch started again after a kill
    goes on at the moment it was killed, where one never killed went on a second later)."""
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? UTC", "T", re.sub(r"[0-9a-f]{64}", "DIGEST", text))
    text = re.sub(r"closes in [^,]*,", "closes in H,", text)  # a game's reminder, a second late after a kill
    return re.sub(r"\(in \d+ hours?( \d+ minutes?)?\)", "(in H)", text)


def end(where: Path) -> tuple:
    """The season's decisions (but when), games and ledger balances."""
    s = season.read(_xlsx(where))
    decisions = [(d.game, d.key, d.player, d.how, d.choice, d.typed, normal(d.note)) for d in s.decisions]
    games = [(g.number, g.game, g.players) for g in s.games]
    return decisions, games, sorted((e.player, e.what, e.amount) for e in s.entries), tuple(s.eliminated)


@pytest.fixture
def discord():
    with FakeDiscord() as server:
        yield server


@pytest.fixture
def installed(monkeypatch, tmp_path_factory):
    contest.install(monkeypatch, tmp_path_factory.mktemp("templates"))


UNKILLED: dict[tuple, tuple[Path, Run, int]] = {}  # each way of answering: where, what it did, its effects


def unkilled(how: tuple[str, str, str], tmp_path_factory, discord: FakeDiscord) -> tuple[Path, Run, int]:
    """The season played once, never killed, for the module: read by the first test, and what every
    killed play must end as. A killer that never kills counts its effects (where kills can fall)."""
    if how not in UNKILLED:
        counted = Killer()
        where = tmp_path_factory.mktemp("unkilled") / "s"
        UNKILLED[how] = where, play_season(where, discord, how, counted), counted.count
    return UNKILLED[how]


def test_a_season_watched_asks_decides_makes_its_death_matches_and_tells_each_step(installed, tmp_path_factory,
                                                                                   discord):
    where, run, _ = unkilled((NOW, WRONG, NEVER), tmp_path_factory, discord)
    decisions, games, _, eliminated = end(where)
    # Ann grants Di the Token of Life: Ed, typing a wrong name first, picks Cy; Fay never picks.
    assert [g[1:] for g in games] == [("grant", tuple(CAST)), ("duel", ("Ed", "Cy")), ("duel", ("Fay", "Bo"))]
    assert eliminated == ("Ed", "Fay") and run.over
    assert [(d[1], d[2], d[3], d[5]) for d in decisions if d[3] != ASKED] == [
        ("bonus token", "Ann", ANSWERED, "Di"), ("bonus token", "Ann", DECIDED, ""),
        ("pick 1", "Ed", NOT_COUNTED, "Zed"), ("pick 1", "Ed", ANSWERED, "Cy"), ("pick 1", "Ed", DECIDED, ""),
        ("pick 2", "Fay", DECIDED, "")]
    told = [text for text in run.public if not text.startswith(("\u23f0 **Round", "**Scored", "### Commitments"))]
    assert told == [
        "\U0001f3b2 **Game 1 (Grant)** made (Main Match) for Ann, Bo, Cy, Di, Ed, Fay.",
        "\U0001f5f3\ufe0f **Game 1 (Grant)**: **Ann** decides one more Token of Life by 2026-11-22 18:00:02 UTC, in their "
        "own book.",
        "\u2705 **Game 1 (Grant)**: one more Token of Life, decided by Ann. What was chosen is not public: the game's "
        "results say what it changes.",
        "\U0001f5f3\ufe0f **Game 1 (Grant)**: Elimination Candidate 1, **Ed**, picks an opponent for their Death Match "
        "by 2026-11-22 19:00:02 UTC, in their own book.",
        "\u2705 **Game 1 (Grant)**: Elimination Candidate 1, **Ed**, picked **Cy**. Cy is the Death Match Opponent.",
        "\U0001f5f3\ufe0f **Game 1 (Grant)**: Elimination Candidate 2, **Fay**, picks an opponent for their Death Match "
        "by 2026-11-22 19:01:03 UTC, in their own book. Elimination Candidate 1, Ed, picked Cy.",
        "\u2705 **Game 1 (Grant)**: Elimination Candidate 2, **Fay**, did not pick by the deadline: the season drew "
        "**Bo** (its default, season setting 'when nobody decides'). Bo is the Death Match Opponent.",
        "\U0001f3b2 **Game 2 (Duel)** made (Death Match): **Ed** against **Cy**, the Death Match Opponent, picked by "
        "them (Elimination Candidate 1).",
        "\U0001f3b2 **Game 3 (Duel)** made (Death Match): **Fay** against **Bo**, the Death Match Opponent, picked by "
        "them (Elimination Candidate 2)."]
    # Each asked player is nudged in their own channel as the ask opens, and at the reminder (1 hour
    # before) only while nothing of theirs counts: Fay, who never picks.
    nudged = [(p, text.split("\n")[0]) for p, text in run.private if text.startswith(("\U0001f5f3", "\u23f0"))]
    assert nudged == [
        ("Ann", "\U0001f5f3\ufe0f **Game 1 (Grant)**: you decide one more Token of Life, among Bo, Cy, Di, by "
                "2026-11-22 18:00:02 UTC (in 4 hours)."),
        ("Ed", "\U0001f5f3\ufe0f **Game 1 (Grant)**: you decide your opponent in your Death Match (you are Elimination "
               "Candidate 1), among Bo, Cy, by 2026-11-22 19:00:02 UTC (in 4 hours)."),
        ("Fay", "\U0001f5f3\ufe0f **Game 1 (Grant)**: you decide your opponent in your Death Match (you are Elimination "
                "Candidate 2), among Bo, by 2026-11-22 19:01:03 UTC (in 4 hours)."),
        ("Fay", "\u23f0 **Game 1 (Grant)**: you have until 2026-11-22 19:01:03 UTC (in 1 hour) to decide your opponent in "
                "your Death Match (you are Elimination Candidate 2).")]
    # The choices of a decision whose choice is not public reach only the player asked.
    assert not any("among Bo, Cy, Di" in text for text in run.public)


def outcome(where: Path, run: Run) -> tuple:
    return end(where), [normal(t) for t in run.public], [(p, normal(t)) for p, t in run.private]


@pytest.mark.slow(120)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=st.sampled_from([(NOW, WRONG, NEVER), (LATE, NEVER, NOW)]), data=st.data())
def test_a_season_watched_and_killed_at_any_moment_ends_as_one_never_killed(installed, tmp_path_factory, discord,
                                                                           how, data):
    where, run, effects = unkilled(how, tmp_path_factory, discord)
    model = outcome(where, run)
    killer = Killer(data.draw(st.sets(st.integers(1, effects), min_size=1, max_size=6), label="kills"))
    where = tmp_path_factory.mktemp("killed") / "s"
    run = play_season(where, discord, how, killer)
    assert killer.kills >= 1 and run.over
    (decisions, games, ledger, eliminated), public, private = outcome(where, run)
    assert (decisions, games, ledger, eliminated) == model[0]  # nothing decided twice, made twice or lost
    decided = Counter((d[0], d[1]) for d in decisions if d[3] == DECIDED)
    assert set(decided.values()) == {1}
    for player, text in run.typed:  # every answer typed is in the decisions log, as typed
        assert any(d[2] == player and d[5] == text and d[3] in (ANSWERED, NOT_COUNTED) for d in decisions)
    assert public == model[1]  # each post once, in the same order
    # Each private message once, as in the play never killed; but a nudge for an ask decided
    # before the watch started again could send it (the player answered meanwhile) is not sent.
    nudges = [m for m in model[2] if m[1].startswith(("\U0001f5f3", "\u23f0 **Game"))]
    assert [m for m in private if m not in nudges] == [m for m in model[2] if m not in nudges]
    assert len(set(private)) == len(private) and set(private) <= set(model[2])


class KilledInEachResolvesDelivery(Killer):
    """Kills at the first book a resolve delivers to, once a resolve: each game's last round is
    resolved, its books behind and its post not sent when the watch starts again."""

    def effect(self, what: str) -> None:
        frames = [f.name for f in traceback.extract_stack()]
        if what == "book" and "_resolve_open" in frames and "deliver" in frames:
            self.at = {self.count + 1}
        super().effect(what)


def test_a_watch_started_again_after_a_games_last_round_was_resolved_posts_it_then_moves_on(
        installed, tmp_path, tmp_path_factory, discord):
    """Started again, the watch posted a game's last round with the players' webhooks file read
    against nobody (the season not read yet): refused, said, and the season went on and ended
    with the round never posted."""
    where, model, _ = unkilled((NOW, WRONG, NEVER), tmp_path_factory, discord)
    killer = KilledInEachResolvesDelivery()
    run = play_season(tmp_path / "killed", discord, (NOW, WRONG, NEVER), killer)
    assert killer.kills == 3 and run.over  # the Grant's and each Duel's
    assert outcome(tmp_path / "killed", run)[1] == outcome(where, model)[1]
    assert not [line for line in run.lines if "not posted" in line]


def test_a_book_that_stays_unreachable_is_tried_again_every_ten_minutes_however_long(tmp_path):
    """Each failure waits twice as long as the one before, up to 10 minutes: the 42nd's wait once
    overflowed a timedelta and stopped watch, after seven hours of Google being down."""
    now = [FIXED]

    class Down:
        name, reads = "xlsx", None

        def changed(self, roles, since=None):
            raise BookError("Google is down")

        def book(self, role):
            raise BookError("Google is down")

        def hold(self, command):
            raise BookError("Google is down")

    waits = []
    for watcher in (Watch(Down(), None, lambda: now[0], say=lambda line: None),
                    SeasonWatch(Down(), lambda g: Down(), None, lambda: now[0], say=lambda line: None)):
        for _ in range(60):
            wake = watcher.step()
            waits.append(wake - now[0])
            now[0] = wake
    assert waits[:5] == [timedelta(minutes=m) for m in (1, 2, 4, 8, 10)] and set(waits[5:60]) == {timedelta(minutes=10)}
    assert waits[60:] == waits[:60]


def test_a_season_tab_the_host_types_wrong_is_named_and_the_watch_goes_on_once_it_is_put_right(installed, tmp_path):
    where, now, lines = tmp_path / "season", [FIXED], []
    season.new_season(_xlsx(where), "Larks", CAST, 7, clock=lambda: now[0])
    steps.plan(_xlsx(where), [Planned("grant", "games/1")])
    host = _xlsx(where).book("host")
    good = host.read(["season"])["season"]
    bad = good.copy()
    bad.loc[bad["key"] == "death match settings", "value"] = "round hours=soon"
    host.write({"season": bad})
    watching = SeasonWatch(_xlsx(where), lambda g: _xlsx(where / g.where), None, lambda: now[0], lines.append,
                           death_match="duel")
    wake = watching.step()
    assert wake == now[0] + timedelta(minutes=1) and "column 'death match settings'" in lines[-1], lines
    assert "round hours='soon': a number >= 0" in lines[-1] and "waits until it is put right" in lines[-1]
    host.write({"season": good})
    now[0] = wake
    watching.step()
    assert season.read(_xlsx(where)).games[0].game == "grant"


def test_watch_tells_a_season_from_a_game_by_its_host_book_and_runs_it_from_the_command_line(installed, tmp_path,
                                                                                          monkeypatch):
    from typer.testing import CliRunner
    from sheets_host.cli.main import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SHEETS_HOST_WEBHOOK", raising=False)

    def said(*args: str):
        result = CliRunner().invoke(app, list(args))
        return result.exit_code, " ".join(result.output.split())

    assert said("season", "new", "larks", "--cast", ",".join(CAST), "--seed", "3")[0] == 0
    code, text = said("watch", "larks")
    assert code == 2 and "add --no-post to run the season without Discord" in text
    code, text = said("watch", "larks", "--no-post")
    assert code == 0 and "the season's plan is done and nothing is owed: it waits for its next Main Match" in text
    assert said("season", "plan", "larks", "--add", "grant", "--where", "games/1")[0] == 0
    code, text = said("watch", "larks", "--no-post", "--once")  # made, and its round has no deadline: it waits
    assert code == 0 and "game 1: Grant (Main Match) made for Ann, Bo, Cy, Di, Ed, Fay at games/1" in text
    assert "game 1 (grant) is open: watching it" in text and "round 1 has no deadline" in text
    game = _xlsx(tmp_path / "larks" / "games/1")
    for p, score in SCORES.items():
        game.book(f"player:{p}").write({"submit": pd.DataFrame([{"score": score}])})
    engine.resolve(game, early=True)
    code, text = said("watch", "larks", "--no-post", "--once")
    assert code == 0 and "waiting: game 1: Ann to decide one more Token of Life by" in text
    code, text = said("watch", "larks", "--season", "larks", "--no-post")
    assert code == 2 and "larks is a season: --season goes with a game" in text
    code, text = said("watch", "larks/games/1", "--no-post")  # a game of it is watched as a game
    assert code == 0 and "Grant: the game is over" in text


def test_a_step_killed_after_recording_a_game_and_before_making_it_is_finished_by_the_next(installed, tmp_path,
                                                                                        monkeypatch):
    """`season step` records the game it makes in the season, then makes its books, so that a
    step run again makes the same game once; it used to stop at the recorded game instead (its
    host book not found, so never settled), and `watch SEASON` waited for ever."""
    from sheets_host.season import commands as season_commands

    where, real = tmp_path / "s", season_commands._made
    season.new_season(_xlsx(where), "Larks", CAST, 7, clock=lambda: FIXED)
    steps.plan(_xlsx(where), [Planned("grant", "games/1")])

    def killed(*args, **kwargs):
        raise Kill("before the game's books were made")

    monkeypatch.setattr(season_commands, "_made", killed)
    with pytest.raises(Kill):
        steps.step(_xlsx(where), lambda g: _xlsx(where / g.where), lambda: FIXED, death_match="duel")
    assert [g.number for g in season.read(_xlsx(where)).games] == ["1"]  # recorded, not made
    monkeypatch.setattr(season_commands, "_made", real)
    report = steps.step(_xlsx(where), lambda g: _xlsx(where / g.where), lambda: FIXED, death_match="duel")
    assert not report.problems, report.problems
    assert [g.number for g in season.read(_xlsx(where)).games] == ["1"]
    assert engine.open_session(_xlsx(where / "games/1")).players == CAST
