"""The Academy of Witchcraft Arts: a pregame, then six rounds of three events at once (Alchemy,
Elemental Continuum, Summoner's Dream), each player in two; the festival's endgame ranks them by
their average placement. Summoner's Dream is hosted by hand until the tool runs it
(`festival.state.HandEvent`)."""

from __future__ import annotations

from ...events.alchemy import EVENT as ALCHEMY
from ...events.continuum import EVENT as CONTINUUM
from ...festival.game import Festival
from ...festival.state import HandEvent


class Academy(Festival):
    name = "academy-of-witchcraft-arts"
    title = "Academy of Witchcraft Arts"
    min_players = 4
    max_players = 10  # "a maximum of 7 players may participate in each Event": 3 x 7 places, 2 each
    events = (ALCHEMY, CONTINUUM, HandEvent("summoning", "Summoner's Dream"))


GAME = Academy()
