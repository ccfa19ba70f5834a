"""Spirit Chain: auctions of Elemental Spirits, upgrades and summonings (Death Match, 2 players)."""

from .game import GAME

__all__ = ["GAME"]
