"""What each reader sees of a festival: the public book (the assignment, each event's public
view, the results at the end), each player's own (their garnets, their list, their events'
private views), the announcement, and how to submit.

Garnets held and spent, and the lists, are private; the assignment is public.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pandas as pd

from sheets_host.kit.game import DEFAULT_FIRED, Example, Fate, HowTo
from sheets_host.kit.result import GARNET, MAIN_MATCH, TOKEN, Change, GameResult, Owed
from sheets_host.kit.table import SubmitTab
from .endgame import listed, ordinal
from .event import Event, EventRound
from .pregame import LIST_PART, PREFERENCES
from .read import event_part
from .rules import endgame, playing, results_table, run_events, starts
from .state import PREGAME, FestivalState, FestivalSubmission, HandEvent, is_run


def _pairs(rows: Sequence[tuple[str, object]]) -> pd.DataFrame:
    return pd.DataFrame([list(r) for r in rows], columns=["what", "value"], dtype=object)


def _titles(state: FestivalState) -> dict[str, str]:
    return {e.name: e.title for e in state.plan.events}


def round_name(number: int) -> str:
    """Engine round 1 is the pregame, then the festival's rounds.

    >>> round_name(1), round_name(2), round_name(7)
    ('pregame', 'round 1', 'round 6')
    """
    return "pregame" if number == PREGAME else f"round {number - PREGAME}"


def submit_tabs(state: FestivalState, player: str) -> tuple[SubmitTab, ...]:
    """The pregame's preferences; then a tab for each event the tool runs that the player plays
    this round (none for an event hosted by hand: its host says how to submit)."""
    if state.round == PREGAME:
        return (PREFERENCES,)
    if state.over:
        return ()
    return tuple(tab for e in run_events(state) if player in state.assignment[e.name] and playing(state, e)
                 for tab in e.submit_tabs(state.events[e.name], player))


def how_to_submit(state: FestivalState, player: str) -> list[HowTo]:
    """The pregame's one block; then one block per event the player is in, headed by its title."""
    titles = _titles(state)
    if state.round == PREGAME:
        held = state.garnets.get(player, 0)
        first, second = list(titles.values())[:2]
        return [HowTo((f"Pregame: your first and second choice of event: {', '.join(titles.values())}.",
                       f"You will play two events, at most {state.plan.capacity} players each; first choices are "
                       "examined first.",
                       f"'garnets': how many of your {held} garnets you spend on the list (blank: none); more spent "
                       "wins a contested place, then a draw. Spent garnets are used up."),
                      (Example(tuple(PREFERENCES.header), ((first, second, str(min(1, held))),), tab=PREFERENCES.name),),
                      "your choices are drawn, nothing spent")]
    if state.over:
        return [HowTo(("The festival is over: nothing to submit.",))]
    blocks = []
    for e in state.plan.events:
        if player not in state.assignment[e.name]:
            continue
        idle = _idle(state, e)
        blocks.append(HowTo((f"This event {idle[0]}.",), title=e.title) if idle else
                      replace(e.how_to_submit(state.events[e.name], player), title=e.title))
    return blocks


# Why a participant submits nothing for an event in this book this round, said of one event and of several.
_BY_HAND = ("is hosted by hand: submit as its host says, not in this book",
            "are hosted by hand: submit as their hosts say, not in this book")
_LATER = ("starts in a later round: nothing to submit for it now", "start in a later round: nothing to submit for them now")
_NO_ROUND = ("plays no round: you are its only participant, so it ranks you 1st",
             "play no round: you are their only participant, so they rank you 1st")


def _idle(state: FestivalState, event: Event | HandEvent) -> tuple[str, str] | None:
    """Why a participant submits nothing for `event` in this book this round (None: they do)."""
    if not is_run(event, state.plan.by_hand):
        return _BY_HAND
    if starts(state, event) > state.plan.rounds:
        return _NO_ROUND
    if not playing(state, event):
        return _LATER
    return None


def nothing_due(state: FestivalState, player: str) -> str:
    """Why `player` has no tab to fill in this round: their events, by why each asks nothing here."""
    titles: dict[tuple[str, str], list[str]] = {}
    for e in state.plan.events:
        if player in (state.assignment or {}).get(e.name, ()) and (idle := _idle(state, e)):
            titles.setdefault(idle, []).append(e.title)
    return "; ".join(f"{listed(named)} {idle[len(named) > 1]}" for idle, named in titles.items())


def submit_choices(state: FestivalState, player: str, tab: str) -> dict[str, list[str]]:
    if tab == PREFERENCES.name:
        titles = list(_titles(state).values())
        # No dropdown of garnets: the tab is laid out by `new`, before the host types what each
        # player holds, so it would offer only 0. The status says how many are held.
        return {"first": titles, "second": titles}
    for e in run_events(state):
        if e.name in state.events and tab in (t.name for t in e.every_submit_tab()):
            return e.submit_choices(state.events[e.name], player, tab)
    return {}


def _list_told(state: FestivalState, player: str) -> list[tuple[str, object]]:
    """A player's list as the pregame used it and what came of it, as `my festival` says it."""
    titles, u = _titles(state), state.preferences[player]
    told = [("my events", ", ".join(titles[e] for e in state.plays(player))),
            ("my list", f"{'drawn (no valid list): ' if player in state.drawn else ''}"
                        f"first {titles[u.first]}, then {titles[u.second]}"),
            ("garnets spent on it", u.garnets)]
    lost = [titles[e] for e in (u.first, u.second) if e not in state.plays(player)]
    return told + ([("turned away from", f"{lost[0]}: it was full")] if lost else [])


def pregame_fates(after: FestivalState) -> dict[str, list[Fate]]:
    """What the pregame did with each player's list (drawn for a silent player: the default's
    part): it places everyone, so it counts, turned away from a full event or not."""
    return {p: [Fate(LIST_PART, "; ".join(f"{what}: {value}" for what, value in _list_told(after, p)))]
            for p in after.players}


def round_fates(after: FestivalState, moves: Mapping[str, FestivalSubmission], played: Mapping[str, EventRound]
                ) -> dict[str, list[Fate]]:
    """Each event's record of what the round did with each part of each player's submission, the
    event's name before each part; the event's title heads what its first part that counted did,
    so that the line of what counted reads event by event, as the status's "what counts" does. A
    player with nothing valid in any event is told each event's default; one whose submission
    counts in an event is told the parts they typed, not another event's default (no row of
    theirs gave it)."""
    out: dict[str, list[Fate]] = {p: [] for p in after.players}
    for e in run_events(after):
        if e.name not in played:
            continue
        for player, fates in played[e.name].account().items():
            events = (moves.get(player) or FestivalSubmission()).events
            if events.get(e.name) is None and any(s is not None for s in events.values()):
                continue
            first = next((f for f in fates if f.counted), None)
            out[player] += [Fate(event_part(e.name, f.part), f"{e.title}: {f.what}" if f is first else f.what,
                                 f.refused) for f in fates]
    return out


def festival_table(state: FestivalState) -> pd.DataFrame:
    """Who plays which event; at the end, the places, averages and results."""
    titles = _titles(state)
    if state.over:
        return pd.DataFrame(results_table(state, endgame(state)))
    rows = [{"player": p, **{t: "plays" if p in (state.assignment or {}).get(e, ()) else "" for e, t in titles.items()}}
            for p in state.players]
    return pd.DataFrame(rows, columns=["player", *titles.values()])


def public_view(state: FestivalState) -> dict[str, pd.DataFrame]:
    out = {"festival": festival_table(state)}
    for e in run_events(state):
        if e.name in state.events:
            out.update(e.public_view(state.events[e.name], state.over))
    return out


def private_view(state: FestivalState, player: str) -> dict[str, pd.DataFrame]:
    titles = _titles(state)
    mine = [("player", player), ("round open", "over" if state.over else round_name(state.round))]
    # In the pregame the host may still be typing the garnets, and `check` rewrites only the
    # status, whose instructions say how many are held: this tab would show an old number.
    if state.round != PREGAME:
        mine.append(("garnets held", state.garnets.get(player, 0)))
    if state.assignment is not None:
        mine += _list_told(state, player)
    if state.over:
        result = endgame(state)
        places = result.placements_of[player]
        mine += [("my places", ", ".join(f"{ordinal(n)} in {titles[e]}" for e, n in places.items())),
                 ("my average ranking", float(result.average[player])),
                 ("garnets earned", result.garnets.get(player, 0))]
    out = {"my festival": _pairs(mine)}
    for e in run_events(state):
        if e.name in state.events and player in state.assignment[e.name]:
            out.update(e.private_view(state.events[e.name], player))
    return out


def announcement(before: FestivalState, after: FestivalState, title: str) -> str:
    titles = _titles(after)
    lines = [f"## {title}: {round_name(before.round)} resolved"]
    if before.round == PREGAME:
        lines += ["", "**Who plays which event**"]
        for e, members in after.assignment.items():
            lines.append(f"- {titles[e]} ({len(members)}): {', '.join(members)}")
    else:
        for e in before.plan.events:
            if not (after.assignment or {}).get(e.name):
                continue
            if not is_run(e, before.plan.by_hand):
                lines += ["", f"**{e.title}** is hosted by hand: its results come from its host."]
            elif playing(before, e):
                lines += ["", *e.announcement(before.events[e.name], after.events[e.name], after.over)]
    lines.append("")
    if after.over:
        lines += endgame(after).lines()
    else:
        by_hand = [e.title for e in after.plan.events if not is_run(e, after.plan.by_hand)]
        lines.append(f"**Now open: {round_name(after.round)}** of {after.plan.rounds}"
                     + (f" (hosted by hand: {listed(by_hand)})." if by_hand else "."))
    return "\n".join(lines) + "\n"


def standings(state: FestivalState) -> pd.DataFrame:
    """The endgame's table once over; before, the players and their events, unranked."""
    table = festival_table(state)
    if not state.over:
        table.insert(0, "rank", "")
    return table


def result(state: FestivalState) -> GameResult | None:
    """What the festival gives the season, from the endgame the announcement and the results table
    come from: the winners' Tokens of Life, the garnets earned (each with its reason) and those
    spent on the preference lists, and the Elimination Candidate, owed to the sole winner while
    their choice among the tied is awaited."""
    if not state.over:
        return None
    end = endgame(state)
    why = ("the sole winner earns two Tokens of Life" if end.sole_winner is not None
           else "tied winners each earn a single Token of Life")
    changes = [Change(p, TOKEN, n, why) for p, n in end.tokens.items()]
    changes += [Change(p, GARNET, n, reason) for p, n, reason in end.garnet_reasons]
    changes += [Change(p, GARNET, -n, "spent on the preference list") for p in state.players
                if (n := state.preferences[p].garnets)]
    owed = (Owed((end.sole_winner,), "the Elimination Candidate", end.candidate_tied, "candidate choice"),
            ) if end.candidate_awaited else ()
    return GameResult(MAIN_MATCH, tuple(state.players), end.winners, tuple(changes),
                      (end.candidate,) if end.candidate else (), owed=owed)


def summary(state: FestivalState) -> dict[str, float]:
    """The events' numbers (prefixed by their names; none of an event nobody played) and the endgame's."""
    out: dict[str, float] = {}
    for e in run_events(state):
        if not state.assignment[e.name]:
            continue
        out.update({f"{DEFAULT_FIRED}{e.name}: {k.removeprefix(DEFAULT_FIRED)}" if k.startswith(DEFAULT_FIRED)
                    else f"{e.name} {k}": v for k, v in e.summary(state.events[e.name]).items()})
    result = endgame(state)
    out.update({"sole winner": float(result.sole_winner is not None),
                "winner's average": float(min(result.average.values())),
                "candidate's average": float(max(result.average.values())),
                "candidate chosen by the winner": float(result.candidate_awaited),
                "garnets earned": float(sum(result.garnets.values()))})
    return out
