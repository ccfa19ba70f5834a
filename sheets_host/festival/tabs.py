"""A festival's settings and host tabs, and the state read from them and written back.

- `garnets`: what each player holds now. The host types it before the pregame (blank is 0); the
  pregame takes away what was spent on a list, the endgame adds what was earned.
- `preferences`: each player's list as used (drawn for the silent), with the garnets spent;
  filled by the pregame. Private: only the host sees it.
- `assignment`: who plays which event, one row per participant, filled by the pregame.
- `<event> ranking`: an event hosted by hand's final ranking, typed by the host.
- Each event the tool runs keeps its own tabs, named with its name first (`alchemy turns`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaError, SchemaErrors
from sheets_host.kit.table import Column, TabSchema
from .by_hand import ranking_tab, read_ranking
from .event import Event
from .pregame import Preference
from .state import PREGAME, FestivalState, HandEvent, Plan, is_run

ROUNDS = Column("rounds", "int", lo=1, doc="the festival's rounds after the pregame (6)")
CAPACITY = Column("players per event", "int", lo=1, doc="at most this many players in an event (7)")
BY_HAND = Column("hosted by hand", optional=True,
                 doc="events the host runs outside the tool, comma-separated; the host types each one's final "
                     "ranking into its '<event> ranking' tab before the last round is resolved")
TIEBREAK = Column("gamewide tiebreak", optional=True,
                  doc="the players, best first, comma-separated; anyone not listed comes after, in seating order")
CHOICE = Column("candidate choice", optional=True,
                doc="the sole winner's choice of Elimination Candidate, when the endgame says it is awaited")
GARNETS = Column("garnets", optional=True,
                 doc="the garnets each player holds when the game is made, e.g. 'Ada: 5, Cora: 2' (a season gives "
                     "them); blank: type them into the host tab 'garnets' before the pregame")
SETTINGS = (ROUNDS, CAPACITY, BY_HAND, TIEBREAK, CHOICE, GARNETS)

GARNETS_TAB = TabSchema("garnets", (
    Column("player", "player"), Column("garnets", "int", lo=0, optional=True, doc="held now; blank is 0"),
), "The garnets each player holds (private to each): type them before the pregame.")
FESTIVAL_TAB = TabSchema("festival", (
    Column("round open", "int", lo=0, doc="0: the pregame; then the festival's round open; after the last: over"),
), "Where the festival stands (one row).")
PREFERENCES, ASSIGNMENT = "preferences", "assignment"


def preferences_tab(events: Sequence[Event | HandEvent]) -> TabSchema:
    names = tuple(e.name for e in events)
    return TabSchema(PREFERENCES, (
        Column("player", "player"), Column("first", "choice", names), Column("second", "choice", names),
        Column("garnets spent", "int", lo=0), Column("drawn", "bool", doc="yes: the player was silent, the list drawn"),
    ), "The pregame's lists as used (private to each player); filled in when the pregame is resolved.")


def assignment_tab(events: Sequence[Event | HandEvent]) -> TabSchema:
    return TabSchema(ASSIGNMENT, (Column("event", "choice", tuple(e.name for e in events)), Column("player", "player")),
                     "Who plays which event (public); filled in when the pregame is resolved.")


def names(raw: object, allowed: Sequence[str], what: str, aliases: Mapping[str, str] | None = None) -> list[str]:
    """The comma-separated names in a setting, each one of `allowed` or `aliases` (any case), each once.

    >>> names("Bo, ann", ["Ann", "Bo", "Cy"], "a player")
    ['Bo', 'Ann']
    """
    out = []
    for part in ([] if cells.is_blank(raw) else cells.text(raw).split(",")):
        if part.strip():
            name = cells.as_choice(part, allowed, what, aliases)
            if name in out:
                raise cells.CellError(f"{name!r} is named twice")
            out.append(name)
    return out


def named_events(raw: object, events: Sequence[Event | HandEvent]) -> list[str]:
    """Events named in a setting or a tab by name or title (any case)."""
    return names(raw, [e.name for e in events], "an event", {e.title: e.name for e in events})


def check_config(events: Sequence[Event | HandEvent], config: Mapping[str, Any], players: Sequence[str]) -> list[str]:
    """Problems no column sees: unknown names, an event the tool cannot run left to it, more rounds
    than an event the tool runs has data for, too many players for the events' places."""
    problems = []
    by_hand: list[str] = []
    try:
        by_hand = named_events(config.get(BY_HAND.name), events)
        unbuilt = [e.title for e in events if isinstance(e, HandEvent) and e.name not in by_hand]
        if unbuilt:
            problems.append(f"config 'hosted by hand': the tool does not run {', '.join(unbuilt)} yet; list "
                            f"{'it' if len(unbuilt) == 1 else 'them'} there")
    except cells.CellError as e:
        problems.append(f"config 'hosted by hand': {e}")
    try:
        names(config.get(TIEBREAK.name), list(players), "a player")
    except cells.CellError as e:
        problems.append(f"config 'gamewide tiebreak': {e}")
    try:
        # A name that is nobody's would leave the candidate awaited without a word to the host.
        if len(names(config.get(CHOICE.name), list(players), "a player")) > 1:
            raise cells.CellError("name one player")
    except cells.CellError as e:
        problems.append(f"config 'candidate choice': {e}")
    problems += [f"config 'garnets': {p}" for p in cells.named_counts(config.get(GARNETS.name), players, "a player",
                                                                      "garnets")[1]]
    rounds = config.get(ROUNDS.name) or 0
    for e in events:
        if is_run(e, frozenset(by_hand)) and e.most_rounds is not None and rounds > e.most_rounds:
            problems.append(f"config 'rounds': {rounds}; {e.title} is played over the rule text's {e.most_rounds} rounds "
                            f"at most (its data tabs hold no more): 1 to {e.most_rounds}, or list {e.title} in "
                            "'hosted by hand'")
    capacity = config.get(CAPACITY.name) or 0
    if len(events) * capacity < 2 * len(players):
        problems.append(f"config 'players per event': {len(players)} players in 2 events each need "
                        f"{2 * len(players)} places; {len(events)} events of {capacity} hold {len(events) * capacity}")
    return problems


def plan(events: Sequence[Event | HandEvent], players: Sequence[str], config: Mapping[str, Any],
         data: Mapping[str, list[dict]]) -> Plan:
    """The fixed part of the state, from settings `check_config` passed."""
    listed = names(config.get(TIEBREAK.name), list(players), "a player")
    by_hand = frozenset(named_events(config.get(BY_HAND.name), events))
    choice = next(iter(names(config.get(CHOICE.name), list(players), "a player")), None)  # as the seating spells it
    return Plan(tuple(events), config[ROUNDS.name], config[CAPACITY.name], by_hand,
                tuple(listed + [p for p in players if p not in listed]), choice, config, data)


def check_data(events: Sequence[Event | HandEvent], by_hand: frozenset[str], data: Mapping[str, list[dict]]) -> None:
    """Raise SchemaErrors for the data of the events the tool runs."""
    errors = [e for event in events if is_run(event, by_hand) for e in event.check_data(data)]
    if errors:
        raise SchemaErrors(errors)


def state_tabs(events: Sequence[Event | HandEvent]) -> tuple[TabSchema, ...]:
    own = tuple(tab for event in events if isinstance(event, Event) for tab in event.state_tabs)
    rankings = tuple(ranking_tab(e.name, e.figures) for e in events)
    return (FESTIVAL_TAB, GARNETS_TAB, preferences_tab(events), assignment_tab(events)) + own + rankings


def load(events: Sequence[Event | HandEvent], players: Sequence[str], tabs: Mapping[str, list[dict]],
         config: Mapping[str, Any], data: Mapping[str, list[dict]]) -> FestivalState:
    """The state from its tabs; SchemaErrors name every cell that cannot be read."""
    p = plan(events, players, config, data)
    check_data(events, p.by_hand, data)
    errors: list[SchemaError] = []
    stands = tabs[FESTIVAL_TAB.name]
    if len(stands) != 1:
        raise SchemaErrors([SchemaError(FESTIVAL_TAB.name, None, None, f"{len(stands)} rows", "one row")])
    round_number = PREGAME + stands[0]["round open"]
    garnets = {r["player"]: r["garnets"] or 0 for r in tabs[GARNETS_TAB.name]}
    if round_number == PREGAME and not cells.is_blank(config.get(GARNETS.name)):
        # What each holds is the setting's (a season's ledger gave it): the tab is not a second say.
        given = garnets_given(config, players)
        for r in tabs[GARNETS_TAB.name]:
            if (r["garnets"] or 0) != given.get(r["player"], 0):
                errors.append(SchemaError(GARNETS_TAB.name, r.get("_row"), "garnets", r["garnets"] or 0,
                                          f"{given.get(r['player'], 0)}, as config 'garnets' gives {r['player']} "
                                          "(change the setting, not the tab)"))
    preferences, drawn = {}, []
    for r in tabs[PREFERENCES]:  # events already read by the tab's schema
        preferences[r["player"]] = Preference(r["first"], r["second"], r["garnets spent"])
        if r["drawn"]:
            drawn.append(r["player"])
    assignment = None
    if round_number > PREGAME:
        assignment = {e.name: [] for e in events}
        for r in tabs[ASSIGNMENT]:
            assignment[r["event"]].append(r["player"])
        for player in players:
            count = sum(player in members for members in assignment.values())
            if count != 2:
                errors.append(SchemaError(ASSIGNMENT, None, "player", f"{player} in {count} events",
                                          "every player in exactly 2 events"))
        assignment = {e: tuple(q for q in players if q in members) for e, members in assignment.items()}
    if errors:
        raise SchemaErrors(errors)
    states, rankings = {}, {}
    for event in events:
        members = (assignment or {}).get(event.name, ())
        if not is_run(event, p.by_hand):
            ranked = read_ranking(event.name, tabs[ranking_tab(event.name, event.figures).name], members, event.figures)
            rankings[event.name] = tuple(ranked) if ranked is not None else None
            continue
        ranking = tabs[ranking_tab(event.name, event.figures).name]
        if ranking:
            raise SchemaErrors([SchemaError(ranking_tab(event.name).name, ranking[0].get("_row"), None,
                                            ranking[0]["player"], f"in this tab: the tool runs {event.title} and "
                                            f"ranks it (to host it by hand, name it in config 'hosted by hand')")])
        if assignment is not None:
            states[event.name] = event.load(members, tabs, config, data)
    return FestivalState(tuple(players), p, round_number, garnets, preferences, tuple(drawn),
                         assignment, states, rankings)


def dump(events: Sequence[Event | HandEvent], state: FestivalState) -> dict[str, list[dict]]:
    out = {FESTIVAL_TAB.name: [{"round open": state.festival_round}],
           GARNETS_TAB.name: [{"player": p, "garnets": state.garnets.get(p, 0)} for p in state.players],
           PREFERENCES: [{"player": p, "first": pref.first, "second": pref.second,
                                   "garnets spent": pref.garnets, "drawn": p in state.drawn}
                                  for p, pref in state.preferences.items()],
           ASSIGNMENT: [{"event": e, "player": p} for e, members in (state.assignment or {}).items()
                                 for p in members]}
    for event in events:
        tab = ranking_tab(event.name, event.figures)
        ranked = state.rankings.get(event.name)
        out[tab.name] = [{"player": r.player, "place": r.place, "score": r.score,
                          "tiebreak": r.figures.get("tiebreak"),
                          **{c.name: r.figures.get(c.name) for c in event.figures}} for r in ranked or ()]
        if isinstance(event, Event):
            dumped = event.dump(state.events[event.name]) if event.name in state.events else {}
            out.update({t.name: dumped.get(t.name, []) for t in event.state_tabs})
    return out


def garnets_given(config: Mapping[str, Any], players: Sequence[str]) -> dict[str, int]:
    """Each player's garnets as the setting gives them (0 for one not named; a season names every
    player, 0 too, so that the tab is never a second say)."""
    return {p: 0 for p in players} | cells.named_counts(config.get(GARNETS.name), players, "a player", "garnets")[0]
