"""Wind Guide Me's colours, shared by the picture (PNG) and the books' cell backgrounds.

Kept apart from `picture` so that a book's views take the colours without importing Pillow.
"""

from __future__ import annotations

BACKGROUND = (250, 249, 246)
INK = (40, 40, 40)
MUTED = (120, 120, 120)
RING = (95, 95, 95)
FREE_FILL = (255, 255, 255)
STONE = (44, 62, 80)  # a placed wind stone
STONE_TEXT = (255, 255, 255)
VECTOR = (192, 57, 43)
FAILED_BG = (232, 232, 232)
FAILED_INK = (165, 165, 165)
FAILED_TEXT = (150, 40, 30)
AXIS = (210, 210, 210)
PLAYER_COLOURS = (
    (31, 119, 180), (44, 160, 44), (148, 103, 189), (211, 84, 0),
    (140, 86, 75), (227, 119, 194), (23, 140, 145), (127, 127, 0),
)
