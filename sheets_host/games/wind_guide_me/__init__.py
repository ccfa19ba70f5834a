"""Wind Guide Me: place wind stones at ritual sites to travel the farthest (Main Match, 7 players)."""

from .game import GAME

__all__ = ["GAME"]
