"""A festival's rounds, pure: the pregame places everyone (`assignment`), each later round every
event the tool runs resolves its own round, and the last round ends with the endgame (`endgame`).

Each event draws from its own generator, made from the round's generator and the event's name, so
what one event draws never shifts another's.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from sheets_host.kit.errors import RoundError
from sheets_host.kit.game import generators
from .assignment import assign
from .by_hand import ranking_tab
from .endgame import FestivalResult, festival_endgame, listed, ordinal
from .event import Event, EventRound, Placement
from .pregame import Preference
from .state import FestivalState, FestivalSubmission, HandEvent, is_run

GOLD = ("alchemy", "gold held")  # "the player(s) with the most gold (material) remaining in Alchemy"


def run_events(state: FestivalState) -> list[Event]:
    """The events the tool runs, in festival order."""
    return [e for e in state.plan.events if is_run(e, state.plan.by_hand)]


def playing(state: FestivalState, event: Event) -> bool:
    """Whether `event` plays the festival round to be resolved next (Summoner's Dream with 6
    participants starts in round 2)."""
    return starts(state, event) <= state.festival_round <= state.plan.rounds


def starts(state: FestivalState, event: Event) -> int:
    """The festival round `event` starts in; after the last, for an event that plays no round
    (nobody in it, or Summoner's Dream's lone participant with no one to invade)."""
    members = (state.assignment or {}).get(event.name, ())
    return event.first_round(len(members), state.plan.rounds) if members else state.plan.rounds + 1


def pregame(state: FestivalState, moves: Mapping[str, FestivalSubmission | None], rng: random.Random
            ) -> tuple[FestivalState, list[str]]:
    """The lists placed (silent players' drawn), garnets spent taken away, the events set up."""
    plan = state.plan
    lists = {p: (m.preference.first, m.preference.second) if m and m.preference else None for p, m in moves.items()}
    spent = {p: m.preference.garnets for p, m in moves.items() if m and m.preference}
    draw = generators(rng)
    done = assign([e.name for e in plan.events], state.players, lists, spent, plan.capacity, draw("assignment"))
    used = {p: Preference(*done.choices[p], 0 if p in done.drawn else spent.get(p, 0)) for p in state.players}
    garnets = {p: state.garnets.get(p, 0) - used[p].garnets for p in state.players}
    after = replace(state, round=state.round + 1, garnets=garnets, preferences=used, drawn=done.drawn,
                    assignment=done.events)
    after = replace(after, events={e.name: e.setup(done.events[e.name], plan.config, plan.data, draw(e.name))
                                   for e in run_events(after)})
    titles = {e.name: e.title for e in plan.events}
    log = [f"pregame {p}: {'drawn' if p in done.drawn else 'listed'} {titles[u.first]} then {titles[u.second]}, "
           f"{u.garnets} garnet(s) spent" for p, u in used.items()]
    log += [f"pregame: {t.player} turned away from {titles[t.event]} ({'first' if t.first_choice else 'second'} "
            f"choice), plays {titles[t.instead]}" for t in done.turned_away]
    log += [f"pregame: {titles[e]} for {', '.join(members)}" for e, members in done.events.items()]
    return after, log


def festival_round(state: FestivalState, moves: Mapping[str, FestivalSubmission | None], rng: random.Random
                   ) -> tuple[FestivalState, list[str], dict[str, EventRound]]:
    """Every event the tool runs resolves this round together; the last round ends the festival.
    With each event's round (its record of what it did with each submission), by event."""
    number = state.festival_round
    last = number == state.plan.rounds
    if last and (todo := rankings_todo(state)):
        raise RoundError(f"round {number} is the last: first {todo}")
    draw = generators(rng)
    events, log, played = dict(state.events), [], {}
    for event in run_events(state):
        if not playing(state, event):
            continue
        # None: nothing valid for the event, which gives its own default
        subs = {p: (moves.get(p) or FestivalSubmission()).events.get(event.name) for p in state.assignment[event.name]}
        played[event.name] = event.resolve(events[event.name], subs, number, draw(event.name))
        events[event.name] = played[event.name].state
        log += played[event.name].log
    after = replace(state, round=state.round + 1, events=events)
    if last:
        result = endgame(after)
        after = replace(after, garnets={p: after.garnets.get(p, 0) + result.garnets.get(p, 0) for p in state.players})
        log += [f"endgame: {p} earns {n} garnet(s)" for p, n in result.garnets.items()]
    return after, log, played


def rankings_todo(state: FestivalState) -> str | None:
    """What the host must type before the last round: the rankings of the events hosted by hand
    (naming the tabs, one per event), or None."""
    missing = missing_rankings(state)
    if not missing:
        return None
    tabs = [repr(ranking_tab(e.name).name) for e in state.plan.events if e.title in missing]
    return (f"type the final ranking of {listed(missing)} (hosted by hand) into the host book's "
            f"tab{'s' * (len(tabs) > 1)} {listed(tabs)}: a row per participant with its place")


def missing_rankings(state: FestivalState) -> list[str]:
    """The events hosted by hand, with participants, whose ranking the host has not typed yet."""
    return [e.title for e in state.plan.events if not is_run(e, state.plan.by_hand)
            and (state.assignment or {}).get(e.name) and state.rankings.get(e.name) is None]


def placements(state: FestivalState) -> dict[str, list[Placement]]:
    """Every event's final ranking with participants: computed, or typed by the host."""
    out = {}
    for e in state.plan.events:
        if not (state.assignment or {}).get(e.name):
            continue
        if is_run(e, state.plan.by_hand):
            out[e.name] = e.placements(state.events[e.name], state.plan.tiebreak)
        else:
            out[e.name] = list(state.rankings[e.name])
    return out


def endgame(state: FestivalState) -> FestivalResult:
    """The endgame from the events' rankings (the festival must be over or in its last round)."""
    ranked = placements(state)
    event, figure = GOLD
    gold = {p.player: p.figures.get(figure) or 0 for p in ranked.get(event, ())}
    return festival_endgame(ranked, state.plan.tiebreak, gold, state.plan.choice,
                            {e.name: e.title for e in state.plan.events})


def results_table(state: FestivalState, result: FestivalResult) -> list[dict[str, Any]]:
    """One row per player, best average first: the rank, each event's place, the average, the
    outcome and the garnets earned."""
    rows = []
    # Players tied on the average and the best single placement share a rank (tied winners: 1).
    key = {p: (a, min(result.placements_of[p].values())) for p, a in result.average.items()}
    for player, average in result.average.items():
        rank = 1 + sum(k < key[player] for k in key.values())
        places = result.placements_of[player]
        outcome = ("sole winner" if player == result.sole_winner else "winner" if player in result.winners
                   else "Elimination Candidate" if player == result.candidate
                   else "may be chosen as Elimination Candidate" if player in result.candidate_tied
                   and result.candidate_awaited else "")
        rows.append({"rank": rank, "player": player,
                     **{e.title: ordinal(places[e.name]) if e.name in places else "" for e in state.plan.events},
                     "average ranking": float(average), "result": outcome,
                     "garnets earned": result.garnets.get(player, 0)})
    return rows


def hand_ranking(state: FestivalState, event: HandEvent | Event, rng: random.Random) -> tuple[Placement, ...]:
    """A random ranking of an event hosted by hand, as a bot host types it (demo, simulate)."""
    members = list(state.assignment[event.name])
    rng.shuffle(members)
    return tuple(Placement(p, place, None, {c.name: rng.randint(0, 3) for c in event.figures})
                 for place, p in enumerate(members, 1))
