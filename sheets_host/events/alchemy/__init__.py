"""Alchemy (Academy of Witchcraft Arts): gather materials, engineer constructs, sell them for gems."""

from .event import AlchemyEvent

EVENT = AlchemyEvent()
