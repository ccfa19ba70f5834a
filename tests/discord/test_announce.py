"""Announcements as Discord shows them (`announce`): no pipe table, at most 2,000 characters a
message, a picture with every announcement, and nothing typed can ping or break the formatting."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from sheets_host.discord.announce import (FENCE, FILES, LIMIT, Attachment, messages, neutralise, receipt_messages,
                                         round_messages, split)
from sheets_host.engine.play import bot_names, bot_states, bots, default_settings
from sheets_host.games import get_game, names

PIPE_TABLE = re.compile(r"^\s*\|.*\|\s*$", re.M)
# Names a Discord user could hold: a mention, Markdown, a backtick, an underscore.
ODD = ["@everyone", "**Bold**", "`tick`", "a_b*c", "<@123>", "~~Gone~~"]


def played(game_name: str, players: list[str], rounds: int | None = None):
    game = get_game(game_name)
    d = default_settings(game)
    states = bot_states(game, players, 3, d["config"], d["data"])
    before = next(states)
    for k, after in enumerate(states, 1):
        yield game, before, after, k
        if rounds is not None and k >= rounds:
            return
        before = after


def check_fits(msgs, names=()):
    assert msgs and all(len(m.content) <= LIMIT for m in msgs)
    assert all(len(m.files) <= FILES for m in msgs)
    for m in msgs:
        assert not PIPE_TABLE.search(m.content), m.content
        assert "@everyone" not in m.content and "@here" not in m.content and "<@1" not in m.content
        assert m.content.count(FENCE) % 2 == 0  # every code block closed within its message
        for f in m.files:
            Image.open(io.BytesIO(f.data)).verify()


@pytest.mark.slow(6)
def test_a_15_player_market_day_fits_discord_and_neutralises_odd_names():
    players = ODD + bot_names(15)[len(ODD):]
    longest, seen = 0, set()
    for game, before, after, k in played("magicians-market", players, rounds=3):
        longest = max(longest, len(game.announcement(before, after)))
        msgs = round_messages(game, before, after, k)
        check_fits(msgs)
        assert any(m.files for m in msgs)  # the day's market, prices and shows: in the picture
        for m in msgs:
            text = re.sub(r"```.*?```", "", m.content, flags=re.S)
            assert not [name for name in ODD if name in text]  # each name escaped outside code blocks
            assert "`tick`" not in m.content  # in a code block its backticks are look-alikes
            seen |= {n for n in ODD if n in m.content or n.replace("`", "ˋ") in m.content
                     or neutralise(n, [n]) in m.content}  # as it shows in a code block, or escaped
    assert seen  # the odd names were there to neutralise
    assert longest > LIMIT  # the Markdown itself would not fit in one message: the case in the issue


@pytest.mark.slow(8)
@pytest.mark.parametrize("game_name", names())
def test_every_announcement_has_a_picture_and_the_last_the_final_standings(game_name):
    last = None
    for game, before, after, k in played(game_name, bots(get_game(game_name), None)):
        msgs = round_messages(game, before, after, k)
        check_fits(msgs)
        assert sum(len(m.files) for m in msgs) >= 1, (game_name, k)
        last = msgs
    assert "standings.png" in [f.name for m in last for f in m.files]


def test_a_narrow_table_is_a_code_block_and_a_wide_one_a_picture():
    wide = "| " + " | ".join(f"column {i}" for i in range(9)) + " |\n|" + "---|" * 9 + "\n| " + " | ".join("x" * 9) + " |"
    text = f"## Round 1\n\n### Prices\n\n| good | price |\n|---|---:|\n| cape | 14 |\n\n### Wide\n\n{wide}"
    drawn = []
    msgs = messages(text, [], [], lambda tables: drawn.append(tables) or b"png")
    assert msgs[0].content.split("\n")[4:8] == ["```", "good  price", "cape     14", "```"]
    assert "*Wide: in the picture below.*" in msgs[0].content
    assert [t.title for t in drawn[0]] == ["Wide"] and [f.name for f in msgs[-1].files] == ["tables.png"]


def test_a_long_announcement_is_numbered_and_split_at_line_ends():
    text = "\n".join(f"- line {i} " + "x" * 50 for i in range(100))
    msgs = messages(text, [Attachment("a.png", b"1")], [])
    assert len(msgs) == 4 and all(len(m.content) <= LIMIT for m in msgs)
    assert [m.content.split("\n")[0] for m in msgs] == [f"**({k}/4)**" for k in range(1, 5)]
    lines = [line for m in msgs for line in m.content.split("\n")[1:]]
    assert lines == text.split("\n")
    assert [len(m.files) for m in msgs] == [0, 0, 0, 1]  # the picture under the text


def test_more_pictures_than_a_message_holds_go_on_further_messages():
    msgs = messages("hello", [Attachment(f"{i}.png", b"x") for i in range(23)], [])
    assert [len(m.files) for m in msgs] == [3, 10, 10] or [len(m.files) for m in msgs] == [10, 10, 3]
    assert sum(len(m.files) for m in msgs) == 23 and msgs[0].content.endswith("hello")


def test_a_picture_too_large_for_discord_is_left_out_and_said():
    msgs = messages("hello", [Attachment("huge.png", b"0" * (10 * 1024 * 1024))], [])
    assert msgs[0].files == () and "huge.png is too large for Discord (10.0 MiB)" in msgs[0].content


def test_neutralise_escapes_names_in_text_and_defuses_backticks_in_code():
    text = "**`tick`** won\n```\n`tick`  3\n```\n@here <@123>"
    out = neutralise(text, ["`tick`"])
    assert out.startswith("**\\`tick\\`** won\n```\nˋtickˋ  3\n```\n")
    assert out.endswith("@\u200bhere <@\u200b123>")
    assert neutralise("Ada won", ["Ada"]) == "Ada won"  # a plain name is left alone


lines = st.lists(st.one_of(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n`"),
                                   max_size=300), st.just(FENCE)), max_size=60)


@settings(max_examples=150, deadline=None)
@given(lines, st.integers(120, 2000))
def test_split_keeps_every_line_in_order_within_the_limit_with_code_blocks_closed(parts, limit):
    text = "\n".join(parts)
    pieces = split(text, limit)
    assert all(len(p) <= limit for p in pieces)
    assert all(p.count(FENCE) % 2 == 0 for p in pieces if text.count(FENCE) % 2 == 0)
    kept = [line for p in pieces for line in p.split("\n") if line != FENCE]
    wanted = [line for line in text.split("\n") if line != FENCE]
    # a line longer than a piece is cut at a space (the space dropped): compare the words
    assert " ".join(kept).split() == " ".join(wanted).split()


@pytest.mark.slow(4)
def test_the_final_standings_picture_shows_a_column_of_numbers_in_one_format(monkeypatch):
    """Issue 26: Wind Guide Me's scores are numbers; drawn as Python prints them, 16.1 stood
    beside 26.31. The picture shows each column as the book does (`layout.shown`)."""
    from sheets_host.kit import drawing
    drawn = []
    monkeypatch.setattr(drawing, "table", lambda title, header, rows: drawn.append((header, rows)) or b"")
    *_, (game, before, after, k) = played("wind-guide-me", bots(get_game("wind-guide-me"), None))
    round_messages(game, before, after, k)
    (header, rows), = drawn
    scores = [row[header.index("score")] for row in rows]
    assert scores and all(re.fullmatch(r"-?\d+\.\d\d", s) for s in scores), scores


# Cells as typed: mostly what Discord reads as Markdown, with line breaks; long enough to be cut.
typed = st.text(st.sampled_from("ab #>\n`@*_-|~\t\u00eb"), min_size=1, max_size=400)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(typed, typed), max_size=40), st.sampled_from(ODD + ["Ann"]))
def test_a_receipt_shows_what_was_typed_as_typed_within_the_limit(cells, player):
    """What a player typed, in their receipt, breaks no formatting and pings nobody: no line of it
    starts a heading, a quote or a code block, each message fits Discord, and the commitment (on
    the first message) and the root are whole."""
    rows = [{"row": k, "cells": {column: value}} for k, (column, value) in enumerate(cells, 2)]
    game = get_game("wind-guide-me")
    found = receipt_messages(game, 1, player, "c" * 64, rows, "r" * 64, {"o" * 64: "redone"})
    assert f"`{'c' * 64}`" in found[0].content and any(f"`{'r' * 64}`" in m.content for m in found)
    for message in found:
        assert len(message.content) <= LIMIT and FENCE not in message.content
        assert not re.search("@(?!\u200b)", message.content)
        assert not any(re.match(r"\s*(#|>|```)", line) for line in message.content.split("\n"))
