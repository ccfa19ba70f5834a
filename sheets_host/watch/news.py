"""What `watch SEASON` tells between games, each once: in public, each game the season made, each
decision asked (who decides what, by when) and each outcome; in private, to each player asked,
a nudge when the ask opens and at the reminders before its deadline while nothing of theirs
counts.

Everything owed is derived from the season (its `decisions` log, its games) and the season host
book's `watch` tab (what was told, one row each, recorded once Discord accepted it), never from
what one `season step` reported: a watch killed after a step's write and started again tells
what that step did, once. What the season held when `watch SEASON` first ran (the tab's `began`
row) is not told again: `season post` posts the season so far.

**What is public.** The players of a game, who decides what and by when, and a choice only where
the rule texts make it public (`PUBLIC`): Death Match picks and pairings, an Elimination
Candidate chosen, a Token of Life granted, Pyramid Superiority's tie winner. Any other decision's
choice is said to be made, not what it is. An ask's choices are posted for a pick alone (who is
still in, the candidates and the Tokens of Life are public); the asked player gets them all in
private.

>>> from sheets_host.season.state import SeasonSettings, Season
>>> from sheets_host.season.week import Decision
>>> season = Season("Larks", 1, ("Ann", "Ed", "Di"), SeasonSettings(), decisions=(
...     Decision(1, "t", "1", "pick 1", "Ed", "asked", deadline="2026-11-30 18:00:00 UTC", note="x", basis="b"),
...     Decision(2, "t", "1", "pick 1", "Ed", "decided", "Di", note="drawn: nobody decided by the deadline ...")))
>>> print(public(season, set(), (0, 0))[1].message.content)
✅ **Game 1**: Elimination Candidate 1, **Ed**, did not pick by the deadline: the season drew **Di** (its default, season setting 'when nobody decides'). Di is the Death Match Opponent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import pandas as pd

from sheets_host import games
from sheets_host.discord.announce import Message, as_typed, neutralise
from sheets_host.engine.host import parse_time
from sheets_host.engine.status_tab import when
from sheets_host.kit import cells
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.result import DEATH_MATCH, HOST
from sheets_host.kit.table import Column, TabSchema
from sheets_host.season.asking import tab_of
from sheets_host.season.state import PICKS_BY_HOST, Season, SeasonGame
from sheets_host.season.week import ANSWERED, ASKED, DECIDED, NOT_COUNTED, PICK, Ask, Decision, week

TOLD = TabSchema("watch", (
    Column("what", doc="began, made, asked, decided or nudge"),
    Column("row", "int", lo=0, doc="the game's number (made), the decisions row (asked, decided, and a nudge's ask), "
                                   "or the decisions rows there were (began)"),
    Column("key", optional=True, doc="a nudge: the player and which (open, or its reminder's hours); began: the games "
                                     "there were"),
    Column("at"), Column("detail", optional=True)),
    "What `watch SEASON` told (posts in public, nudges in private), one row each once Discord accepted it, so "
    "that a restart tells nothing twice.")
BEGAN, MADE, ASKED_, DECIDED_, NUDGE = "began", "made", "asked", "decided", "nudge"
# The decisions whose choice the rule texts make public; a pick ("pick N") always is.
PUBLIC = ("extra token of life", "elimination candidate", "candidate choice", "tie winner")
Done = set[tuple[str, int, str]]  # (what, row, key) of each row of the `watch` tab


@dataclass(frozen=True)
class Tell:
    """One message owed: `player` None for the public channel. `also`: the keys it stands for too
    (a nudge at the opening says what a reminder due then would)."""

    what: str
    row: int
    key: str
    message: Message
    player: str | None = None
    also: tuple[str, ...] = ()


def told(data: pd.DataFrame | None) -> tuple[Done, tuple[int, int] | None]:
    """What the `watch` tab records, and where watching began (decisions rows, games), if it did."""
    if data is None or data.empty:
        return set(), None
    try:
        records = TOLD.records(data)
    except SheetsHostError:  # damaged: watching begins again from where the season stands
        return set(), None
    done = {(cells.text(r["what"]), r["row"], cells.text(r["key"] or "")) for r in records}
    began = next(((r["row"], int(cells.text(r["key"]))) for r in records if cells.text(r["what"]) == BEGAN), None)
    return done, began


def told_frame(rows: Iterable[tuple[str, int, str, str, str]]) -> pd.DataFrame:
    return TOLD.frame([dict(zip(("what", "row", "key", "at", "detail"), r)) for r in rows])


def _game(season: Season, number: str) -> str:
    g = next((g for g in season.games if g.number == number), None)
    return f"**Game {number}{f' ({_title(g)})' if g else ''}**"


def _title(g: SeasonGame) -> str:
    return games.get_game(g.game).title


def _pick(key: str) -> str:
    return key.split()[-1]


def _asked_row(season: Season, of: Ask | Decision) -> Decision | None:
    """The row that opened an ask (`of`: the ask, or a row of it)."""
    return next((d for d in season.decisions if (d.game, d.key, d.basis, d.how) == (of.game, of.key, of.basis, ASKED)),
                None)


def public(season: Season, done: Done, began: tuple[int, int]) -> list[Tell]:
    """The public posts owed: each ask and outcome logged since watching began (an ask still open
    whenever it was asked), then each game made since. Each made from the log alone, so that a
    post owed is the same whenever it is sent."""
    open_ = {(a.game, a.key, a.basis) for a in week(season).asks}
    out = []
    for d in season.decisions:
        still = (d.game, d.key, d.basis) in open_
        if d.how == ASKED and (d.number > began[0] or still) and (ASKED_, d.number, "") not in done:
            out.append(Tell(ASKED_, d.number, "", Message(neutralise(_asked(season, d), season.cast))))
        elif d.how == DECIDED and d.number > began[0] and (DECIDED_, d.number, "") not in done:
            out.append(Tell(DECIDED_, d.number, "", Message(neutralise(_decided(season, d), season.cast))))
    for g in season.games[began[1]:]:
        if (MADE, int(g.number), "") not in done:
            out.append(Tell(MADE, int(g.number), "", Message(neutralise(_made(season, g), season.cast))))
    return out


def _asked(season: Season, d: Decision) -> str:
    """An ask as its row logged it (and, for a pick, the picks decided before it): the same
    whenever it is posted, the ask decided meanwhile or not."""
    by = f"by {d.deadline}, in their own book"
    if not d.key.startswith(PICK):
        return f"\U0001f5f3\ufe0f {_game(season, d.game)}: **{d.player}** decides {d.note} {by}."
    picked = {}
    for e in season.decisions[:d.number - 1]:
        if e.game == d.game and e.how == DECIDED and e.key.startswith(PICK) and int(_pick(e.key)) < int(_pick(d.key)):
            picked[int(_pick(e.key))] = f" Elimination Candidate {_pick(e.key)}, {e.player}, picked {e.choice}."
    return (f"\U0001f5f3\ufe0f {_game(season, d.game)}: Elimination Candidate {_pick(d.key)}, **{d.player}**, picks an "
            f"opponent for their Death Match {by}." + "".join(picked[k] for k in sorted(picked)))


def _decided(season: Season, d: Decision) -> str:
    drawn = d.note.startswith("drawn")
    asked = _asked_row(season, d)
    what = asked.note if asked else d.key
    head = f"\u2705 {_game(season, d.game)}: "
    if d.key.startswith(PICK):
        who = f"Elimination Candidate {_pick(d.key)}, **{d.player}**,"
        if drawn:
            said = (f"{who} did not pick by the deadline: the season drew **{d.choice}** (its default, season setting "
                    f"'when nobody decides').")
        elif d.player == HOST or "host" in d.note:
            said = f"the host picked **{d.choice}** for {who[:-1]}."
        else:
            said = f"{who} picked **{d.choice}**."
        return f"{head}{said} {d.choice} is the Death Match Opponent."
    public_ = cells.fold(d.key) in {cells.fold(k) for k in PUBLIC}
    choice = f": **{d.choice}**" if public_ else ""
    tail = "" if public_ else " What was chosen is not public: the game's results say what it changes."
    if drawn:
        return (f"{head}nobody decided {what} by the deadline: the season's default was drawn{choice} (season setting "
                f"'when nobody decides').{tail}")
    by = "the host" if d.player == HOST else d.player
    return f"{head}{what}, decided by {by}{choice}.{tail}"


def _made(season: Season, g: SeasonGame) -> str:
    head = f"\U0001f3b2 {_game(season, g.number)} made ({g.match})"
    if g.match == DEATH_MATCH and len(g.players) == 2:
        candidate, opponent = g.players
        pick = next((d for d in season.decisions if d.how == DECIDED and d.key.startswith(PICK)
                     and (d.player, d.choice) == (candidate, opponent)), None)
        picked = f", picked by them (Elimination Candidate {_pick(pick.key)})" if pick else ""
        return f"{head}: **{candidate}** against **{opponent}**, the Death Match Opponent{picked}."
    return f"{head} for {', '.join(g.players)}."


# ---- private nudges -----------------------------------------------------------------------------

def nudges(season: Season, done: Done, now: datetime, hours: Callable[[str], Sequence[float]]) -> list[Tell]:
    """The nudges owed now to each player asked whose answer does not count yet: one as the ask
    opens (its choices, deadline and tab), one at each of the asking game's reminder hours before
    the deadline (`hours(game)`; one whose moment came before the ask opened is not sent, and of
    those a stopped watch missed only one is sent)."""
    out = []
    for ask in week(season).asks:
        asked = _asked_row(season, ask)
        deadline = parse_time(asked.deadline, "decisions:deadline") if asked else None
        if deadline is None or now >= deadline:
            continue
        opened = parse_time(asked.when, "decisions:when")
        due = [f"{h:g} h" for h in hours(ask.game) if opened < deadline - timedelta(hours=h) <= now]
        for player in ask.players:
            if _answer(season, ask, player, ANSWERED) is not None:
                continue
            owed = [k for k in ["open", *due] if (NUDGE, asked.number, f"{player} {k}") not in done]
            if not owed:
                continue
            typed = _answer(season, ask, player, NOT_COUNTED)
            text = (_opening(season, ask, deadline, now) if owed[0] == "open"
                    else _reminder(season, ask, deadline, now, typed))
            out.append(Tell(NUDGE, asked.number, f"{player} {owed[0]}", Message(neutralise(text, season.cast)), player,
                            tuple(f"{player} {k}" for k in owed[1:])))
    return out


def moments(season: Season, hours: Callable[[str], Sequence[float]]) -> list[datetime]:
    """When the open asks need the season looked at: each deadline and each reminder before it."""
    out = []
    for ask in week(season).asks:
        asked = _asked_row(season, ask)
        deadline = parse_time(asked.deadline, "decisions:deadline") if asked else None
        if deadline is not None:
            out += [deadline, *(deadline - timedelta(hours=h) for h in hours(ask.game))]
    return out


def _answer(season: Season, ask: Ask, player: str, how: str) -> Decision | None:
    """The player's latest answer to `ask`, if it is of kind `how` (counted, or not)."""
    latest = next((d for d in reversed(season.decisions) if (d.game, d.key, d.basis, d.player) ==
                   (ask.game, ask.key, ask.basis, player) and d.how in (ANSWERED, NOT_COUNTED)), None)
    return latest if latest is not None and latest.how == how else None


def _opening(season: Season, ask: Ask, deadline: datetime, now: datetime) -> str:
    before = "".join(f"\nElimination Candidate {k} {c} picked {o}." for k, (c, o) in enumerate(ask.before, 1))
    return (f"\U0001f5f3\ufe0f {_game(season, ask.game)}: you decide {ask.yours}, among {', '.join(ask.choices)}, by "
            f"{when(deadline, now)}.\nType your choice in the '{tab_of(ask)}' tab of your book of game {ask.game} "
            f"(its yellow cell); it counts as soon as the season reads it.{before}\n{_default(season)}")


def _reminder(season: Season, ask: Ask, deadline: datetime, now: datetime, typed: Decision | None) -> str:
    said = (f"what you typed, '{as_typed(typed.typed)}', does not count: {as_typed(typed.note)}" if typed
            else "nothing typed yet")
    return (f"\u23f0 {_game(season, ask.game)}: you have until {when(deadline, now)} to decide {ask.yours}.\n"
            f"Your '{tab_of(ask)}' tab: {said}.\n{_default(season)}")


def _default(season: Season) -> str:
    if season.settings.picks_default == PICKS_BY_HOST:
        return "If nothing counts by the deadline, the host decides."
    return "If nothing counts by the deadline, the season draws one of the choices."
