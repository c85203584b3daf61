"""The title in words of each column of an exported workbook, in one place.

Why two names: a CSV keeps its machine header (``cantidad_permitida``), stable for the
programs that read it and documented one by one in ``docs/formatos.md``; a person who opens
the XLSX reads the header in words ("Cantidad permitida"). Every column a workbook has is
here (``render.workbook`` refuses one without a title), and ``docs/formatos.md`` gives the
same title beside each column (``tests/test_formats_doc.py`` holds them equal).
"""

from __future__ import annotations

TITLES: dict[str, str] = {
    "radicado": "Radicado",
    "referencia": "Referencia del comisionista",
    "comisionista": "Comisionista",
    "tipo_identificacion": "Tipo de identificación",
    "numero_identificacion": "Número de identificación",
    "nombre": "Nombre",
    "categoria": "Categoría",
    "fecha_radicacion": "Fecha de radicación",
    "fecha_ingreso": "Fecha de ingreso",
    "cantidad": "Acciones pedidas",
    "cantidad_permitida": "Cantidad permitida",
    "decision": "Decisión",
    "regla_limitante": "Límite que determinó la cantidad",
    "cantidad_persona": "Lo que dejaron los límites de la persona",
    "consumido_por": "Radicaciones anteriores que usaron el límite",
    "adjudicada": "Acciones adjudicadas",
    "asignada": "Acciones asignadas",
    "motivo": "Motivo",
    "precio": "Precio por acción (pesos)",
    "precio_adjudicacion": "Precio de adjudicación (pesos)",
    "valor_a_pagar": "Valor a pagar (pesos)",
}
