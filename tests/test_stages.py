"""The Segunda Etapa end to end: from what the Primera left, orders, clearing, the next stage.

Worked on the Central de Seguros sample (price $ 1.000), on SQLite and PostgreSQL.
"""

from __future__ import annotations

import csv
import functools
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import yaml
from sqlalchemy import Engine, func, select, text
from typer.testing import CliRunner

from democratiza.adjudication.record import adjudicate
from democratiza.cli.main import app
from democratiza.compliance.holdings import record_event, settle
from democratiza.compliance.ledger import stage_ledger
from democratiza.compliance.payment_batches import record_payment
from democratiza.filing.batches import import_batch
from democratiza.offers.lifecycle import advance, create_offer, load_offer
from democratiza.stages.allocate import allocate_stage, stored_allocation
from democratiza.stages.lifecycle import (
    advance_stage,
    create_stage,
    declare_void,
    load_stage,
    stage_history,
)
from democratiza.stages.orders import import_orders, withdraw_order
from democratiza.stages.terms import StageError, StageTerms
from democratiza.storage.radicados import broker_tag
from democratiza.storage.receipts import StorageError
from democratiza.storage.schema import acceptances, orders, sales
from democratiza.tables.errors import InputRejected
from tests.storage_support import adjudicate_sample

SAMPLE = Path(__file__).parents[1] / "examples/primera-etapa"
PARAMS = yaml.safe_load((SAMPLE / "oferta.yaml").read_text(encoding="utf-8"))
FIRST = "central"
PRICE = 100_000  # $ 1.000 in centavos
OFFERED = 40_000_000
TERMS: dict[str, Any] = {
    "mecanismo": "subasta_holandesa",
    "fecha_aviso": date(2018, 4, 2),
    "fecha_apertura": date(2018, 4, 3),
    "fecha_cierre": date(2018, 4, 16),
    "orden_minima": 5_000,
    "lote": 100,
    "fuente": "Reglamento de la Segunda Fase (ilustrativo)",
}


def terms(**changes: Any) -> StageTerms:
    return StageTerms.model_validate({**TERMS, **changes})


CENTRAL = Path(__file__).parents[1] / "src/democratiza/programs/data/central-seguros-vida.yaml"
# What a program file writes to let a stage's minimum price follow the CPI (GEB's does).
CPI_RULE = {"desde": "aviso_primera_etapa", "cita": {"norma": "fuentes", "ref": "§4"}}


@pytest.fixture
def settled(engine: Engine) -> int:
    """A Primera Fase adjudicated and settled: one award paid in full, the rest unpaid."""
    return settle_sample(engine, "central-seguros-vida")


@pytest.fixture
def settled_with_cpi(engine: Engine, tmp_path: Path) -> int:
    """The same, under a copy of Central's file (given by path) that allows the CPI rule,
    and so no longer lists it as not modelled."""
    data = yaml.safe_load(CENTRAL.read_text(encoding="utf-8"))
    data["etapas_siguientes"]["ajuste_ipc"] = CPI_RULE
    data["no_modelado"] = [
        e for e in data["no_modelado"] if e.get("seccion") != "etapas_siguientes.ajuste_ipc"
    ]
    path = tmp_path / "central-con-ajuste-ipc.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return settle_sample(engine, str(path))


def settle_sample(engine: Engine, program: str) -> int:
    results = adjudicate_sample(engine, FIRST, program)  # sorted by radicado
    paid = results.filter(pl.col("adjudicada") > 0).row(0, named=True)
    record_payment(
        engine,
        FIRST,
        paid["radicado"],
        date(2018, 3, 10),
        paid["adjudicada"] * PRICE,
        "contado",
        "scb",
    )
    settle(engine, FIRST, date(2018, 3, 20), "oficina")
    return int(paid["adjudicada"])


def new_stage(engine: Engine, code: str = "segunda", **changes: Any) -> None:
    with engine.begin() as conn:
        stage = create_stage(conn, code, FIRST, terms(**changes), "oficina", "aviso")
        advance_stage(conn, stage, "abierta", "oficina", "apertura")


def order(ref: str, price: str, quantity: str, **changes: str) -> dict[str, str]:
    row = {
        "referencia": ref,
        "comisionista": "Casa de Bolsa",
        "fecha_ingreso": f"2018-04-05T09:{int(ref[1:]):02d}:00",
        "tipo_identificacion": "NIT",
        "numero_identificacion": f"90000{ref[1:]}",
        "nombre": f"Inversionista {ref}",
        "tipo_persona": "juridica",
        "nacionalidad": "colombiana",
        "capacidad_legal": "si",
        "precio": price,
        "cantidad": quantity,
    }
    row.update(changes)
    return row


def book(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def close(engine: Engine, code: str = "segunda") -> None:
    with engine.begin() as conn:
        advance_stage(conn, load_stage(conn, code), "cerrada", "oficina", "cierre")


# ---------------------------------------------------------------------------- the stage


def test_segunda_fase_offers_the_shares_not_paid_for(engine: Engine, settled: int) -> None:
    new_stage(engine)
    with engine.connect() as conn:
        stage = load_stage(conn, "segunda")
    # Everything the Primera Fase did not sell: not awarded, or awarded and not paid.
    assert stage.shares == OFFERED - settled
    assert stage.origin["pagadas"] == settled
    assert stage.origin["disponibles"] == OFFERED - settled
    assert stage.minimum_price == PRICE  # no figure in the aviso: the Primera Fase price
    assert stage.name == "Segunda Fase"


def test_the_stage_waits_for_the_payments_to_be_settled(engine: Engine) -> None:
    with engine.begin() as conn:
        stored = create_offer(conn, FIRST, "central-seguros-vida", PARAMS, "oficina", "aviso")
        advance(conn, stored, "abierta", "oficina", "apertura")
    import_batch(engine, FIRST, SAMPLE / "lote-1-casa-de-bolsa.csv", "Casa de Bolsa", "L1", "x")
    with engine.begin() as conn, pytest.raises(StageError, match="está abierta"):
        create_stage(conn, "segunda", FIRST, terms(), "oficina", "aviso")
    with engine.begin() as conn:
        advance(conn, load_offer(conn, FIRST), "cerrada", "oficina", "cierre")
    adjudicate(engine, FIRST, "bolsa", "adjudicación", date(2018, 3, 1))
    with engine.begin() as conn, pytest.raises(StageError, match="Liquide primero los pagos"):
        create_stage(conn, "segunda", FIRST, terms(), "oficina", "aviso")


def test_a_minimum_price_below_the_first_stage_price_is_refused(
    engine: Engine, settled: int
) -> None:
    with engine.begin() as conn, pytest.raises(StageError, match=r"Ley 226/1995 art\. 10"):
        create_stage(conn, "segunda", FIRST, terms(precio_minimo="999.99"), "oficina", "aviso")
    new_stage(engine, precio_minimo="1200.00")
    with engine.connect() as conn:
        assert load_stage(conn, "segunda").minimum_price == 120_000


CPI = [
    {"semestre": 1, "variacion": "2.03", "fuente": "DANE (ilustrativo)"},
    {"semestre": 2, "variacion": "1.15", "fuente": "DANE (ilustrativo)"},
]
CPI_DATES: dict[str, Any] = {
    "fecha_aviso": date(2019, 1, 10),
    "fecha_apertura": date(2019, 1, 11),
    "fecha_cierre": date(2019, 1, 25),
}


def test_cpi_adjustment_every_six_months_from_the_aviso(
    engine: Engine, settled_with_cpi: int
) -> None:
    # Primera Fase aviso 2017-12-22; a Segunda Fase announced 2019-01-10 has two semesters done
    # (to 2018-06-22 and to 2018-12-22). $ 1.000 × 1,0203 × 1,0115 = $ 1.032,03345 → up.
    with engine.begin() as conn, pytest.raises(StageError, match=r"semestre 2 \(2018-06-22"):
        create_stage(conn, "s", FIRST, terms(ajuste_ipc=CPI[:1], **CPI_DATES), "oficina", "aviso")
    new_stage(engine, ajuste_ipc=CPI, **CPI_DATES)
    with engine.connect() as conn:
        stage = load_stage(conn, "segunda")
    assert stage.minimum_price == 103_204
    steps = stage.origin["precio_minimo_pasos"]
    assert steps[2] == (
        "Ajuste por IPC cada seis meses desde el aviso de la Primera Etapa (Fuentes de los "
        "programas §4)."
    )
    assert steps[-1] == "Precio mínimo de la etapa: $ 1.032,04."


def test_a_program_whose_file_has_no_cpi_rule_refuses_a_cpi_adjustment(
    engine: Engine, settled: int
) -> None:
    # Central's text has no rule for the Segunda Fase's price beyond Ley 226 art. 10: the
    # refusal quotes the file's no_modelado entry, its citation and its reason.
    with engine.begin() as conn, pytest.raises(StageError) as refused:
        create_stage(conn, "s", FIRST, terms(ajuste_ipc=CPI, **CPI_DATES), "oficina", "aviso")
    said = str(refused.value)
    assert (
        " no trae el ajuste del precio mínimo por IPC: Ajuste por IPC del precio mínimo de " in said
    )
    assert "un ajuste del precio mínimo por IPC no se admite, porque el texto disponible" in said
    assert said.endswith("no lo prevé. No se puede pedir ese ajuste en los términos de la etapa.")


def test_a_tranche_cap_offers_part_and_the_rest_passes_on(engine: Engine, settled: int) -> None:
    new_stage(engine, tope_porcentaje="12.52")
    with engine.connect() as conn:
        stage = load_stage(conn, "segunda")
    available = OFFERED - settled
    assert stage.shares == available * 1252 // 10_000
    with engine.begin() as conn:
        declare_void(conn, load_stage(conn, "segunda"), "oficina", "sin interesados")
    new_stage(engine, "tercera")
    with engine.connect() as conn:
        third = load_stage(conn, "tercera")
        history = stage_history(conn, load_stage(conn, "segunda"))
    assert third.number == 3 and third.name == "Etapa Subsecuente 1"
    assert third.shares == available  # a void stage sold nothing; its cap held the rest back
    assert history[-1]["a_estado"] == "desierta"
    assert history[-1]["por_que"] == "sin interesados (Fuentes de los programas §4)"


# ---------------------------------------------------------------------------- orders


def test_orders_breaking_a_stage_rule_are_kept_as_refused_with_the_reason(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine)
    path = book(
        tmp_path / "o.csv",
        [
            order("O1", "1000.00", "5000"),
            order("O2", "999.99", "5000"),
            order("O3", "1100", "4900"),
            order("O4", "1100", "5000", capacidad_legal="no"),
            order("O5", "1100", "5000", fecha_ingreso="2018-04-17T08:00"),
        ],
    )
    result = import_orders(engine, "segunda", path, "Casa de Bolsa", "B1", "scb")
    reasons = dict(result.decisions.select("referencia", "motivo").iter_rows())
    assert reasons["O1"] is None
    assert reasons["O2"] == (
        "precio por debajo del precio mínimo de la etapa, $ 1.000 (Ley 226/1995 art. 10)"
    )
    assert reasons["O3"] == (
        "cantidad por debajo de la orden mínima de 5.000 acciones "
        "(Reglamento de la Segunda Fase (ilustrativo))"
    )
    assert reasons["O4"].startswith("no declara capacidad legal")
    assert reasons["O5"].startswith("ingresada fuera del plazo de la etapa, del 2018-04-03")
    assert result.message.endswith("(1 válida, 4 rechazadas).")


def test_a_bad_file_is_refused_whole_and_a_resent_batch_stored_once(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine)
    bad = book(tmp_path / "bad.csv", [order("O1", "1000", "5000"), order("O2", "mil", "5000")])
    with pytest.raises(InputRejected) as caught:
        import_orders(engine, "segunda", bad, "Casa de Bolsa", "B1", "scb")
    assert [(e.row, e.column) for e in caught.value.errors] == [(3, "precio")]
    good = book(tmp_path / "good.csv", [order("O1", "1000", "5000")])
    first = import_orders(engine, "segunda", good, "Casa de Bolsa", "B1", "scb")
    again = import_orders(engine, "segunda", good, "Casa de Bolsa", "B1", "scb")
    assert first.created and not again.created
    assert again.decisions.equals(first.decisions)
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(orders)).scalar_one() == 1


def test_a_correction_keeps_the_radicado_and_the_previous_version(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine)
    import_orders(
        engine,
        "segunda",
        book(tmp_path / "a.csv", [order("O1", "1000", "5000")]),
        "Casa de Bolsa",
        "B1",
        "scb",
    )
    fixed = import_orders(
        engine,
        "segunda",
        book(tmp_path / "b.csv", [order("O1", "1050", "6000")]),
        "Casa de Bolsa",
        "B2",
        "scb",
    )
    radicado = fixed.decisions["radicado"][0]
    # The correction came in the broker's second batch and keeps the first one's radicado.
    assert radicado == f"O-{broker_tag('Casa de Bolsa')}-000001-0000001"
    withdraw_order(engine, "segunda", radicado, "scb", "el inversionista desistió")
    with engine.connect() as conn:
        versions = conn.execute(
            select(orders.c.version, orders.c.estado, orders.c.precio, orders.c.vigente)
            .where(orders.c.radicado == radicado)
            .order_by(orders.c.version)
        ).all()
    assert [tuple(v) for v in versions] == [
        (1, "radicada", 100_000, False),
        (2, "corregida", 105_000, False),
        (3, "retirada", 105_000, True),
    ]


def test_the_same_order_batch_sent_twice_at_once_is_stored_once(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine)
    path = book(tmp_path / "o.csv", [order(f"O{i}", "1100", "5000") for i in range(1, 40)])

    def send() -> bool:
        slow = functools.partial(time.sleep, 1.0)
        return import_orders(engine, "segunda", path, "Casa de Bolsa", "B1", "s", slow).created

    with ThreadPoolExecutor(max_workers=2) as pool:
        created = sorted(pool.map(lambda _: send(), range(2)))
    assert created == [False, True]
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(orders)).scalar_one() == 39


def test_a_database_that_refuses_an_order_leaves_nothing_of_the_batch(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine)
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(
                text("""CREATE FUNCTION rechazar_orden() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION 'disco lleno (simulado)'; END $$ LANGUAGE plpgsql""")
            )
            conn.execute(
                text("""CREATE TRIGGER rechazo BEFORE INSERT ON ordenes FOR EACH ROW
                WHEN (NEW.referencia = 'O3') EXECUTE FUNCTION rechazar_orden()""")
            )
        else:
            conn.execute(
                text("""CREATE TRIGGER rechazo BEFORE INSERT ON ordenes
                WHEN NEW.referencia = 'O3'
                BEGIN SELECT RAISE(ABORT, 'disco lleno (simulado)'); END""")
            )
    path = book(tmp_path / "o.csv", [order(f"O{i}", "1100", "5000") for i in range(1, 6)])
    with pytest.raises(StorageError, match=r"disco lleno.*no se guardó nada del lote"):
        import_orders(engine, "segunda", path, "Casa de Bolsa", "B1", "s")
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(orders)).scalar_one() == 0
        assert load_stage(conn, "segunda").state == "abierta"


# ---------------------------------------------------------------------------- allocation


def test_dutch_auction_oversubscribed_prorates_the_margin_in_lots(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine, tope_porcentaje="0.05")  # a small tranche: 0,05 % of what is left
    with engine.connect() as conn:
        offered = load_stage(conn, "segunda").shares
    assert offered == 19_999  # ⌊(40.000.000 − paid) × 0,05 %⌋, paid = 2.000 for this sample
    rows = [
        order("O1", "1300", "8000"),  # above the price: filled in full
        order("O2", "1200", "9000"),  # at the price, with O3: prorated in lots of 100
        order("O3", "1200", "6000"),
        order("O4", "1100", "20000"),  # below the price: nothing
    ]
    import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "s")
    close(engine)
    done = allocate_stage(engine, "segunda", "bolsa", "cierre del libro")
    awarded = dict(done.results.select("referencia", "asignada").iter_rows())
    # D(1.300) = 8.000 < 19.999 ≤ D(1.200) = 23.000: the price is $ 1.200. The margin gets
    # 11.999 shares = 119 lots of the 150 asked: O2 ⌊90 × 119/150⌋ = 71, O3 ⌊60 × 119/150⌋ = 47,
    # the left-over lot to the larger order (O2).
    assert done.header["precio"] == 120_000
    assert awarded == {"O1": 8_000, "O2": 7_200, "O3": 4_700, "O4": 0}
    assert done.header["asignadas"] == 19_900  # 99 shares, less than a lot, stay unsold
    with engine.connect() as conn:
        assert load_stage(conn, "segunda").state == "adjudicada"
    again = stored_allocation(engine, "segunda")
    assert again.header == done.header
    assert again.results.equals(done.results)


def test_all_orders_below_the_minimum_leave_the_stage_void(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine)
    rows = [order("O1", "900", "5000"), order("O2", "999", "8000")]
    import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "s")
    close(engine)
    done = allocate_stage(engine, "segunda", "bolsa", "cierre del libro")
    assert done.header["desierta"] is True
    assert done.header["asignadas"] == 0
    with engine.connect() as conn:
        stage = load_stage(conn, "segunda")
        cause = stage_history(conn, stage)[-1]["por_que"]
    assert stage.state == "desierta"
    assert cause == (
        "cierre del libro: no hay órdenes válidas: las 2 recibidas se rechazaron al radicarlas "
        "(por debajo del precio mínimo o de la orden mínima, fuera del plazo o sin capacidad "
        "legal declarada) (Fuentes de los programas §4)"
    )
    new_stage(engine, "tercera")  # the whole remainder passes to the next stage
    with engine.connect() as conn:
        assert load_stage(conn, "tercera").shares == stage.shares


def test_book_building_needs_the_sellers_cutoff(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine, mecanismo="construccion_libro")
    rows = [order("O1", "1300", "8000"), order("O2", "1000", "9000")]
    import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "s")
    close(engine)
    with pytest.raises(StageError, match="indique --precio-corte"):
        allocate_stage(engine, "segunda", "bolsa", "cierre")
    with pytest.raises(StageError, match="inferior al precio mínimo"):
        allocate_stage(engine, "segunda", "bolsa", "cierre", cutoff=99_000)
    done = allocate_stage(engine, "segunda", "bolsa", "cierre", cutoff=100_000)
    assert done.header["precio"] == 100_000
    assert done.header["asignadas"] == 17_000  # undersubscribed: everyone at or above it
    # Both orders pay in full; once settled, what they bought is sold and the rest passes on.
    for radicado, shares in done.results.select("radicado", "asignada").iter_rows():
        paid = shares * 100_000
        record_payment(
            engine, "segunda", radicado, date(2018, 4, 20), paid, "contado", "s", stage_ledger
        )
    settle(engine, "segunda", date(2018, 4, 30), "oficina", stage_ledger)
    new_stage(engine, "tercera")
    with engine.connect() as conn:
        third = load_stage(conn, "tercera")
    assert third.origin["asignadas_etapa_anterior"] == 17_000
    assert third.shares == OFFERED - settled - 17_000


def test_the_segunda_fase_price_becomes_a_base_of_the_fines(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    new_stage(engine, mecanismo="construccion_libro")
    rows = [order("O1", "1300", "8000"), order("O2", "1250", "9000")]
    import_orders(engine, "segunda", book(tmp_path / "o.csv", rows), "Casa de Bolsa", "B1", "s")
    close(engine)
    allocate_stage(engine, "segunda", "bolsa", "cierre", cutoff=125_000)
    with engine.connect() as conn:
        radicado = conn.execute(
            select(acceptances.c.radicado)
            .join(sales, sales.c.aceptacion_id == acceptances.c.id)
            .where(sales.c.acciones_pagadas > 0)
        ).scalar_one()
    # A sale of 100 shares in the first six months (Central counts them from the adjudication,
    # dated 2018-03-01), for less than either price: the base is the greatest of the
    # acquisition price ($ 1.000) and the Segunda Fase price ($ 1.250).
    soon = date(2018, 3, 31)
    case = record_event(engine, FIRST, radicado, "venta", soon, 100, 90_000, "venta", "oficina")
    assert case.fine is not None
    assert case.fine.base.chosen.key == "precio_segunda_etapa"
    assert case.fine.base.centavos == 125_000


# ---------------------------------------------------------------------------- CLI


def test_cli_runs_a_segunda_fase_and_writes_its_files(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    url = engine.url.render_as_string(hide_password=False)
    terms_file = tmp_path / "etapa.yaml"
    terms_file.write_text(yaml.safe_dump({**TERMS, "lote": 100}, allow_unicode=True))
    orders_file = book(
        tmp_path / "o.csv", [order("O1", "1250", "5000"), order("O2", "1100", "7000")]
    )
    runner = CliRunner()

    def run(*args: str) -> str:
        result = runner.invoke(app, [*args, "--db", url])
        assert result.exit_code == 0, result.output
        return result.output

    created = run("etapa", "crear", "segunda", "--oferta", FIRST, "--terminos", str(terms_file))
    assert "Segunda Fase 'segunda' creada en borrador." in created
    assert "Precio mínimo: $ 1.000" in created
    run("etapa", "abrir", "segunda")
    imported = run(
        "etapa",
        "ordenes",
        "segunda",
        str(orders_file),
        "--comisionista",
        "Casa de Bolsa",
        "--lote",
        "B1",
        "--salida",
        str(tmp_path / "out"),
    )
    assert "2 órdenes radicadas (2 válidas, 0 rechazadas)" in imported
    run("etapa", "cerrar", "segunda")
    shown = run("etapa", "libro", "segunda")
    assert "$ 1.250" in shown and "12.000" in shown
    allocated = run("etapa", "adjudicar", "segunda")
    assert "adjudicada a $ 1.000 por acción: 12.000 acciones" in allocated
    run("etapa", "exportar", "segunda", "--salida", str(tmp_path / "out"))
    folder = tmp_path / "out" / "segunda"
    broker = pl.read_csv(folder / "segunda-casa-de-bolsa.csv", infer_schema=False)
    # Amounts in pesos with two decimals: 5.000 acciones × $ 1.000 = $ 5.000.000, never
    # 500000000 (its centavos, a hundred times larger to whoever opens the file).
    columns = ("referencia", "asignada", "precio_adjudicacion", "valor_a_pagar")
    assert broker.select(columns).rows() == [
        ("O1", "5000", "1000.00", "5000000.00"),
        ("O2", "7000", "1000.00", "7000000.00"),
    ]
    # The same rows in the XLSX, typed: the sum to pay a number with its two decimals.
    from openpyxl import load_workbook

    sheet = load_workbook(folder / "segunda-casa-de-bolsa.xlsx").active
    assert sheet is not None
    header = [c.value for c in sheet[1]]
    to_pay = sheet.cell(2, header.index("Valor a pagar (pesos)") + 1)
    assert (to_pay.value, to_pay.number_format) == (5_000_000, "#,##0.00")
    assert sheet.cell(2, header.index("Fecha de ingreso") + 1).is_date
    assert pl.read_csv(folder / "registro-segunda.csv")["acciones"].sum() == 12_000
    page = (folder / "informe-segunda.html").read_text(encoding="utf-8")
    assert 'aria-label="Curva de demanda y punto de corte"' in page
    assert "precio $ 1.000 por acción" in page
    assert (folder / "informe-segunda.pdf").read_bytes().startswith(b"%PDF")


def test_cli_orders_stored_when_their_file_cannot_be_written_are_told_stored(
    engine: Engine, settled: int, tmp_path: Path
) -> None:
    url = engine.url.render_as_string(hide_password=False)
    new_stage(engine)
    orders_file = book(tmp_path / "o.csv", [order("O1", "1250", "5000")])
    not_a_folder = tmp_path / "salidas"
    not_a_folder.write_text("un archivo, no una carpeta", encoding="utf-8")
    runner = CliRunner()

    def send(out: Path) -> tuple[int, str]:
        args = ["etapa", "ordenes", "segunda", str(orders_file), "--comisionista"]
        args += ["Casa de Bolsa", "--lote", "B1", "--salida", str(out), "--db", url]
        result = runner.invoke(app, args, env={"COLUMNS": "400"})
        return result.exit_code, " ".join(result.output.split())

    code, said = send(not_a_folder)
    assert code == 1
    assert (
        "El lote 'B1' quedó guardado (1 orden radicada), pero sus archivos no se pudieron "
        f"escribir en {not_a_folder / 'segunda' / 'lotes'} (el sistema no lo permitió: "
    ) in said
    code, said = send(tmp_path / "out")
    assert code == 0 and "El lote 'B1' ya se había recibido; no se creó nada nuevo." in said
    written = tmp_path / "out" / "segunda" / "lotes" / "casa-de-bolsa-b1-radicados.csv"
    assert pl.read_csv(written, infer_schema=False)["referencia"].to_list() == ["O1"]
