"""Adjudication report: a hand-made adjudication whose figures are worked out below.

Thirteen acceptances, four categories; two rejected (nothing awarded), one fund awarded less
than it was permitted, and person 1001 with two acceptances (100 + 20 = 120 shares).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest

from democratiza.money import fixed, share_percent
from democratiza.reports.adjudication_figures import (
    CategoryFigures,
    HistogramBin,
    LimitFigures,
    LorenzPoint,
    ReportFigures,
    ReportInput,
    ReportInputError,
    build_figures,
)
from democratiza.reports.adjudication_report import render_html, render_pdf
from democratiza.rules.person import person_keys

# One worker runs this file (make test, pytest-xdist): its figures and PDF are made once.
pytestmark = pytest.mark.xdist_group("test_adjudication_report")

PRICE = 201_850  # $ 2.018,50
OFFERED = 7_000

# radicado, comisionista, identificación, categoría, solicitadas, permitidas, decisión,
# regla limitante, adjudicadas
ROWS = [
    ("R001", "Acciones SCB", "1001", "trabajador_activo", 100, 100, "aceptada", None, 100),
    ("R002", "Acciones SCB", "1002", "trabajador_activo", 500, 300, "reducida", "geb-8.2.1", 300),
    ("R003", "Valores del Sur", "1003", "trabajador_activo", 50, 50, "aceptada", None, 50),
    ("R004", "Valores del Sur", "1001", "trabajador_activo", 20, 20, "aceptada", None, 20),
    ("R005", "Acciones SCB", "2001", "pensionado", 10, 10, "aceptada", None, 10),
    ("R006", "Casa Andina", "2002", "pensionado", 2_000, 800, "reducida", "geb-8.2.2", 800),
    ("R007", "Casa Andina", "2003", "pensionado", 5, 5, "aceptada", None, 5),
    ("R008", "Acciones SCB", "2004", "pensionado", 300, 0, "rechazada", None, 0),
    (
        "R009",
        "Valores del Sur",
        "3001",
        "fondo_empleados",
        10_000,
        4_000,
        "reducida",
        "geb-9.2.1",
        3_500,
    ),
    ("R010", "Casa Andina", "3002", "fondo_empleados", 1_500, 1_500, "aceptada", None, 1_500),
    ("R011", "Acciones SCB", "4001", "cooperativa", 700, 0, "rechazada", "geb-9.2.1", 0),
    ("R012", "Valores del Sur", "1004", "trabajador_activo", 1, 1, "aceptada", None, 1),
    ("R013", "Casa Andina", "1005", "trabajador_activo", 2_000, 300, "reducida", "geb-8.2.1", 300),
]
COLUMNS = [
    "radicado",
    "comisionista",
    "numero_identificacion",
    "categoria",
    "cantidad",
    "cantidad_permitida",
    "decision",
    "regla_limitante",
    "adjudicada",
]


def awards(rows: Sequence[tuple[object, ...]] = ROWS) -> pl.DataFrame:
    return pl.DataFrame(
        rows,
        schema={
            c: (pl.Int64 if c in {"cantidad", "cantidad_permitida", "adjudicada"} else pl.String)
            for c in COLUMNS
        },
        orient="row",
    )


def report_input(frame: pl.DataFrame | None = None) -> ReportInput:
    return ReportInput(
        programa_id="geb-2017",
        programa_nombre="Grupo Energía Bogotá, primera etapa",
        acciones_ofrecidas=OFFERED,
        precio_centavos=PRICE,
        fecha_aviso=date(2018, 3, 1),
        fecha_cierre=date(2018, 4, 16),
        metodo="Prorrateo por categoría",
        regla_remanente="Mayor residuo",
        hash_entrada="sha256:" + "0123456789abcdef" * 4,
        awards=awards() if frame is None else frame,
        nombres_categorias={"trabajador_activo": "Trabajador activo de GEB o de sus filiales"},
        nombres_reglas={"geb-8.2.1": "Una vez el patrimonio líquido"},
    )


@pytest.fixture(scope="module")
def figures() -> ReportFigures:
    return build_figures(report_input())


def test_totals(figures: ReportFigures) -> None:
    f = figures
    assert (f.aceptaciones, f.aceptadas, f.reducidas, f.rechazadas) == (13, 7, 4, 2)
    # 100 + 500 + 50 + 20 + 10 + 2.000 + 5 + 300 + 10.000 + 1.500 + 700 + 1 + 2.000
    assert f.acciones_solicitadas == 17_186
    # the permitted ones: 100 + 300 + 50 + 20 + 10 + 800 + 5 + 4.000 + 1.500 + 1 + 300
    assert f.acciones_permitidas == 7_086
    # the same but the fund's 3.500 instead of 4.000
    assert f.acciones_adjudicadas == 6_586
    assert f.acciones_no_adjudicadas == 414
    # 6.586 × $ 2.018,50 = $ 13.293.841
    assert f.valor_adjudicado_centavos == 1_329_384_100
    assert f.demanda_sobre_oferta == Fraction(17_186, 7_000)  # oversubscribed 2,46 times
    assert f.demanda_admisible_sobre_oferta == Fraction(7_086, 7_000)
    assert f.colocacion == Fraction(6_586, 7_000)
    # 11 acceptances awarded shares; 1001 has two of them, so 10 people
    assert (f.adjudicaciones, f.nuevos_accionistas) == (11, 10)
    assert f.prorrateadas == 1  # R009: 3.500 of 4.000 permitted


def test_by_category_and_limits(figures: ReportFigures) -> None:
    assert figures.por_categoria == (
        CategoryFigures("fondo_empleados", 2, 0, 11_500, 5_500, 5_000, 2),
        CategoryFigures("trabajador_activo", 6, 0, 2_671, 771, 771, 5),
        CategoryFigures("pensionado", 4, 1, 2_315, 815, 815, 3),
        CategoryFigures("cooperativa", 1, 1, 700, 0, 0, 0),
    )
    assert figures.limites == (
        LimitFigures("geb-8.2.1", 2, 200 + 1_700),
        LimitFigures("geb-9.2.1", 2, 6_000 + 700),
        LimitFigures("geb-8.2.2", 1, 1_200),
    )
    assert figures.sin_limite == 8


def test_histogram_on_a_log_scale(figures: ReportFigures) -> None:
    # awards 1, 5, 10, 20, 50, 100, 300, 300, 800, 1.500, 3.500 in bins 1-2-5-10-...
    assert figures.histograma == (
        HistogramBin(1, 1, 1, 1),
        HistogramBin(2, 4, 0, 0),
        HistogramBin(5, 9, 1, 5),
        HistogramBin(10, 19, 1, 10),
        HistogramBin(20, 49, 1, 20),
        HistogramBin(50, 99, 1, 50),
        HistogramBin(100, 199, 1, 100),
        HistogramBin(200, 499, 2, 600),
        HistogramBin(500, 999, 1, 800),
        HistogramBin(1_000, 1_999, 1, 1_500),
        HistogramBin(2_000, 4_999, 1, 3_500),
    )


def test_concentration_worked_example(figures: ReportFigures) -> None:
    # Awards per person, smallest first (1001 sums 100 + 20):
    x = [1, 5, 10, 50, 120, 300, 300, 800, 1_500, 3_500]
    n, total = len(x), sum(x)
    assert (n, total) == (10, 6_586)
    # Σ i·x_i = 1 + 10 + 30 + 200 + 600 + 1.800 + 2.100 + 6.400 + 13.500 + 35.000 = 59.641
    weighted = sum(i * xi for i, xi in enumerate(x, start=1))
    assert weighted == 59_641
    # G = 2 · 59.641 / (10 · 6.586) − 11/10 = (119.282 − 72.446) / 65.860 = 11.709 / 16.465
    assert figures.gini == Fraction(11_709, 16_465)
    assert fixed(Fraction(11_709, 16_465), 4) == "0,7111"
    # The largest 1 % of 10 awardees is ceil(0,1) = 1 person: 3.500 / 6.586 = 53,14 %
    assert (figures.top1_personas, figures.top1_participacion) == (1, Fraction(3_500, 6_586))
    assert share_percent(Fraction(3_500, 6_586)) == "53,14 %"
    assert (figures.top10_personas, figures.top10_participacion) == (1, Fraction(3_500, 6_586))
    # Lorenz curve through every person when there are few; deciles are one person each.
    assert figures.lorenz[0] == LorenzPoint(0, 0)
    assert figures.lorenz[-1] == LorenzPoint(10, 6_586)
    assert [p.acciones for p in figures.deciles] == [
        1,
        6,
        16,
        66,
        186,
        486,
        786,
        1_586,
        3_086,
        6_586,
    ]


def test_gini_of_equal_awards_is_zero_and_of_one_awardee_too() -> None:
    # twelve people with 10 shares each (R004 left out: it is 1001's second acceptance)
    equal = awards([(*r[:4], 10, 10, "aceptada", None, 10) for r in ROWS if r[0] != "R004"])
    assert build_figures(report_input(equal)).gini == 0
    one = awards([ROWS[0]])
    f = build_figures(report_input(one))
    assert (f.gini, f.top1_participacion, f.nuevos_accionistas) == (Fraction(0), Fraction(1), 1)


def test_nobody_awarded() -> None:
    frame = awards([ROWS[7], ROWS[10]])
    f = build_figures(report_input(frame))
    assert (f.gini, f.top1_participacion, f.histograma, f.nuevos_accionistas) == (None, None, (), 0)
    html = render_html(report_input(frame), f)
    assert "No hubo adjudicaciones." in html


def test_engine_enum_columns_are_accepted() -> None:
    frame = awards().with_columns(
        pl.col("decision").cast(pl.Enum(["aceptada", "reducida", "rechazada"])),
        pl.col("cantidad").cast(pl.UInt32),
    )
    assert build_figures(report_input(frame)) == build_figures(report_input())


def test_a_person_is_the_identification_type_and_number_when_both_are_given() -> None:
    # 1001's second acceptance (R004) filed with a foreigner's card: another person.
    frame = awards().with_columns(
        pl.when(pl.col("radicado") == "R004")
        .then(pl.lit("CE"))
        .otherwise(pl.lit("CC"))
        .alias("tipo_identificacion")
    )
    f = build_figures(report_input(frame))
    assert f.nuevos_accionistas == 11
    assert f.por_categoria[1] == CategoryFigures("trabajador_activo", 6, 0, 2_671, 771, 771, 6)


def test_the_persons_numbers_when_given_count_the_same_persons_as_the_identifications() -> None:
    # The program designer numbers the persons once (rules.person.person_keys) and passes
    # the numbers: 1001 (R001 and R004) is one number, one awardee, as by the texts.
    frame = awards().with_columns(tipo_identificacion=pl.lit("CC"))
    numbered = frame.with_columns(person_keys(frame))
    assert numbered["clave_persona"].n_unique() == 12  # 13 acceptances, 12 persons
    assert build_figures(report_input(numbered)) == build_figures(report_input(frame))
    assert build_figures(report_input(numbered)).nuevos_accionistas == 10  # 2 rejected


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (pl.col("adjudicada") + 1, "mayores que la cantidad permitida"),
        (pl.when(pl.col("radicado") == "R008").then(5).otherwise(pl.col("adjudicada")), "R008"),
    ],
)
def test_inconsistent_awards_are_refused(change: pl.Expr, message: str) -> None:
    if message == "R008":  # a rejected acceptance with shares (and permitted raised to match)
        frame = awards().with_columns(
            change.alias("adjudicada"),
            pl.max_horizontal("cantidad_permitida", change).alias("cantidad_permitida"),
        )
    else:
        frame = awards().with_columns(change.alias("adjudicada"))
    with pytest.raises(ReportInputError, match=message):
        report_input(frame)


def test_more_awarded_than_offered_is_refused() -> None:
    with pytest.raises(ReportInputError, match=r"se adjudican 6\.586 acciones y solo se ofrecen"):
        replace(report_input(), acciones_ofrecidas=6_000)


def test_html_in_spanish_with_colombian_numbers(figures: ReportFigures) -> None:
    html = render_html(report_input(), figures)
    for heading in (
        "Informe de adjudicación — Grupo Energía Bogotá, primera etapa",
        "<h2>Cifras de la oferta</h2>",
        "<h3>Demanda y adjudicación por categoría</h3>",
        "<h3>Límites que determinaron la cantidad en la adjudicación (con las otras "
        "radicaciones de la persona)</h3>",
        "<h3>Distribución de las adjudicaciones</h3>",
        "<h3>Concentración</h3>",
        "<h2>Tablas de los gráficos</h2>",
    ):
        assert heading in html
    for figure in (
        "<td>7.000</td>",  # offered
        "<td>$ 2.018,50</td>",  # price
        "<td>$ 14.129.500</td>",  # value of the offer: 7.000 × $ 2.018,50
        "<td>1 de marzo de 2018</td>",
        "<td>6.586</td>",  # awarded
        "<td>$ 13.293.841</td>",  # value awarded
        "<td>2,46 veces la oferta (sobredemanda)</td>",  # 17.186 / 7.000 = 2,455…
        "<td>94,09 %</td>",  # placed: 6.586 / 7.000 = 94,0857…
        "<td>0,7111</td>",  # Gini
        "<td>53,14 %</td>",  # largest 1 %
        '<td class="n">17.186</td>',  # requested, total row of the category table
        "Trabajador activo de GEB o de sus filiales",  # named category
        "Fondo de empleados",  # unnamed category: the family's word for it
        "Coeficiente de Gini: 0,7111.",  # Lorenz caption
    ):
        assert figure in html, figure
    # Four charts, each drawn for a wide screen and for a phone.
    assert html.count('<svg class="grafica-ancha"') == 4
    assert html.count('<svg class="grafica-estrecha"') == 4
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # no external assets
    assert "<image" not in html


def test_html_ids_are_unique(figures: ReportFigures) -> None:
    ids = re.findall(r'\bid="([^"]+)"', render_html(report_input(), figures))
    assert len(ids) == len(set(ids))


def test_html_is_deterministic(figures: ReportFigures) -> None:
    first = render_html(report_input(), figures).encode()
    again = render_html(report_input(), build_figures(report_input())).encode()
    assert first == again


def count_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf))


@pytest.fixture(scope="module")
def pdf(tmp_path_factory: pytest.TempPathFactory, figures: ReportFigures) -> Path:
    path = tmp_path_factory.mktemp("pdf") / "informe.pdf"
    render_pdf(report_input(), figures, path)
    return path


def test_pdf(pdf: Path, tmp_path: Path, figures: ReportFigures) -> None:
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert count_pages(data) == 5  # the figures, then four charts
    assert b"CreationDate" not in data
    assert list(pdf.parent.iterdir()) == [pdf]  # no temporary file left behind
    again = tmp_path / "otra.pdf"
    render_pdf(report_input(), figures, again)
    assert again.read_bytes() == data


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="sin pdftotext (poppler-utils)")
def test_pdf_text_is_spanish(pdf: Path) -> None:
    text = subprocess.run(
        ["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    words = " ".join(text.split())
    for expected in (
        "Cifras de la oferta",
        "$ 13.293.841",
        "Demanda y adjudicación por categoría",
        "Límites que determinaron la cantidad",
        "Distribución de las adjudicaciones",
        "Coeficiente de Gini: 0,7111",
        "Página 5",
    ):
        assert expected in words, expected
