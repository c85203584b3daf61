"""The audit log as an auditor reads it: what changed, in words.

Why apart from the log: the log keeps what was recorded (``ofertas/3``, canonical JSON),
byte for byte, because its hash chain is over those bytes. The page reads each entry again
in words: the entity by its name (the offer's code, the batch and its broker, the credit
line's lender), the person by the name their user has, and the fields that changed, each by
its name with its value before and after. The recorded entry stays a click away (its
``title``) for whoever compares it with an export.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from sqlalchemy import Connection, select

from democratiza.money import group, percent, pesos
from democratiza.storage.schema import adjudications, batches, credit_lines, offers, users
from democratiza.words import WORDS

# A field of an entry, as a person says it; one not here is said by its name, spaced.
FIELDS = {
    "estado": "estado",
    "por_que": "motivo",
    "motivo": "motivo",
    "detalle": "detalle",
    "version": "versión",
    "filas": "filas",
    "huella": "huella del archivo",
    "archivo": "archivo",
    "lote": "lote",
    "comisionista": "comisionista",
    "oferta": "oferta",
    "correcciones": "correcciones",
    "total": "total pagado",
    "entidad": "entidad",
    "monto_disponible": "monto disponible",
    "plazo_meses": "plazo en meses",
    "gracia_meses": "meses de gracia",
    "tasa_ea": "tasa efectiva anual",
    "fecha_otorgamiento": "fecha de otorgamiento",
    "capitalizar_gracia": "capitaliza los intereses de la gracia",
    "garantia": "garantía",
    "registrada_en": "registrada el",
    "precio_centavos": "precio ajustado",
    "vigente_desde": "vigente desde",
    "fundamento": "fundamento",
    "aceptaciones_anteriores": "aceptaciones anteriores",
    "fundamento_anteriores": "fundamento para las anteriores",
    "lineas_credito": "líneas de crédito",
    "acciones_ofrecidas": "acciones ofrecidas",
    "adjudicadas": "acciones adjudicadas",
    "asignadas": "acciones asignadas",
    "demanda_valida": "demanda válida",
    "huella_entradas": "huella de las entradas",
    "huella_resultado": "huella del resultado",
    "huella_programa": "huella del programa",
    "acciones_pagadas": "acciones pagadas",
    "acciones_resueltas": "acciones resueltas",
    "fecha_enajenacion": "fecha de enajenación",
    "validas": "válidas",
    "desierta": "desierta",
    "precio": "precio",
    "acciones": "acciones",
    "contraprestacion": "contraprestación",
    "fecha": "fecha",
    "radicado": "radicado",
    "tipo": "tipo",
    "norma": "norma",
    "manifiesto": "huella del manifiesto",
    "rol": "rol",
    "vigente": "vigente",
}
MONEY = {"total", "monto_disponible", "contraprestacion"}  # centavos
PRICES = {"precio_centavos", "precio"}  # centavos per share
HASHES = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class Line:
    """One field that changed: its name, and its value before and after ('' if none)."""

    field: str
    before: str
    after: str


@dataclass(frozen=True)
class ReadEntry:
    """An audit entry in words, beside what was recorded."""

    id: int
    when: str
    who: str
    action: str
    entity: str
    lines: tuple[Line, ...]
    recorded: Mapping[str, Any]


def field_name(key: str) -> str:
    return FIELDS.get(key, key.replace("_", " "))


def value_words(key: str, value: object) -> str:
    """A recorded value as a person reads it: amounts in pesos, counts grouped, a hash cut,
    a code of the vocabulary by its word."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "sí" if value else "no"
    if isinstance(value, int):
        if key in MONEY or key in PRICES:
            return pesos(value)
        return group(value)
    if isinstance(value, dict):
        return "; ".join(f"{field_name(k)}: {value_words(k, v)}" for k, v in value.items())
    text = str(value)
    if HASHES.match(text):
        return f"{text[:16]}…"
    if key == "tasa_ea":
        try:
            return f"{percent(Fraction(Decimal(text)))} efectivo anual"
        except (InvalidOperation, ValueError):
            return text
    return _word(text)


def _word(text: str) -> str:
    kinds = ("estado_oferta", "estado_etapa", "estado_aceptacion", "evento", "rol", "metodo")
    for kind in (*kinds, "residuo", "forma_pago", "categoria", "decision"):
        if text in WORDS.get(kind, {}):
            return WORDS[kind][text]
    return text.replace("_", " ") if "_" in text and " " not in text else text


def changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> list[Line]:
    """Each field whose value differs, in the order recorded (after's, then before's)."""
    old, new = dict(before or {}), dict(after or {})
    keys = list(new) + [k for k in old if k not in new]
    return [
        Line(
            field_name(k),
            value_words(k, old[k]) if old.get(k) is not None else "",
            value_words(k, new[k]) if k in new else "",
        )
        for k in keys
        if old.get(k) != new.get(k)
    ]


class Names:
    """The names behind the ids an entry records, each read once per page."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._offers: dict[str, str] = {}
        self._said: dict[tuple[str, str], str] = {}
        self._people: dict[str, str] = {
            r.login: r.nombre for r in conn.execute(select(users.c.login, users.c.nombre))
        }

    def person(self, who: str) -> str:
        return self._people.get(who, who)

    def offer(self, offer_id: str) -> str:
        if offer_id not in self._offers:
            found = self.conn.execute(
                select(offers.c.codigo).where(offers.c.id == _int(offer_id))
            ).scalar()
            self._offers[offer_id] = str(found) if found else offer_id
        return f"oferta {self._offers[offer_id]}"

    def _once(self, key: tuple[str, str], words: Callable[[], str]) -> str:
        """What ``words`` says of a batch, an award or a line, asked once per page."""
        if key not in self._said:
            self._said[key] = words()
        return self._said[key]

    def batch(self, batch_id: str) -> str:
        return self._once(("lote", batch_id), lambda: self._batch(batch_id))

    def _batch(self, batch_id: str) -> str:
        row = self.conn.execute(
            select(batches.c.lote, batches.c.comisionista, batches.c.oferta_id).where(
                batches.c.id == _int(batch_id)
            )
        ).first()
        if row is None:
            return "Lote de aceptaciones"
        return f"Lote {row.lote} de {row.comisionista} ({self.offer(str(row.oferta_id))})"

    def offer_of_award(self, award_id: str) -> str:
        return self._once(("adjudicacion", award_id), lambda: self._offer_of_award(award_id))

    def _offer_of_award(self, award_id: str) -> str:
        offer_id = self.conn.execute(
            select(adjudications.c.oferta_id).where(adjudications.c.id == _int(award_id))
        ).scalar()
        return self.offer(str(offer_id)) if offer_id is not None else "oferta"

    def credit_line(self, offer_id: str, line_id: str) -> str:
        return self._once(("linea", line_id), lambda: self._credit_line(offer_id, line_id))

    def _credit_line(self, offer_id: str, line_id: str) -> str:
        lender = self.conn.execute(
            select(credit_lines.c.entidad).where(credit_lines.c.id == _int(line_id))
        ).scalar()
        return f"Línea de crédito de {lender or 'una entidad'} ({self.offer(offer_id)})"


def _int(text: str) -> int:
    return int(text) if text.isdigit() else -1


def entity_words(names: Names, entity: str, after: Mapping[str, Any]) -> str:
    """'ofertas/3' → 'Oferta central-primera-fase'; an entity of no known form as it is."""
    parts = entity.split("/")
    for shape, say in SHAPES:
        if len(parts) == len(shape) and all(
            s in ("*", p) for s, p in zip(shape, parts, strict=True)
        ):
            return say(names, parts, after)
    return entity


Say = Callable[[Names, list[str], Mapping[str, Any]], str]
SHAPES: tuple[tuple[tuple[str, ...], Say], ...] = (
    (("ofertas", "*"), lambda n, p, a: n.offer(p[1]).capitalize()),
    (("ofertas", "*", "lineas", "*"), lambda n, p, a: n.credit_line(p[1], p[3])),
    (("ofertas", "*", "aceptaciones", "*"), lambda n, p, a: f"Aceptación {p[3]} ({n.offer(p[1])})"),
    (("ofertas", "*", "pagos", "*"), lambda n, p, a: f"Lote de pagos {p[3]} ({n.offer(p[1])})"),
    (("ofertas", "*", "paquete"), lambda n, p, a: f"Paquete público ({n.offer(p[1])})"),
    (("lotes", "*"), lambda n, p, a: n.batch(p[1])),
    (("adjudicaciones", "*"), lambda n, p, a: f"Adjudicación de la {n.offer_of_award(p[1])}"),
    (("etapas", "*"), lambda n, p, a: f"Etapa {p[1]}"),
    (("etapas", "*", "lotes", "*", "*"), lambda n, p, a: f"Lote de órdenes {p[4]} de {p[3]}"),
    (("etapas", "*", "adjudicacion", "*"), lambda n, p, a: f"Adjudicación de la etapa {p[1]}"),
    (("etapas", "*", "paquete"), lambda n, p, a: f"Paquete público (etapa {p[1]})"),
    (("etapas", "*", "pagos", "*"), lambda n, p, a: f"Lote de pagos {p[3]} (etapa {p[1]})"),
    (("eventos_tenencia", "*"), lambda n, p, a: f"Tenencia de {a.get('radicado', '—')}"),
    (("usuarios", "*"), lambda n, p, a: f"Usuario {n.person(p[1])}"),
    (("tokens_api", "*"), lambda n, p, a: f"Token de {a.get('comisionista', 'un comisionista')}"),
)


def read_entry(names: Names, entry: Mapping[str, Any]) -> ReadEntry:
    before = json.loads(entry["antes"]) if entry["antes"] else None
    after = json.loads(entry["despues"]) if entry["despues"] else None
    return ReadEntry(
        id=int(entry["id"]),
        when=f"{entry['cuando']:%Y-%m-%d %H:%M:%S}",
        who=names.person(str(entry["quien"])),
        action=str(entry["accion"]),
        entity=entity_words(names, str(entry["entidad"]), after or {}),
        lines=tuple(changes(before, after)),
        recorded=entry,
    )
