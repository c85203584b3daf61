"""The acceptance file format: one column per figure a broker files, with its type and unit.

``docs/formato-aceptaciones.md`` is written from this table (``democratiza formato``), so the
documentation and the parser cannot disagree.
"""

from __future__ import annotations

import polars as pl

from democratiza.money import group
from democratiza.tables.format import (
    KIND_DOC,
    MAX_DOLLARS,
    MAX_PESOS,
    MAX_SHARES,
    Column,
    FileFormat,
)
from democratiza.vocabulary import CATEGORIES, EMPLOYER_STATUSES, ID_TYPES, PAYMENT_METHODS

COLUMNS: tuple[Column, ...] = (
    Column(
        "referencia",
        "texto",
        True,
        "Referencia única de la aceptación en el comisionista",
        "AC-000123",
    ),
    Column("comisionista", "texto", True, "Sociedad comisionista de bolsa que radica", "SCB01"),
    Column("fecha_radicacion", "fecha_hora", True, "Momento de radicación", "2018-01-15T10:30"),
    Column("tipo_identificacion", "texto", True, "CC, CE, PA, TI o NIT", "CC"),
    Column("numero_identificacion", "texto", True, "Número del documento, sin puntos", "79123456"),
    Column("nombre", "texto", True, "Nombre o razón social", "Ana Pérez"),
    Column(
        "categoria",
        "texto",
        True,
        "Categoría de destinatario (ver lista abajo)",
        "trabajador_activo",
    ),
    Column("cantidad", "cantidad", True, "Acciones que acepta comprar", "10000"),
    Column("forma_pago", "texto", True, "contado, credito, cesantias o cuotas", "contado"),
    Column("extranjero", "si_no", False, "Persona natural extranjera", "no"),
    Column(
        "obligado_declarar",
        "si_no",
        False,
        "Persona natural legalmente obligada a declarar renta",
        "si",
    ),
    Column(
        "patrimonio_liquido",
        "pesos",
        False,
        "Patrimonio líquido de la declaración de renta",
        "48000000",
    ),
    Column(
        "ingresos_declaracion",
        "pesos",
        False,
        "Ingresos anuales de la declaración de renta (o de ingresos y patrimonio)",
        "36000000",
    ),
    Column(
        "ingresos_certificado",
        "pesos",
        False,
        "Ingresos del certificado de ingresos y retenciones",
        "24000000",
    ),
    Column(
        "ingresos_usd",
        "dolares",
        False,
        "Ingresos anuales en dólares de la declaración juramentada (extranjeros)",
        "20000",
    ),
    Column(
        "estado_certificado",
        "texto",
        False,
        "Lo que certifica el empleador: activo, pensionado o extrabajador",
        "activo",
    ),
    Column(
        "retiro_justa_causa",
        "si_no",
        False,
        "El ex trabajador fue retirado por justa causa del empleador",
        "no",
    ),
    Column(
        "fecha_certificado",
        "fecha",
        False,
        "Fecha de expedición del certificado laboral",
        "2018-01-10",
    ),
    Column("directivo", "si_no", False, "Ocupa un cargo de nivel directivo", "no"),
    Column(
        "fecha_ingreso_directivo",
        "fecha",
        False,
        "Fecha en que llegó al cargo directivo (para los directivos nuevos)",
        "2018-03-01",
    ),
    Column("remuneracion_anual", "pesos", False, "Remuneración anual certificada", "180000000"),
    Column(
        "salario_mensual",
        "pesos",
        False,
        "Salario mensual (fijo + promedio variable), si lleva menos de un año en el cargo",
        "15000000",
    ),
    Column(
        "meses_en_cargo",
        "entero",
        False,
        "Meses en el cargo directivo a la fecha del certificado",
        "8",
    ),
    Column("activos_totales", "pesos", False, "Activos totales (personas jurídicas)", "5000000000"),
    Column("pasivos_totales", "pesos", False, "Pasivos totales", "2000000000"),
    Column(
        "superavit_valorizacion",
        "pesos",
        False,
        "Superávit por valorización, incluida la revalorización del patrimonio",
        "300000000",
    ),
    Column(
        "ingresos_estados_financieros",
        "pesos",
        False,
        "Ingresos anuales de los estados financieros",
        "900000000",
    ),
    Column(
        "limite_inversion",
        "pesos",
        False,
        "Monto del límite legal y estatutario de inversión certificado",
        "1000000000",
    ),
    Column(
        "fecha_constitucion",
        "fecha",
        False,
        "Fecha de constitución (personas jurídicas)",
        "1995-06-01",
    ),
    Column("compromiso_no_negociar", "si_no", False, "No negociar las acciones por dos años", "si"),
    Column(
        "compromiso_beneficiario_real",
        "si_no",
        False,
        "No permitir otro beneficiario real por dos años",
        "si",
    ),
    Column("compromiso_no_dar_en_pago", "si_no", False, "No dar en pago las acciones", "si"),
    Column("compromiso_no_subrogar", "si_no", False, "No subrogar el crédito", "si"),
    Column(
        "compromiso_aceptar_condiciones",
        "si_no",
        False,
        "Acepta las condiciones de la oferta",
        "si",
    ),
    Column(
        "declaracion_cuenta_propia",
        "si_no",
        False,
        "Declara bajo juramento que actúa por cuenta propia",
        "si",
    ),
)

BY_NAME: dict[str, Column] = {c.name: c for c in COLUMNS}

# Text columns that take one of a fixed list of codes; typed as enums, so the engine compares
# small integers instead of strings.
CODES: dict[str, tuple[str, ...]] = {
    "categoria": CATEGORIES,
    "tipo_identificacion": ID_TYPES,
    "forma_pago": PAYMENT_METHODS,
    "estado_certificado": EMPLOYER_STATUSES,
}


ACCEPTANCES = FileFormat("aceptaciones", COLUMNS, CODES, declared_time="fecha_radicacion")


def typed_schema() -> dict[str, pl.DataType]:
    """The engine's input: every column, in centavos/cents for money."""
    return ACCEPTANCES.typed_schema()


def format_markdown() -> str:
    """The acceptance file format as Markdown (``docs/formato-aceptaciones.md``)."""
    lines = [
        "# Formato del archivo de aceptaciones",
        "",
        "Generado por `democratiza formato` a partir de `src/democratiza/tables/acceptances.py`.",
        "",
        "Se admiten CSV (UTF-8, separado por comas o por punto y coma, con encabezado), XLSX",
        "(primera hoja, encabezado en la fila 1) y JSON (lista de objetos, o un objeto con la",
        "clave `aceptaciones`). Las filas se cuentan como las ve una persona: en CSV y XLSX el",
        "encabezado es la fila 1; en JSON, la fila es la posición del objeto en la lista.",
        "",
        "En CSV cada fila tiene tantos campos como el encabezado (un texto que contiene el",
        "separador va entre comillas dobles, y toda comilla se cierra) y las líneas terminan en",
        "LF o CRLF. En XLSX una fórmula vale por su valor calculado: un libro escrito por un",
        "programa que no calcula sus fórmulas se rechaza (ábralo en Excel y guárdelo). En JSON",
        "cada valor es un texto, un número, una fecha o si/no, nunca una lista u otro objeto.",
        "",
        "Un archivo con cualquier error se rechaza completo: se informan todos los errores",
        "(archivo, fila, columna) y no se escribe nada. Una columna desconocida es un error",
        "(así un error de digitación no apaga una regla).",
        "",
        "| columna | tipo | obligatoria | descripción | ejemplo |",
        "|---|---|---|---|---|",
    ]
    for c in COLUMNS:
        lines.append(
            f"| `{c.name}` | {c.kind} | {'sí' if c.required else 'no'} | "
            f"{c.description} | `{c.example}` |"
        )
    lines += ["", "## Tipos", ""]
    lines += [f"- **{kind}**: {doc}" for kind, doc in KIND_DOC.items()]
    lines += [
        "",
        f"Montos en pesos hasta {group(MAX_PESOS)} y en dólares hasta {group(MAX_DOLLARS)}; "
        f"cantidades hasta {group(MAX_SHARES)} acciones. Más allá, el valor se rechaza como "
        "implausible.",
        "Una cantidad con decimales distintos de cero no es error del archivo: la aceptación",
        "se rechaza por cantidad no entera (causal de la norma).",
        "",
        "## Valores admitidos",
        "",
        *(f"- `{name}`: " + ", ".join(f"`{c}`" for c in codes) for name, codes in CODES.items()),
        "",
        "Un documento se considera presentado cuando se diligencia alguna de sus cifras (por",
        "ejemplo, la declaración de renta: `patrimonio_liquido` o `ingresos_declaracion`).",
    ]
    return "\n".join(lines)
