"""Spirit Chain's colours, shared by the picture (PNG) and the books' cell backgrounds.

Kept apart from `picture` so that a book's views take the colours without importing Pillow.
"""

from __future__ import annotations

from .cards import Element

BACKGROUND, INK, MUTED = (248, 246, 240), (35, 35, 35), (120, 120, 120)
COLOURS = {Element.EARTH: (139, 101, 60), Element.WATER: (41, 98, 168), Element.FIRE: (196, 62, 40),
           Element.WIND: (62, 150, 110), None: (110, 110, 120)}  # None: a Neutral Action
