"""An offer keeps the program it was created with, on SQLite and PostgreSQL.

The offer stores its program file's exact text and SHA-256; later edits to the file (a new
version, a file given by path that is moved away) never change or break the offer, and the
adjudication record names the hash.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, insert, select, update
from typer.testing import CliRunner

from democratiza.adjudication.record import adjudicate
from democratiza.cli.main import app
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import (
    OfferError,
    advance,
    create_offer,
    load_offer,
    offer_programs,
)
from democratiza.programs.loader import load_program, read_program
from democratiza.storage.database import MIGRATIONS, make_engine, migrate
from democratiza.storage.schema import adjudications, offers
from tests.helpers import CENTRAL_CREDIT_LINE

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
CENTRAL = Path(__file__).parents[1] / "src/democratiza/programs/data/central-seguros-vida.yaml"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
CAP = "tope_acciones: 367800"
runner = CliRunner()


def copy_of_central(folder: Path) -> Path:
    path = folder / "programa-propio.yaml"
    path.write_bytes(CENTRAL.read_bytes())
    return path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def caps(engine: Engine, code: str) -> set[int | None]:
    with engine.connect() as conn:
        return {r.cap_shares for r in load_offer(conn, code).program.limits}


def test_later_edits_to_the_file_never_change_an_offers_rules(
    engine: Engine, tmp_path: Path
) -> None:
    path = copy_of_central(tmp_path)
    with engine.begin() as conn:
        stored = create_offer(conn, "propia", str(path), PARAMS, "oficina", "aviso")
    assert stored.program_sha256 == hashlib.sha256(CENTRAL.read_bytes()).hexdigest()
    edit(path, CAP, "tope_acciones: 1000")
    edit(path, "version: 3", "version: 4")
    assert 367_800 in caps(engine, "propia") and 1000 not in caps(engine, "propia")
    with engine.connect() as conn:
        again = load_offer(conn, "propia")
    assert again.program.version == 3  # version 3 still loads after the file became 4
    assert again.program_sha256 == stored.program_sha256
    path.unlink()  # the file is gone: the offer still has its program
    assert 367_800 in caps(engine, "propia")


def test_offer_programs_names_the_offers_of_several_states_in_one_list(
    engine: Engine, tmp_path: Path
) -> None:
    own = copy_of_central(tmp_path)
    edit(own, "version: 3", "version: 9")
    with engine.begin() as conn:
        create_offer(conn, "borrador-1", str(own), PARAMS, "oficina", "aviso")
        opened = create_offer(conn, "abierta-1", "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, opened, "abierta", "oficina", "inicio del plazo")
        create_offer(conn, "borrador-2", "central-seguros-vida", PARAMS, "oficina", "aviso")
    with engine.connect() as conn:
        both = [(code, p.version) for code, p in offer_programs(conn, "borrador", "abierta")]
        drafts = [code for code, _ in offer_programs(conn, "borrador")]
        none = offer_programs(conn, "publicada")
    # In the order they were created, each with the program it keeps.
    assert both == [("borrador-1", 9), ("abierta-1", 3), ("borrador-2", 3)]
    assert drafts == ["borrador-1", "borrador-2"] and none == []


def test_the_adjudication_record_names_the_programs_hash(engine: Engine, tmp_path: Path) -> None:
    path = copy_of_central(tmp_path)
    with engine.begin() as conn:
        stored = create_offer(conn, "propia", str(path), PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(engine, "propia", SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "x")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, "propia"), "cerrada", "oficina", "cierre")
    done = adjudicate(engine, "propia", "bolsa", "adjudicación")
    assert done.header["huella_programa"] == stored.program_sha256
    with engine.connect() as conn:
        column = conn.execute(select(adjudications.c.huella_programa)).scalar_one()
    assert column == stored.program_sha256


def test_a_kept_program_that_does_not_match_its_hash_is_refused(engine: Engine) -> None:
    with engine.begin() as conn:
        window: dict[str, object] = {"fecha_aviso": "2017-12-22", "fecha_cierre": "2018-02-26"}
        create_offer(conn, "geb", "geb-2017", window, "oficina", "aviso")
        text = conn.execute(select(offers.c.programa_texto)).scalar_one()
        conn.execute(update(offers).values(programa_texto=text.replace("3184458", "9184458")))
    with engine.connect() as conn, pytest.raises(OfferError, match="no coincide con su huella"):
        load_offer(conn, "geb")


def cli(*args: str, db: str, ok: bool = True) -> str:
    result = runner.invoke(app, [*args, "--db", db], env={"COLUMNS": "200"})
    assert (result.exit_code == 0) == ok, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.output


def test_a_program_file_given_by_path_works_through_the_whole_flow(
    db_url: str, tmp_path: Path
) -> None:
    path = copy_of_central(tmp_path)
    edit(path, "id: central-seguros-vida", "id: programa-propio")
    cli(
        "oferta",
        "crear",
        "propia",
        "-p",
        str(path),
        "--oferta",
        str(SAMPLE / "oferta.yaml"),
        db=db_url,
    )
    cli("credito", "registrar", "propia", *CENTRAL_CREDIT_LINE, db=db_url)
    cli("oferta", "abrir", "propia", db=db_url)
    for name, broker in (
        ("lote-1-casa-de-bolsa", "Casa de Bolsa"),
        ("lote-2-acciones-y-valores", "Acciones y Valores"),
    ):
        cli(
            "lote",
            "importar",
            "propia",
            str(SAMPLE / f"{name}.csv"),
            "--comisionista",
            broker,
            "--lote",
            "L1",
            "--salida",
            str(tmp_path / "salidas"),
            db=db_url,
        )
    cli("oferta", "cerrar", "propia", db=db_url)
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    path.unlink()  # nothing after creation reads the file
    out = cli("oferta", "adjudicar", "propia", db=db_url)
    assert f"Huella del programa:    {sha256}" in out
    out = cli("oferta", "exportar", "propia", "--salida", str(tmp_path / "salidas"), db=db_url)
    assert (tmp_path / "salidas" / "propia" / "registro-adjudicatarios.csv").exists()
    out = cli("oferta", "ver", "propia", db=db_url)
    assert "Oferta 'propia': adjudicada" in out


def test_programa_comparar_shows_each_changed_value_by_its_key_path(
    db_url: str, tmp_path: Path
) -> None:
    path = copy_of_central(tmp_path)
    cli(
        "oferta",
        "crear",
        "propia",
        "-p",
        str(path),
        "--oferta",
        str(SAMPLE / "oferta.yaml"),
        db=db_url,
    )
    out = cli("programa", "comparar", "propia", "--archivo", str(path), db=db_url)
    assert "El archivo actual es idéntico al guardado con la oferta." in out
    edit(path, "# Texto:", "# Un comentario nuevo.\n# Texto:")
    out = cli("programa", "comparar", "propia", "--archivo", str(path), db=db_url)
    assert "Los valores son los mismos: el texto cambia solo en comentarios o formato." in out
    edit(path, CAP, "tope_acciones: 400000")
    edit(path, "version: 3", "version: 4")
    out = cli("programa", "comparar", "propia", "--archivo", str(path), db=db_url)
    assert "3 valores cambian (guardado → actual):" in out
    assert "  version: 3 → 4" in out
    assert "  limites[3].tope_acciones: 367800 → 400000" in out
    assert "  limites[6].tope_acciones: 367800 → 400000" in out
    # Without --archivo: the bundled file of the same id (here identical to the copy kept).
    out = cli("programa", "comparar", "propia", db=db_url)
    assert "El archivo actual es idéntico al guardado con la oferta." in out
    other = tmp_path / "otro.yaml"
    text = path.read_text(encoding="utf-8")
    other.write_text(text.replace("id: central-seguros-vida", "id: otro"), encoding="utf-8")
    cli(
        "oferta",
        "crear",
        "otra",
        "-p",
        str(other),
        "--oferta",
        str(SAMPLE / "oferta.yaml"),
        db=db_url,
    )
    out = cli("programa", "comparar", "otra", db=db_url, ok=False)
    assert "El programa otro no está en el paquete: dé el archivo actual con --archivo" in out


def offer_row(program: str, version: int) -> dict[str, object]:
    return {
        "codigo": f"{program}-v{version}",
        "programa": program,
        "version_programa": version,
        "parametros": "{}",
        "estado": "borrador",
        "creada_en": datetime(2018, 1, 2, 10),
    }


def test_migration_0007_gives_older_offers_the_file_they_were_loaded_with(db_url: str) -> None:
    engine = make_engine(db_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0006")
    bundled = read_program("geb-2017")
    now = load_program("geb-2017").version  # the installed file's version, and an older one
    with engine.begin() as conn:
        rows = [offer_row("geb-2017", now), offer_row("geb-2017", now - 1), offer_row("otro", 1)]
        for row in rows:
            conn.execute(insert(offers).values(**row))  # the columns 0006 has
    migrate(engine)
    with engine.connect() as conn:
        kept = dict(conn.execute(select(offers.c.codigo, offers.c.programa_huella)).all())
        assert kept == {
            f"geb-2017-v{now}": bundled.sha256,
            f"geb-2017-v{now - 1}": None,
            "otro-v1": None,
        }
        with pytest.raises(OfferError, match="antes de que las ofertas guardaran su archivo"):
            load_offer(conn, f"geb-2017-v{now - 1}")
    engine.dispose()
