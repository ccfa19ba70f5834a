"""Magician's Market: sell magic goods to magicians, then bid for their shows (Main Match, 15 players)."""

from .game import GAME

__all__ = ["GAME"]
