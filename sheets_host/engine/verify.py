"""`verify`: a game's record checked against itself and against what was published, offline.

Every check is one line, passed or failed; a failed one says exactly what differs (`docs/verify.md`):

- the record: its format, and every commitment's encoding known to this version of the tool;
- the seed: the record's seed and salt give the seed commitment (`commitment.seed_text`);
- each round: every player's canonical text gives their commitment and is theirs (game, round,
  player, salt); the game played again from the record alone (`replaying`) resolves the round
  from a state and host decisions that give the host's commitment; the commitments in seating
  order give the round's root; superseded commitments are checked as the others;
- the chain (`chain.py`): the seed, each root and each undo commit to the link before them, and every root
  marked superseded is named by the later link that superseded it;
- roots a player kept (`--root`, `--roots`): each is a link of the record's chain, so the record
  is the history that was published up to it;
- against what was published (a public book, the announcement files): the commitments tab, every
  public tab the game wrote at its end, the announcements tab, and each round's announcement file,
  cell by cell and line by line.

`history` lists what the host did besides resolving: each redo, undo and edit of the state between
rounds, with the host's reason, from the chain and the record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sheets_host.backends import rows_from_frame, written_header
from sheets_host.kit import cells
from sheets_host.kit.commitment import ENCODINGS, KINDS, digest, root_text
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.game import Game
from sheets_host.kit.layout import keyed
from . import commitments
from .announcements_tab import announcements
from .delivery import view_layouts
from .history import fixed_inputs
from .record import FORMAT, VERSION
from . import chain as chained
from .checks import Check
from .replaying import Start, play_round, submissions_of

@dataclass
class Published:
    """What the game published, as read: the public book's tabs, and the announcement files by round."""

    tabs: Mapping[str, pd.DataFrame] | None = None
    files: Mapping[int, str] = field(default_factory=dict)
    where: str = ""


SHOWN = 8  # differences shown of one tab or file; the rest are counted


def load_record(path: Path) -> dict[str, Any]:
    return checked_record(read_json(path), str(path))


def read_json(path: Path) -> object:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise SheetsHostError(f"{path} is not a record sheets-host can read: {e}") from None


def of_format(record: object, name: str, form: str = FORMAT, version: int = VERSION) -> dict[str, Any]:
    """`record` if it is a record of `form` and `version`; refused naming `name` otherwise."""
    if not isinstance(record, dict) or record.get("format") != form:
        raise SheetsHostError(f"{name} is not a {form} (its 'format' is not {form!r})")
    if record.get("version") != version:
        raise SheetsHostError(f"{name} is a record of version {record.get('version')!r}; this sheets-host reads "
                              f"version {version}")
    return record


def lacking(entry: Mapping[str, Any], fields: Mapping[str, type | tuple[type, ...]]) -> list[str]:
    """The fields `entry` lacks or holds with another type, each with the type it should be.

    >>> lacking({"round": 1, "attempt": True}, {"round": int, "attempt": int, "text": (str, type(None))})
    ["'attempt' (int)", "'text' (str or NoneType)"]
    """
    return [f"{name!r} ({' or '.join(k.__name__ for k in _kinds(kind))})" for name, kind in fields.items()
            if name not in entry or not _is(entry[name], kind)]


def checked_record(record: object, name: str) -> dict[str, Any]:
    """A game's record (`record.py`) whole enough to verify; refused naming `name` and what it lacks."""
    record = of_format(record, name)
    wrong = lacking(record, FIELDS)
    if wrong:
        raise SheetsHostError(f"{name} is damaged: it lacks {', '.join(wrong)}, which a record holds (docs/verify.md)")
    if not all(isinstance(p, str) and p for p in record["players"]):
        raise SheetsHostError(f"{name} is damaged: its 'players' are not all names (docs/verify.md)")
    for what, entries, fields in (("round", record["rounds"], ROUND_FIELDS),
                                  ("commitment", record["commitments"], COMMITMENT_FIELDS)):
        for n, entry in enumerate(entries, 1):
            if not isinstance(entry, dict):
                raise SheetsHostError(f"{name} is damaged: its {what} {n} is not a record's {what} (docs/verify.md)")
            wrong = lacking(entry, fields)
            if wrong:
                raise SheetsHostError(f"{name} is damaged: its {what} {n} lacks {', '.join(wrong)} (docs/verify.md)")
            if what == "commitment" and entry["kind"] not in KINDS:
                raise SheetsHostError(f"{name} is damaged: its commitment {n}'s 'kind' is {entry['kind']!r}, not one "
                                      f"of {', '.join(KINDS)} (docs/verify.md)")
            if what == "commitment" and not (entry["text"] or "").isascii():  # a canonical text escapes the rest
                raise SheetsHostError(f"{name} is damaged: its commitment {n}'s 'text' is not a canonical text "
                                      "(one line of ASCII) (docs/verify.md)")
    return record


# What a record must hold, by type, for `verify` to read it (docs/verify.md lists every field).
FIELDS = {"game": str, "players": list, "seed": int, "settings": dict, "data": dict, "commitments": list, "rounds": list}
ROUND_FIELDS = {"round": int, "attempt": int, "host decisions": dict, "host inputs": dict}
COMMITMENT_FIELDS = {"round": int, "attempt": int, "kind": str, "player": (str, type(None)), "encoding": int,
                     "salt": (str, type(None)), "commitment": str, "made at": str, "superseded": (str, type(None)),
                     "text": (str, type(None))}


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _is(value: object, kind: type | tuple[type, ...]) -> bool:
    """Whether `value` is of `kind` as JSON gives it (true and false are not numbers here).

    >>> _is(3, int), _is(True, int), _is(None, (str, type(None)))
    (True, False, True)
    """
    return isinstance(value, kind) and not (isinstance(value, bool) and bool not in _kinds(kind))


def announcement_files(folder: Path) -> dict[int, str]:
    """The round announcements an output folder holds (`round-NN.md`), by round."""
    out = {}
    for path in sorted(Path(folder).glob("round-*.md")):
        number = path.stem.removeprefix("round-")
        if number.isdigit():
            out[int(number)] = path.read_text(encoding="utf-8")
    return out


@dataclass
class Verified:
    """Every check of a record, and the game played again from it: its game and the state its
    last round gave (the setup's for a record of no round; None when a round could not be played)."""

    checks: list[Check]
    game: Game | None = None
    end: Any = None


def verify(record: Mapping[str, Any], published: Published | None = None, kept: Sequence[str] = ()) -> list[Check]:
    """Every check of `record`, in order (see the module); `kept`: roots a player kept."""
    return verified(record, published, kept).checks


def verified(record: Mapping[str, Any], published: Published | None = None, kept: Sequence[str] = ()) -> Verified:
    """`verify`'s checks with the state the game played again from the record ends in."""
    try:  # a game, settings or data tab the game refuses (SchemaErrors), set up as the engine would
        start = Start.of(record)
        state = start.setup()
    except (SheetsHostError, KeyError, TypeError, ValueError) as e:
        return Verified([Check("the record's game, players, settings and data", [f"they cannot be read: {e}"])])
    game = start.game
    rows = list(record["commitments"])
    checks = [_encodings(rows), _seed(record, rows), chained.chain(start.game, rows)]
    checks += [chained.kept(start.game, rows, root) for root in dict.fromkeys(kept)]
    replayed = []
    for round_record in record["rounds"]:
        number, name = round_record["round"], game.round_name(round_record["round"])
        check = Check(f"{name}: what counted, the host's inputs and the round root")
        check.differences += _submissions(game.name, [r for r in rows if r["round"] == number])
        mine = submissions_of(rows, number, round_record["attempt"])
        missing = [p for p in start.players if p not in mine]
        if missing:
            check.differences.append(f"no commitment to what counted for {', '.join(missing)}")
        try:
            played = play_round(start, round_record, state, rows)
        except (SheetsHostError, KeyError, ValueError, TypeError) as e:
            check.differences.append(f"the round cannot be played again from the record: {e}")
            checks.append(check)
            break
        check.differences += _host(start, round_record, played.before, rows)
        check.differences += _root(game.name, start.players, rows, round_record)
        checks.append(check)
        replayed.append(played)
        state = played.after
    superseded = [r for r in rows if r["kind"] == "submission" and r.get("superseded") and r["round"] not in
                  {rr["round"] for rr in record["rounds"]}]
    if superseded:  # commitments of a round undone and never resolved again (a lock withdrawn)
        checks.append(Check("commitments withdrawn with their round", _submissions(game.name, superseded)))
    if published is not None:
        checks += _against(record, start, rows, replayed, published)
    return Verified(checks, game, state if len(replayed) == len(record["rounds"]) else None)


def history(record: Mapping[str, Any]) -> list[str]:
    """What the host did besides resolving (`chain.history`); nothing for a record of no game known."""
    try:
        game = Start.of(record).game
    except (SheetsHostError, KeyError, TypeError, ValueError):
        return []
    return chained.history(game, record)


def _encodings(rows: Sequence[Mapping]) -> Check:
    unknown = sorted({r.get("encoding") for r in rows} - set(ENCODINGS), key=str)
    return Check(f"every commitment's encoding is known ({', '.join(map(str, ENCODINGS))})",
                 [f"encoding {e!r} is unknown to this version: use a newer sheets-host" for e in unknown])


def _seed(record: Mapping, rows: Sequence[Mapping]) -> Check:
    check = Check("seed: the record's seed and salt give the seed commitment published when the game was made")
    seeds = [r for r in rows if r["kind"] == "seed"]
    if not seeds:
        check.differences.append("the record holds no seed commitment (a game made before commitments)")
        return check
    seed = seeds[0]
    text = seed.get("text") or ""
    if digest(text) != seed["commitment"]:
        check.differences.append(f"its canonical text gives {digest(text)}, the commitment is {seed['commitment']}")
    fields = commitments.fields_of(text)
    if fields.get("seed") != record["seed"] or fields.get("game") != record["game"]:
        check.differences.append(f"the record's game and seed are {record['game']!r} and {record['seed']!r}; "
                                 f"the commitment is to {fields.get('game')!r} and {fields.get('seed')!r}")
    if fields.get("salt") != seed.get("salt"):
        check.differences.append(f"the record's salt {seed.get('salt')!r} is not the one committed to")
    return check


def _submissions(game: str, rows: Sequence[Mapping]) -> list[str]:
    """Each submission commitment's text gives it, and is the player's, of its round, with its salt."""
    out = []
    for r in [r for r in rows if r["kind"] == "submission"]:
        who = f"{r['player']}'s submission (attempt {r['attempt']}{', superseded' if r.get('superseded') else ''})"
        text = r.get("text") or ""
        if digest(text) != r["commitment"]:
            out.append(f"{who}: the record's text gives {digest(text)}, the commitment is {r['commitment']}")
        fields = commitments.fields_of(text)
        expected = {"game": game, "round": r["round"], "player": r["player"], "salt": r.get("salt")}
        wrong = [k for k, v in expected.items() if fields.get(k) != v]
        if wrong:
            out.append(f"{who}: its text's {', '.join(wrong)} "
                       f"{'is' if len(wrong) == 1 else 'are'} not the record's ({', '.join(repr(fields.get(k)) for k in wrong)})")
    return out


def _host(start: Start, round_record: Mapping, before: Any, rows: Sequence[Mapping]) -> list[str]:
    number = round_record["round"]
    hosts = commitments.of_attempt(rows, number, round_record["attempt"], "host")
    if not hosts:
        return ["no commitment to the host's inputs"]
    host = hosts[-1]
    config = start.config(round_record["host decisions"])
    fixed = fixed_inputs(start.game, config, start.data) if number == 1 else None
    again = commitments.host_commitment(start.game, number, before, fixed, round_record["host decisions"],
                                        round_record, host.get("salt") or "")
    if again == host["commitment"]:
        return []
    changed = ", ".join(round_record["host inputs"]) or "none"
    return [f"the host's inputs (tabs changed: {changed}), decisions {round_record['host decisions']} and window, "
            f"with the state the round before gave, give {again}; the host's commitment is {host['commitment']}"]


def _root(game: str, players: Sequence[str], rows: Sequence[Mapping], round_record: Mapping) -> list[str]:
    number, attempt = round_record["round"], round_record["attempt"]
    mine = submissions_of(rows, number, attempt)
    hosts, roots = (commitments.of_attempt(rows, number, attempt, kind) for kind in ("host", "round"))
    if not roots or not hosts:
        return ["no round root"]
    # What links it (the link before, what it supersedes, the reason) is the chain's check.
    linked = commitments.fields_of(roots[-1].get("text") or "")
    again = digest(root_text(game, number, [(p, mine[p]["commitment"]) for p in players if p in mine],
                             hosts[-1]["commitment"], linked.get("previous"), linked.get("supersedes") or (),
                             linked.get("reason"), linked.get("edits"), encoding=roots[-1]["encoding"]))
    told = [] if linked.get("edits") is None or sorted(linked["edits"]) == sorted(round_record["host inputs"]) else [
        f"the root says the host changed the state tab(s) {', '.join(map(repr, linked['edits'])) or 'none'} since the "
        f"round before; played again from the record, they are {', '.join(map(repr, round_record['host inputs'])) or 'none'}"]
    if again == roots[-1]["commitment"]:
        return told
    return told + [f"the commitments in the record's seating order ({', '.join(players)}) give the root {again}; "
            f"the round root is {roots[-1]['commitment']}"]


# ---- against what was published ---------------------------------------------------------------------------


def _against(record: Mapping, start: Start, rows: Sequence[Mapping], replayed: Sequence, published: Published) -> list[Check]:
    game = start.game
    out = []
    if published.tabs is not None and (other := _of_another_game(rows, published)):
        out.append(other)
    elif published.tabs is not None:
        out += _as_new(game, rows, published)
        tabs: dict[str, pd.DataFrame] = {commitments.PUBLIC_TAB: commitments.public_frame(game, rows)}
        if replayed and len(replayed) == len(record["rounds"]):
            views = game.public_view(replayed[-1].after)
            # As delivered: each with its key, where its colours need one.
            tabs.update({name: keyed(views[name], layout)[0] for name, layout in view_layouts(game, views).items()})
            board = None
            for played in replayed:
                board = announcements(game, board, played.number, played.text)
            if board is not None:
                tabs["announcements"] = board
        for name, frame in tabs.items():
            check = Check(f"{published.where}: tab {name!r} as the record gives it")
            if name not in published.tabs:
                check.differences.append(f"the published book has no {name!r} tab")
            else:
                check.differences += _cells(name, published.tabs[name], frame)
                check.compared = max(len(_table(published.tabs[name])), len(frame) + 1) * len(frame.columns)
            out.append(check)
    for played in replayed:
        if played.number in published.files:
            name = f"round-{played.number:02d}.md"
            out.append(Check(f"{name}: {game.round_name(played.number)}'s announcement as the record gives it",
                             _lines(name, published.files[played.number], played.text),
                             len(played.text.splitlines())))
    if not any(c.compared for c in out):  # a check that compared nothing must not pass (a player's folder, say)
        out.append(Check(f"{published.where or 'what was given'}: something published to compare",
                         ["it holds no public book and no announcement of a round of this record: nothing was "
                          "compared (give the game's public book, its folder or its announcements)"]))
    return out


def _shown_commitments(published: Published) -> list[str]:
    tab = published.tabs.get(commitments.PUBLIC_TAB) if published.tabs else None
    if tab is None or "commitment" not in tab.columns:
        return []
    return [cells.text(v) for v in tab["commitment"] if not cells.is_blank(v)]


def _of_another_game(rows: Sequence[Mapping], published: Published) -> Check | None:
    """A public book whose first commitment is not the record's seed commitment is another game's
    (or this one made again): said once, instead of every cell that differs for that reason."""
    shown = _shown_commitments(published)
    seed = next((r["commitment"] for r in rows if r["kind"] == "seed"), None)
    if not shown or seed is None or shown[0] == seed:
        return None
    return Check(f"{published.where}: tab 'commitments' is of the record's game", [
        f"its first commitment, the seed's, is {shown[0]}; the record's is {seed}: it is the public book of another "
        "game, or of this game made again with another seed, so none of its tabs is compared"], compared=1)


def _as_new(game, rows: Sequence[Mapping], published: Published) -> list[Check]:
    """A public book saved before the record (mid-game) holds only the first of the record's
    commitments: said once, before the tabs that differ for it, rather than left to read as tampering."""
    shown = _shown_commitments(published)
    made = [r["commitment"] for r in rows]
    if not shown or len(shown) >= len(made) or shown != made[:len(shown)]:
        return []
    last = next(r for r in rows if r["commitment"] == shown[-1])["round"]
    return [Check(f"{published.where}: as new as the record",
                  [f"it holds the commitments up to {commitments.round_label(game, last)}, the record up to "
                   f"{commitments.round_label(game, rows[-1]['round'])}: a copy saved before the record was written, "
                   "so its tabs cannot match the record's end (verify against the public book as it is now)"])]


def compared(checks: Sequence[Check]) -> str:
    """What the checks compared with what was published, for the summary.

    >>> compared([Check("public.xlsx: tab 'a'", compared=12), Check("public.xlsx: tab 'b'", compared=3),
    ...           Check("round-01.md: day 1's announcement", compared=4)])
    '15 cells in 2 tabs and 4 lines in 1 announcement compared'
    """
    tabs = [c.compared for c in checks if c.compared and ": tab " in c.what]
    files = [c.compared for c in checks if c.compared and ": tab " not in c.what]
    parts = ([f"{sum(tabs):,} cells in {len(tabs)} tab{'s' * (len(tabs) != 1)}"] if tabs else []) + \
            ([f"{sum(files):,} lines in {len(files)} announcement{'s' * (len(files) != 1)}"] if files else [])
    return " and ".join(parts) + " compared" if parts else "nothing compared"


def _quote(text: str) -> str:
    """A cell's text in a difference: whole up to a long line (a commitment's 64 digits included)."""
    return repr(text if len(text) <= 100 else text[:100] + "…")


def _shown(value: object) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return cells.text(value)


def _table(frame: pd.DataFrame) -> list[list[str]]:
    """A tab as a reader sees it: the header and every row as text, blank rows and columns at the end cut."""
    table = [[_shown(v) for v in row] for row in [written_header(frame), *rows_from_frame(frame)[1:]]]
    while table and not any(table[-1]):
        table.pop()
    width = max((max((i + 1 for i, v in enumerate(row) if v), default=0) for row in table), default=0)
    return [(row + [""] * width)[:width] for row in table]


def _cells(tab: str, published: pd.DataFrame, replayed: pd.DataFrame) -> list[str]:
    a, b = _table(published), _table(replayed)
    header = b[0] if b else []
    out = []
    for r in range(max(len(a), len(b))):
        left, right = (a[r] if r < len(a) else []), (b[r] if r < len(b) else [])
        for c in range(max(len(left), len(right))):
            x, y = (left[c] if c < len(left) else ""), (right[c] if c < len(right) else "")
            if x != y:
                column = f" ({header[c]})" if c < len(header) and header[c] and r else ""
                out.append(f"tab {tab!r}, row {r + 1}, cell {cells.column_letter(c)}{r + 1}{column}: "
                           f"published {_quote(x)}, replayed {_quote(y)}")
    return out[:SHOWN] + ([f"and {len(out) - SHOWN} more differences in {tab!r}"] if len(out) > SHOWN else [])


def _lines(name: str, published: str, replayed: str) -> list[str]:
    a, b = published.splitlines(), replayed.splitlines()
    out = [f"{name}, line {i + 1}: published {_quote(x)}, replayed {_quote(y)}"
           for i, (x, y) in enumerate(zip(a + [""] * (len(b) - len(a)), b + [""] * (len(a) - len(b)))) if x != y]
    return out[:SHOWN] + ([f"and {len(out) - SHOWN} more differing lines"] if len(out) > SHOWN else [])
