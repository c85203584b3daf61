"""What the public calculator answers with: an open offer at its price in force, or a
program whose decree fixes every figure a limit needs.

Why a choice at all: a program whose price or number of shares the offer fixes (Central,
EBSA) cannot answer on its own, and the first form a person sends must get an answer, not
"Falta el parámetro". The categories, the price and the filing day the page proposes follow
from the choice.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import date

from sqlalchemy import Connection

from democratiza.money import price_text
from democratiza.offers.lifecycle import load_offer, offer_programs
from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.programs.parameters import Offer, OfferParameterError, make_offer
from democratiza.programs.schema import Program


@dataclass(frozen=True)
class Choice:
    """What the calculator answers with: an open offer (at its price in force), or a program
    whose every parameter has its value; and the lists a person chooses them from."""

    offer: str | None
    program: Program
    price: str
    day: date  # the filing day the form proposes: today, within the offer's window
    offers: list[tuple[str, str]]
    programs: list[tuple[str, str]]


@functools.cache
def _answering_programs() -> tuple[Program, ...]:
    """The bundled programs that answer without an offer: those whose decree fixes the price
    and every figure a limit needs (the others wait for an offer's parameters). Found once:
    the installed package's programs do not change while the service runs."""
    found = []
    for program_id in bundled_program_ids():
        program = load_program(program_id)
        try:
            make_offer(program, {})
        except OfferParameterError:
            continue
        found.append(program)
    return tuple(found)


def choose(conn: Connection, offer: str | None, program: str | None) -> Choice:
    """The offer or program asked for, where it can answer; else the first open offer, else
    the first program that answers: the first form a person sends always gets an answer."""
    opened = offer_programs(conn, "abierta")  # each with its own program's name
    programs = _answering_programs()
    offers = [(code, f"{code} ({kept.name})") for code, kept in opened]
    listed = [(p.id, p.name) for p in programs]
    picked = offer if offer in {code for code, _ in opened} else None
    if picked is None and program not in {p.id for p in programs} and opened:
        picked = opened[0][0]
    if picked is not None:
        chosen_offer = load_offer(conn, picked)  # only the one that answers: its price, its days
        price, day = price_text(chosen_offer.price_in_force), _within(chosen_offer.offer)
        return Choice(picked, chosen_offer.program, price, day, offers, listed)
    chosen = next((p for p in programs if p.id == program), programs[0])
    offered = make_offer(chosen, {})
    return Choice(None, chosen, price_text(offered.price), _within(offered), offers, listed)


def _within(offer: Offer) -> date:
    """Today, or the nearest day of the offer's window where today is outside it: the
    calculator answers what the limits permit, and says which day it assumed."""
    today = date.today()
    announced, closing = offer.day("fecha_aviso"), offer.day("fecha_cierre")
    if announced is None or closing is None:
        return today
    return min(max(today, offer.program.window.first_day(announced)), closing)
