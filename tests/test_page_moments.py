"""A stored date and time reads as a person writes it on every page that lists batches,
offers or orders: '2026-12-02 15:13:47', never the database's '2026-12-02T15:13:47.120000'."""

from __future__ import annotations

from democratiza.web.pages.templating import TEMPLATES


def shown(stored: object) -> str:
    return TEMPLATES.env.from_string("{{ x|momento }}").render(x=stored)


def test_the_iso_t_and_the_fractions_of_a_second_are_not_shown() -> None:
    assert shown("2026-12-02T15:13:47.120000") == "2026-12-02 15:13:47"
    assert shown("2018-04-03 09:07:00") == "2018-04-03 09:07:00"  # already as read
    assert shown(None) == ""
