"""Text for pages and charts: wrapped lines, axis labels that fit, Spanish long dates."""

from __future__ import annotations

import textwrap
from datetime import date

MONTHS = (
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
)


def long_date(d: date) -> str:
    """'2 de abril de 2018'."""
    return f"{d.day} de {MONTHS[d.month - 1]} de {d.year}"


def wrap(text: str, width: int = 30) -> str:
    """``text`` in lines of at most ``width`` characters (a table cell, a caption)."""
    return "\n".join(textwrap.wrap(text, width)) or text


def tick(text: str, width: int = 30, lines: int = 2) -> str:
    """An axis label: wrapped and cut to ``lines`` lines so long names never overlap (the
    table under each chart carries the full names)."""
    wrapped = textwrap.wrap(text, width) or [text]
    if len(wrapped) > lines:
        wrapped = [*wrapped[: lines - 1], textwrap.shorten(" ".join(wrapped[lines - 1 :]), width)]
    return "\n".join(wrapped)
