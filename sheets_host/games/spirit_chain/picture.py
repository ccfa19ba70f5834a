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

from collections.abc import Sequence

from sheets_host.kit.drawing import Canvas, fit
from . import views
from .cards import LANTERN
from .colours import BACKGROUND, COLOURS, INK, MUTED
from .rules import Clash, Fate
from .state import Phase, SpiritChainState

CARD_W, CARD_H, GAP = 190, 120, 24
LEFT = 230  # where the slots start
WIDTH, HEIGHT = LEFT + 3 * CARD_W + 2 * GAP + 20, 420
ROW_Y = (90, 250)
FATE_INK = {Fate.RESOLVED: (30, 110, 50), Fate.NEGATED: (170, 110, 0), Fate.DESTROYED: (170, 30, 30)}


def draw_state(state: SpiritChainState, title: str) -> bytes | None:
    """After a summoning: the cards played, what happened to each, and the lights."""
    if state.phase is not Phase.AUCTION or not state.played:
        return None
    one, two = state.last_summoning()
    return draw_summoning(state.players, views.clashes(state, one, two), (one.lights, two.lights),
                          f"{title}: summoning of cycle {one.cycle}")


def draw_summoning(players: Sequence[str], clashes: Sequence[Clash], lights: Sequence[int], title: str) -> bytes:
    canvas = Canvas(WIDTH, HEIGHT, BACKGROUND, scale=1)  # 1:1, unsmoothed: the look it has always had
    canvas.text(20, 18, title, 24, INK, anchor="la")
    for k, c in enumerate(clashes):
        x = LEFT + k * (CARD_W + GAP)
        canvas.text(x + CARD_W / 2, 64, f"slot {k + 1}", 16, MUTED, anchor="mm")
    for side, y in enumerate(ROW_Y):
        canvas.text(20, y + 20, fit(players[side], LEFT - 40, 22), 22, INK, anchor="la")  # clear of the slots
        share = max(0, min(LANTERN, lights[side])) / LANTERN
        canvas.rect((20, y + 60, 201, y + 81), outline=INK, width=2)
        if share:
            canvas.rect((22, y + 62, 23 + 176 * share, y + 79), fill=(232, 180, 40))
        canvas.text(20, y + 92, f"{lights[side]} of {LANTERN} lights", 18, INK, anchor="la")  # what the bar is out of
        for k, c in enumerate(clashes):
            x = LEFT + k * (CARD_W + GAP)
            card, fate = c.cards[side], c.fates[side]
            if card is None:  # an empty slot: dashed above and below
                canvas.dashed_line((x, y), (x + CARD_W, y), MUTED, width=2, dash=8)
                canvas.dashed_line((x, y + CARD_H), (x + CARD_W, y + CARD_H), MUTED, width=2, dash=8)
                canvas.text(x + CARD_W / 2, y + CARD_H / 2, "empty", 18, MUTED, anchor="mm")
                continue
            # a slot runs from x to x + CARD_W included, as the dashes of an empty one do
            canvas.rect((x, y, x + CARD_W + 1, y + CARD_H + 1), fill=COLOURS[card.element], radius=10)
            canvas.text(x + CARD_W / 2, y + 30, card.title, 20, (255, 255, 255), anchor="mm")
            subtitle = card.name if card.is_spirit else str(card.effect)  # an action's title is its name
            canvas.text(x + CARD_W / 2, y + 58, subtitle, 15, (240, 240, 240), anchor="mm")
            canvas.rect((x + 14, y + 80, x + CARD_W - 13, y + 109), fill=(255, 255, 255), radius=6)
            label = fate.value + (" (failed)" if fate is Fate.RESOLVED and c.failed[side] else "")
            canvas.text(x + CARD_W / 2, y + 94, label, 15, FATE_INK[fate], anchor="mm")
    return canvas.png()
