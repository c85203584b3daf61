"""Pseudonyms: each filing named in public by a keyed hash of its identification.

The public package of an adjudication must let anyone check the allocation without telling
who bought (Ley 1581 de 2012, habeas data): each filing appears as
``HMAC-SHA256(key, "tipo|número")``, cut to 128 bits (32 hexadecimal characters). The key is
the program office's, 32 random bytes per offer, kept in the database and never published:
without it nobody can tell which pseudonym belongs to an identification number, since the
numbers are few enough to try them all against a plain hash. Each acceptant learns their
own pseudonym from the result lookup, and finds their row.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime

import polars as pl
from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from democratiza.storage.schema import pseudonym_keys

LENGTH = 32  # hexadecimal characters: 128 bits


def pseudonym(key: bytes, id_type: str, id_number: str) -> str:
    """The pseudonym of one identification under an offer's key."""
    digest = hmac.new(key, f"{id_type}|{id_number}".encode(), hashlib.sha256)
    return digest.hexdigest()[:LENGTH]


def pseudonyms(key: bytes, people: pl.DataFrame) -> pl.Series:
    """The pseudonyms of the rows' ``tipo_identificacion`` and ``numero_identificacion``."""
    pairs = people.select(
        pl.col("tipo_identificacion").cast(pl.String), pl.col("numero_identificacion")
    ).iter_rows()
    return pl.Series("seudonimo", [pseudonym(key, t, n) for t, n in pairs], dtype=pl.String)


def offer_key(conn: Connection, offer_id: int) -> bytes:
    """The offer's key, drawn and stored the first time it is needed."""
    stored = conn.execute(
        select(pseudonym_keys.c.clave).where(pseudonym_keys.c.oferta_id == offer_id)
    ).scalar_one_or_none()
    if stored is not None:
        return bytes.fromhex(stored)
    key = secrets.token_bytes(32)
    try:
        with conn.begin_nested():
            row = {"oferta_id": offer_id, "clave": key.hex(), "creada_en": datetime.now()}
            conn.execute(insert(pseudonym_keys).values(**row))
    except IntegrityError:  # drawn at the same moment by another request: theirs stands
        return offer_key(conn, offer_id)
    return key
