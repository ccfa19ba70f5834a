"""Summoner's Dream's data tabs: the sample reads into a Catalogue that plays, and every kind of bad
input is refused with a message naming tab, row, column (or map cell) and the bad value."""

import copy
import random

import pytest

from sheets_host.events.summoning import data
from sheets_host.events.summoning.maps import TrackError, derive_track, grid
from sheets_host.events.summoning.state import Ability, Effect, Ground, MapKind, Tile, cell_name

SAMPLE = data.sample_data()
TOWERS = ("Geon", "Yi", "Tae", "Jin", "Son", "Gam", "Gan", "Gon")
FAMILIARS = ("Fox", "Monkey", "Toad", "Cat", "Carp", "Pheasant", "Crab", "Raccoon Dog")


def edited():
    return copy.deepcopy(SAMPLE)


def row(d, tab, **match):
    """The record of `tab` whose columns hold `match` (the first, in sheet order)."""
    return next(r for r in d[tab] if all(r[k] == v for k, v in match.items()))


def problems(d):
    return [str(e) for e in data.check_data(d)]


def test_the_sample_checks_clean_is_labelled_and_reads_into_a_catalogue():
    assert data.check_data(SAMPLE) == []
    assert [t.name for t in data.DATA_TABS] == ["summoning maps", "summoning tracks", "summoning ranges",
                                               "summoning towers", "summoning familiars", "summoning sales"]
    assert all(r["note"] == "sample" for rows in SAMPLE.values() for r in rows)
    assert all(c.doc for t in data.DATA_TABS for c in t.columns) and all(len(t.name) <= 31 for t in data.DATA_TABS)
    c = data.catalogue(SAMPLE)
    kinds = [m.kind for m in c.maps.values()]
    assert len(c.maps) == 8 and kinds.count(MapKind.BLESSED_LAND) == kinds.count(MapKind.GROTTO_HEAVEN) == 4
    assert tuple(c.towers) == TOWERS and all(len(t.levels) == 3 for t in c.towers.values())
    assert tuple(c.familiars) == FAMILIARS and all(len(f.levels) == 6 for f in c.familiars.values())
    for m in c.maps.values():
        for party, track in m.tracks.items():
            assert m.tile(track[0]) is Tile(party) and m.tile(track[-1]) is Tile.TREASURE
            assert 14 <= len(track) <= 24 and all(m.tile(cell).is_road for cell in track[1:-1])
    assert c.towers["Geon"].levels[0].effect is Effect.SINGLE and c.towers["Gan"].ground is Ground.ROAD
    assert c.towers["Gam"].levels[0].against == "Fox" and c.towers["Son"].levels[0].reach == ((-4, 0), (-3, 0),
                                                                                              (-2, 0), (-1, 0))
    assert c.familiars["Pheasant"].levels[0].ability is Ability.FLIES and c.familiars["Crab"].levels[0].against is None
    assert c.familiars["Fox"].cost == 30 and c.towers["Gon"].cost == 150


def test_every_kind_is_on_sale_and_also_from_round_2_when_six_play():
    sales = data.catalogue(SAMPLE).sales
    assert sorted(sales) == [1, 2, 3, 4, 5, 6]
    assert {k for names in sales.values() for k in names} == {*TOWERS, *FAMILIARS}
    assert {k for n in range(2, 7) for k in sales[n]} == {*TOWERS, *FAMILIARS}


def test_tracks_derive_from_the_drawing_or_come_from_the_tracks_tab():
    maps = data.catalogue(SAMPLE).maps
    willow = maps["Willow Bend"]
    assert " ".join(map(cell_name, willow.tracks["A"])) == "D1 D2 D3 E3 F3 G3 H3 I3 J3 J4 J5 J6 J7 K7 L7"
    assert " ".join(map(cell_name, willow.tracks["B"])) == "A5 B5 C5 D5 E5 F5 F6 F7 G7 H7 I7 J7 K7 L7"
    pond = maps["Mirror Pond"]  # its road forks round the pond: Track A is listed
    assert " ".join(map(cell_name, pond.tracks["A"])) == "A2 B2 C2 D2 E2 F2 G2 G3 G4 G5 H5 I5 J5 J6 J7 K7 L7"
    with pytest.raises(TrackError, match="forks at D2 to E2 and D3"):
        derive_track(pond.tiles, "A")


def test_names_are_read_in_any_case_and_given_as_their_tab_types_them():
    d = edited()
    row(d, "summoning sales", round=1)["on sale"] = "tae,  SON , gam, fox, cat, carp, toad"
    row(d, "summoning towers", tower="Gam", level=1)["against"] = "FOX"
    row(d, "summoning towers", tower="Geon", level=1)["range"] = "Diamond"
    assert data.check_data(d) == []
    c = data.catalogue(d)
    assert c.sales[1][:2] == ("Tae", "Son") and c.towers["Gam"].levels[0].against == "Fox"


# ---- bad maps ------------------------------------------------------------------------------------


def willow(d, map_row):
    return row(d, "summoning maps", map="Willow Bend", row=map_row)


def test_an_unknown_tile_character_is_named_with_what_is_allowed():
    d = edited()
    willow(d, 3)["C"] = "q"
    assert problems(d) == ["tab 'summoning maps', row 4, column 'C': 'q' is not a tile: R (road), A or B (a track's "
                           "entrance), E (Treasure), L (Blessed Land), H (Grotto-Heaven) or # (scenery)",
                           *problems_fewer_blessed_land()]


def problems_fewer_blessed_land():
    """What a broken Willow Bend also costs: three Blessed Land maps left."""
    return ["tab 'summoning maps', column 'map': 'Jade Terraces, Plum Orchard, Mirror Pond' is not 4 or more "
            "blessed land maps drawn without problems (each round each participant chooses among 2 of each kind)"]


def test_tiles_are_read_in_any_case_and_spacing():
    d = edited()
    willow(d, 3)["D"] = " r "
    assert data.check_data(d) == []


def test_land_of_both_kinds_is_refused_naming_the_cells():
    d = edited()
    willow(d, 1)["A"] = "H"
    willow(d, 8)["B"] = "h"
    assert problems(d)[0] == ("tab 'summoning maps', row 2, column 'map': 'Willow Bend' is not a map of one kind: its "
                              "buildable tiles are all L (Blessed Land) or all H (Grotto-Heaven); H at A1 B8, L at 63 "
                              "other tiles")


def test_a_map_needs_exactly_one_treasure_tile():
    d = edited()
    willow(d, 8)["A"] = "E"
    assert "'Willow Bend' is not a map with one Treasure tile E (it has 2: L7 A8)" in problems(d)[0]
    d = edited()
    willow(d, 7)["L"] = "R"
    assert "'Willow Bend' is not a map with one Treasure tile E (it has none)" in problems(d)[0]


def test_an_entrance_is_on_the_edge_and_one_of_each():
    d = edited()
    willow(d, 1)["D"], willow(d, 2)["D"] = "L", "A"
    assert problems(d)[0] == ("tab 'summoning maps', row 3, column 'D': 'A' is not where Track A begins: Willow Bend "
                              "D2 is inside the map; an entrance is on its edge")
    d = edited()
    willow(d, 5)["A"] = "R"
    assert "'Willow Bend' is not a map with one B tile, the road tile on its edge where Track B begins (it has none)" \
        in problems(d)[0]


def test_a_blank_tile_inside_a_drawing_and_a_short_row_are_named():
    d = edited()
    willow(d, 4)["C"] = None
    willow(d, 5)["L"] = None
    assert problems(d)[:2] == [
        "tab 'summoning maps', row 5, column 'C': '' is not a tile (Willow Bend C4 is blank: draw every tile)",
        "tab 'summoning maps', row 6, column 'L': '' is not a tile (Willow Bend row 5 ends at column K but its widest "
        "row at L: draw every row to the same width)"]


def test_a_drawing_has_consecutive_rows_numbered_from_1():
    d = edited()
    willow(d, 3)["row"] = 4
    assert problems(d)[0] == ("tab 'summoning maps', row 4, column 'row': 4 is not 3, the next row of Willow Bend (a "
                              "drawing's rows are numbered 1, 2, ... from the top)")


def test_a_road_that_forks_says_to_list_the_track():
    d = edited()
    willow(d, 4)["D"] = "R"  # joins Track A's road to Track B's: each track can now go either way
    assert problems(d)[:2] == [
        "tab 'summoning maps', row 4, column 'D': 'Willow Bend Track A at D3' is not a road with one way on to E: it "
        "forks to E3 and D4; list the track's cells in 'summoning tracks' to say which way it goes",
        "tab 'summoning maps', row 6, column 'D': 'Willow Bend Track B at D5' is not a road with one way on to E: it "
        "forks to D4 and E5; list the track's cells in 'summoning tracks' to say which way it goes"]
    d["summoning tracks"] += [
        {"_row": 3, "map": "willow bend", "track": "A", "cells": "D1 D2 D3 E3 F3 G3 H3 I3 J3 J4 J5 J6 J7 K7 E"},
        {"_row": 4, "map": "Willow Bend", "track": "B", "cells": "A5 B5 C5 D5 E5 F5 F6 F7 G7 H7 I7 J7 K7 L7"}]
    assert data.check_data(d) == []


def test_a_road_that_ends_before_e_is_a_dead_end():
    d = edited()
    willow(d, 5)["J"] = "L"
    assert problems(d)[0] == ("tab 'summoning maps', row 5, column 'J': 'Willow Bend Track A at J4' is not a road that "
                              "leads on to E: no road or E tile next to it that the track has not passed; draw it on")
    with pytest.raises(TrackError, match="at A1 leads only to B1 and A2, which end before E"):
        derive_track(grid("ARL", "RLE"), "A")


# ---- bad tracks ----------------------------------------------------------------------------------


def pond_track(d):
    return row(d, "summoning tracks", map="Mirror Pond", track="A")


@pytest.mark.parametrize("cells, message", [
    ("A2 B2 D2 E2", "'D2' is not next to B2, the tile before it: each step is to the tile north, east, south or west"),
    ("A2 B2 C2 C3 D3", "'C3' is not a road tile: Mirror Pond C3 is L; a track runs on R tiles to E"),
    ("B2 C2", "'B2' is not Track A's entrance, where the track begins: Mirror Pond's A tile"),
    ("A2 B2 A2", "'A2' is not a tile the track has not passed (it is its tile 1 too)"),
    ("A2 B2 Z9", "'Z9' is not a cell of Mirror Pond: A1 to L9, or E for its Treasure tile"),
    ("A2 B2 C2 D2 D3", "'D3' is not E, the last tile: a track ends on the Treasure tile (L7)"),
    ("A2 B2 C2 D2 D3 D4 D5 E5 F5 G5 H5 I5 J5 J6 J7 K7 E L8",
     "'L8' is not part of the track: it ends on reaching E at L7"),
])
def test_a_listed_track_runs_on_the_road_step_by_step_from_its_entrance_to_e(cells, message):
    d = edited()
    pond_track(d)["cells"] = cells
    assert problems(d)[0] == f"tab 'summoning tracks', row 2, column 'cells': {message}"


def test_a_listed_track_names_a_drawn_map_once():
    d = edited()
    d["summoning tracks"].append(dict(pond_track(d), _row=3))
    d["summoning tracks"].append(dict(pond_track(d), _row=4, map="Misty Pond"))
    found = problems(d)
    assert found[0] == ("tab 'summoning tracks', row 3, column 'track': 'A' is not a track of Mirror Pond not listed "
                        "already (row 2 lists it)")
    assert found[1].startswith("tab 'summoning tracks', row 4, column 'map': 'Misty Pond' is not a map of the maps tab")


# ---- bad ranges, Towers, Familiars, sales --------------------------------------------------------


def test_a_range_has_one_t():
    d = edited()
    row(d, "summoning ranges", range="ring", row=2)["B"] = "x"
    assert problems(d)[0] == ("tab 'summoning ranges', row 2, column 'range': 'ring' is not a range with one T, the "
                              "Tower's own tile (it has none)")
    d = edited()
    row(d, "summoning ranges", range="ring", row=1)["A"] = "t"
    row(d, "summoning ranges", range="ring", row=3)["C"] = "o"
    assert problems(d)[:2] == [
        "tab 'summoning ranges', row 4, column 'C': 'o' is not a range tile: T (the Tower's own tile), x (in range), "
        "or . or blank (not in range)",
        "tab 'summoning ranges', row 2, column 'range': 'ring' is not a range with one T, the Tower's own tile (it has "
        "2: A1 B2)"]


def test_a_tower_has_each_of_its_three_levels_once():
    d = edited()
    d["summoning towers"].remove(row(d, "summoning towers", tower="Geon", level=3))
    assert problems(d) == ["tab 'summoning towers', row 2, column 'tower': 'Geon' is not a tower with a row for each "
                           "level 1 to 3 (level 3 missing)"]
    d = edited()
    row(d, "summoning towers", tower="Geon", level=3)["level"] = 2
    assert problems(d)[0] == ("tab 'summoning towers', row 4, column 'level': 2 is not a level of Geon not given "
                              "already (row 3 gives it)")


def test_an_effect_has_the_columns_it_needs_and_no_others():
    d = edited()
    row(d, "summoning towers", tower="Tae", level=1)["duration"] = None
    row(d, "summoning towers", tower="Jin", level=1)["amount"] = 5
    row(d, "summoning towers", tower="Gam", level=2)["against"] = "Dragon"
    row(d, "summoning towers", tower="Gan", level=3)["ground"] = "land"
    found = problems(d)
    assert found[0] == "tab 'summoning towers', row 8, column 'duration': '' is not a duration in time units, which " \
                       "effect slow needs"
    assert found[1] == "tab 'summoning towers', row 11, column 'amount': 5 is not used by effect stun: leave it blank"
    assert found[2].startswith("tab 'summoning towers', row 18, column 'against': 'Dragon' is not a Familiar of the "
                               "familiars tab") and "allowed: Fox, Monkey" in found[2]
    assert found[3] == ("tab 'summoning towers', row 22, column 'ground': 'land' is not road, as at level 1: a Tower "
                        "stands on the same ground at every level")


def test_a_familiar_costs_on_level_1_only_and_its_ability_has_what_it_needs():
    d = edited()
    row(d, "summoning familiars", familiar="Fox", level=1)["cost"] = None
    row(d, "summoning familiars", familiar="Fox", level=2)["cost"] = 30
    row(d, "summoning familiars", familiar="Pheasant", level=1)["against"] = None
    assert problems(d) == [
        "tab 'summoning familiars', row 2, column 'cost': '' is not a cost: level 1 gives what Fox costs, and each of "
        "its upgrades",
        "tab 'summoning familiars', row 3, column 'cost': 30 is not blank on level 2: an upgrade costs what level 1 "
        "gives (the text)",
        "tab 'summoning familiars', row 32, column 'against': '' is not a name, which ability flies needs"]


def test_sales_name_known_kinds_every_kind_at_least_once_and_each_round_once():
    d = edited()
    row(d, "summoning sales", round=1)["on sale"] = "Tae, Son, Gam, Fox, Cat, Carp, Dragon"
    row(d, "summoning sales", round=6)["round"] = 5
    found = problems(d)
    assert found[0].startswith("tab 'summoning sales', row 2, column 'on sale': 'Dragon' is not a Tower or Familiar")
    assert "allowed: Geon, Yi, Tae" in found[0]
    assert found[1] == "tab 'summoning sales', row 7, column 'round': 5 is not a round without another row (row 6 " \
                       "is round 5)"
    d = edited()
    for r in d["summoning sales"]:
        r["on sale"] = ", ".join(k for k in r["on sale"].split(", ") if k not in ("Gam", "Toad"))
    assert problems(d) == ["tab 'summoning sales', column 'on sale': 'Gam, Toad' is not on sale in any round: every "
                           "Tower and Familiar is on sale at least once (the text: each is in the sales pool)"]


def test_four_maps_of_each_kind_are_needed():
    d = edited()
    for r in d["summoning maps"]:
        if r["map"] == "Willow Bend":
            r.update({k: "H" for k, v in r.items() if v == "L"})
    assert problems(d) == problems_fewer_blessed_land()


def test_names_are_unique_in_any_case_and_spacing():
    d = edited()
    for r in d["summoning maps"]:
        if r["map"] == "Plum Orchard":
            r["map"] = "WILLOW bend"
    for r in d["summoning familiars"]:
        if r["familiar"] == "Cat":
            r["familiar"] = "geon"
    found = problems(d)
    assert found[0] == ("tab 'summoning maps', row 19, column 'map': 'WILLOW bend' is not a name no other map uses "
                        "(row 2 begins its drawing; a map's rows are consecutive, numbered 1, 2, ...)")
    assert "tab 'summoning familiars', row 20, column 'familiar': 'geon' is not a name no Tower has (row 2 of the " \
           "towers tab; sales list both together)" in found


def test_a_kind_name_has_no_comma_and_does_not_end_in_a_number():
    d = edited()
    for r in d["summoning familiars"]:
        if r["familiar"] == "Cat":
            r["familiar"] = "Cat 9"
    assert problems(d)[0] == ("tab 'summoning familiars', row 20, column 'familiar': 'Cat 9' is not a name without a "
                              "comma that does not end in a number (units are named like `Yi 2`, lists with commas)")


def test_check_data_never_raises_and_what_it_passes_reads():
    """Random edits within the schemas (as a host's typing reaches check_data): problems, never a crash."""
    rng = random.Random(7)
    texts = [None, "", "R", "r", "L", "H", "E", "A", "B", "#", "x", "T", ".", "Q", "Fox", "geon", "Dragon", "ring",
             "Willow Bend", "A2 B2 C2", "Gam, Fox", "a,b", "Cat 2"]
    columns = {t.name: {c.name: c for c in t.columns} for t in data.DATA_TABS}
    passed = 0
    for _ in range(150):
        d = edited()
        for _ in range(rng.randint(1, 3)):
            tab = rng.choice(list(d))
            if not d[tab]:
                continue
            r = rng.choice(d[tab])
            column = columns[tab][rng.choice([k for k in r if k != "_row"])]
            if column.kind == "int":
                r[column.name] = rng.randint(int(column.lo or 0), int(column.hi or 9))
            elif column.kind == "choice":
                r[column.name] = rng.choice([*column.choices, *([None] if column.optional else [])])
            else:
                r[column.name] = rng.choice([t for t in texts if column.optional or t])
        if data.check_data(d) == []:
            data.catalogue(d)
            passed += 1
    assert 0 < passed < 150
