"""Spirit Chain's rules as pure functions over small values (no books, no pandas).

Each function carries the rule text's name for what it does: the auction, upgrades, the
Elemental Evaluation of two spirits, a summoning (three slots matched 1-1, 2-2, 3-3, every effect
resolved together), and the Death Match's winner.

>>> from .cards import Effect
>>> fire2 = Card("Salamander", Element.FIRE, Rank.II, Effect(damage=12))
>>> water1 = Card("Undine", Element.WATER, Rank.I, Effect(drain=3))
>>> elemental_evaluation(fire2, water1)
(<Fate.RESOLVED: 'resolved'>, <Fate.RESOLVED: 'resolved'>)

Water wins the typing against fire, so the lower rank keeps its effect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from .cards import LANTERN, Card, CardBook, Element, Rank, Title

PLAYERS = 2
SLOTS = 3
LOT = 5

Seat = int  # a player's place: 0 for the first named, 1 for the second


class Fate(Enum):
    RESOLVED = "resolved"
    NEGATED = "negated"
    DESTROYED = "destroyed"


# ---- the auction ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Sale:
    """One auctioned card's result: the winner's seat and price, or None for a tie."""

    winner: Seat | None
    price: int = 0


def auction(bids: Sequence[Sequence[int]]) -> list[Sale]:
    """Each card goes to the higher bid, who pays it; the lower bid is refunded; a tie (0 against
    0 included) gives the card to nobody and refunds both.

    >>> auction([(10, 5, 0), (3, 5, 0)])
    [Sale(winner=0, price=10), Sale(winner=None, price=0), Sale(winner=None, price=0)]
    """
    sales = []
    for a, b in zip(*bids):
        sales.append(Sale(None) if a == b else Sale(0, a) if a > b else Sale(1, b))
    return sales


# ---- upgrades --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Upgrade:
    """Spirits given up (`sources`, by title) for one spirit of the next rank (`target`)."""

    target: Title
    sources: tuple[Title, ...]


def upgrade_to(book: CardBook, target: Card, partners: Sequence[Card] = ()) -> Upgrade:
    """The upgrade that makes `target`: three Rank I of its element for a Rank II, two Rank II
    for a Rank III, and for a Rank IV two Rank III spirits of any elements, one of them of the
    target's element (`partners`: the two, or the one besides a Rank III of the target's element)."""
    if target.rank is Rank.II:
        return Upgrade(target.title, (book.spirit(target.element, Rank.I).title,) * 3)
    if target.rank is Rank.III:
        return Upgrade(target.title, (book.spirit(target.element, Rank.II).title,) * 2)
    own = book.spirit(target.element, Rank.III)
    pair = list(partners) if len(partners) == 2 else [own, *partners]
    return Upgrade(target.title, tuple(sorted(c.title for c in pair)))


def upgrade_problem(book: CardBook, upgrade: Upgrade, free: Mapping[str, int]) -> str | None:
    """Why `upgrade` cannot be made from the spirits in `free` (None when it can)."""
    target = book[upgrade.target]
    sources = [book[n] for n in upgrade.sources]
    if not target.is_spirit or target.rank is Rank.I:
        return f"{target.title} is not made by an upgrade (Rank II, III or IV spirits are)"
    if target.rank is Rank.IV:
        if len(sources) != 2 or any(c.rank is not Rank.III for c in sources):
            return "a Rank IV is made from two Rank III spirits"
        if target.element not in {c.element for c in sources}:
            return (f"a Rank IV takes the element of one of its two Rank III spirits "
                    f"({' or '.join(sorted({c.element.name + ' IV' for c in sources}))}), not {target.title}")
    need = Counter(upgrade.sources)
    short = [n for n, k in need.items() if free.get(n, 0) < k]
    if short:
        n = short[0]
        return f"{target.title} needs {need[n]} {book[n].title}; you have {free.get(n, 0) or 'none'} free to use"
    return None


def apply_upgrades(book: CardBook, free: Mapping[str, int], upgrades: Sequence[Upgrade]) -> Counter:
    """The free spirits after making `upgrades` in order (each may use what an earlier one made)."""
    free = Counter(free)
    for u in upgrades:
        assert upgrade_problem(book, u, free) is None, u
        free.subtract(u.sources)
        free[u.target] += 1
    return +free


def available_upgrades(book: CardBook, free: Mapping[str, int]) -> list[Upgrade]:
    """Every upgrade `free` allows right now (Rank IV once per possible pair and element)."""
    out = []
    for rank in (Rank.II, Rank.III):
        for element in Element:
            u = upgrade_to(book, book.spirit(element, rank))
            if upgrade_problem(book, u, free) is None:
                out.append(u)
    threes = sorted((book[t] for t, k in free.items() if k and book[t].rank is Rank.III), key=lambda c: c.title)
    for i, a in enumerate(threes):
        for b in threes[i:]:
            if a is not b or free[a.title] >= 2:
                for element in sorted({a.element, b.element}, key=lambda e: e.name):
                    out.append(upgrade_to(book, book.spirit(element, Rank.IV), (a, b)))
    return out


def forced_upgrades(book: CardBook, free: Mapping[str, int]) -> tuple[list[Upgrade], list[Upgrade]]:
    """'Yes': every upgrade whose result is forced, again and again, lowest rank first (every Rank II
    and III; a Rank IV only while every Rank IV possible is from two Rank III of its own element);
    and the Rank IV upgrades left, which need the player's choice."""
    done: list[Upgrade] = []
    while True:
        options = available_upgrades(book, free)
        step = next((u for u in options if book[u.target].rank is not Rank.IV), None)
        if step is None:
            if not options or any(book[s].element is not book[u.target].element for u in options for s in u.sources):
                return done, options
            step = options[0]
        done.append(step)
        free = apply_upgrades(book, free, [step])


# ---- the Elemental Evaluation and a summoning ------------------------------------------------


def elemental_evaluation(a: Card, b: Card) -> tuple[Fate, Fate]:
    """Two spirits matched in a slot. Equal ranks: a spirit is destroyed only when the other wins
    the typing. Different ranks: the higher is untouched; a Rank IV destroys a Rank I; otherwise
    the lower keeps its effect when it wins the typing, and else is negated, and destroyed when of
    the same element or when the higher wins the typing."""
    if a.rank == b.rank:
        return (Fate.DESTROYED if b.element.beats(a.element) else Fate.RESOLVED,
                Fate.DESTROYED if a.element.beats(b.element) else Fate.RESOLVED)
    if a.rank < b.rank:
        return elemental_evaluation(b, a)[::-1]
    if a.rank is Rank.IV and b.rank is Rank.I:
        return Fate.RESOLVED, Fate.DESTROYED
    if b.element.beats(a.element):
        return Fate.RESOLVED, Fate.RESOLVED
    if b.element is a.element or a.element.beats(b.element):
        return Fate.RESOLVED, Fate.DESTROYED
    return Fate.RESOLVED, Fate.NEGATED


@dataclass(frozen=True)
class Clash:
    """One slot pair after every effect: each side's card (None: empty), fate, and whether its
    effect failed to trigger (negated, destroyed, or every clause had nothing to act on)."""

    cards: tuple[Card | None, Card | None]
    fates: tuple[Fate | None, Fate | None]
    failed: tuple[bool, bool]
    imprisons: tuple[bool, bool]  # side k locks the opposing spirit for the next summoning

    def leaves_deck(self, side: int) -> bool:
        """Destroyed cards leave the deck, and Neutral Actions are used up, even when their effect
        fails, unless they are kept when failing (IMPRISON)."""
        card, fate = self.cards[side], self.fates[side]
        if card is None:
            return False
        if fate is Fate.DESTROYED:
            return True
        return not card.is_spirit and not (card.effect.kept_if_failed and self.failed[side])


def clash(a: Card | None, b: Card | None) -> Clash:
    """One slot pair: the Elemental Evaluation between spirits; then, together, negate and destroy
    from every card still acting; then imprison from every card still acting."""
    cards = (a, b)
    fates = list(elemental_evaluation(a, b)) if a and b and a.is_spirit and b.is_spirit else \
        [Fate.RESOLVED if c else None for c in cards]
    acting = [c is not None and f is Fate.RESOLVED for c, f in zip(cards, fates)]
    after = list(fates)
    for k in (0, 1):
        other = 1 - k
        if acting[k] and cards[other] is not None:
            if cards[k].effect.destroy:
                after[other] = Fate.DESTROYED
            elif cards[k].effect.negate and after[other] is Fate.RESOLVED:
                after[other] = Fate.NEGATED
    imprisons = tuple(
        after[k] is Fate.RESOLVED and cards[k].effect.imprison and cards[1 - k] is not None
        and cards[1 - k].is_spirit and after[1 - k] is not Fate.DESTROYED for k in (0, 1))
    failed = []
    for k in (0, 1):
        card, other = cards[k], cards[1 - k]
        if card is None:
            failed.append(False)
            continue
        e = card.effect
        took = e.always_acts or ((e.negate or e.destroy) and other is not None) or imprisons[k]
        failed.append(after[k] is not Fate.RESOLVED or not took)
    return Clash(cards, tuple(after), tuple(failed), imprisons)


@dataclass(frozen=True)
class Summoning:
    """A whole summoning: the three clashes, the lights after, and for each side the cards that
    leave its deck and the spirits locked in it for the next summoning."""

    clashes: tuple[Clash, ...]
    lights: tuple[int, int]
    damage: tuple[int, int]  # damage taken, after shields
    healed: tuple[int, int]
    leaving: tuple[tuple[str, ...], tuple[str, ...]]
    locked: tuple[tuple[str, ...], tuple[str, ...]]


def summon(lights: Sequence[int], slots: Sequence[Sequence[Card | None]]) -> Summoning:
    """All cards' effects together: each side's lights lose the damage (damage and drain) that
    gets past its shields and gain its heals (heal and drain), never above 130."""
    clashes = tuple(clash(slots[0][i], slots[1][i]) for i in range(SLOTS))
    dealt, heal, shield = [0, 0], [0, 0], [0, 0]
    for c in clashes:
        for k in (0, 1):
            if c.fates[k] is Fate.RESOLVED:
                e = c.cards[k].effect
                dealt[k] += e.damage + e.drain
                heal[k] += e.heal + e.drain
                shield[k] += e.shield
    taken = tuple(max(0, dealt[1 - k] - shield[k]) for k in (0, 1))
    after = tuple(min(LANTERN, lights[k] - taken[k] + heal[k]) for k in (0, 1))
    leaving = tuple(tuple(c.cards[k].title for c in clashes if c.leaves_deck(k)) for k in (0, 1))
    locked = tuple(tuple(c.cards[k].title for c in clashes if c.imprisons[1 - k]) for k in (0, 1))
    return Summoning(clashes, after, taken, tuple(heal), leaving, locked)


# ---- the Death Match -------------------------------------------------------------------------


class Ending(Enum):
    """How a Death Match ended (as python-chess's `Termination`): what decided the winner."""

    LIGHTS_REMAINING = "lights remaining"  # one side with lights, the other without
    SMALLER_ABSOLUTE_VALUE = "smaller absolute value"  # both without lights
    TIED_WITHOUT_LIGHTS = "tied without lights"  # both without lights, equally: the Opponent wins
    CYCLE_CAP = "cycle cap"  # both alive at the cap: more lights win
    CYCLE_CAP_TIED = "cycle cap, tied"  # both alive at the cap, equal lights: the Opponent wins

    @property
    def at_cap(self) -> bool:
        return self in (Ending.CYCLE_CAP, Ending.CYCLE_CAP_TIED)

    @property
    def by_opponent(self) -> bool:
        """Whether the Death Match Opponent won by winning a tie."""
        return self in (Ending.TIED_WITHOUT_LIGHTS, Ending.CYCLE_CAP_TIED)


@dataclass(frozen=True)
class DuelEnd:
    """The end of a Death Match (as python-chess's `Outcome`): the winner, how, and why in the
    books' words."""

    winner: Seat
    ending: Ending
    why: str


def death_match_end(lights: Sequence[int], opponent: Seat, at_cap: bool) -> DuelEnd | None:
    """The end at the close of a summoning; None while the duel goes on.

    One side with lights and the other without: the one with lights. Both without: the smaller
    absolute value, then the Death Match Opponent. At the cycle cap with both alive (a host
    decision): more lights, then the Death Match Opponent.

    >>> death_match_end((70, 90), 1, True)
    DuelEnd(winner=1, ending=<Ending.CYCLE_CAP: 'cycle cap'>, why='the cycle cap: more lights (90 against 70)')
    """
    a, b = lights
    if (a > 0) != (b > 0):
        return DuelEnd(0 if a > 0 else 1, Ending.LIGHTS_REMAINING, "lights remaining")
    if a <= 0:
        if abs(a) != abs(b):
            w = 0 if abs(a) < abs(b) else 1
            return DuelEnd(w, Ending.SMALLER_ABSOLUTE_VALUE,
                           f"smaller absolute value ({abs(lights[w])} against {abs(lights[1 - w])})")
        return DuelEnd(opponent, Ending.TIED_WITHOUT_LIGHTS, f"tied at {a} and {b}: the Death Match Opponent wins")
    if at_cap:
        if a != b:
            return DuelEnd(0 if a > b else 1, Ending.CYCLE_CAP,
                           f"the cycle cap: more lights ({max(a, b)} against {min(a, b)})")
        return DuelEnd(opponent, Ending.CYCLE_CAP_TIED,
                       f"the cycle cap, tied at {a} lights: the Death Match Opponent wins")
    return None


def death_match_winner(lights: Sequence[int], opponent: Seat, at_cap: bool) -> tuple[Seat | None, str]:
    """The winner's seat at the end of a summoning, and why as the books write it; (None, '')
    while the duel goes on (`death_match_end`).

    >>> death_match_winner((12, 0), 1, False), death_match_winner((-3, -5), 1, False)
    ((0, 'lights remaining'), (0, 'smaller absolute value (3 against 5)'))
    >>> death_match_winner((-4, -4), 1, False)
    (1, 'tied at -4 and -4: the Death Match Opponent wins')
    """
    end = death_match_end(lights, opponent, at_cap)
    return (end.winner, end.why) if end else (None, "")
