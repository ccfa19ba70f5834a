"""Summoner's Dream, an event of the Academy of Witchcraft Arts (see `event.py`)."""

from .event import SummoningEvent

EVENT = SummoningEvent()
