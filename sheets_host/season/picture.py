"""A picture (PNG) of the season so far, posted with its summary (`season post`).

Drawn from the public season alone (`books.SeasonSeen`: what anyone may know, garnets only when
public, no artefact), so it cannot show what it is never given. Left, the games in order, a card
each, two to a row (a Main Match beside its Death Match): its number in its match's colour, its
title, and its result (the winners, the Elimination Candidates, who left the season; "under way"
and its players until it is over). Right, the cast in the season's order, a row each: the name
beside a bar of its standing's colour, what they hold that is public (Tokens of Life, cosmos,
garnets when public) and the standing in words; under both, a key. Discord shows a picture in a
box about 550 by 350 pixels: the picture is landscape and its smallest type 19 pixels, so that
a season of ten games and a cast of ten reads there at half size. The same season gives the
same bytes.

>>> from sheets_host.season.books import PlayerSeen
>>> view = SeasonSeen("s", (), (PlayerSeen("Ann", None, (), 1, 0, None),), False)
>>> draw(view)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import math

from sheets_host.kit.drawing import Canvas, fit
from sheets_host.kit.result import COSMOS, GARNET, TOKEN
from .books import (BACKGROUND, GUESTING, IN, INK, MATCH_COLOURS, MUTED, OUT, RULE, STANDING_COLOURS, UNDER_WAY,
                    GameSeen, PlayerSeen, SeasonSeen, plural)

MARGIN, GAP = 24, 14
CARD_W, CARD_H = 330, 114  # a game's card
GAME_COLUMNS = 2
CAST_W, ROW_H = 400, 62  # the cast's column, a player's row
TOP = 104  # where the games and the cast begin, under the title
WIDTH = MARGIN + GAME_COLUMNS * CARD_W + (GAME_COLUMNS - 1) * GAP + 2 * MARGIN + CAST_W + MARGIN
CAST_X = WIDTH - MARGIN - CAST_W
CARD, CARD_OUT = (255, 255, 255), (236, 233, 228)
# What a row shows of each thing held: its sign and colour (the key names them).
HELD = {TOKEN: ("♥", (200, 40, 90)), COSMOS: ("✦", (94, 53, 177)), GARNET: ("◆", (150, 20, 30))}
STANDING_WORDS = {IN: "still in", OUT: "eliminated", GUESTING: "eliminated, then a guest"}


def _heading(canvas: Canvas, x0: float, x1: float, y: float, text: str) -> None:
    canvas.text(x0, y, text, 24, INK, anchor="ls")
    canvas.rect((x0, y + 7, x1, y + 9), fill=RULE)


def _game(canvas: Canvas, x: float, y: float, g: GameSeen) -> None:
    colour = MATCH_COLOURS.get(g.match, MUTED)
    canvas.rect((x, y, x + CARD_W, y + CARD_H), fill=CARD, outline=RULE, radius=8)
    canvas.circle(x + 26, y + 27, 18, fill=colour)
    canvas.text(x + 26, y + 27, g.number, 20 if len(g.number) < 3 else 15, (255, 255, 255), align="center")
    canvas.text(x + 54, y + 20, fit(g.title, CARD_W - 62, 23), 23, INK, anchor="lm")
    canvas.text(x + 54, y + 43, g.match, 19, colour, anchor="lm")
    if not g.over:
        lines = [(UNDER_WAY + ": " + ", ".join(g.players), MUTED)]
    else:
        lines = [("won: " + (", ".join(g.winners) or "nobody"), INK)]
        if g.candidates:
            lines.append(("candidates: " + ", ".join(g.candidates), INK))
        if g.left:
            lines.append(("left: " + ", ".join(g.left), STANDING_COLOURS[OUT]))
    for k, (text, ink) in enumerate(lines[:2]):
        canvas.text(x + 14, y + 74 + 25 * k, fit(text, CARD_W - 24, 21), 21, ink, anchor="lm")


def _player(canvas: Canvas, y: float, p: PlayerSeen) -> None:
    x, out = CAST_X, p.out is not None
    canvas.rect((x, y, x + CAST_W, y + ROW_H - 6), fill=CARD_OUT if out else CARD, outline=RULE, radius=6)
    canvas.rect((x, y, x + 8, y + ROW_H - 6), fill=STANDING_COLOURS[p.kind])
    held = [(what, n) for what, n in ((TOKEN, p.tokens), (COSMOS, p.cosmos), (GARNET, p.garnets)) if n]
    signs = 0.0
    for what, n in reversed(held):  # from the right edge leftwards, so that they read in order
        sign, colour = HELD[what]
        signs += canvas.text_size(f"{sign}{n}", 21)[0] + 10
        canvas.text(x + CAST_W - signs, y + 18, f"{sign}{n}", 21, colour, anchor="lm")
    canvas.text(x + 18, y + 18, fit(p.player, CAST_W - 30 - signs, 22), 22, MUTED if out else INK, anchor="lm")
    canvas.text(x + 18, y + 41, fit(p.short, CAST_W - 28, 19), 19, STANDING_COLOURS[p.kind], anchor="lm")


def _key(canvas: Canvas, y: float, view: SeasonSeen) -> None:
    """What the colours and signs say: the standings shown, then the things held."""
    x = MARGIN
    for kind in [k for k in (IN, OUT, GUESTING) if any(p.kind == k for p in view.cast)]:
        canvas.rect((x, y - 9, x + 18, y + 9), fill=STANDING_COLOURS[kind])
        canvas.text(x + 26, y, STANDING_WORDS[kind], 19, INK, anchor="lm")
        x += 26 + canvas.text_size(STANDING_WORDS[kind], 19)[0] + 28
    for what in (TOKEN, COSMOS, GARNET):
        if what != GARNET or view.garnets_public:
            sign, colour = HELD[what]
            canvas.text(x, y, sign, 21, colour, anchor="lm")
            canvas.text(x + 24, y, plural(what), 19, INK, anchor="lm")
            x += 24 + canvas.text_size(plural(what), 19)[0] + 28


def draw(view: SeasonSeen) -> bytes:
    """The season so far: its games, its cast and a key (see the module)."""
    rows = max(1, math.ceil(len(view.games) / GAME_COLUMNS))
    body = max(rows * (CARD_H + GAP) - GAP, len(view.cast) * ROW_H - 6)
    canvas = Canvas(WIDTH, TOP + 38 + body + 60, BACKGROUND)
    done = [g for g in view.games if g.over]
    canvas.text(MARGIN, 44, fit(f"{view.name}: the season so far", WIDTH - 2 * MARGIN, 32), 32, INK, anchor="ls")
    canvas.text(MARGIN, 78, (f"after game {done[-1].number}" if done else "no game over yet") +
                f"; {len(view.still_in)} of {len(view.cast)} still in", 21, MUTED, anchor="ls")
    games_x1 = MARGIN + GAME_COLUMNS * CARD_W + (GAME_COLUMNS - 1) * GAP
    _heading(canvas, MARGIN, games_x1, TOP + 18, "Games")
    for k, g in enumerate(view.games):
        _game(canvas, MARGIN + (k % GAME_COLUMNS) * (CARD_W + GAP), TOP + 38 + (k // GAME_COLUMNS) * (CARD_H + GAP), g)
    if not view.games:
        canvas.text(MARGIN, TOP + 60, "no game yet", 21, MUTED, anchor="lm")
    _heading(canvas, CAST_X, WIDTH - MARGIN, TOP + 18, "Cast")
    for k, p in enumerate(view.cast):
        _player(canvas, TOP + 38 + k * ROW_H, p)
    _key(canvas, TOP + 38 + body + 32, view)
    return canvas.png()
