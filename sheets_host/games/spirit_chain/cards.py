"""Spirit Chain's cards as data: Elemental Spirits and Neutral Actions, and the effect vocabulary.

The rule text's card spreadsheet is lost, so the cards live in the host's `cards` tab. An effect
is a few clauses separated by ';' (or ','), each one of:

    damage N      N damage to the opponent's lights
    heal N        N lights back to the card's owner (never above 130)
    shield N      absorbs up to N of the damage the owner takes this summoning
    drain N       damage N and heal N
    negate        the card in the opposing slot has no effect
    destroy       the card in the opposing slot is destroyed (it leaves its owner's deck)
    imprison      the Elemental Spirit in the opposing slot, if it stays in the deck, is locked
                  for the next summoning (it cannot be played or upgraded)
    kept if failed   a Neutral Action that is not used up when its effect fails (as IMPRISON)
    none          no effect

>>> parse_effect("Damage 6; shield 2")
Effect(damage=6, shield=2)
>>> str(parse_effect("imprison, kept if failed"))
'imprison; kept if failed'
>>> parse_effect("burn 5")
Traceback (most recent call last):
...
ValueError: 'burn 5' is not an effect clause; allowed: damage N, heal N, shield N, drain N, negate, destroy, imprison, kept if failed, none (clauses separated by ';')
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from enum import Enum, IntEnum

from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaError, SchemaErrors

LANTERN = 130  # lights at the start, and the most a Ghost Lantern holds

Title = str  # how a card is referred to: ELEMENT RANK ('EARTH I'), or a Neutral Action's name


class Element(Enum):
    EARTH = "earth"
    WATER = "water"
    FIRE = "fire"
    WIND = "wind"

    def beats(self, other: Element) -> bool:
        """Typing advantage: earth beats water, water fire, fire wind, wind earth.

        >>> Element.WIND.beats(Element.EARTH), Element.EARTH.beats(Element.WIND)
        (True, False)
        """
        return _BEATS[self] is other


_BEATS = {Element.EARTH: Element.WATER, Element.WATER: Element.FIRE, Element.FIRE: Element.WIND,
          Element.WIND: Element.EARTH}


class Rank(IntEnum):
    I = 1
    II = 2
    III = 3
    IV = 4


_NUMBERED = ("damage", "heal", "shield", "drain")
_FLAGS = {"negate": "negate", "destroy": "destroy", "imprison": "imprison", "kept if failed": "kept_if_failed"}
VOCABULARY = "damage N, heal N, shield N, drain N, negate, destroy, imprison, kept if failed, none"


@dataclass(frozen=True)
class Effect:
    damage: int = 0
    heal: int = 0
    shield: int = 0
    drain: int = 0
    negate: bool = False
    destroy: bool = False
    imprison: bool = False
    kept_if_failed: bool = False

    def __repr__(self) -> str:
        set_fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                               if getattr(self, f.name) != f.default)
        return f"Effect({set_fields})"

    def __str__(self) -> str:
        parts = [f"{name} {getattr(self, name)}" for name in _NUMBERED if getattr(self, name)]
        parts += [word for word, name in _FLAGS.items() if getattr(self, name)]
        return "; ".join(parts) or "none"

    @property
    def always_acts(self) -> bool:
        """Whether some clause takes effect whatever the opposing slot holds."""
        return any(getattr(self, name) for name in _NUMBERED)


def parse_effect(raw: str) -> Effect:
    """An effect from its clauses; raises ValueError quoting the first bad clause."""
    values: dict[str, object] = {}
    clauses = [c for c in re.split(r"[;,]", cells.text(raw).casefold()) if c.strip()]
    for clause in clauses:
        clause = " ".join(clause.split())
        m = re.fullmatch(r"(damage|heal|shield|drain) \+?(\d+)", clause)
        name = m.group(1) if m else _FLAGS.get(clause, "none" if clause == "none" else None)
        if name is None:
            raise ValueError(f"{cells.quote(clause)} is not an effect clause; allowed: {VOCABULARY} "
                             "(clauses separated by ';')")
        if name in values:
            raise ValueError(f"{cells.quote(clause)} repeats a clause; each clause at most once")
        values[name] = int(m.group(2)) if m else True
    values.pop("none", None)
    return Effect(**values)


@dataclass(frozen=True)
class Card:
    """A card of the game. Spirits have an element and a rank; Neutral Actions have neither."""

    name: str
    element: Element | None
    rank: Rank | None
    effect: Effect
    weight: int = 0  # how often it appears in auctions (Rank I spirits and Neutral Actions)

    @property
    def is_spirit(self) -> bool:
        return self.element is not None

    @property
    def title(self) -> Title:
        """How the text asks hosts to refer to a card: ELEMENT RANK ('EARTH I'), or an action's name."""
        return f"{self.element.name} {self.rank.name}" if self.element else self.name


EMPTY_WORDS = ("empty", "none", "nothing", "-", "no card")
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "1": 1, "2": 2, "3": 3, "4": 4, "one": 1, "two": 2, "three": 3,
          "four": 4}
_FILLER = {"rank", "level", "tier", "elemental", "spirit", "card", "the", "a", "an", "of", "my", "st", "nd", "rd", "th",
           "upgrade", "make", "to", "into", "play"}  # words a player may add around ELEMENT RANK


def _words(text: str) -> list[str]:
    """Lower-case words, a number split from letters ('earth1' -> 'earth', '1')."""
    return re.findall(r"[^\W\d_]+|\d+", text.casefold())


def _contains(words: list[str], part: list[str]) -> bool:
    """Whether `part` occurs in `words` as consecutive words."""
    return bool(part) and any(words[i:i + len(part)] == part for i in range(len(words) - len(part) + 1))


class CardBook:
    """Every card of a game, by title (a spirit's ELEMENT RANK, an action's name): the key the
    state uses, as the text asks hosts to refer to spirits."""

    def __init__(self, cards: Iterable[Card]):
        self.cards = tuple(cards)
        self.by_title: dict[Title, Card] = {c.title: c for c in self.cards}
        self._spirits = {(c.element, c.rank): c for c in self.cards if c.is_spirit}
        self.rank_one = [c for c in self.cards if c.rank is Rank.I and c.weight > 0]
        self.actions = [c for c in self.cards if not c.is_spirit and c.weight > 0]
        self._name_words = {c.title: _words(c.name) for c in self.cards}
        self._known = {*Element._value2member_map_, *_ROMAN, *_FILLER,
                       *(w for ws in self._name_words.values() for w in ws)}

    def __getitem__(self, title: Title) -> Card:
        return self.by_title[title]

    def spirit(self, element: Element, rank: Rank) -> Card:
        return self._spirits[(element, rank)]

    def in_order(self, deck: Mapping[Title, int]) -> list[tuple[Title, int]]:
        """A deck's cards held (title, copies), in the `cards` tab's order."""
        order = {c.title: i for i, c in enumerate(self.cards)}
        return sorted(((t, n) for t, n in deck.items() if n), key=lambda tn: order[tn[0]])

    def read(self, raw: object, what: str = "a card") -> Card:
        """The card a player means: its title or name as written, else its title in any case,
        order or form ('Earth I', 'rank 1 earth', 'earth1', 'Pixie | Rank I Earth'), else a
        unique start of a title or name. Nothing is read past: a word that is no element, rank,
        card name or filler ('fire iix2'), two ranks ('2 FIRE II'), or a card's name beside another
        card's ELEMENT RANK ('Pixie | FIRE II') make the cell unreadable rather than misread.

        >>> book = CardBook([Card("Pixie", Element.EARTH, Rank.I, Effect()), Card("IMPRISON", None, None, Effect())])
        >>> book.read("Rank I Earth Elemental").title, book.read(" pixie ").title, book.read("imp").title
        ('EARTH I', 'EARTH I', 'IMPRISON')
        """
        t = cells.text(raw)
        aliases = {c.name: c.title for c in self.cards if c.is_spirit}
        exact = {k.casefold(): title for k, title in (aliases | {c: c for c in self.by_title}).items()}
        if t.casefold() in exact:  # first, so that no action's name is read as an ELEMENT RANK
            return self.by_title[exact[t.casefold()]]
        words = _words(t)
        elements = {Element(w) for w in words if w in Element._value2member_map_}
        ranks = [_ROMAN[w] for w in words if w in _ROMAN]
        readable = len(elements) == 1 and len(ranks) == 1 and self._known.issuperset(words) and not t.startswith("=")
        card = self._spirits.get((elements.pop(), Rank(ranks[0]))) if readable else None
        if card:
            named = [self[title] for title, name in self._name_words.items()
                     if title != card.title and _contains(words, name)]
            if named:
                raise cells.CellError(f"{cells.quote(t)} names {named[0].name} and {card.title}: "
                                      f"write one card ({what})")
            return card
        return self.by_title[cells.as_choice(raw, list(self.by_title), what, aliases)]

    def draw_lot(self, rng: random.Random) -> tuple[Card, ...]:
        """An auction's five cards: four Rank I spirits of random element, then one Neutral Action,
        each drawn by its auction weight."""
        spirits = rng.choices(self.rank_one, weights=[c.weight for c in self.rank_one], k=4)
        action = rng.choices(self.actions, weights=[c.weight for c in self.actions], k=1)
        return tuple(spirits + action)


def read_cards(rows: Iterable[Mapping]) -> CardBook:
    """The `cards` tab as a CardBook; raises SchemaErrors naming every bad row and column."""
    errors: list[SchemaError] = []
    read: list[tuple[Card, Mapping]] = []
    seen: dict[str, int] = {}

    def bad(row: Mapping, column: str | None, value: object, expected: str) -> None:
        errors.append(SchemaError("cards", row.get("_row"), column, value, expected))

    for row in rows:
        name = cells.text(row["name"])
        element = None if row["element"] == "neutral" else Element(row["element"])
        rank = Rank[row["rank"]] if row["rank"] else None
        if name.casefold() in seen:
            bad(row, "name", name, f"a new name (row {seen[name.casefold()]} has it)")
        seen[name.casefold()] = row.get("_row")
        if element and rank is None:
            bad(row, "rank", "", "a rank for an Elemental Spirit: I, II, III or IV")
        if element is None and rank is not None:
            bad(row, "rank", rank.name, "blank for a Neutral Action")
        if element and rank and rank is not Rank.I and row["auction weight"]:
            bad(row, "auction weight", row["auction weight"],
                "0 for a Rank II-IV spirit (auctions offer Rank I spirits; the rest come from upgrades)")
        try:
            effect = parse_effect(row["effect"])
        except ValueError as e:
            bad(row, "effect", row["effect"], f"an effect: {e}")
            continue
        read.append((Card(name, element, rank, effect, row["auction weight"]), row))
    titles: dict[str, Card] = {}
    for card, row in read:
        if card.title in titles and card.is_spirit:
            bad(row, "rank", card.rank.name, f"a rank no other {card.element.name} spirit has "
                                             f"({titles[card.title].name} is {card.title})")
        elif card.title in titles:
            bad(row, "name", card.name, f"a name that is not a spirit's ELEMENT RANK ({titles[card.title].name} is)")
        titles.setdefault(card.title, card)
    for element in Element:
        for rank in Rank:
            if f"{element.name} {rank.name}" not in titles and not errors:
                errors.append(SchemaError("cards", None, "rank", f"no {element.name} {rank.name}",
                                          "complete: one spirit of every element at every rank (upgrades make them)"))
    cards = [card for card, _ in read]
    if not errors:
        if not any(c.rank is Rank.I and c.weight for c in cards):
            errors.append(SchemaError("cards", None, "auction weight", "0 for every Rank I spirit",
                                      "above 0 for some Rank I spirit (auctions need them)"))
        if not any(not c.is_spirit and c.weight for c in cards):
            errors.append(SchemaError("cards", None, "auction weight", "0 for every Neutral Action",
                                      "above 0 for some Neutral Action (each auction offers one)"))
    if errors:
        raise SchemaErrors(errors)
    return CardBook(cards)


def is_empty_word(raw: object) -> bool:
    """A slot left empty on purpose: blank, or a word such as 'empty' or 'none'."""
    return cells.is_blank(raw) or cells.text(raw).casefold() in EMPTY_WORDS

