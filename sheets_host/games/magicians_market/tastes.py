"""The tastes vocabulary: how a host writes a taste's market selector and quantity rule.

Market selectors (the `market` column):

- ``most``, ``fewest``, ``median``, ``smallest unique``, ``largest unique``: the one market holding
  that amount of the taste's good (markets holding none are ignored; the median of an even count
  is the higher middle amount). Add a good to compare another good: ``most rabbit``.
- ``sold to <magician> yesterday``, ``sold <good> to <magician> yesterday``: the one market that
  sold the taste's good (or the good named) to that magician the day before (Taste 3).

Quantity rules (the `quantity` column): a whole number (``3``); a share of the chosen market's
stock of the good, rounded up (``half``, ``third``, ``quarter``, ``1/3``, ``2/3``); or ``all``.

>>> goods = ["cape", "wand"]
>>> read_selector("Most  Wands", goods, {"wands": "wand"}, ["Jackie"])
Selector(pick=<Pick.MOST: 'most'>, good='wand', magician=None)
>>> selector_text(read_selector("sold cape to jackie yesterday", goods, {}, ["Jackie"]))
'sold cape to Jackie yesterday'
>>> quantity_text(read_quantity("HALF")), quantity_text(read_quantity("2/4")), quantity_text(read_quantity(3.0))
('half', 'half', '3')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from sheets_host.kit import cells
from .rules import Pick, Quantity, Selector

PICK_WORDS = {"most": Pick.MOST, "fewest": Pick.FEWEST, "least": Pick.FEWEST, "median": Pick.MEDIAN,
              "smallest unique": Pick.SMALLEST_UNIQUE, "largest unique": Pick.LARGEST_UNIQUE}
SHARE_WORDS = {"all": Fraction(1), "half": Fraction(1, 2), "third": Fraction(1, 3), "quarter": Fraction(1, 4)}
_SOLD = re.compile(r"sold(?:\s+(?P<good>.+?))?\s+to\s+(?P<magician>.+?)\s+yesterday")
_SHARE = re.compile(r"(\d+)\s*/\s*(\d+)")


def selector_help(goods: Sequence[str], magicians: Sequence[str]) -> str:
    return ("a market selector: most, fewest, median, smallest unique or largest unique (of the taste's "
            "good, or of another good named after it, e.g. 'most rabbit'), or 'sold to <magician> "
            "yesterday' / 'sold <good> to <magician> yesterday'; goods: " + ", ".join(goods)
            + "; magicians: " + ", ".join(magicians))


QUANTITY_HELP = ("a quantity rule: a whole number (e.g. 3), a share of the chosen market's stock rounded "
                 "up (half, third, quarter, or a fraction like 2/3), or all")


def read_selector(raw: object, goods: Sequence[str], good_aliases: Mapping[str, str],
                  magicians: Sequence[str], magician_aliases: Mapping[str, str] | None = None) -> Selector:
    """A market selector from its text; raises ValueError (a CellError for a bad good or magician)."""
    text = cells.text(raw).casefold()
    sold = _SOLD.fullmatch(text)
    if sold:
        good = sold["good"] and cells.as_choice(sold["good"], goods, "a good", good_aliases)
        magician = cells.as_choice(sold["magician"], magicians, "a magician", magician_aliases)
        return Selector(Pick.SOLD, good or None, magician)
    for word in sorted(PICK_WORDS, key=len, reverse=True):
        if text == word or text.startswith(word + " "):
            rest = text[len(word):].strip()
            rest = rest[3:] if rest.startswith("of ") else rest
            good = cells.as_choice(rest, goods, "a good", good_aliases) if rest else None
            return Selector(PICK_WORDS[word], good)
    raise ValueError(text)


def selector_text(selector: Selector) -> str:
    if selector.pick is Pick.SOLD:
        good = f" {selector.good}" if selector.good else ""
        return f"sold{good} to {selector.magician} yesterday"
    return selector.pick.value + (f" {selector.good}" if selector.good else "")


def read_quantity(raw: object) -> Quantity:
    """A quantity rule from its text; raises ValueError."""
    text = cells.text(raw).casefold().removeprefix("a ")
    if text in SHARE_WORDS:
        return Quantity(share=SHARE_WORDS[text])
    share = _SHARE.fullmatch(text)
    if share:
        top, bottom = int(share[1]), int(share[2])
        if 0 < top <= bottom:
            return Quantity(share=Fraction(top, bottom))
        raise ValueError(text)
    if text.isdigit() and int(text) > 0:
        return Quantity(fixed=int(text))
    raise ValueError(text)


def quantity_text(quantity: Quantity) -> str:
    if quantity.fixed:
        return str(quantity.fixed)
    names = {share: word for word, share in SHARE_WORDS.items()}
    return names.get(quantity.share, f"{quantity.share.numerator}/{quantity.share.denominator}")
