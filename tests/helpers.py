"""Builders for worked examples: a valid acceptance, changed only where the example says."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from democratiza.programs.loader import load_program
from democratiza.programs.parameters import make_offer
from democratiza.rules.engine import CompiledProgram, frame_from_rows
from democratiza.rules.explain import Explainer, Explanation
from democratiza.vocabulary import UNDERTAKINGS


def pesos(amount: int) -> int:
    """Whole pesos to the engine's centavos."""
    return amount * 100


SIGNED = dict.fromkeys(UNDERTAKINGS, True)


def worker(**changes: Any) -> dict[str, Any]:
    """An active worker who files a tax return and signed everything."""
    row: dict[str, Any] = {
        "referencia": "A-1",
        "comisionista": "SCB",
        "fecha_radicacion": datetime(2018, 1, 15, 10),
        "tipo_identificacion": "CC",
        "numero_identificacion": "79000001",
        "nombre": "Ana",
        "categoria": "trabajador_activo",
        "cantidad": 1_000,
        "forma_pago": "contado",
        "obligado_declarar": True,
        "patrimonio_liquido": pesos(100_000_000),
        "ingresos_declaracion": pesos(80_000_000),
        "estado_certificado": "activo",
        "fecha_certificado": date(2018, 1, 5),
        **SIGNED,
    }
    row.update(changes)
    return row


def entity(category: str = "fondo_empleados", **changes: Any) -> dict[str, Any]:
    """A legal person with its financial statements, return and investment-limit certificate."""
    row: dict[str, Any] = {
        "referencia": "J-1",
        "comisionista": "SCB",
        "fecha_radicacion": datetime(2018, 1, 15, 10),
        "tipo_identificacion": "NIT",
        "numero_identificacion": "900000001",
        "nombre": "Entidad",
        "categoria": category,
        "cantidad": 1_000,
        "forma_pago": "contado",
        "activos_totales": pesos(10_000_000_000),
        "pasivos_totales": pesos(4_000_000_000),
        "superavit_valorizacion": pesos(1_000_000_000),
        "ingresos_declaracion": pesos(2_000_000_000),
        "ingresos_estados_financieros": pesos(2_000_000_000),
        "limite_inversion": pesos(20_000_000_000),
        **SIGNED,
    }
    row.update(changes)
    return row


class Outcome:
    """One evaluated acceptance, with the engine's row and its Spanish explanation."""

    def __init__(self, row: dict[str, Any], explanation: Explanation) -> None:
        self.row = row
        self.explanation = explanation

    @property
    def decision(self) -> str:
        return str(self.row["decision"])

    @property
    def permitted(self) -> int:
        return int(self.row["cantidad_permitida"])

    @property
    def binding(self) -> str | None:
        value = self.row["regla_limitante"]
        return None if value is None else str(value)

    def limit(self, rule_id: str) -> int | None:
        value = self.row[f"limite__{rule_id}"]
        return None if value is None else int(value)

    @property
    def causes(self) -> list[str]:
        return list(self.row["_codes"])

    @property
    def text(self) -> str:
        return "\n".join(self.explanation.lines())


def evaluate_one(program_id: str, row: dict[str, Any], **params: object) -> Outcome:
    offer = make_offer(load_program(program_id), params)
    compiled = CompiledProgram(offer)
    frame = frame_from_rows([row])
    result = compiled.evaluate(frame)
    explanation = next(Explainer(compiled).explain_all(result, frame))
    out = result.row(0, named=True)
    out["_codes"] = [c.code for i, c in enumerate(compiled.checks) if out["causas"] >> i & 1]
    return Outcome(out, explanation)


# A credit line that opens Central's sample offer (examples/primera-etapa/oferta.yaml):
# 10 % of 40.000.000 shares × $ 1.000, five years with one of grace, at the IBC of its
# grant date (Ley 226 art. 11 num. 3), as typed after ``democratiza credito registrar CODE``.
CENTRAL_CREDIT_LINE = (
    "--entidad",
    "Banco Ejemplo",
    "--monto-disponible",
    "4.000.000.000",
    "--plazo-meses",
    "60",
    "--gracia-meses",
    "12",
    "--tasa-ea",
    "22.33",
    "--fecha-otorgamiento",
    "2017-06-15",
)
