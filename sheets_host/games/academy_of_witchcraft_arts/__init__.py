"""The Academy of Witchcraft Arts (Main Match, 10 players): a festival of three events."""

from .game import GAME

__all__ = ["GAME"]
