"""Summoner's Dream's battles: Familiars walking a defender's map while its Towers strike them, a pure
and deterministic function of the map, the Towers and the parties (no randomness anywhere).

Time runs in whole time units t = 0, 1, 2, ...; within a time unit, in this order:

1. Enter. The k-th slot of a party's range (k = 0, 1, ...) enters at t = k onto the first tile of
   its track (the entrance); an empty slot leaves a time unit in which nobody of that party enters.
2. Move. A Familiar that entered at an earlier time unit moves one tile along its track when it is
   due: when its pace (its level's pace, plus any slow on it at that time unit) has counted since
   it entered or last moved. A time unit while it is stunned does not count: after a stun it waits
   out the rest of its pace. A Familiar that steps onto E steals a Treasure and leaves the map at
   once; it takes no damage there.
3. Strike. A Tower strikes when it is ready (at first at t = 0, then at t + interval after each
   strike) and has a Familiar in range: its own tile and its level's reach, turned to its facing.
   A Familiar that flies over a Tower's kind is never in that Tower's range. Geon (single) strikes
   one Familiar: the one in range with the fewest tiles left to E on its own track (the lower slot
   of two equally near) or, if another in range shares its tile with a lower slot, whichever its
   track, the lowest slot there ("If multiple Familiars occupy the same tile, Geon (Heaven) Towers
   target the Familiar with the lower Slot number first"). Every other Tower strikes every
   Familiar in range. A strike deals the level's damage, `amount` more to the Familiar kind a bane
   is `against`, less a resist's `amount` against the Tower's kind (blank: all kinds), never below
   0. Whatever it deals, a strike also
   - slows: `amount` more to the pace at t+1 .. t+duration; a second slow while one lasts gives
     the larger amount until the later end;
   - stuns: no move at t+1 .. t+duration, and those units do not count towards the pace. A
     Familiar held by a stun (up to its last unit) is not stunned again, so that a unit counts
     between two stuns and no stun holds it for ever; of two stuns in one time unit, the longer;
   - burns: `amount` damage at each of t+1 .. t+duration, credited to the Tower (a tick is not a
     strike: resist does not lessen it); a new burn replaces the one on the Familiar only if it
     deals more in total than the old one has left, so of two equal burns the earlier stays.
   Sturdy Familiars are never slowed nor stunned, but take the damage. A time unit's damage,
   strikes and burn ticks, lands together after every Tower has struck: the Towers' order
   changes nothing.
4. Deaths. A Familiar at 0 health or less dies on its tile. The kill goes to the Tower that dealt it
   the most damage in this time unit (its burn ticks included), the earlier Tower on a tie.
5. Heal. Every living healer gives `amount` health to every other living Familiar adjacent to it
   (orthogonally, diagonally, or on its tile), up to that Familiar's level health.

The battle ends when every Familiar has entered and has died or reached E.

>>> from dataclasses import replace
>>> from sheets_host.events.summoning.state import Facing, Ground, TowerKind, TowerLevel
>>> tower = PlacedTower("Yi 1", TowerKind("Yi", Ground.LAND, (TowerLevel(10, 1, 1, ((-1, 0),)),)), 1, (2, 2))
>>> sorted(tower_cells(tower)), sorted(tower_cells(replace(tower, facing=Facing.EAST)))
([(1, 2), (2, 2)], [(2, 2), (2, 3)])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from .state import Ability, Cell, Effect, Facing, FamiliarLevel, Fate, GameMap, Offset, PlacedTower, SentFamiliar

# The effects the battle loop tests, as small ints (0: damage only, which bane is too).
_SINGLE, _SLOW, _STUN, _BURN = 1, 2, 3, 4
_CODES = {Effect.SINGLE: _SINGLE, Effect.SLOW: _SLOW, Effect.STUN: _STUN, Effect.BURN: _BURN}
_PAST = -(1 << 40)  # a time unit long before every battle: "never"
_NEVER = 1 << 40  # and one long after
_WIDE = 1 << 12  # a cell as one int, row * _WIDE + column: wider than any map, so no neighbour wraps around
_AROUND = tuple(dr * _WIDE + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1))  # a tile and those adjacent to it

# A Tower touching a Familiar: (its index, damage a strike, effect code, interval, effect amount, duration).
Touch = tuple[int, int, int, int, int, int]
Cover = tuple[int, tuple[Touch, ...]] | None  # a tile: the plain Towers' damage together, the others one by one


def tower_cells(tower: PlacedTower) -> frozenset[Cell]:
    """The cells a Tower strikes: its own tile, and its level's reach turned to its facing."""
    r, c = tower.cell
    return frozenset([tower.cell, *((r + dr, c + dc) for dr, dc in map(tower.facing.turn, tower.stats.reach))])


@lru_cache(maxsize=1024)
def _range(reach: tuple[Offset, ...], facing: Facing) -> tuple[int, ...]:
    # tower_cells as steps from the Tower's tile between cells as ints: quicker, and the same for many Towers.
    return tuple(sorted({0, *(dr * _WIDE + dc for dr, dc in map(facing.turn, reach))}))


class Defence:
    """A defender's map and placed Towers, prepared once for every invasion of a round: which Towers
    reach each tile of each track, so that a battle never looks at the map's geometry."""

    def __init__(self, game_map: GameMap, towers: Sequence[PlacedTower]) -> None:
        self.map = game_map
        self.towers = tuple(towers)
        # Track index -> its cell as an int, and the Towers reaching it in order (E is left out: nobody stands there).
        self.spots = {name: tuple(r * _WIDE + c for r, c in track) for name, track in game_map.tracks.items()}
        reach: dict[str, list[list[int]]] = {name: [[] for _ in spots[:-1]] for name, spots in self.spots.items()}
        passing: dict[int, list[list[int]]] = {}  # a cell -> the lists of Towers of the track indices on it
        left: dict[int, set[int]] = {}  # a cell -> the tiles left to E from it on the tracks through it
        for name, spots in self.spots.items():
            for i, (spot, js) in enumerate(zip(spots, reach[name])):
                passing.setdefault(spot, []).append(js)
                left.setdefault(spot, set()).add(len(spots) - 1 - i)
        # Track index -> whether Familiars on its tile may be unequally near E (tracks cross there):
        # only there can Geon's nearest Familiar have a lower slot beside it.
        self.crossing = {name: tuple(len(left[spot]) > 1 for spot in spots[:-1]) for name, spots in self.spots.items()}
        for j, tower in enumerate(self.towers):
            r, c = tower.cell
            home = r * _WIDE + c
            for step in _range(tower.stats.reach, tower.facing):
                for js in passing.get(home + step, ()):
                    js.append(j)
        self.reach = {name: tuple(map(tuple, lists)) for name, lists in reach.items()}
        # The tracks' tiles (E left out) numbered one after another, a track's from its place on.
        self.place: dict[str, int] = {}
        tiles = 0
        for name, lists in reach.items():
            self.place[name], tiles = tiles, tiles + len(lists)
        self._near: tuple[tuple[int, ...], ...] | None = None
        levels = [t.stats for t in self.towers]
        self._kinds = [t.kind.name for t in self.towers]
        # How a Tower touches a Familiar it does not treat specially: its level's damage.
        self._plain: tuple[Touch, ...] = tuple(
            (j, max(0, lv.damage), _CODES.get(lv.effect, 0), lv.interval, lv.amount, lv.duration)
            for j, lv in enumerate(levels))
        self._banes = [(j, lv.against, lv.amount) for j, lv in enumerate(levels) if lv.effect is Effect.BANE]
        self._by_kind: dict[tuple, tuple[tuple[Touch | None, ...], tuple[Cover, ...]]] = {}
        self._by_change: dict[tuple, tuple[tuple[Touch | None, ...], tuple[Cover, ...]]] = {}

    def near(self) -> tuple[tuple[int, ...], ...]:
        """Tile number -> the tiles a healer standing there heals: on its cell or adjacent to it."""
        if self._near is None:
            numbers: dict[int, list[int]] = {}  # a cell -> the numbers of the tiles on it
            spots = [spot for name in self.place for spot in self.spots[name][:-1]]
            for number, spot in enumerate(spots):
                numbers.setdefault(spot, []).append(number)
            self._near = tuple(tuple(k for step in _AROUND for k in numbers.get(spot + step, ())) for spot in spots)
        return self._near

    def touches(self, track: str, familiar: SentFamiliar) -> tuple[tuple[Touch | None, ...], tuple[Cover, ...]]:
        """How each Tower touches `familiar` (None: never, it flies over them), and each tile of
        `track` (E left out) as the battle loop reads it. Kept for every kind of Familiar, and shared
        by the kinds the Towers treat alike, as the invasions of a round meet them again."""
        stats = familiar.stats
        key = (track, familiar.kind.name, stats.ability, stats.amount, stats.against)
        found = self._by_kind.get(key)
        if found is None:
            found = self._by_kind[key] = self._tables(track, self._changes(familiar.kind.name, stats))
        return found

    def _changes(self, name: str, stats: FamiliarLevel) -> tuple[tuple[int, Touch | None], ...]:
        """The Towers that touch a Familiar otherwise than plainly: a bane against its kind adds,
        a resist against the Tower's kind (blank: all kinds) takes away, never below 0; a Familiar
        flying over a Tower's kind is never touched by it."""
        damage = {j: self._plain[j][1] + amount for j, victim, amount in self._banes if victim == name}
        if stats.ability is Ability.RESIST and stats.amount:
            for j, kind in enumerate(self._kinds):
                if stats.against in (None, kind):
                    damage[j] = max(0, damage.get(j, self._plain[j][1]) - stats.amount)
        changes: dict[int, Touch | None] = {j: (j, d, *self._plain[j][2:]) for j, d in damage.items()}
        if stats.ability is Ability.FLIES:
            changes.update((j, None) for j, kind in enumerate(self._kinds) if kind == stats.against)
        return tuple(sorted(changes.items()))

    def _tables(self, track: str, changes: tuple[tuple[int, Touch | None], ...]
                ) -> tuple[tuple[Touch | None, ...], tuple[Cover, ...]]:
        found = self._by_change.get((track, changes))
        if found is None:
            reach = self.reach[track]
            if not changes:
                found = (self._plain, tuple(_cover(js, self._plain) for js in reach))
            else:  # the plain tables, with the tiles of the Towers that touch it otherwise made again
                each, covers = list(self._plain), list(self._tables(track, ())[1])
                for j, touch in changes:
                    each[j] = touch
                changed = {j for j, _ in changes}
                for i, js in enumerate(reach):
                    if not changed.isdisjoint(js):
                        covers[i] = _cover(js, each)
                found = (tuple(each), tuple(covers))
            self._by_change[track, changes] = found
        return found


def _cover(js: tuple[int, ...], each: tuple[Touch | None, ...]) -> Cover:
    # Most Towers strike every time unit and only deal damage: the loop adds theirs as one number.
    plain, special = 0, []
    for j in js:
        touch = each[j]
        if touch is None:
            continue
        if touch[2] or touch[3] > 1:
            special.append(touch)
        else:
            plain += touch[1]
    return (plain, tuple(special)) if plain or special else None


def battle(defence: Defence, parties: Mapping[str, Sequence[SentFamiliar | None]]) -> tuple[Fate, ...]:
    """Every Familiar's fate (in slot order) when the parties invade `defence`. `parties["A"]` walks
    Track A, `parties["B"]` Track B: each the party's slots in order over its range, None when empty."""
    return _Battle(defence, parties).run()


class _Battle:
    """One battle's state: a list a quantity, indexed by Familiar (in order of entry) or by Tower."""

    def __init__(self, defence: Defence, parties: Mapping[str, Sequence[SentFamiliar | None]]) -> None:
        entries = sorted(((k, party, f) for party, slots in parties.items() for k, f in enumerate(slots) if f),
                         key=lambda e: e[0])
        self.towers = defence.towers
        self.entries = [k for k, _, _ in entries]
        self.sent = [(party, f) for _, party, f in entries]
        self.tracks = [defence.map.tracks[party] for party, _ in self.sent]
        self.reach = [defence.reach[party] for party, _ in self.sent]
        self.place = [defence.place[party] for party, _ in self.sent]  # its track's first tile's number
        self.spots = [defence.spots[party] for party, _ in self.sent]
        self.crossing = [defence.crossing[party] for party, _ in self.sent]
        touched = [defence.touches(party, f) for party, f in self.sent]
        self.touches, self.covers = [t for t, _ in touched], [c for _, c in touched]
        stats = [f.stats for _, f in self.sent]
        self.near = defence.near() if any(s.ability is Ability.HEAL for s in stats) else ()
        n, m = len(entries), len(defence.towers)
        self.pace = [max(1, s.pace) for s in stats]  # a pace below 1 would never end the battle
        self.health = [s.health for s in stats]
        self.top = self.health[:]  # the level's health, which a heal never passes
        self.sturdy = [s.ability is Ability.STURDY for s in stats]
        self.heal = [s.amount if s.ability is Ability.HEAL else 0 for s in stats]
        self.by_slot = sorted(range(n), key=lambda f: self.sent[f][1].slot)
        self.rank = [0] * n  # the slot's place among the slots: Geon's tiebreaks
        for r, f in enumerate(self.by_slot):
            self.rank[f] = r
        self.fates: list[Fate | None] = [None] * n
        self.pos = [0] * n  # index on its track
        self.due = [0] * n  # the time unit of its next move
        self.moved = [0] * n  # the time unit it entered or last moved
        self.lost = [0] * n  # units stunned since then, those still to come included
        self.stun_end, self.stunned = [_PAST] * n, [_PAST] * n  # its stun's last unit, the unit it was stunned
        self.slow, self.slow_end = [0] * n, [_PAST] * n
        self.burn, self.burn_end, self.burner = [0] * n, [_PAST] * n, [0] * n
        self.tick_at, self.tick, self.ticker = [_PAST] * n, [0] * n, [0] * n  # this unit's burn tick, for credit
        self.fired = [_PAST] * m  # the time unit each Tower last struck
        self.aim_at, self.aim, self.aim_key, self.aim_damage = [_PAST] * m, [0] * m, [0] * m, [0] * m  # Geon's

    def run(self) -> tuple[Fate, ...]:
        # The loop binds what it touches every time unit to locals: it is the whole cost of a battle.
        entries, covers, pace, health = self.entries, self.covers, self.pace, self.health
        pos, due, moved, lost, sturdy, heal = self.pos, self.due, self.moved, self.lost, self.sturdy, self.heal
        stun_end, stunned, slow, slow_end = self.stun_end, self.stunned, self.slow, self.slow_end
        burn, burn_end, burner = self.burn, self.burn_end, self.burner
        fired, here = self.fired, [None] * len(entries)  # here: the cover of the Familiar's tile
        aim_at, aim, aim_key, aim_damage, rank = self.aim_at, self.aim, self.aim_key, self.aim_damage, self.rank
        crossing = self.crossing
        ends = [len(c) for c in covers]  # E's index on the Familiar's track
        n = len(entries)
        on_map: list[int] = []
        healers: list[int] = []
        dying: list[int] = []  # this time unit's
        gone: list[int] = []  # those that died or reached E this time unit
        aimed: list[int] = []  # the Geon Towers that found a target this time unit
        entered, t = 0, 0
        while True:
            while entered < n and entries[entered] == t:
                on_map.append(entered)
                if heal[entered]:
                    healers.append(entered)
                moved[entered], due[entered], here[entered] = t, t + pace[entered], covers[entered][0]
                entered += 1
            # The next time unit anything can happen, if nothing is struck or burns in between.
            soonest = entries[entered] if entered < n else _NEVER
            for f in on_map:
                if due[f] == t:
                    i = pos[f] + 1
                    if i == ends[f]:
                        self._leave(f, t, True, None)
                        gone.append(f)
                        continue
                    pos[f], here[f], moved[f], lost[f] = i, covers[f][i], t, 0
                    due[f] = t + pace[f] if slow_end[f] <= t else self._due(f, t)
                cover = here[f]
                if cover is not None:
                    # Its burn ticks first, so that a strike lighting another burn does not change this tick.
                    damage = cover[0] + self._tick(f, t) if burn_end[f] >= t else cover[0]
                    for j, dealt, code, interval, amount, duration in cover[1]:
                        if interval > 1 and fired[j] != t:
                            if t - fired[j] < interval:
                                continue
                            fired[j] = t
                        if code == _SINGLE:  # the nearest E so far (least key), then the lower slot
                            key = (ends[f] - pos[f]) * n + rank[f]
                            if aim_at[j] != t:
                                aim_at[j] = t
                                aimed.append(j)
                            elif key > aim_key[j]:
                                continue
                            aim[j], aim_key[j], aim_damage[j] = f, key, dealt
                            continue
                        if code == _BURN:
                            if amount * duration > (burn[f] * (burn_end[f] - t) if burn_end[f] > t else 0):
                                burn[f], burn_end[f], burner[f] = amount, t + duration, j
                        elif code and not sturdy[f]:
                            end = t + duration
                            if code == _STUN:
                                held = stun_end[f]
                                # Held through this unit by an earlier stun, it is not stunned again: a
                                # unit counts between two stuns, so that no stun holds a Familiar for ever.
                                if end > t and end > held and (held < t or stunned[f] == t):
                                    longer = end - max(held, t)
                                    lost[f] += longer
                                    stun_end[f], stunned[f] = end, t
                                    # Unslowed, it moves as many units later as it is stunned longer.
                                    due[f] = due[f] + longer if slow_end[f] <= t else self._due(f, t)
                            elif slow_end[f] <= t:  # no slow left: this one alone
                                slow[f], slow_end[f] = amount, end
                                due[f] = self._due(f, t)
                            elif amount > slow[f] or end > slow_end[f] and due[f] > slow_end[f]:
                                slow[f], slow_end[f] = max(slow[f], amount), max(slow_end[f], end)
                                due[f] = self._due(f, t)
                            elif end > slow_end[f]:  # it moves while slowed anyway, and no slower
                                slow_end[f] = end
                        damage += dealt
                elif burn_end[f] >= t:
                    damage = self._tick(f, t)
                    if due[f] < soonest:  # its burn may end now, and then nothing else counts its move
                        soonest = due[f]
                else:  # nothing touches it this time unit
                    if due[f] < soonest:
                        soonest = due[f]
                    continue
                if damage:
                    health[f] -= damage
                    if health[f] <= 0:
                        dying.append(f)
            if aimed:
                for j in aimed:
                    f = aim[j]
                    if crossing[f][pos[f]]:
                        f = aim[j] = self._lowest_beside(j, f, on_map)
                        aim_damage[j] = self.touches[f][j][1]
                    dealt = aim_damage[j]
                    if dealt and health[f] > 0 >= health[f] - dealt:
                        dying.append(f)
                    health[f] -= dealt
                aimed.clear()
            if dying:
                for f in dying:
                    self._leave(f, t, False, self._killer(f, t))
                gone += dying
                dying.clear()
            if gone:
                for f in gone:
                    on_map.remove(f)
                    if heal[f]:
                        healers.remove(f)
                gone.clear()
            if not on_map and entered == n:
                return tuple(self.fates[f] for f in self.by_slot)
            # Nothing can happen in the time units before `soonest` unless a Tower reaches or a burn burns.
            if soonest > t + 1 and any(here[f] is not None or burn_end[f] > t for f in on_map):
                soonest = t + 1
            if healers:
                self._heal(on_map, healers, soonest - t)
            t = soonest

    def _lowest_beside(self, j: int, f: int, on_map: list[int]) -> int:
        """The lowest slot Geon j can strike on Familiar f's tile, f included: the text's "target the
        Familiar with the lower Slot number first", whichever track each is on."""
        pos, spots, rank, fates, touches = self.pos, self.spots, self.rank, self.fates, self.touches
        spot, lowest = spots[f][pos[f]], f
        for g in on_map:  # those that reached E this time unit have a fate and stand nowhere
            if rank[g] < rank[lowest] and spots[g][pos[g]] == spot and fates[g] is None and touches[g][j] is not None:
                lowest = g
        return lowest

    def _leave(self, f: int, t: int, reached: bool, killer: str | None) -> None:
        party, familiar = self.sent[f]
        cell = self.tracks[f][-1 if reached else self.pos[f]]
        self.fates[f] = Fate(familiar.slot, familiar.unit, party, reached, cell, t, killer)

    def _tick(self, f: int, t: int) -> int:
        """Familiar f's burn tick at time unit t, noted for the kill's credit."""
        self.tick_at[f], self.tick[f], self.ticker[f] = t, self.burn[f], self.burner[f]
        return self.burn[f]

    def _due(self, f: int, t: int) -> int:
        """The time unit of Familiar f's next move, as of time unit t (after its move, if any): the
        first unit after t and its stun at which the units counted since it last moved make its
        pace, slowed while the slow lasts."""
        stun_end = self.stun_end[f]
        start = max(t, stun_end) + 1  # the first unit that counts
        counted = t - self.moved[f] - self.lost[f] + max(0, stun_end - t)
        ready = start - 1 - counted + self.pace[f]  # when the unslowed pace is made
        slowed = max(start, ready + self.slow[f])
        return slowed if slowed <= self.slow_end[f] else max(start, ready, self.slow_end[f] + 1)

    def _killer(self, f: int, t: int) -> str:
        """The Tower that dealt Familiar f the most damage at time unit t, the earlier on a tie."""
        dealt: dict[int, int] = {}
        if self.tick_at[f] == t:
            dealt[self.ticker[f]] = self.tick[f]
        for j in self.reach[f][self.pos[f]]:
            touch = self.touches[f][j]
            if touch is None:
                continue
            _, damage, code, interval, _, _ = touch
            struck = interval <= 1 or self.fired[j] == t
            if struck and (code != _SINGLE or self.aim_at[j] == t and self.aim[j] == f):
                dealt[j] = dealt.get(j, 0) + damage
        return self.towers[min(dealt, key=lambda j: (-dealt[j], j))].unit

    def _heal(self, on_map: list[int], healers: list[int], units: int) -> None:
        """The healers' heals, `units` time units in a row (nobody moves or is struck between)."""
        health, top, heal, pos, place, near = self.health, self.top, self.heal, self.pos, self.place, self.near
        gifts = [0] * len(near)  # by tile number
        for h in healers:
            amount = heal[h]
            for k in near[place[h] + pos[h]]:
                gifts[k] += amount
        for f in on_map:
            gift = gifts[place[f] + pos[f]] - heal[f]  # a healer's own tile is near it: not itself
            if gift > 0 and health[f] < top[f]:
                health[f] = min(health[f] + gift * units, top[f])
