"""Pyramid Superiority's colours, shared by the picture (PNG) and the books' cell backgrounds.

Kept apart from `picture` so that a book's views take the colours without importing Pillow. The
three types' colours are the three meadows' colours too: fire red, grass green, water blue.
"""

from __future__ import annotations

from .rules import Type

BACKGROUND = (250, 249, 246)
INK = (40, 40, 40)
MUTED = (130, 130, 130)
EMPTY = (236, 234, 228)
SHADOW = (150, 146, 140)
STAR_FILL = (255, 208, 0)
RED, GREEN, BLUE = (229, 57, 53), (67, 160, 71), (30, 120, 229)
COLOURS = {Type.GRASS: GREEN, Type.FIRE: RED, Type.WATER: BLUE}
MEADOW_COLOURS = {"blue": BLUE, "red": RED, "green": GREEN}  # by Meadow value
