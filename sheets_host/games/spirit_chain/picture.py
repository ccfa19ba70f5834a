"""A picture (PNG) of a summoning, for the public announcement: the text's "update image after the
Summoning Phase", showing the cards played and the lights after all effects.

One row per player: the name and a lantern bar (lights out of 130), then the three slots, each a
card coloured by element (grey for Neutral Actions, a dashed outline for an empty slot) with its
name (an action: its effect) and what happened to it. Slots are matched in columns, 1 to 3 from the left. Deterministic (same input, same
bytes), 868 x 420 px.

>>> from .cards import Card, Effect, Element, Rank
>>> from .rules import clash
>>> c = clash(Card("Foxfire", Element.FIRE, Rank.III, Effect(damage=25)), None)
>>> draw_summoning(("Ada", "Blaise"), (c, c, c), (105, 80), "Spirit Chain")[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

from .cards import LANTERN, Element
from .rules import Clash, Fate

CARD_W, CARD_H, GAP = 190, 120, 24
LEFT = 230  # where the slots start
WIDTH, HEIGHT = LEFT + 3 * CARD_W + 2 * GAP + 20, 420
ROW_Y = (90, 250)
BACKGROUND, INK, MUTED = (248, 246, 240), (35, 35, 35), (120, 120, 120)
COLOURS = {Element.EARTH: (139, 101, 60), Element.WATER: (41, 98, 168), Element.FIRE: (196, 62, 40),
           Element.WIND: (62, 150, 110), None: (110, 110, 120)}
FATE_INK = {Fate.RESOLVED: (30, 110, 50), Fate.NEGATED: (170, 110, 0), Fate.DESTROYED: (170, 30, 30)}


@functools.lru_cache(maxsize=None)
def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow < 10.1: the fixed bitmap font
        return ImageFont.load_default()


def draw_summoning(players: Sequence[str], clashes: Sequence[Clash], lights: Sequence[int], title: str) -> bytes:
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    d = ImageDraw.Draw(image)
    d.text((20, 18), title, fill=INK, font=_font(24))
    for k, c in enumerate(clashes):
        x = LEFT + k * (CARD_W + GAP)
        d.text((x + CARD_W / 2, 64), f"slot {k + 1}", fill=MUTED, font=_font(16), anchor="mm")
    for side, y in enumerate(ROW_Y):
        d.text((20, y + 20), players[side], fill=INK, font=_font(22))
        share = max(0, min(LANTERN, lights[side])) / LANTERN
        d.rectangle((20, y + 60, 200, y + 80), outline=INK, width=2)
        if share:
            d.rectangle((22, y + 62, 22 + 176 * share, y + 78), fill=(232, 180, 40))
        d.text((20, y + 92), f"{lights[side]} lights", fill=INK, font=_font(18))
        for k, c in enumerate(clashes):
            x = LEFT + k * (CARD_W + GAP)
            card, fate = c.cards[side], c.fates[side]
            box = (x, y, x + CARD_W, y + CARD_H)
            if card is None:
                for dx in range(0, CARD_W, 16):  # a dashed outline
                    d.line((x + dx, y, x + min(dx + 8, CARD_W), y), fill=MUTED, width=2)
                    d.line((x + dx, y + CARD_H, x + min(dx + 8, CARD_W), y + CARD_H), fill=MUTED, width=2)
                d.text((x + CARD_W / 2, y + CARD_H / 2), "empty", fill=MUTED, font=_font(18), anchor="mm")
                continue
            d.rounded_rectangle(box, radius=10, fill=COLOURS[card.element])
            d.text((x + CARD_W / 2, y + 30), card.title, fill=(255, 255, 255), font=_font(20), anchor="mm")
            subtitle = card.name if card.is_spirit else str(card.effect)  # an action's title is its name
            d.text((x + CARD_W / 2, y + 58), subtitle, fill=(240, 240, 240), font=_font(15), anchor="mm")
            d.rounded_rectangle((x + 14, y + 80, x + CARD_W - 14, y + 108), radius=6, fill=(255, 255, 255))
            label = fate.value + (" (failed)" if fate is Fate.RESOLVED and c.failed[side] else "")
            d.text((x + CARD_W / 2, y + 94), label, fill=FATE_INK[fate], font=_font(15), anchor="mm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()
