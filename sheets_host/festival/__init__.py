"""Festivals: one game to the engine made of events, each a small game of its own over the players
assigned to it (the Academy of Witchcraft Arts: Alchemy, Elemental Continuum, Summoner's Dream).

- `event.Event`: what an event gives the festival; an event knows nothing of the festival or of
  other events, so a later festival with other events reuses it as is.
- `assignment`: the pregame, players placed in events by their preferences and garnets.
- `endgame`: placements combined into average rankings, the sole winner, the Elimination
  Candidate and the garnets earned.
"""
