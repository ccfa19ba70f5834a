"""Issue 26: Spirit Chain's summoning picture: a long player name is cut short with '…', clear of
the cards (it ran over the first slot)."""

import io

from PIL import Image

from sheets_host.games.spirit_chain.cards import LANTERN, Card, Effect, Element, Rank
from sheets_host.games.spirit_chain.colours import BACKGROUND
from sheets_host.games.spirit_chain.picture import LEFT, ROW_Y, draw_summoning
from sheets_host.games.spirit_chain.rules import clash


def test_a_long_name_stays_clear_of_the_slots():
    c = clash(Card("Foxfire", Element.FIRE, Rank.III, Effect(damage=25)), None)
    png = draw_summoning(("Bartholomew Fitzgerald-Smythe", "Bo"), (c, c, c), (LANTERN, 8), "Spirit Chain")
    im = Image.open(io.BytesIO(png)).convert("RGB")
    y = ROW_Y[0]
    gap = im.crop((LEFT - 16, y, LEFT, y + 50))  # between the name column and the first slot
    assert gap.getcolors(1) == [(gap.width * gap.height, BACKGROUND)]
