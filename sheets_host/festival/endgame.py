"""The festival's endgame: each player's two event placements combined into an average ranking,
the sole winner (or tied winners), the Elimination Candidate and the garnets earned.

A lower average is better ("the highest average ranking" is 1st and 2nd, average 1.5). The
placements come from each event as `Placement` lists, ties already broken by the event; an
event hosted by hand arrives the same way, so nothing here differs for it.

>>> done = festival_endgame({"alchemy": [Placement("Ann", 1, 9), Placement("Bo", 2, 5)],
...                          "summoning": [Placement("Bo", 1, 3), Placement("Cy", 2, 0)],
...                          "continuum": [Placement("Ann", 1, 8), Placement("Cy", 2, 1)]},
...                         ["Cy", "Bo", "Ann"], {"Ann": 0, "Bo": 2})
>>> done.sole_winner, done.tokens, done.candidate, done.garnets
('Ann', {'Ann': 2}, 'Cy', {'Ann': 5, 'Bo': 4, 'Cy': 2})

Ann (1st and 1st) wins; Cy (2nd and 2nd) is the candidate; Bo's 2 gold earns a garnet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from sheets_host.kit.errors import SheetsHostError
from .assignment import EVENTS_PLAYED
from .event import Placement, place_by

GARNETS_FOR_PLACE = {1: 2, 2: 1, 3: 1}  # "1st place in an Event earns 2 garnets", 2nd and 3rd 1
SOLE_WINNER_TOKENS, TIED_WINNER_TOKENS = 2, 1


class EndgameError(SheetsHostError):
    """The placements cannot be combined: a player not in exactly two events, a gap in places."""


def ordinal(place: int) -> str:
    """
    >>> ordinal(1), ordinal(2), ordinal(3), ordinal(7), ordinal(11), ordinal(22)
    ('1st', '2nd', '3rd', '7th', '11th', '22nd')
    """
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def shown(average: Fraction) -> str:
    """An average with at most 2 decimals.

    >>> shown(Fraction(3)), shown(Fraction(5, 2)), shown(Fraction(7, 3))
    ('3', '2.5', '2.33')
    """
    return f"{float(average):.2f}".rstrip("0").rstrip(".")


def placements_by_player(placements: Mapping[str, Sequence[Placement]]) -> dict[str, dict[str, int]]:
    """Player -> event -> place, checking places 1..k in each event and two events per player."""
    places: dict[str, dict[str, int]] = {}
    for event, ranking in placements.items():
        if sorted(p.place for p in ranking) != list(range(1, len(ranking) + 1)):
            raise EndgameError(f"{event}: places {sorted(p.place for p in ranking)} are not 1 to {len(ranking)}")
        if len({p.player for p in ranking}) != len(ranking):
            raise EndgameError(f"{event}: a player is placed twice")
        for placement in ranking:
            places.setdefault(placement.player, {})[event] = placement.place
    wrong = sorted(p for p, events in places.items() if len(events) != EVENTS_PLAYED)
    if wrong or not places:
        raise EndgameError(f"every player is placed in exactly {EVENTS_PLAYED} events; not: "
                           f"{', '.join(f'{p} ({len(places[p])})' for p in wrong) or 'nobody is placed'}")
    return places


def average_ranking(places: Mapping[str, int]) -> Fraction:
    """The mean of a player's event placements, exact.

    >>> average_ranking({"alchemy": 2, "summoning": 5})
    Fraction(7, 2)
    """
    return Fraction(sum(places.values()), len(places))


def listed(players: Sequence[str], word: str = "and") -> str:
    """
    >>> listed(["Ann"]), listed(["Ann", "Bo"]), listed(["Ann", "Bo", "Cy"], "or")
    ('Ann', 'Ann and Bo', 'Ann, Bo or Cy')
    """
    return players[0] if len(players) == 1 else f"{', '.join(players[:-1])} {word} {players[-1]}"


def least(players: Sequence[str], key: Callable[[str], Fraction | int]) -> list[str]:
    """Those of `players` with the least `key`, in their order."""
    low = min(key(p) for p in players)
    return [p for p in players if key(p) == low]


def still_tied(tied: str, among: Sequence[str], still: Sequence[str], which: str, place: int) -> str:
    """Why players tied on an average are still tied after their best or worst placement."""
    if list(still) == list(among):
        return f"{tied}, each with a {which} placement of {ordinal(place)}"
    return f"{tied}, and {listed(still)} each have a {which} placement of {ordinal(place)}"


@dataclass(frozen=True)
class Decision:
    """Who a step of the endgame picked, and why in the announcement's words."""

    chosen: tuple[str, ...]
    why: str
    tied: tuple[str, ...] = ()  # the sole winner chooses the Elimination Candidate among these
    awaited: bool = False


def winners(players: Sequence[str], average: Mapping[str, Fraction],
            places: Mapping[str, Mapping[str, int]]) -> Decision:
    """The best average; tied, the best single placement among the tied; still tied, each is a winner."""
    best = least(players, lambda p: average[p])
    if len(best) == 1:
        return Decision((best[0],), f"{best[0]} has the best average ranking, {shown(average[best[0]])}.")
    tied = f"{listed(best)} tie on the best average, {shown(average[best[0]])}"
    best_single = least(best, lambda p: min(places[p].values()))
    place = min(places[best_single[0]].values())
    if len(best_single) == 1:
        return Decision((best_single[0],), f"{tied}; {best_single[0]} has the best single placement "
                                           f"among them, {ordinal(place)}.")
    return Decision(tuple(best_single), f"{still_tied(tied, best, best_single, 'best', place)}: no sole winner.")


def elimination_candidate(players: Sequence[str], average: Mapping[str, Fraction],
                          places: Mapping[str, Mapping[str, int]], sole_winner: str | None,
                          choice: str | None, tiebreak: Sequence[str]) -> Decision:
    """The worst average; tied, the worst single placement among the tied; still tied, the sole
    winner's `choice` (awaited until it names one of them), or with no sole winner the Gamewide
    Tiebreak (the latest in `tiebreak`)."""
    worst = least(players, lambda p: -average[p])
    if len(worst) == 1:
        return Decision((worst[0],), f"{worst[0]} has the worst average ranking, {shown(average[worst[0]])}.")
    tied = f"{listed(worst)} tie on the worst average, {shown(average[worst[0]])}"
    worst_single = least(worst, lambda p: -max(places[p].values()))
    place = max(places[worst_single[0]].values())
    if len(worst_single) == 1:
        return Decision((worst_single[0],), f"{tied}; {worst_single[0]} has the worst single placement "
                                            f"among them, {ordinal(place)}.")
    still = still_tied(tied, worst, worst_single, "worst", place)
    if sole_winner is not None:
        # Never among them: tied with the worst average, everyone ties, and then at least two
        # players hold a 1st place (see the doc), so there is no sole winner.
        chosen = [p for p in worst_single if p.casefold() == (choice or "").strip().casefold()]
        if not chosen:
            return Decision((), f"{still}: the sole winner, {sole_winner}, chooses among them.",
                            tuple(worst_single), awaited=True)
        return Decision((chosen[0],), f"{still}: the sole winner, {sole_winner}, chose {chosen[0]}.",
                        tuple(worst_single))
    last = place_by(worst_single, {p: () for p in worst_single}, tiebreak)[-1]
    return Decision((last,), f"{still}, and there is no sole winner: the Gamewide Tiebreak places {last} "
                             f"last of them.")


def garnets_distributed(placements: Mapping[str, Sequence[Placement]], titles: Mapping[str, str],
                        gold: Mapping[str, int], sole_winner: str | None) -> tuple[tuple[str, int, str], ...]:
    """(player, garnets, why): 2 for 1st place in an event, 1 for 2nd or 3rd; 1 to each Alchemy
    participant with the most gold, when that most is at least 1 (no gold, no garnet); 1 to the
    sole winner."""
    reasons = [(p.player, GARNETS_FOR_PLACE[p.place], f"{ordinal(p.place)} in {titles[event]}")
               for event, ranking in placements.items()
               for p in sorted(ranking, key=lambda p: p.place) if p.place in GARNETS_FOR_PLACE]
    most = max(gold.values(), default=0)
    if most >= 1:
        reasons += [(p, 1, f"the most gold left in Alchemy ({most} gold)") for p in gold if gold[p] == most]
    if sole_winner is not None:
        reasons.append((sole_winner, 1, "the sole winner"))
    return tuple(reasons)


@dataclass(frozen=True)
class FestivalResult:
    """The endgame, every step with its reason; players best first where an order is shown."""

    average: dict[str, Fraction]  # lower is better
    placements_of: dict[str, dict[str, int]]
    winners: tuple[str, ...]
    sole_winner: str | None
    tokens: dict[str, int]  # Tokens of Life, winners only
    candidate: str | None
    candidate_tied: tuple[str, ...]
    candidate_awaited: bool
    garnets: dict[str, int]  # those who earned any
    garnet_reasons: tuple[tuple[str, int, str], ...]
    winner_why: str
    candidate_why: str
    titles: dict[str, str]  # event -> its name in the announcement

    def lines(self) -> list[str]:
        """The final announcement, Markdown a line at a time."""
        out = ["**The festival's endgame**", "Average rankings (lower is better):"]
        for player, average in self.average.items():
            places = ", ".join(f"{ordinal(place)} in {self.titles[event]}"
                               for event, place in self.placements_of[player].items())
            out.append(f"- {player}: {shown(average)} ({places})")
        if self.sole_winner is not None:
            out.append(f"**Sole winner: {self.sole_winner}**, earning {self.tokens[self.sole_winner]} Tokens "
                       f"of Life and a garnet. {self.winner_why}")
        else:
            out.append(f"**Winners: {listed(self.winners)}**, earning {TIED_WINNER_TOKENS} Token of Life "
                       f"each. {self.winner_why}")
        if self.candidate_awaited:
            out.append(f"**Elimination Candidate: {self.sole_winner} chooses {listed(self.candidate_tied, 'or')}.** "
                       f"{self.candidate_why}")
        else:
            out.append(f"**Elimination Candidate: {self.candidate}**. {self.candidate_why}")
        out.append("**Garnets**")
        for player, total in self.garnets.items():
            why = ", ".join(f"{n} for {reason}" for p, n, reason in self.garnet_reasons if p == player)
            out.append(f"- {player}: {total} ({why})")
        return out


def festival_endgame(placements: Mapping[str, Sequence[Placement]], tiebreak: Sequence[str],
                     gold: Mapping[str, int], candidate_choice: str | None = None,
                     titles: Mapping[str, str] | None = None) -> FestivalResult:
    """The endgame from every event's final ranking; `titles` names events in the announcement."""
    places = placements_by_player(placements)
    titles = {event: (titles or {}).get(event, event) for event in placements}
    average = {p: average_ranking(events) for p, events in places.items()}
    players = sorted(places, key=lambda p: (average[p], min(places[p].values()), p.casefold(), p))
    won = winners(players, average, places)
    sole = won.chosen[0] if len(won.chosen) == 1 else None
    candidacy = elimination_candidate(players, average, places, sole, candidate_choice, tiebreak)
    reasons = garnets_distributed(placements, titles, gold, sole)
    earned = {p: sum(n for q, n, _ in reasons if q == p) for p in players}
    return FestivalResult(
        average={p: average[p] for p in players},
        placements_of={p: places[p] for p in players},
        winners=won.chosen, sole_winner=sole,
        tokens={p: SOLE_WINNER_TOKENS if sole is not None else TIED_WINNER_TOKENS for p in won.chosen},
        candidate=candidacy.chosen[0] if candidacy.chosen else None,
        candidate_tied=candidacy.tied, candidate_awaited=candidacy.awaited,
        garnets={p: n for p, n in earned.items() if n}, garnet_reasons=reasons,
        winner_why=won.why, candidate_why=candidacy.why, titles=titles)
