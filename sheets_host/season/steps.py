"""The week's commands: `season step` moves the season on as far as it can now, `season decide` is
the host's answer to a decision the season waits on, `season plan` and `season drop` the host's
hand on what comes next.

A step is a sequence of passes, each one write of the host's season book (so a kill at any moment
leaves it whole) followed by what is derived from it; each pass is idempotent, so a step run
again after a kill finishes what the killed one began, once:
1. every game settled (as `settle`), each open ask's answers read from its players' books, each
   answer archived as typed (counted or not), an ask opened or decided (its players' choice, or
   the season's default at the deadline) -- one write;
2. the players' ask tabs and `season` tabs written;
3. a decision decided given to its game (its config, then its last round resolved again), which
   the next pass settles;
4. once the last Main Match's picks are all made and no game is open, the next Death Match made
   from them; once the week is over, the next Main Match of the plan.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from sheets_host.backends import Backend
from sheets_host.engine.given import check_decision, give_decision
from sheets_host.engine.host import Clock, now_utc, open_session, parse_time, stamp
from sheets_host.kit import cells
from sheets_host.kit.errors import SchemaErrors, SheetsHostError
from sheets_host.kit.result import DEATH_MATCH, HOST
from .asking import ask_frame, ask_layout, read_answer, stands, tab_of
from .commands import (NEW_SPREADSHEETS, Made, OpenGame, SettleReport, _deliver_changed, _settling, _write, next_game,
                       read, unrecorded)
from .state import PICKS_BY_HOST, Planned, Season
from .takes import DEATH_MATCH_GAME, host_settings, match_of
from .week import (ANSWERED, ASKED, DECIDED, NOT_COUNTED, PICK, SEASON_DEFAULT, VOID, Ask, Decision, deadline,
                   host_words, outcome, pending_death_match, week)

# Where a game the season makes goes: given the season and the game (its number is the next).
Place = Callable[[Season, str], str]


def folder_place(season: Season, game: str) -> str:
    """Offline: a folder beside the season's, numbered ("games/3-spirit-chain")."""
    return f"games/{season.next_number()}-{game}"


def new_spreadsheets(season: Season, game: str) -> str:
    return NEW_SPREADSHEETS


@dataclass
class StepReport:
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    host: list[str] = field(default_factory=list)  # what waits for the host
    waiting: list[str] = field(default_factory=list)  # what waits for players, or a game under way
    made: list[Made] = field(default_factory=list)
    decided: list[Decision] = field(default_factory=list)  # outcomes decided by this step, for the posts
    asked: list[Ask] = field(default_factory=list)  # asks opened by this step, for the nudges


def step(backend: Backend, open_game: OpenGame, clock: Clock = now_utc, place: Place = folder_place,
         passes: int = 24, death_match: str = DEATH_MATCH_GAME) -> StepReport:
    """The season moved on as far as it can now (`passes` bounds a step that keeps finding work);
    its Death Matches are games of `death_match` (the rule texts': Spirit Chain), made with the
    season setting 'death match settings' (deadlines, its rules), each Main Match with its plan row's."""
    report = StepReport()
    for _ in range(passes):
        if not _pass(backend, open_game, clock, place, report, death_match):
            break
    return report


def _pass(backend: Backend, open_game: OpenGame, clock: Clock, place: Place, report: StepReport,
          death_match: str) -> bool:
    """One pass; whether it did anything (another pass may then find more to do)."""
    settling = SettleReport()
    with backend.hold("season step"):
        before = read(backend)
        season, opened = _settling(before, open_game, clock, settling)
        report.lines += [f"season: {line}" for line in settling.lines]
        known = len(report.problems)
        report.problems += settling.problems
        report.waiting[:] = settling.waiting  # where the season stands: this pass's alone
        report.host.clear()
        now = clock()
        rows, deliveries = _asking(season, opened, now, report) if not settling.problems else ([], [])
        after = season.with_decisions(rows)
        if after != before:
            _write(backend, before, after)
        _deliver_changed(before, after, opened, settling)
    for game_backend, ask, frame, layout in deliveries:
        _deliver_ask(game_backend, ask, frame, layout, report)
    if settling.problems:
        return _made_again(backend, after, opened, open_game, clock, report, known)
    moved = after != before
    wk = week(after)
    report.host += [host_words(a) for a in wk.host]
    for d in wk.to_apply:
        g = after.game(d.game)
        try:
            if give_decision(opened[d.game], d.key, d.choice, _by_words(d), clock):
                report.lines.append(f"game {d.game} ({g.game}): {d.key} = {d.choice} given ({d.note}); its last "
                                    "round resolved again")
                moved = True
        except (SheetsHostError, SchemaErrors) as e:
            report.problems.append(f"game {d.game} ({g.game}): {d.key} = {d.choice} could not be given: {e}")
    if moved or wk.to_apply:
        return moved
    void = made_from_void_picks(after)
    if void is not None:
        if void.number in settling.begun:
            return False  # `settle` holds the Main Match back and says what to undo
        drop(backend, void.number, open_game, clock)
        report.lines.append(f"game {void.number} ({void.game}, {', '.join(void.players)}) dropped before it began: "
                            "the picks it was made from were voided (its Main Match's candidates changed)")
        return True
    return _make_next(backend, after, wk, open_game, clock, place, report, death_match)


def _made_again(backend: Backend, season: Season, opened, open_game: OpenGame, clock: Clock, report: StepReport,
                known: int) -> bool:
    """The season's last game made, when it could not be read because a step killed after
    recording it did not make it (`next_game` run again makes the same game; this pass's
    problems, from `known` on, go); whether it was."""
    last = season.games[-1] if season.games else None
    if last is None or last.number in opened:
        return False
    try:
        next_game(backend, last.game, last.where, last.backend, open_game, list(last.players), clock=clock,
                  settings=last.own)
    except (SheetsHostError, SchemaErrors):
        return False  # another problem than a game not made: it stands
    del report.problems[known:]
    report.lines.append(f"game {last.number}: {last.game} made at {last.where} (a step stopped before making it)")
    return True


def made_from_void_picks(season: Season):
    """The last game, when it is a Death Match made from a pick (an outcome row of its candidate
    naming its opponent) that no longer stands."""
    if not season.games or season.games[-1].match != DEATH_MATCH:
        return None
    last = season.games[-1]
    if not any(d.how == DECIDED and d.key.startswith(PICK) and (d.player, d.choice) == tuple(last.players)
               for d in season.decisions):
        return None  # made by hand
    return None if tuple(last.players) in week(season).picks else last


def _by_words(d: Decision) -> str:
    return f"decided in the season's week: {d.note}"


def _asking(season: Season, opened, now, report: StepReport) -> tuple[list[Decision], list]:
    """The `decisions` rows this pass writes and the ask tabs to write after it: each ask opened
    (its tab written), each player's answer read and archived, each ask decided."""
    rows: list[Decision] = []
    deliveries = []
    number = len(season.decisions)

    def add(**kwargs) -> Decision:
        nonlocal number
        number += 1
        row = Decision(number, stamp(now), **kwargs)
        rows.append(row)
        return row

    for ask in week(season).asks:
        game_backend = opened.get(ask.game)
        if game_backend is None:
            continue
        mine = [d for d in season.decisions if d.game == ask.game and d.key == ask.key and d.basis == ask.basis]
        asked = next((d for d in mine if d.how == ASKED), None)
        if asked is None:
            asked = add(game=ask.game, key=ask.key, player=", ".join(ask.players), how=ASKED,
                        note=ask.what, basis=ask.basis,
                        deadline=deadline(stamp(now), season.settings.decision_hours))
            report.asked.append(ask)
        answers = [d for d in mine if d.how in (ANSWERED, NOT_COUNTED)]
        for player in ask.players:
            try:
                frame = game_backend.book(f"player:{player}").read([tab_of(ask)]).get(tab_of(ask))
            except SheetsHostError as e:
                report.problems.append(f"game {ask.game}: {player}'s book: {e}")
                continue
            if not stands(frame, ask):
                tab = ask_frame(ask, asked.deadline)
                deliveries.append((game_backend, (player, ask), tab, ask_layout(tab, ask, True)))
                continue
            choice, typed, why = read_answer(frame, ask)
            last = next((d for d in reversed(answers) if d.player == player), None)
            if typed and (last is None or last.typed != typed):
                answers.append(add(game=ask.game, key=ask.key, player=player, how=ANSWERED if choice else NOT_COUNTED,
                                   choice=choice or "", typed=typed, basis=ask.basis,
                                   note=why or "counted"))
                if why:
                    report.problems.append(f"game {ask.game}: {player}'s {tab_of(ask)}: {why}")
        past = now >= parse_time(asked.deadline, "decisions")
        if past and season.settings.picks_default == PICKS_BY_HOST and not any(d.how == ANSWERED for d in answers):
            report.host.append(f"game {ask.game}: nobody decided {ask.what} by the deadline: sheets-host season decide "
                               f"SEASON {ask.game} '{ask.key}' CHOICE (one of {', '.join(ask.choices)})")
            continue
        decided = outcome(season, ask, answers, past)
        if decided is None:
            report.waiting.append(f"game {ask.game}: {' and '.join(ask.players)} to decide {ask.what} by "
                                  f"{asked.deadline}")
            continue
        choice, who = decided
        note = (f"drawn: nobody decided by the deadline {asked.deadline}" if who == SEASON_DEFAULT
                else f"{who}'s choice" if " (by the deadline)" not in who else who)
        out = add(game=ask.game, key=ask.key, player=", ".join(ask.players), how=DECIDED, choice=choice,
                  basis=ask.basis, note=note)
        report.decided.append(out)
        for player in ask.players:
            typed = next((d.typed for d in reversed(answers) if d.player == player), "")
            tab = ask_frame(ask, asked.deadline, out, typed)
            deliveries.append((game_backend, (player, ask), tab, ask_layout(tab, ask, False)))
    return rows, deliveries


def _deliver_ask(game_backend: Backend, who_ask, frame, layout, report: StepReport) -> None:
    player, ask = who_ask
    try:
        with game_backend.hold("season step"):
            game_backend.book(f"player:{player}").write({tab_of(ask): frame}, layouts={tab_of(ask): layout})
    except SheetsHostError as e:
        report.problems.append(f"game {ask.game}: {player}'s {tab_of(ask)} tab: {e}")


def _make_next(backend: Backend, season: Season, wk, open_game: OpenGame, clock: Clock, place: Place,
               report: StepReport, death_match: str) -> bool:
    """The next game, when the season is ready for it: a Death Match the picks made, else the next
    Main Match of the plan once the week is over. Whether one was made."""
    open_games = [g for g in season.games if not (g.settlement and g.settlement.over)]
    if open_games or wk.picking or wk.host:
        return False
    pair = pending_death_match(season, wk)
    if pair is not None and pair[1] in season.eliminated:
        return _void_pick(backend, pair, clock, report)  # picked twice, and eliminated in the first
    try:
        made = _made_next(backend, season, pair, open_game, clock, place, report, death_match)
    except (SheetsHostError, SchemaErrors) as e:
        report.problems.append(f"the next game could not be made: {e}")
        return False
    if made is None:
        return False
    report.made.append(made)
    report.lines.append(f"game {made.game.number}: {made.title} ({made.game.match}) made for "
                        f"{', '.join(made.game.players)} at {made.game.where}")
    return True


def _made_next(backend: Backend, season: Season, pair, open_game: OpenGame, clock: Clock, place: Place,
               report: StepReport, death_match: str) -> Made | None:
    """The Death Match `pair` made, else the plan's next Main Match (None: nothing to make)."""
    if pair is not None:
        return next_game(backend, death_match, place(season, death_match), _kind(backend), open_game, list(pair),
                         clock=clock, settings=season.settings.death_match)
    if season.candidates_owed():
        report.host.append(f"Elimination Candidate(s) {', '.join(season.candidates_owed())} owed a Death Match the "
                           "picks did not make: sheets-host season next SEASON spirit-chain FOLDER --players "
                           "CANDIDATE,OPPONENT")
        return None
    planned = next_planned(season)
    if planned is None:
        return None
    return next_game(backend, planned.game, planned.where or place(season, planned.game), _kind(backend), open_game,
                     planned.players, planned.red, planned.green, clock=clock, settings=planned.own)


def _void_pick(backend: Backend, pair: tuple[str, str], clock: Clock, report: StepReport) -> bool:
    """A pick whose opponent was eliminated before its Death Match (the season lets one player be
    picked twice) is voided: the candidate picks again."""
    candidate, opponent = pair
    with backend.hold("season step"):
        season = read(backend)
        pick = next((d for d in reversed(season.decisions) if d.how == DECIDED and d.key.startswith(PICK)
                     and (d.player, d.choice) == pair), None)
        if pick is None or any(d.how == VOID and (d.key, d.basis) == (pick.key, pick.basis) for d in season.decisions):
            return False
        why = f"{opponent} was eliminated in game {season.eliminated[opponent]}: {candidate} picks again"
        row = Decision(len(season.decisions) + 1, stamp(clock()), pick.game, pick.key, candidate, VOID, opponent,
                       note=why, basis=pick.basis)
        _write(backend, season, season.with_decisions([row]))
    report.lines.append(f"game {pick.game}: {pick.key} voided: {why}")
    return True


def _kind(backend: Backend) -> str:
    return "gsheets" if backend.name == "gsheets" else "xlsx"


def next_planned(season: Season) -> Planned | None:
    """The plan's next Main Match: the plan's Nth where N - 1 Main Matches were made."""
    made = sum(1 for g in season.games if g.match != DEATH_MATCH)
    return season.plan[made] if made < len(season.plan) else None


# ---- the host's hand ----------------------------------------------------------------------------

def decide(backend: Backend, game: str, key: str, choice: str, open_game: OpenGame, clock: Clock = now_utc
           ) -> Decision:
    """The host's outcome of an ask the season waits on: a decision the rules leave to the host, or
    one nobody decided by the deadline (when the season leaves those to the host); the next step
    gives it to the game."""
    with backend.hold("season decide"):
        season = read(backend)
        wk = week(season)
        ask = next((a for a in (*wk.asks, *wk.host) if a.game == game and cells.fold(a.key) == cells.fold(key)), None)
        if ask is None:
            open_ = ", ".join(f"game {a.game} '{a.key}'" for a in (*wk.asks, *wk.host)) or "none"
            raise SheetsHostError(f"game {game} asks nothing named {key!r} now (open: {open_})")
        if ask in wk.host:  # a game's own decision (an order of tied candidates, too): the game checks it
            chosen = choice.strip()
            check_decision(open_game(season.game(game)), ask.key, chosen)
        else:
            try:
                chosen = cells.as_choice(choice, ask.choices, "one of the choices")
            except cells.CellError as e:
                raise SheetsHostError(f"{ask.what}: {e}") from None
        row = Decision(len(season.decisions) + 1, stamp(clock()), game, ask.key, HOST, DECIDED, chosen, choice,
                       "the host's decision", ask.basis)
        _write(backend, season, season.with_decisions([row]))
    return row


def plan(backend: Backend, add: Sequence[Planned] = (), drop: Sequence[int] = (),
         death_matches: Mapping[str, str] | None = None) -> Season:
    """The plan with `add` appended and the rows `drop` (1-based) removed (a row already made
    stays); with `death_matches`, the settings of every Death Match made from now on."""
    with backend.hold("season plan"):
        season = read(backend)
        made = sum(1 for g in season.games if g.match != DEATH_MATCH)
        rows = list(season.plan)
        for n in sorted(set(drop), reverse=True):
            if not 1 <= n <= len(rows):
                raise SheetsHostError(f"--drop {n}: the plan has rows 1 to {len(rows)}")
            if n <= made:
                raise SheetsHostError(f"--drop {n}: plan row {n} ({rows[n - 1].game}) is made already")
            del rows[n - 1]
        for p in add:
            if match_of(p.game) == DEATH_MATCH:
                raise SheetsHostError(f"--add {p.game}: the plan is of Main Matches; Death Matches come from the picks "
                                      "(their settings: --death-matches)")
        added = tuple(replace(p, own=host_settings(p.game, p.own, f"--add {p.game} --set")) for p in add)
        settings = season.settings
        if death_matches is not None:
            settings = replace(settings, death_match=host_settings(DEATH_MATCH_GAME, death_matches,
                                                                   "--death-matches --set", later=True))
        after = replace(season, settings=settings, plan=tuple(rows) + added)
        if after != season:
            _write(backend, season, after)
    return after


def drop(backend: Backend, number: str, open_game: OpenGame, clock: Clock = now_utc) -> Season:
    """The season's last game taken back before it began (a Death Match made from picks a redo
    voided): its row removed, what its making wrote withdrawn, its books removed."""
    with backend.hold("season drop"):
        season = read(backend)
        if not season.games or season.games[-1].number != number:
            last = season.games[-1].number if season.games else "none"
            raise SheetsHostError(f"game {number}: only the season's last game (game {last}) can be dropped")
        g = season.games[-1]
        game_backend = open_game(g)
        try:
            begun = open_session(game_backend).last_resolved is not None
        except (SheetsHostError, SchemaErrors):
            begun = False  # not made (a kill before it was): nothing of it to keep
        if begun:
            raise SheetsHostError(f"game {number} has begun: undo its rounds first (sheets-host undo {g.where}, until "
                                  "round 1 is open)")
        after = unrecorded(season, number, clock, "season drop")
        _write(backend, season, after)
    with game_backend.hold("season drop"):
        game_backend.discard()
    return after
