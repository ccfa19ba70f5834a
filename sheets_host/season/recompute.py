"""The season's ledger recomputed from its start and its games' results, and compared with the ledger
as written: what a season's record is checked for (`record.py`, docs/verify.md).

Pure: it takes the season's start (cast and settings), each game with its result as played again
from its own record, and the ledger; the rules are the commands' own (`takes.expiring`,
`takes.making`, `ledger.settled`, the garnets of the eliminated), never written a second time.

What depends on the moment a game was made (the Tokens of Life that stop protecting, what the game
was given) is judged on the ledger's rows written before it (`SeasonGame.made_after`): a redo of an
earlier game after it was made changes that game's rows, not what the later game was made from.
What the results give is judged as `settle` leaves it: every game's rows as its result gives them
now, the garnets of an eliminated player counted from the ledger's other rows, settled again until
nothing changes. The host's own rows (`by` host) are the host's word: taken as they are, and listed.

>>> from sheets_host.kit.result import MAIN_MATCH, TOKEN, Change, GameResult
>>> from .state import SeasonSettings
>>> start = Season("Larks", 7, ("Ann", "Bo", "Cy"), SeasonSettings(tiebreak=("Ann", "Bo", "Cy")))
>>> won = GameResult(MAIN_MATCH, ("Ann", "Bo", "Cy"), ("Ann",), (Change("Ann", TOKEN, 1, "won"),), ("Cy",))
>>> game = Played(SeasonGame("1", "magicians-market", MAIN_MATCH, "", "xlsx", ("Ann", "Bo", "Cy"), 1, ""), won)
>>> [(e.player, e.what, e.amount) for e in recomputed(start, [game], ())]
[('Ann', 'Token of Life', 1)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from sheets_host.engine.checks import Check
from sheets_host.kit import cells
from sheets_host.kit.errors import SheetsHostError
from sheets_host.kit.result import GARNET, THINGS, TOKEN, Change, GameResult
from .ledger import BY_HOST, BY_RESULT, BY_SEASON, Entry, balance, net, settled, standing
from .state import Season, SeasonGame, Settlement, result_changes
from .takes import expiring, making


@dataclass(frozen=True)
class Played:
    """A game of the season with its result as played again from its record (None: not over)."""

    game: SeasonGame
    result: GameResult | None


def settlement(result: GameResult) -> Settlement:
    """A game's result as the season settles it: what later games are made from."""
    return Settlement("", True, result.winners, result.candidates, result.loser)


def numbered(ledger: Sequence[Entry]) -> Check:
    """The ledger's rows are 1, 2, 3... in order: a row taken out shows as its number missing."""
    check = Check("the ledger: its rows numbered 1, 2, 3... in order, none taken out")
    numbers = [e.number for e in ledger]
    missing = sorted(set(range(1, max(numbers, default=0) + 1)) - set(numbers))
    if missing:
        check.differences.append(f"row(s) {', '.join(map(str, missing))} are not in the record's ledger")
    if numbers != sorted(set(numbers)):
        check.differences.append("its rows are not in the order of their numbers, or a number is there twice")
    corrects = [e for e in ledger if e.corrects is not None and e.corrects >= e.number]
    check.differences += [f"row {e.number} corrects row {e.corrects}, which is not before it" for e in corrects]
    return check


def starting_garnets(start: Season, ledger: Sequence[Entry]) -> Check:
    """The season's own rows made with it: each player's starting garnets."""
    check = Check(f"the season's start: each player's starting garnets ({start.settings.starting_garnets}, season "
                  "setting 'starting garnets')")
    rows = [e for e in ledger if e.by == BY_SEASON and not e.game]
    for player in _players(start, rows):
        wanted = start.settings.starting_garnets if player in start.cast else 0
        held = _held(rows, player)
        if held != _only(GARNET, wanted):
            check.differences.append(f"{player}: the setting gives {wanted} garnet(s); the ledger's rows of the "
                                     f"season's making give {_things(held)} ({_rows(e for e in rows if e.player == player)})")
    return check


def made_then(start: Season, played: Sequence[Played], ledger: Sequence[Entry], index: int) -> Season:
    """The season as it stood when game `index` was made: the games before it (over, with their
    results) and the ledger's rows written before it."""
    games = [replace(p.game, settlement=settlement(p.result) if p.result else None) for p in played[:index]]
    return replace(start, games=tuple(games), entries=tuple(e for e in ledger if e.number <= played[index].game.made_after))


def made(start: Season, played: Sequence[Played], ledger: Sequence[Entry], index: int,
         settings: dict[str, object]) -> Check:
    """Game `index` was made as the season makes it from the ledger before it: what it was given
    (and its record's settings hold that), and the Tokens of Life that stopped protecting then."""
    g = played[index].game
    then = made_then(start, played, ledger, index)
    check = Check(f"game {g.number}: made from the ledger's rows 1 to {g.made_after}: what it was given, its "
                  "record's settings, and the Tokens of Life that stopped protecting")
    if g.made_after > len(ledger):
        check.differences.append(f"it was made after row {g.made_after}; the ledger has rows 1 to {len(ledger)}")
    if index and g.made_after < played[index - 1].game.made_after:
        check.differences.append(f"it was made after row {g.made_after}, before game {played[index - 1].game.number} "
                                 f"(made after row {played[index - 1].game.made_after})")
    try:
        plan = making(then, g.game, *_asked(g))
    except SheetsHostError as e:
        check.differences.append(f"the season would not make it from the ledger before it: {e}")
    else:
        if plan.players != g.players:
            check.differences.append(f"the season makes it for {', '.join(plan.players)}; it was made for "
                                     f"{', '.join(g.players)}")
        for key in sorted(set(plan.settings) | set(g.given)):
            if cells.text(plan.settings.get(key, "")) != cells.text(g.given.get(key, "")):
                check.differences.append(f"{key!r}: the ledger before it gives {plan.settings.get(key)!r}; the game "
                                         f"was given {g.given.get(key)!r}")
    for key, value in g.given.items():
        if cells.text(settings.get(key) or "") != cells.text(value):
            check.differences.append(f"config {key!r} is {settings.get(key)!r} in the game's record; the season gave "
                                     f"{value!r}")
    wanted = {p: -n for p, n in expiring(then, g.game).items()}
    rows = [e for e in ledger if e.by == BY_SEASON and e.game == g.number]
    for player in sorted(set(wanted) | {e.player for e in rows}):
        held = _held(rows, player)
        if held != _only(TOKEN, wanted.get(player, 0)):
            check.differences.append(f"{player}: held {then.held(player, TOKEN)} Token(s) of Life before it, "
                                     f"so {wanted.get(player, 0):+d} stop protecting; the ledger's rows of its making "
                                     f"give {_things(held)} ({_rows(e for e in rows if e.player == player)})")
    return check


def _asked(g: SeasonGame) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The players, Red and Green Meadows a host named to make `g` (`season next`): a Pyramid's
    players are its Blue, Red and Green Meadows, three each, in that order (`takes._pyramid`)."""
    if g.game == "pyramid-superiority":
        return g.players[:3], g.players[3:6], g.players[6:]
    return g.players, (), ()


def recomputed(start: Season, played: Sequence[Played], ledger: Sequence[Entry]) -> tuple[Entry, ...]:
    """The ledger as the season's start, its games' results and the host's rows give it, settled
    until nothing changes: the starting garnets, each game's expired Tokens of Life (from the
    ledger before it), each game's rows as its result gives them and the host's rows."""
    rows = [Entry(0, "", "", "season new", p, GARNET, start.settings.starting_garnets, "starting garnets", BY_SEASON)
            for p in start.cast if start.settings.starting_garnets]
    for index, p in enumerate(played):
        rows += [Entry(0, "", p.game.number, "made", player, TOKEN, -n, "expired", BY_SEASON)
                 for player, n in expiring(made_then(start, played, ledger, index), p.game.game).items()]
    # Record-numbered corrections would name other rows here: the host's rows count by their amounts.
    rows += [replace(e, number=0, corrects=None) for e in host_rows(ledger) if not absorbed(ledger, e)]
    season = replace(start, games=tuple(replace(p.game, settlement=settlement(p.result) if p.result else None)
                                        for p in played), entries=tuple(replace(e, number=i) for i, e in enumerate(rows, 1)))
    for _ in range(len(played) + 1):  # an eliminated player's garnets may come from a later game
        written = 0
        for p in played:
            new = settled(season.entries, p.game.number, changes(season, p), "", "recomputed")
            season, written = season.with_entries(new), written + len(new)
        if not written:
            break
    return season.entries


def changes(season: Season, p: Played) -> list[Change]:
    """What game `p`'s result writes to the ledger, as `settle` writes it: the cast's changes and the
    garnets of the eliminated."""
    if p.result is None:
        return []
    return result_changes(season, p.game.number, p.result)


def host_rows(ledger: Sequence[Entry]) -> list[Entry]:
    return [e for e in ledger if e.by == BY_HOST]


def absorbed(ledger: Sequence[Entry], row: Entry) -> bool:
    """Whether a host's correction went with the row it corrects: a game's row the ledger withdrew
    (`settled` withdraws what a row counts for, its corrections included)."""
    corrected = next((e for e in ledger if e.number == row.corrects), None)
    return (corrected is not None and corrected.by == BY_RESULT and corrected.corrects is None
            and net(ledger, corrected.number) == 0)


def result_rows(p: Played, again: Sequence[Entry], ledger: Sequence[Entry]) -> list[str]:
    """Game `p`'s rows that count in the ledger against those its result gives, by player and thing."""
    g = p.game
    mine, theirs = defaultdict(list), defaultdict(list)
    for e in standing(again, g.number):
        mine[e.player, e.what].append(e)
    for e in standing(ledger, g.number):
        theirs[e.player, e.what].append(e)
    out = []
    for key in sorted(set(mine) | set(theirs)):
        a, b = mine.get(key, []), theirs.get(key, [])
        if sorted((e.amount, e.why) for e in a) != sorted((e.amount, e.why) for e in b):
            player, what = key
            out.append(f"{player}'s {what}: its result gives {_figures(a)}; the ledger's rows of the game that count "
                       f"give {_figures(b, numbers=True)}")
    return out


def balances(cast: Sequence[str], again: Sequence[Entry], ledger: Sequence[Entry]) -> Check:
    """Every player's balance of every thing, recomputed, against the ledger's."""
    check = Check("the balances: each player's Tokens of Life, garnets, cosmos, artefacts, eliminations and guest "
                  "games recomputed from the season's start equal the ledger's")
    for player in dict.fromkeys([*cast, *(e.player for e in ledger)]):
        for what in THINGS:
            a, b = balance(again, player, what), balance(ledger, player, what)
            if a != b:
                check.differences.append(f"{player}'s {what}: recomputed {a}, the ledger {b}")
    return check


def _players(start: Season, rows: Iterable[Entry]) -> list[str]:
    return list(dict.fromkeys([*(start.cast if start.settings.starting_garnets else ()), *(e.player for e in rows)]))


def _held(rows: Sequence[Entry], player: str) -> dict[str, int]:
    return {what: balance(rows, player, what) for what in THINGS}


def _only(what: str, amount: int) -> dict[str, int]:
    """`amount` of `what` and nothing else, as `_held` says it."""
    return {w: amount if w == what else 0 for w in THINGS}


def _things(held: dict[str, int]) -> str:
    return ", ".join(f"{n:+d} {what}" for what, n in held.items() if n) or "nothing"


def _rows(rows: Iterable[Entry]) -> str:
    numbers = [str(e.number) for e in rows]
    return f"row{'s' * (len(numbers) != 1)} {', '.join(numbers)}" if numbers else "no row"


def _figures(rows: Sequence[Entry], numbers: bool = False) -> str:
    """
    >>> _figures([Entry(4, "", "1", "", "Ann", "garnet", 3, "9 points")], numbers=True)
    "+3 (row 4: '9 points')"
    """
    if not rows:
        return "nothing"
    return ", ".join(f"{e.amount:+d} ({f'row {e.number}: ' if numbers else ''}{e.why!r})" for e in rows)
