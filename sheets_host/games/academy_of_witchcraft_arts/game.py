"""The Academy of Witchcraft Arts: a pregame, then six rounds of three events at once (Alchemy,
Elemental Continuum, Summoner's Dream), each player in two; the festival's endgame ranks them by
their average placement. The host may host any event by hand instead (config `hosted by hand`)."""

from __future__ import annotations

from sheets_host.events.alchemy import EVENT as ALCHEMY
from sheets_host.events.continuum import EVENT as CONTINUUM
from sheets_host.events.summoning import EVENT as SUMMONING
from sheets_host.festival.game import Festival


class Academy(Festival):
    name = "academy-of-witchcraft-arts"
    title = "Academy of Witchcraft Arts"
    min_players = 4
    max_players = 10  # "a maximum of 7 players may participate in each Event": 3 x 7 places, 2 each
    events = (ALCHEMY, CONTINUUM, SUMMONING)


GAME = Academy()
