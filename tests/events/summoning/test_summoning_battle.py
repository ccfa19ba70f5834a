"""Summoner's Dream's battle simulator: hand-worked battles on a small map, and generated battles
checked against the rules read literally, one time unit at a time.

The map (row 1 on top): Track A runs along row 2 from A2 to E at F2, Track B up column F from F5.

    L L L L L L
    A R R R R E
    L L L L L R
    L L L L L R
    L L L L L B

A Tower below the road at column c, drawn reaching its front tile (-1, 0), covers Track A's tile c.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sheets_host.events.summoning.battle import Defence, battle, tower_cells
from sheets_host.events.summoning.state import (Ability, Effect, Facing, FamiliarKind, FamiliarLevel, Fate, GameMap,
                                                Ground, MapKind, PlacedTower, SentFamiliar, Tile, TowerKind,
                                                TowerLevel, cell_name)

ROWS = ("LLLLLL", "ARRRRE", "LLLLLR", "LLLLLR", "LLLLLB")
TRACKS = {"A": tuple((1, c) for c in range(6)), "B": ((4, 5), (3, 5), (2, 5), (1, 5))}
MAP = GameMap("test", MapKind.BLESSED_LAND, tuple(tuple(map(Tile, row)) for row in ROWS), TRACKS)
FRONT = ((-1, 0),)
FRONT3 = ((-1, -1), (-1, 0), (-1, 1))  # the three tiles in front


def tower(kind: str, cell: tuple[int, int], reach=FRONT, damage=1, interval=1, facing=Facing.NORTH,
          **effect) -> PlacedTower:
    """A one-level Tower named by its kind and cell ("Yi B3")."""
    level = TowerLevel(10, damage, interval, reach, **effect)
    return PlacedTower(f"{kind} {cell_name(cell)}", TowerKind(kind, Ground.LAND, (level,)), 1, cell, facing)


def familiar(slot: int, kind="Fox", health=5, pace=1, **ability) -> SentFamiliar:
    return SentFamiliar(slot, f"{kind} {slot}", FamiliarKind(kind, 10, (FamiliarLevel(health, pace, **ability),)), 1)


def play(towers=(), a=(), b=()) -> list[tuple[bool, str, int, str | None]]:
    """Each Familiar's fate in slot order, as (reached, cell, time, killer)."""
    return [(f.reached, cell_name(f.cell), f.time, f.killer) for f in battle(Defence(MAP, towers), {"A": a, "B": b})]


def test_an_unguarded_track_takes_its_length_times_the_pace_and_an_empty_slot_a_time_unit():
    assert play(a=[familiar(1)]) == [(True, "F2", 5, None)]
    assert play(a=[familiar(1, pace=2)]) == [(True, "F2", 10, None)]
    assert play(a=[None, familiar(2)]) == [(True, "F2", 6, None)]
    # Fates come in slot order, whichever party a slot is in.
    assert [f.slot for f in battle(Defence(MAP, ()), {"A": [familiar(3)], "B": [familiar(1)]})] == [1, 3]


def test_geon_strikes_the_lower_slot_on_one_tile_and_otherwise_the_familiar_nearest_e():
    geon = tower("Geon", (2, 1), damage=5, effect=Effect.SINGLE)
    # At t=2 both stand on B2 (slot 1 at pace 2, slot 2 entering a unit later).
    assert play([geon], a=[familiar(1, health=1, pace=2), familiar(2, health=1)]) == [
        (False, "B2", 2, "Geon B3"), (True, "F2", 6, None)]
    # At t=3 slot 1 is on D2 (2 tiles from E) and slot 2 on F3 (1 tile): the nearer falls.
    geon = tower("Geon", (2, 4), ((-1, -1), (0, 1)), damage=5, effect=Effect.SINGLE)
    assert play([geon], a=[familiar(1, health=1)], b=[None, familiar(2, health=1)]) == [
        (True, "F2", 5, None), (False, "F3", 3, "Geon E3")]


# A hand-drawn map whose tracks cross on C2: Track B along row 2 (3 tiles from C2 to E), Track A
# down column C, then round by row 4 and column F (7 tiles from C2 to E).
#
#     L L A L L L
#     B R R R R E
#     L L R L L R
#     L L R R R R
CROSS_ROWS = ("LLALLL", "BRRRRE", "LLRLLR", "LLRRRR")
CROSS = GameMap("cross", MapKind.BLESSED_LAND, tuple(tuple(map(Tile, row)) for row in CROSS_ROWS), {
    "A": ((0, 2), (1, 2), (2, 2), (3, 2), (3, 3), (3, 4), (3, 5), (2, 5), (1, 5)),
    "B": tuple((1, c) for c in range(6))})


def cross(towers=(), a=(), b=()) -> list[tuple[bool, str, int, str | None]]:
    return [(f.reached, cell_name(f.cell), f.time, f.killer) for f in battle(Defence(CROSS, towers), {"A": a, "B": b})]


def test_geon_strikes_the_lower_slot_on_a_shared_tile_whichever_track_is_nearer_e():
    # At t=2 slot 1 (Track A, pace 2) and slot 2 (Track B) both stand on C2, where the tracks cross:
    # slot 2 has 3 tiles left to E on its track, slot 1 has 7; the lower slot falls first.
    geon = tower("Geon", (2, 3), ((-1, -1),), damage=5, effect=Effect.SINGLE)  # C2 only
    assert cross([geon], a=[familiar(1, health=1, pace=2)], b=[familiar(2, health=1)]) == [
        (False, "C2", 2, "Geon D3"), (True, "F2", 5, None)]
    # A lower slot flying over Geon is not in its range: the other falls.
    pheasant = familiar(1, "Pheasant", 1, pace=2, ability=Ability.FLIES, against="Geon")
    assert cross([geon], a=[pheasant], b=[familiar(2, health=1)]) == [
        (True, "F2", 16, None), (False, "C2", 2, "Geon D3")]
    # Every other Tower strikes both on the shared tile.
    yi = tower("Yi", (2, 3), ((-1, -1),), damage=5)
    assert cross([yi], a=[familiar(1, health=1, pace=2)], b=[familiar(2, health=1)]) == [
        (False, "C2", 2, "Yi D3"), (False, "C2", 2, "Yi D3")]


def test_a_healer_heals_a_familiar_of_the_other_track_on_its_tile():
    # Gam deals 2 on C2 at t=2 and 3 to the Fox (Track A, pace 2, 4 health); the Toad (Track B,
    # pace 2) shares C2 with it then and heals it 1 a unit, so it walks on.
    gam = tower("Gam", (2, 3), ((-1, -1),), damage=2)
    fox = familiar(1, health=4, pace=2)
    assert cross([gam], a=[fox], b=[familiar(2, "Toad", 100, pace=2, ability=Ability.HEAL, amount=1)]) == [
        (True, "F2", 16, None), (True, "F2", 10, None)]
    assert cross([gam], a=[fox], b=[familiar(2, "Toad", 100, pace=2)]) == [
        (False, "C2", 3, "Gam D3"), (True, "F2", 10, None)]


def test_geon_strikes_on_the_tile_of_the_familiar_nearest_e_the_lowest_slot_there():
    # At t=2: slot 3 (Track B) on C2, 3 tiles from E, is the nearest, and slot 1 (Track A, 7 tiles) shares
    # its tile: slot 1 falls, although slot 2 on B2 is nearer E (4 tiles) than slot 1. (Geon struck
    # slot 3 alone on B2 at t=1.)
    geon = tower("Geon", (2, 1), ((-1, 0), (-1, 1)), damage=5, effect=Effect.SINGLE)  # B2 and C2
    assert cross([geon], a=[familiar(1, health=1, pace=2)], b=[familiar(3, health=6), familiar(2, health=1)]) == [
        (False, "C2", 2, "Geon B3"), (False, "C2", 3, "Geon B3"), (True, "F2", 5, None)]


def test_geon_strikes_the_lower_slot_of_two_on_different_tiles_equally_near_e():
    # At t=3 one stands on D2 (Track A) and the other on F4 (Track B), each 2 tiles from E.
    geon = tower("Geon", (2, 4), ((-1, -1), (1, 1)), damage=5, effect=Effect.SINGLE)  # D2 and F4
    assert play([geon], a=[familiar(2, health=1)], b=[None, None, familiar(1, health=1)]) == [
        (False, "F4", 3, "Geon E3"), (True, "F2", 5, None)]
    assert play([geon], a=[familiar(1, health=1)], b=[None, None, familiar(2, health=1)]) == [
        (False, "D2", 3, "Geon E3"), (True, "F2", 5, None)]


def test_a_familiar_reaching_e_takes_no_damage_there():
    yi = tower("Yi", (2, 4), ((-1, 0), (-1, 1)), damage=2)  # E2 and E itself
    assert play([yi], a=[familiar(1, health=3)]) == [(True, "F2", 5, None)]  # 1 health left on E
    assert play([yi], a=[familiar(1, health=2)]) == [(False, "E2", 4, "Yi E3")]


def test_a_tower_range_turns_with_its_facing():
    assert sorted(tower_cells(tower("Yi", (2, 4), facing=Facing.EAST))) == [(2, 4), (2, 5)]
    assert play([tower("Yi", (2, 4))], b=[familiar(1, health=1)]) == [(True, "F2", 3, None)]
    assert play([tower("Yi", (2, 4), facing=Facing.EAST)], b=[familiar(1, health=1)]) == [(False, "F3", 2, "Yi E3")]


def test_slow_adds_to_the_pace_for_its_duration_and_sturdy_ignores_it():
    son = tower("Son", (2, 1), damage=0, interval=9, effect=Effect.SLOW, amount=1, duration=2)
    # Struck on B2 at t=1: pace 2 at t=2 and 3, so it moves at 3, then every unit.
    assert play([son], a=[familiar(1)]) == [(True, "F2", 6, None)]
    assert play([son], a=[familiar(1, ability=Ability.STURDY)]) == [(True, "F2", 5, None)]


def test_stunned_time_does_not_count_towards_the_pace():
    jin = tower("Jin", (2, 1), damage=0, interval=20, effect=Effect.STUN, duration=2)
    # Pace 2, on B2 at t=2 and stunned: t=3 and 4 do not count, 5 and 6 do; then every 2 units.
    assert play([jin], a=[familiar(1, pace=2)]) == [(True, "F2", 12, None)]
    assert play([jin], a=[familiar(1, pace=2, ability=Ability.STURDY)]) == [(True, "F2", 10, None)]


def test_a_stun_is_not_renewed_while_it_holds_so_a_familiar_always_moves_on():
    # Striking every unit, Jin stuns at t=1 for t=2 and 3; not again at 2 nor 3; the Fox moves at 4.
    jin = tower("Jin", (2, 1), damage=0, effect=Effect.STUN, duration=2)
    assert play([jin], a=[familiar(1)]) == [(True, "F2", 7, None)]


def test_a_burn_ticks_after_the_strike_and_its_tower_gets_the_kill():
    yi = tower("Yi", (2, 1), damage=1, interval=20, effect=Effect.BURN, amount=2, duration=3)
    gam = tower("Gam", (2, 4))
    # 6 health: 1 at t=1 on B2, then 2 at t=2, 3 and 4, when Gam deals 1 on E2 too: Yi dealt more.
    assert play([yi, gam], a=[familiar(1, health=6)]) == [(False, "E2", 4, "Yi B3")]
    assert play([yi, gam], a=[familiar(1, health=9)]) == [(True, "F2", 5, None)]  # the burn is over at t=5


def test_a_burn_gives_way_only_to_one_dealing_more_than_it_has_left():
    # Pace 2: on B2 at t=2, lit 1 a unit for t=3..7; on C2 at t=4 Yi C3's 3 at t=5 is no more than the 3 left.
    yi = tower("Yi", (2, 1), damage=0, interval=20, effect=Effect.BURN, amount=1, duration=5)
    assert play([yi, tower("Yi", (2, 2), damage=0, interval=20, effect=Effect.BURN, amount=3, duration=1)],
                a=[familiar(1, pace=2)]) == [(False, "D2", 7, "Yi B3")]
    # 4 is more: 1 at t=3 and 4, then 4 at t=5.
    assert play([yi, tower("Yi", (2, 2), damage=0, interval=20, effect=Effect.BURN, amount=4, duration=1)],
                a=[familiar(1, pace=2)]) == [(False, "C2", 5, "Yi C3")]


def test_bane_adds_damage_against_its_kind_only():
    yi = tower("Yi", (2, 1), effect=Effect.BANE, amount=5, against="Fox")
    assert play([yi], a=[familiar(1, health=3), familiar(2, "Cat", health=3)]) == [
        (False, "B2", 1, "Yi B3"), (True, "F2", 6, None)]


def test_resist_lessens_strikes_of_its_kind_or_of_every_kind():
    towers = [tower("Yi", (2, 1)), tower("Gam", (2, 2))]  # B2 and C2
    assert play(towers, a=[familiar(1, health=1, ability=Ability.RESIST, amount=1, against="Yi"),
                           familiar(2, health=1, ability=Ability.RESIST, amount=1),
                           familiar(3, health=1)]) == [
        (False, "C2", 2, "Gam C3"), (True, "F2", 6, None), (False, "B2", 3, "Yi B3")]


def test_a_familiar_flying_over_a_kind_is_never_in_its_range():
    gan = tower("Gan", (2, 1), damage=5)
    assert play([gan], a=[familiar(1, "Pheasant", 1, ability=Ability.FLIES, against="Gan"), familiar(2, health=1)]) == [
        (True, "F2", 5, None), (False, "B2", 2, "Gan B3")]
    # Geon passes over the Pheasant nearer E, to the Fox behind it.
    geon = tower("Geon", (2, 3), ((-1, -1), (-1, 0)), damage=5, effect=Effect.SINGLE)
    assert play([geon], a=[familiar(1, "Pheasant", 1, ability=Ability.FLIES, against="Geon"),
                           familiar(2, health=1)]) == [(True, "F2", 5, None), (False, "C2", 3, "Geon D3")]


def test_a_healer_heals_the_others_adjacent_but_not_itself_up_to_their_health():
    gam = tower("Gam", (2, 2), FRONT3, damage=2)  # B2, C2, D2
    assert play([gam], a=[familiar(1, "Toad", ability=Ability.HEAL, amount=1)]) == [(False, "D2", 3, "Gam C3")]
    # The Fox ahead takes 2 a unit on B2..D2 and the Toad a tile behind heals it 1 a unit.
    toad = familiar(2, "Toad", 100, ability=Ability.HEAL, amount=1)
    assert play([gam], a=[familiar(1), toad]) == [(True, "F2", 5, None), (True, "F2", 6, None)]
    assert play([gam], a=[familiar(1), familiar(2, "Toad", 100)]) == [(False, "D2", 3, "Gam C3"), (True, "F2", 6, None)]
    # Healed 10 a unit, the Fox is never above its 5 health: Yi's 6 on E2 kills it.
    toad = familiar(2, "Toad", 100, ability=Ability.HEAL, amount=10)
    assert play([gam, tower("Yi", (2, 4), damage=6)], a=[familiar(1), toad]) == [
        (False, "E2", 4, "Yi E3"), (True, "F2", 6, None)]


def test_a_healer_heals_diagonally():
    yi = tower("Yi", (2, 4), damage=2)  # E2
    # The Fox (pace 2) is on E2 at t=8 and 9; the Toad (pace 3) on F3, diagonal to it, at t=6..8.
    fox = familiar(1, health=4, pace=2)
    toad = familiar(2, "Toad", pace=3, ability=Ability.HEAL, amount=1)
    assert play([yi], a=[fox], b=[toad]) == [(True, "F2", 10, None), (True, "F2", 9, None)]
    assert play([yi], a=[fox], b=[familiar(2, "Toad", pace=3)]) == [(False, "E2", 9, "Yi E3"), (True, "F2", 9, None)]


def test_damage_of_one_time_unit_lands_together_the_kill_to_the_most_then_the_earlier():
    yi, gam = tower("Yi", (2, 1), damage=2), tower("Gam", (2, 2), ((-1, -1),), damage=3)  # both on B2
    assert play([yi, gam], a=[familiar(1, health=4)]) == [(False, "B2", 1, "Gam C3")]
    gam = tower("Gam", (2, 2), ((-1, -1),), damage=2)
    assert play([yi, gam], a=[familiar(1, health=4)]) == [(False, "B2", 1, "Yi B3")]
    assert play([gam, yi], a=[familiar(1, health=4)]) == [(False, "B2", 1, "Gam C3")]


def test_a_tower_strikes_again_interval_units_after_its_last_strike():
    # A2..C2 in range: a pace-3 Fox is struck at t=0, 3 and 6.
    assert play([tower("Tae", (2, 1), FRONT3, interval=3)], a=[familiar(1, health=3, pace=3)]) == [
        (False, "C2", 6, "Tae B3")]
    # C2..E2 in range: struck at t=2 (its first strike), not again before t=5, when the Fox is gone.
    assert play([tower("Tae", (2, 3), FRONT3, interval=3)], a=[familiar(1, health=2)]) == [(True, "F2", 5, None)]


def test_time_units_are_played_in_order_when_a_burn_ends_off_range():
    # Slot 1 (pace 2) is lit on A2 at t=0 and burns its last on C2 at t=4, out of every range, next
    # moving at 6; slot 2 (pace 4) waits on F5 from t=3 and steps into Yi E4's burn on F4 at 7. Its
    # first tick is at 8: the time unit 6, when slot 1 moves, comes before, never after 7.
    yi = tower("Yi", (2, 0), damage=0, interval=20, effect=Effect.BURN, amount=1, duration=4)  # A2
    yi_e4 = tower("Yi", (3, 4), damage=0, facing=Facing.EAST, effect=Effect.BURN, amount=1, duration=3)  # F4
    assert play([yi, yi_e4], a=[familiar(1, health=10, pace=2)], b=[None, None, None, familiar(2, health=1, pace=4)]
                ) == [(True, "F2", 10, None), (False, "F4", 8, "Yi E4")]


def test_a_defence_gives_the_same_fates_every_time():
    towers = [tower("Yi", (2, 1), FRONT3, effect=Effect.BURN, amount=1, duration=2), tower("Jin", (2, 4), damage=0,
              interval=2, effect=Effect.STUN, duration=1)]
    parties = {"A": [familiar(1, health=9), None, familiar(3, pace=2, health=9)], "B": [familiar(4)]}
    defence = Defence(MAP, towers)
    first = battle(defence, parties)
    assert battle(defence, parties) == first == battle(Defence(MAP, towers), parties)
    # Slot 1 walks out of the burns with 2 health, is stunned on E2 at t=4 and moves on at 6; slot 3
    # (pace 2) burns all the way to C2.
    assert [(f.reached, cell_name(f.cell), f.time, f.killer) for f in first] == [
        (True, "F2", 6, None), (False, "C2", 6, "Yi B3"), (True, "F2", 3, None)]


# ---- generated battles against the rules read literally ------------------------------------------


def strike(tower: PlacedTower, familiar: SentFamiliar) -> int:
    s, f = tower.stats, familiar.stats
    bane = s.amount if s.effect is Effect.BANE and s.against == familiar.kind.name else 0
    resist = f.amount if f.ability is Ability.RESIST and f.against in (None, tower.kind.name) else 0
    return max(0, s.damage + bane - resist)


def literal(game_map: GameMap, towers: list[PlacedTower], parties: dict) -> tuple[Fate, ...]:
    """The semantics as written, one time unit at a time with wait counters: slow and plain."""
    walkers = [dict(f=f, party=p, track=game_map.tracks[p], at=k, i=0, wait=0, hp=f.stats.health,
                    slow=(0, -1), stun=-1, stunned=-1, burn=(0, -1, 0))
               for p, slots in parties.items() for k, f in enumerate(slots) if f]
    ready, fates, t = [0] * len(towers), {}, 0
    while len(fates) < len(walkers):
        live = [w for w in walkers if w["at"] <= t and w["f"].slot not in fates]
        for w in live:
            if w["at"] < t and t > w["stun"]:
                w["wait"] += 1
                amount, end = w["slow"]
                if w["wait"] >= w["f"].stats.pace + (amount if t <= end else 0):
                    w["i"], w["wait"] = w["i"] + 1, 0
                    if w["i"] == len(w["track"]) - 1:
                        fates[w["f"].slot] = Fate(w["f"].slot, w["f"].unit, w["party"], True, w["track"][-1], t)
        live = [w for w in live if w["f"].slot not in fates]
        dealt = {w["f"].slot: [0] * len(towers) for w in live}
        for w in live:
            amount, end, j = w["burn"]
            if end >= t:
                dealt[w["f"].slot][j] += amount
        for j, tw in enumerate(towers):
            s, cells = tw.stats, tower_cells(tw)
            inside = [w for w in live if w["track"][w["i"]] in cells
                      and not (w["f"].stats.ability is Ability.FLIES and w["f"].stats.against == tw.kind.name)]
            if t < ready[j] or not inside:
                continue
            ready[j] = t + s.interval
            if s.effect is Effect.SINGLE:  # the tile of the one nearest E, and there the lowest slot
                near = min(inside, key=lambda w: (len(w["track"]) - 1 - w["i"], w["f"].slot))
                inside = [min((w for w in inside if w["track"][w["i"]] == near["track"][near["i"]]),
                              key=lambda w: w["f"].slot)]
            for w in inside:
                dealt[w["f"].slot][j] += strike(tw, w["f"])
                amount, end, _ = w["burn"]
                if s.effect is Effect.BURN and s.amount * s.duration > amount * max(0, end - t):
                    w["burn"] = (s.amount, t + s.duration, j)
                if w["f"].stats.ability is Ability.STURDY:
                    continue
                if s.effect is Effect.STUN and (w["stun"] < t or w["stunned"] == t):
                    w["stun"], w["stunned"] = max(w["stun"], t + s.duration), t
                amount, end = w["slow"]
                if s.effect is Effect.SLOW and end <= t:
                    w["slow"] = (s.amount, t + s.duration)
                elif s.effect is Effect.SLOW:
                    w["slow"] = (max(amount, s.amount), max(end, t + s.duration))
        for w in live:
            w["hp"] -= sum(dealt[w["f"].slot])
            if w["hp"] <= 0:
                d = dealt[w["f"].slot]
                killer = towers[d.index(max(d))].unit
                fates[w["f"].slot] = Fate(w["f"].slot, w["f"].unit, w["party"], False, w["track"][w["i"]], t, killer)
        live = [w for w in live if w["f"].slot not in fates]
        for h in live:
            if h["f"].stats.ability is Ability.HEAL:
                (hr, hc) = h["track"][h["i"]]
                for w in live:
                    r, c = w["track"][w["i"]]
                    if w is not h and abs(r - hr) <= 1 and abs(c - hc) <= 1:
                        w["hp"] = min(w["hp"] + h["f"].stats.amount, w["f"].stats.health)
        t += 1
    return tuple(fates[s] for s in sorted(fates))


CELLS = st.tuples(st.integers(0, 4), st.integers(0, 5))
SMALL = st.integers(0, 3)
TOWER_KINDS = ("Geon", "Yi", "Gan")
FAMILIAR_KINDS = ("Fox", "Toad", "Pheasant")


@st.composite
def battles(draw):
    e = draw(CELLS)
    tracks = {p: (*draw(st.lists(CELLS, min_size=1, max_size=7)), e) for p in "AB"}
    game_map = GameMap("random", MapKind.GROTTO_HEAVEN, tuple((Tile.GROTTO_HEAVEN,) * 6 for _ in range(5)), tracks)
    towers = []
    for n in range(draw(st.integers(0, 5))):
        level = TowerLevel(10, draw(SMALL), draw(st.integers(1, 3)), tuple(draw(st.lists(st.tuples(
            st.integers(-2, 2), st.integers(-2, 2)), max_size=4))), draw(st.sampled_from(Effect)), draw(SMALL),
            draw(SMALL), draw(st.sampled_from(FAMILIAR_KINDS)))
        kind = TowerKind(draw(st.sampled_from(TOWER_KINDS)), Ground.LAND, (level,))
        towers.append(PlacedTower(f"{kind.name} {n}", kind, 1, draw(CELLS), draw(st.sampled_from(Facing))))
    kinds = {name: FamiliarKind(name, 10, (FamiliarLevel(
        draw(st.integers(1, 8)), draw(st.integers(1, 3)), draw(st.sampled_from(Ability)), draw(SMALL),
        draw(st.sampled_from((None, *TOWER_KINDS)))),)) for name in FAMILIAR_KINDS}
    parties, slot = {}, 1
    for p in "AB":
        parties[p] = []
        for name in draw(st.lists(st.sampled_from((None, *FAMILIAR_KINDS)), max_size=6)):
            parties[p].append(name and SentFamiliar(slot, f"{name} {slot}", kinds[name], 1))
            slot += 1
    return game_map, towers, parties


@settings(max_examples=300, deadline=None)
@given(battles())
def test_every_familiar_gets_one_fate_as_the_rules_read_literally_give_it(case):
    game_map, towers, parties = case
    fates = battle(Defence(game_map, towers), parties)
    sent = [f for slots in parties.values() for f in slots if f]
    assert [f.slot for f in fates] == sorted(f.slot for f in sent)
    for fate in fates:
        track = game_map.tracks[fate.party]
        assert fate.cell == track[-1] if fate.reached else fate.killer in {t.unit for t in towers}
    assert fates == literal(game_map, towers, parties)
