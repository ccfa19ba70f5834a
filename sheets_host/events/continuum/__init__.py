"""Elemental Continuum (Academy of Witchcraft Arts): boards of elemental wards, struck by bolts."""

from .event import ContinuumEvent

EVENT = ContinuumEvent()
