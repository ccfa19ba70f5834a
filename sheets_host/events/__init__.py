"""Events a festival can host, each a folder exposing `EVENT` (a `festival.event.Event`): Alchemy, ..."""
