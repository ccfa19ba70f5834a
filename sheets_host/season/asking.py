"""A decision asked in a player's own book: the tab they type their choice into, and their choice
read back from it.

A decision a game leaves to a player goes in the `decision` tab of their book of that game; an
Elimination Candidate's Death Match pick in its `death match pick` tab. Each is one row: the choice
first (a dropdown of the choices; the parser decides, as for rounds), then what is decided, the
choices, the deadline, its status, the picks made before theirs, and the rule quoted. The tab is
written when the ask opens (its `asked` cell names the ask) and once more when it is decided; never
while the player may be typing, so nothing they type is overwritten.

>>> ask = Ask("1", "pick 1", ("Cy",), "your opponent", "the rule", ("Ann", "Di"), "b1")
>>> tab = ask_frame(ask, "2026-11-30 18:00")
>>> read_answer(tab.assign(**{"your choice": [" di "]}), ask)
('Di', ' di ', '')
>>> read_answer(tab.assign(**{"your choice": ["Bo"]}), ask)[2]
"tab 'death match pick', cell A2: 'Bo' is not one of the choices; allowed: Ann, Di"
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from sheets_host.kit import cells
from sheets_host.kit.layout import TabLayout, lay_out
from .books import wrapped
from .week import Ask, Decision

DECISION_TAB, PICK_TAB = "decision", "death match pick"
CHOICE = "your choice"
COLUMNS = (CHOICE, "you decide", "choices", "deadline (UTC)", "status", "picks before yours", "the rule", "asked")


def tab_of(ask: Ask) -> str:
    return PICK_TAB if ask.is_pick else DECISION_TAB


def ask_frame(ask: Ask, deadline: str, decided: Decision | None = None, typed: str = "") -> pd.DataFrame:
    """The ask's one row: open (the choice blank, for the player), or decided (what counted, from
    the season's own outcome row, never a second reading of what was typed)."""
    before = "; ".join(f"Elimination Candidate {k} {c} picked {o}" for k, (c, o) in enumerate(ask.before, 1))
    if decided is None:
        status = ("open: type your choice (one of the choices) by the deadline; it counts as soon as the season "
                  "reads it, and then cannot change")
    else:
        status = f"decided: {decided.choice} ({decided.note})"
    row = dict(zip(COLUMNS, [typed if decided else None, ask.yours, ", ".join(ask.choices), deadline, status,
                             before or "none", ask.rule, ask.basis]))
    if not ask.is_pick:
        del row["picks before yours"]
    return pd.DataFrame([row], dtype=object)


def ask_layout(frame: pd.DataFrame, ask: Ask, open_: bool) -> TabLayout:
    """The choice shaded for input with the choices as its dropdown while open; the rest read-only text."""
    layout = lay_out(frame, tab=tab_of(ask), choices={CHOICE: ask.choices} if open_ else {},
                     notes={CHOICE: "type one of the choices", "asked": "which ask this is (the season reads it)"},
                     input_rows=1 if open_ else 0, clipped=["asked"])
    # Read on a screen without scrolling far: the long texts wrap in narrow columns.
    return replace(wrapped(frame, layout, ("you decide", "choices", "status", "picks before yours", "the rule"), 28),
                   input_columns=1)


def read_answer(frame: pd.DataFrame | None, ask: Ask) -> tuple[str | None, str, str]:
    """(the choice or None, what was typed, why it does not count) from the tab as `ask_frame` wrote
    it for this ask; a tab of another ask (an earlier one, voided) reads as nothing typed."""
    if frame is None or CHOICE not in frame.columns or "asked" not in frame.columns or frame.empty:
        return None, "", ""
    row = frame.iloc[0]
    if cells.text(row["asked"]) != ask.basis:
        return None, "", ""
    raw = row[CHOICE]
    typed = "" if cells.is_blank(raw) else raw if isinstance(raw, str) else cells.text(raw)  # archived as typed
    if not typed.strip():
        return None, "", ""
    try:
        return cells.as_choice(typed, ask.choices, "one of the choices"), typed, ""
    except cells.CellError as e:
        return None, typed, f"tab {tab_of(ask)!r}, cell A2: {e}"


def stands(frame: pd.DataFrame | None, ask: Ask) -> bool:
    """Whether the player's tab is this ask's (else it is written, open)."""
    return frame is not None and "asked" in frame.columns and not frame.empty and \
        cells.text(frame.iloc[0]["asked"]) == ask.basis
