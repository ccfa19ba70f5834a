"""Pyramid Superiority through the engine on offline books: 15 days, meadow books, replay."""

import io

import pytest
from PIL import Image

from sheets_host.backends import ENGINE_TAB
from sheets_host.backends.xlsx.backend import XlsxBackend
from sheets_host.engine import commands as engine
from sheets_host.engine.announcements_tab import announced
from sheets_host.engine.commands import HISTORY
from sheets_host.engine.play import bot_names, demo
from sheets_host.games import get_game
from sheets_host.games.pyramid_superiority import picture
from sheets_host.games.pyramid_superiority.rules import BY_NAME, Piece, Type

from tests.conftest import fixed_clock

NAMES = bot_names(9)
RED, GREEN = NAMES[3:6], NAMES[6:]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    backend = XlsxBackend(tmp_path_factory.mktemp("ps") / "game")
    report = demo("pyramid-superiority", backend, 11, say=lambda s: None, clock=fixed_clock)
    return backend, report


def tabs(backend, role):
    return backend.book(role).read()


def test_the_demo_plays_15_days_and_writes_every_book(played):
    backend, report = played
    assert report.round == 15 and report.over
    assert len(report.standings) == 9 and set(report.standings["rank"]) <= {1, 2, 3}
    public = tabs(backend, "public")
    assert set(public) == {"participants", "proposed pieces", "pyramid", "from the top", "points", "scoring rounds",
                           "standings", "status", "announcements", "commitments", ENGINE_TAB}
    assert list(announced(get_game("pyramid-superiority"), public["announcements"])) == list(range(1, 16)) and public["pyramid"]["round built"].notna().all()
    for name in NAMES:
        book = tabs(backend, f"player:{name}")
        guest = name in RED + GREEN
        assert set(book) == {"submit", "me", "my statement", "status", HISTORY, "my commitments", ENGINE_TAB} | (
            set() if guest else {"construction"})
    for meadow in ("red", "green"):
        assert set(tabs(backend, f"meadow:{meadow}")) == {"pieces", "proposals", "status", ENGINE_TAB}
    files = sorted(p.name for p in backend.output_dir().iterdir())
    assert files == sorted([f"round-{d:02d}.md" for d in range(1, 16)] + [f"round-{d:02d}.png" for d in range(1, 16)])


def test_meadow_books_are_shared_with_their_guests_only():
    class Recording(XlsxBackend):
        readers: dict = {}

        def create(self, role, title, readers=(), public=False):
            self.readers[role] = list(readers)
            return super().create(role, title, readers, public)

    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        backend = Recording(folder)
        emails = {n: f"{n.lower()}@example.org" for n in NAMES}
        engine.new_game(backend, "pyramid-superiority", NAMES, 1, emails, clock=fixed_clock)
        assert backend.readers["meadow:red"] == [emails[n] for n in RED]
        assert backend.readers["meadow:green"] == [emails[n] for n in GREEN]
        assert backend.readers["player:Ada"] == [emails["Ada"]]


def test_replay_from_the_host_book_gives_identical_books(played, tmp_path):
    original, _ = played
    copy = XlsxBackend(tmp_path / "copy")
    assert engine.replay(original, copy, fixed_clock) == 15
    roles = ["host", "public", *(f"player:{n}" for n in NAMES), "meadow:red", "meadow:green"]
    for role in roles:
        a, b = tabs(original, role), tabs(copy, role)
        assert a.keys() == b.keys()
        for tab in a:
            assert a[tab].astype(str).equals(b[tab].astype(str)), (role, tab)


# ---- the picture ---------------------------------------------------------------------------------


def image(png: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(png))
    assert im.format == "PNG"
    return im.convert("RGB")


def top_cell_centre(r, c):
    x0, y0 = picture.TOP_AT
    return x0 + c * picture.TOP_CELL + picture.TOP_CELL // 2, y0 + r * picture.TOP_CELL + picture.TOP_CELL // 2


def test_the_picture_is_a_deterministic_png():
    pyramid = {BY_NAME["base 5"]: Piece((Type.GRASS, Type.FIRE, Type.WATER, Type.GRASS))}
    png = picture.draw_pyramid(pyramid, "Pyramid Superiority: after day 2")
    assert image(png).size == (picture.WIDTH, picture.HEIGHT)
    assert picture.draw_pyramid(pyramid, "Pyramid Superiority: after day 2") == png


def test_cells_show_their_type_colour_and_stars_are_marked_from_the_top_and_by_layer():
    G, F, W = Type.GRASS, Type.FIRE, Type.WATER
    base = {BY_NAME[f"base {n}"]: Piece((W, W, G, F)) for n in range(1, 10)}
    middle = Piece((F, F, G, W)).starred(Piece((F, F, G, W)).first_cell_of(W))  # star bottom-right
    im = image(picture.draw_pyramid({**base, BY_NAME["middle 1"]: middle}, "t", {"Red Meadow": middle}))
    # Middle 1 covers cells (1..2, 1..2) seen from the top; its star is on (2, 2).
    assert im.getpixel(top_cell_centre(1, 1)) == picture.COLOURS[F]
    assert im.getpixel(top_cell_centre(2, 1)) == picture.COLOURS[G]
    assert im.getpixel(top_cell_centre(2, 2)) == picture.STAR_FILL
    assert im.getpixel(top_cell_centre(0, 0)) == picture.COLOURS[W]  # base 1's top-left, not covered
    assert im.getpixel(top_cell_centre(1, 3)) == picture.COLOURS[F]  # base 2's bottom-right
    # By layer: the middle layer's panel starts after the base's, one cell lower (it is centred on it).
    mx, my = picture.LAYERS_X + 6 * picture.LAYER_CELL + picture.GAP, picture.LAYERS_Y + picture.LAYER_CELL
    half = picture.LAYER_CELL // 2
    assert im.getpixel((mx + half, my + half)) == picture.COLOURS[F]
    assert im.getpixel((mx + 3 * half, my + 3 * half + 1)) == picture.STAR_FILL
    ax, ay = mx + 4 * picture.LAYER_CELL + picture.GAP, picture.LAYERS_Y + 2 * picture.LAYER_CELL
    assert im.getpixel((ax + 6, ay + 6)) == picture.EMPTY  # the apex is still empty
    ox, oy = picture.LAYERS_X, picture.LAYERS_Y + 6 * picture.LAYER_CELL + 56 + 44  # the piece on offer
    assert im.getpixel((ox + 3 * half, oy + 3 * half + 1)) == picture.STAR_FILL


def test_types_may_not_change_once_day_1_is_resolved(tmp_path):
    from sheets_host.kit.errors import SchemaErrors
    from sheets_host.engine.play import bots_submit

    backend = XlsxBackend(tmp_path / "g")
    engine.new_game(backend, "pyramid-superiority", NAMES, 3, clock=fixed_clock)
    bots_submit(backend, engine.open_session(backend, fixed_clock), 3)
    engine.resolve(backend, early=True, clock=fixed_clock)
    types = tabs(backend, "host")["types"]
    types.loc[types.index[[0, 1]], "type"] = list(types["type"].iloc[[1, 0]])  # swap two players' types
    backend.book("host").write({"types": types})
    with pytest.raises(SchemaErrors, match=r"tab 'types', row 2, column 'type': 'grass' is not water, as round 1 was resolved with it \(the types tab is editable only before round 1"):
        engine.open_session(backend, fixed_clock)


def test_participants_with_no_stage_that_day_get_no_default_and_no_blame(played):
    backend, _ = played
    log = tabs(backend, "host")["log"]
    defaults = log[log["kind"] == "default"]
    players, guests = NAMES[:3], RED + GREEN
    assert not ((defaults["round"].astype(int) == 1) & defaults["player"].isin(players)).any()
    assert not ((defaults["round"].astype(int) == 15) & defaults["player"].isin(guests)).any()
