"""A player's submit tabs as a festival's submission: the pregame's `preferences`, or each
event's own tab, parsed by the event (its rows and nothing else)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sheets_host.kit.cells import SubmitRow
from sheets_host.kit.game import Parsed
from .event import Event
from .pregame import PREFERENCES, Preference, parse_preferences
from .rules import playing, run_events
from .state import PREGAME, FestivalState, FestivalSubmission, HandEvent


def parse(state: FestivalState, player: str, rows: Sequence[SubmitRow]) -> Parsed[FestivalSubmission]:
    """Each event parses the rows of its own tab; a message that names no tab is given the
    event's, so the player knows where to look."""
    if state.round == PREGAME:
        titles = {e.name: e.title for e in state.plan.events}
        listed = [r for r in rows if r.tab == PREFERENCES.name]
        parsed = parse_preferences(player, listed, titles, state.garnets.get(player, 0))
        move = FestivalSubmission(preference=parsed.submission) if parsed.submission else None
        return replace(parsed, submission=move)
    subs, problems, kept, parts = {}, [], [], {}
    for e in run_events(state):
        if player not in state.assignment[e.name] or not playing(state, e):
            continue
        tabs = [t.name for t in e.submit_tabs(state.events[e.name], player)]
        parsed = e.parse(state.events[e.name], player, [r for r in rows if r.tab in tabs])
        subs[e.name] = parsed.submission
        problems += [p if p.tab else replace(p, tab=tabs[0]) for p in parsed.problems]
        kept.append(f"{e.title}: {parsed.kept}")
        parts |= {event_part(e.name, part): rows for part, rows in parsed.parts.items()}
    valid = any(s is not None for s in subs.values())
    return Parsed(FestivalSubmission(events=subs) if valid else None, tuple(problems), "; ".join(kept) or "nothing",
                  parts)


def event_part(event: str, part: str) -> str:
    """An event's part as the festival keys it: the event's name first, so no two events' collide.

    >>> event_part("alchemy", "buy 2")
    'alchemy: buy 2'
    """
    return f"{event}: {part}"


def submit_rows(events: Sequence[Event | HandEvent], move: FestivalSubmission) -> list[dict]:
    """How a bot types `move`: each row names its tab; the pregame's list by the events' titles."""
    if move.preference is not None:
        titles = {e.name: e.title for e in events}
        p: Preference = move.preference
        return [{"tab": PREFERENCES.name, "first": titles[p.first], "second": titles[p.second],
                 "garnets": p.garnets}]
    rows = []
    for e in events:
        if move.events.get(e.name) is not None:
            # A row naming its tab (an event of several tabs) keeps it; others go to the event's one.
            rows += [{"tab": e.submit_tab.name, **r} for r in e.submit_rows(move.events[e.name])]
    return rows
