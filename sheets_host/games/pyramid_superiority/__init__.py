"""Pyramid Superiority: guests propose pieces, players build a pyramid and score its groups (Main Match, 3 players and 6 guests)."""

from .game import GAME

__all__ = ["GAME"]
