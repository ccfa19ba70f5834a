"""The pregame's submission: a player's first and second choice of event and the garnets spent on
the list, typed into the `preferences` tab (one row: first, second, garnets).

Rulings (docs/games/academy-of-witchcraft-arts.md):
- The list counts only with two different events named; otherwise the player is silent and
  their choices are drawn (`assignment`), with nothing spent.
- Garnets spent are a whole number from 0 to what the player holds (the host's `garnets` tab);
  blank is 0. More than they hold is refused: nothing is spent and the list still counts.
- Only the first row typed counts; later rows are named and ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sheets_host.kit import cells
from sheets_host.kit.cells import Problem, SubmitRow
from sheets_host.kit.game import Parsed
from sheets_host.kit.table import Column, SubmitTab, TabSchema

PREFERENCES = SubmitTab(TabSchema("preferences", (
    Column("first", doc="your first choice of event"),
    Column("second", doc="your second choice: another event"),
    Column("garnets", "int", lo=0, optional=True, doc="garnets spent on your list (blank: none); they break ties"),
)))


@dataclass(frozen=True)
class Preference:
    first: str
    second: str
    garnets: int = 0


def parse_preferences(player: str, rows: Sequence[SubmitRow], events: Mapping[str, str],
                      held: int) -> Parsed[Preference]:
    """The preference list in `rows` (the `preferences` tab's); `events` maps each event's name
    to its title (either is understood, any case); `held` is the garnets the player holds.

    >>> row = SubmitRow("Ann", 2, ["first", "second", "garnets"], {"first": "Summoner's Dream",
    ...                 "second": "alchemy", "garnets": 2})
    >>> parsed = parse_preferences("Ann", [row], {"alchemy": "Alchemy", "summoning": "Summoner's Dream"}, 3)
    >>> parsed.submission, parsed.kept
    (Preference(first='summoning', second='alchemy', garnets=2), "first Summoner's Dream, then Alchemy; 2 garnets spent")
    """
    problems: list[Problem] = []
    if not rows:
        return Parsed(None, (), "nothing: your choices will be drawn")
    row, *later = rows
    problems += [r.problem(None, "only the first row of the preferences tab counts; this row is ignored") for r in later]
    # The titles are what the dropdown offers and a message lists; the names are understood too.
    titles = list(events.values())
    named = {title: name for name, title in events.items()}

    def event(v: object) -> str:
        return named[cells.as_choice(v, titles, "an event", {name: title for title, name in named.items()})]

    first = row.read("first", event, problems, "no list")
    second = row.read("second", event, problems, "no list")
    if first is not None and first == second:
        problems.append(row.problem("second", f"{events[first]!r} is your first choice too: name another event; no list"))
        second = None
    if first is None or second is None:
        return Parsed(None, tuple(problems), "nothing: your choices will be drawn")
    garnets = row.read("garnets", lambda v: 0 if cells.is_blank(v) else cells.as_int(v, 0, 10**6, "garnets spent"),
                       problems, "nothing spent") or 0
    if garnets > held:
        problems.append(row.problem("garnets", f"{garnets} is more than the {held} garnets you hold; nothing spent"))
        garnets = 0
    spent = f"{garnets} garnet{'s' if garnets != 1 else ''} spent"
    return Parsed(Preference(first, second, garnets), tuple(problems), f"first {events[first]}, then {events[second]}; {spent}",
                  {LIST_PART: (row.ref,)})


LIST_PART = "list"  # the pregame's one part, as the resolver's fates name it
