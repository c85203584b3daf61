"""Results anyone can verify: a published adjudication's public package and its verifier.

Worked examples: the package of the sample offer verifies; a single award changed by one
share (the manifest forged to match) is refused, naming its row; a file changed after the
manifest is refused; the package names no one; a pseudonym cannot be recomputed without the
office's key, and stays the same for the offer.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import polars as pl
import pytest
from sqlalchemy import Engine

from democratiza.adjudication.record import publish, stored_adjudication
from democratiza.offers.lifecycle import OfferError, kept_program_text, load_offer
from democratiza.stages.allocate import allocate_stage
from democratiza.stages.lifecycle import advance_stage, load_stage
from democratiza.stages.orders import import_orders
from democratiza.verification.package import AWARDS, MANIFEST, PARAMETERS, canonical
from democratiza.verification.pseudonyms import pseudonym
from democratiza.verification.publish import offer_package, stage_package_of
from democratiza.verification.verify import verdict_of, verify, zipped
from tests.storage_support import adjudicate_sample
from tests.test_stages import FIRST, book, close, new_stage, order, settle_sample

CODE = "central-paquete"


def write(files: dict[str, bytes], folder: Path) -> Path:
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder


def published_package(engine: Engine) -> dict[str, bytes]:
    adjudicate_sample(engine, CODE)
    publish(engine, CODE, "oficina", "publicación")
    return offer_package(engine, CODE, "oficina").files


def test_the_published_package_verifies(engine: Engine, tmp_path: Path) -> None:
    files = published_package(engine)
    verdict = verify(write(files, tmp_path / "paquete"))
    assert verdict.matches, verdict.message
    assert verdict.manifest_digest == hashlib.sha256(files[MANIFEST]).hexdigest()
    zip_path = tmp_path / "paquete.zip"
    zip_path.write_bytes(zipped(files))
    assert verify(zip_path).matches


def test_one_award_changed_by_one_share_is_found_and_named(engine: Engine, tmp_path: Path) -> None:
    files = published_package(engine)
    table = pl.read_csv(files[AWARDS], schema_overrides={"seudonimo": pl.String()})
    row = table.with_row_index().filter(pl.col("adjudicada") > 0)["index"][3]
    changed = table.with_columns(
        pl.when(pl.int_range(pl.len()) == row)
        .then(pl.col("adjudicada") + 1)
        .otherwise(pl.col("adjudicada"))
    )
    forged = dict(files)
    forged[AWARDS] = changed.write_csv().encode()
    manifest = json.loads(files[MANIFEST])
    manifest["archivos"][AWARDS] = hashlib.sha256(forged[AWARDS]).hexdigest()
    forged[MANIFEST] = canonical(manifest)  # a forger who also rewrites the manifest
    verdict = verify(write(forged, tmp_path / "forjado"))
    assert not verdict.matches
    who = table["seudonimo"][row]
    assert f"fila {row + 2} (orden {row + 1}, seudónimo {who})" in verdict.message
    assert f"dice {table['adjudicada'][row] + 1} acciones" in verdict.message


def test_a_file_changed_after_its_manifest_is_refused(engine: Engine, tmp_path: Path) -> None:
    files = published_package(engine)
    files[AWARDS] = files[AWARDS].replace(b"\n", b"\r\n", 1)
    verdict = verify(write(files, tmp_path / "cambiado"))
    assert not verdict.matches
    assert "no es el archivo que el manifiesto describe" in verdict.message


def test_the_package_names_no_one(engine: Engine) -> None:
    results = adjudicate_sample(engine, CODE)
    publish(engine, CODE, "oficina", "publicación")
    text = b"".join(offer_package(engine, CODE, "oficina").files.values()).decode()
    for number in results["numero_identificacion"].head(50):
        assert number not in text
    assert results["nombre"][0] not in text


def test_a_pseudonym_needs_the_key_and_stays_the_same(engine: Engine) -> None:
    first = published_package(engine)
    again = offer_package(engine, CODE, "oficina").files
    assert first[AWARDS] == again[AWARDS]  # the offer's key is kept, not drawn again
    key, other = b"k" * 32, b"l" * 32
    assert pseudonym(key, "CC", "79000001") != pseudonym(other, "CC", "79000001")
    plain = hashlib.sha256(b"CC|79000001").hexdigest()[:32]
    assert pseudonym(key, "CC", "79000001") != plain


def test_the_package_names_the_program_by_the_hash_of_the_file_the_offer_keeps(
    engine: Engine,
) -> None:
    # The hash of the program file's text, exactly as kept with the offer (and named by the
    # adjudication record): whoever holds the file checks it with sha256sum.
    files = published_package(engine)
    with engine.connect() as conn:
        stored = load_offer(conn, CODE)
        text = kept_program_text(conn, stored)
    named = json.loads(files[PARAMETERS])["huella_programa"]
    assert named == hashlib.sha256(text.encode()).hexdigest() == stored.program_sha256
    assert named == stored_adjudication(engine, CODE).header["huella_programa"]


def test_an_offer_not_yet_published_has_no_package(engine: Engine) -> None:
    adjudicate_sample(engine, CODE)
    with pytest.raises(OfferError, match="cuando la adjudicación está publicada"):
        offer_package(engine, CODE, "oficina")


def test_a_later_stage_s_package_names_the_offer_s_program_and_verifies(
    engine: Engine, tmp_path: Path
) -> None:
    settle_sample(engine, "central-seguros-vida")
    new_stage(engine)
    rows = [order("O1", "1300", "8000"), order("O2", "1200", "9000")]
    import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "s")
    close(engine)
    allocate_stage(engine, "segunda", "bolsa", "cierre del libro")
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, "segunda"), "publicada", "oficina", "publicación")
    files = stage_package_of(engine, "segunda", "oficina").files
    verdict = verify(write(files, tmp_path / "etapa"))
    assert verdict.matches, verdict.message
    with engine.connect() as conn:
        kept = load_offer(conn, FIRST).program_sha256  # the stage runs under the offer's file
    assert json.loads(files[PARAMETERS])["huella_programa"] == kept


def forged(files: dict[str, bytes], name: str, data: bytes) -> dict[str, bytes]:
    """The package with one file replaced and the manifest rewritten to match it."""
    changed = {**files, name: data}
    manifest = json.loads(files[MANIFEST])
    manifest["archivos"][name] = hashlib.sha256(data).hexdigest()
    changed[MANIFEST] = canonical(manifest)
    return changed


def test_a_package_that_cannot_be_recomputed_gets_its_reason_in_words(engine: Engine) -> None:
    files = published_package(engine)
    parameters = json.loads(files[PARAMETERS])
    no_method = {k: v for k, v in parameters.items() if k != "metodo"}
    table = pl.read_csv(files[AWARDS], schema_overrides={"seudonimo": pl.String()})
    words = table.with_columns(
        pl.when(pl.int_range(pl.len()) == 0)
        .then(pl.lit("muchas"))
        .otherwise(pl.col("cantidad_permitida").cast(pl.String))
        .alias("cantidad_permitida")
    )
    cases = {
        "El paquete no coincide con su manifiesto: manifiesto.json no es un JSON con los "
        "archivos y sus huellas.": {**files, MANIFEST: b"{"},
        "No se puede leer parametros.json: no es un JSON válido.": forged(
            files, PARAMETERS, b"metodo: proporcional"
        ),
        "No se puede recalcular la adjudicación: a parametros.json le falta metodo.": forged(
            files, PARAMETERS, canonical(no_method)
        ),
        "No se puede recalcular la adjudicación: a adjudicacion.csv le falta la columna "
        "adjudicada.": forged(files, AWARDS, table.drop("adjudicada").write_csv().encode()),
        "No se puede recalcular la adjudicación: parametros.json no dice un tipo de paquete "
        "conocido (tipo: primera_etapa o etapa_siguiente).": forged(
            files, PARAMETERS, canonical({**parameters, "tipo": "otro"})
        ),
        "No se puede recalcular la adjudicación: sus parámetros o su tabla tienen valores que "
        "la adjudicación no puede tomar.": forged(files, AWARDS, words.write_csv().encode()),
    }
    for said, package in cases.items():
        verdict = verdict_of(package)
        assert not verdict.matches and verdict.message == said


def test_a_package_that_does_not_exist_is_said_so(tmp_path: Path) -> None:
    verdict = verify(tmp_path / "no-esta.zip")
    assert verdict.unread
    assert verdict.message == f"No se pudo leer el paquete {tmp_path / 'no-esta.zip'}: no existe."
