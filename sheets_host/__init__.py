"""sheets-host: host online reality games whose data lives in spreadsheets.

A game is a pure resolver (state, submissions, seeded random generator) -> new state and views;
the books (spreadsheets) are read and written only at the edges, by a backend.
"""

__version__ = "0.1.0"
