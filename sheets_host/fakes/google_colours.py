"""Colours of the fake's cells (`sheets_host.fakes.google_cells`), as Google keeps them.

A colour is one field with two names: its ColorStyle (``backgroundColorStyle``,
``textFormat.foregroundColorStyle``: an ``rgbColor`` or a ``themeColor``) and the plain Color the
discovery document marks deprecated (``backgroundColor``, ``foregroundColor``), the style winning
where both are sent. The fake keeps the style (`take`); a read answers both (`as_read`), the plain
one as the style's RGB, a theme colour as the spreadsheet's theme has it (`THEME`).
"""

from __future__ import annotations

from typing import Any

from .google_model import GoogleError

# Each colour's deprecated plain name -> its style's, and back.
_STYLES = {"backgroundColor": "backgroundColorStyle", "foregroundColor": "foregroundColorStyle"}
_PLAIN = {style: plain for plain, style in _STYLES.items()}


def _rgb(hex_: str) -> dict[str, float]:
    return {name: round(int(hex_[i:i + 2], 16) / 255, 4) for name, i in (("red", 0), ("green", 2), ("blue", 4))}


# The theme of a new spreadsheet (Sheets' "Standard"): each ThemeColorType's colour.
THEME = {kind: _rgb(hex_) for kind, hex_ in (("TEXT", "000000"), ("BACKGROUND", "FFFFFF"), ("ACCENT1", "4285F4"),
                                            ("ACCENT2", "EA4335"), ("ACCENT3", "FBBC04"), ("ACCENT4", "34A853"),
                                            ("ACCENT5", "FF6D01"), ("ACCENT6", "46BDC6"), ("LINK", "1155CC"))}
# The SpreadsheetTheme in a spreadsheet's properties.
SPREADSHEET_THEME = {"primaryFontFamily": "Arial",
                     "themeColors": [{"colorType": kind, "color": {"rgbColor": rgb}} for kind, rgb in THEME.items()]}


def as_read(fmt: dict[str, Any]) -> dict[str, Any]:
    """A stored format as a read answers it: beside each colour's style, its deprecated plain
    colour, the style's RGB (a theme colour's from the theme)."""
    style, text = fmt.get("backgroundColorStyle"), fmt.get("textFormat")
    fore = text.get("foregroundColorStyle") if text else None
    if style is None and fore is None:
        return fmt
    out = dict(fmt)
    if style is not None:
        out["backgroundColor"] = _colour(style)
    if fore is not None:
        out["textFormat"] = {**text, "foregroundColor": _colour(fore)}
    return out


def _colour(style: dict[str, Any]) -> dict[str, float]:
    return style["rgbColor"] if "rgbColor" in style else THEME[style["themeColor"]]


def plain_colours(fmt: dict[str, Any]) -> bool:
    """Whether a format sent names a colour by its deprecated plain name."""
    return "backgroundColor" in fmt or "foregroundColor" in fmt.get("textFormat", ())


def take(into: dict[str, Any], given: dict[str, Any], key: str) -> None:
    """Field `key` of a format (or text format) set from `given`, or cleared where `given` lacks
    it; a colour kept as its style, whichever of its two names the mask and `given` use."""
    style = _STYLES.get(key, key)
    if style in given:
        into[style] = given[style]
    elif style in _PLAIN and _PLAIN[style] in given:
        into[style] = {"rgbColor": given[_PLAIN[style]]}
    else:
        into.pop(style, None)


def check_colours(fmt: dict[str, Any]) -> None:
    """Refuse a format's colour, plain or style, that is not one (its fields otherwise checked)."""
    for part in (fmt, fmt.get("textFormat") or {}):
        for plain, style in _STYLES.items():
            if plain in part:
                _check_colour(part[plain])
            if style in part:
                _check_style(part[style])


def _check_style(style: Any) -> None:
    """A ColorStyle: exactly one of an rgbColor and a themeColor of the theme."""
    if not isinstance(style, dict) or len(style) != 1 or style.keys() - {"rgbColor", "themeColor"}:
        raise GoogleError(400, f"fake: a ColorStyle is one of rgbColor or themeColor, not {style!r}")
    if "rgbColor" in style:
        _check_colour(style["rgbColor"])
    elif style["themeColor"] not in THEME:
        raise GoogleError(400, f"Invalid value at 'color_style.theme_color': {style['themeColor']!r}")


def _check_colour(colour: Any) -> None:
    if (not isinstance(colour, dict) or colour.keys() - {"red", "green", "blue", "alpha"}
            or not all(isinstance(v, (int, float)) and 0 <= v <= 1 for v in colour.values())):
        raise GoogleError(400, f"fake: bad colour {colour!r}")
