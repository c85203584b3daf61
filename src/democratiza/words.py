"""The family's words as a person reads them: every identifier of ``vocabulary`` and of the
project's states and records, written as the decrees and the office write it, with accents.

Why a table apart from ``vocabulary``: the identifiers are what files, commands and the
database carry (``trabajador_activo``, ``igualitario_redistribucion``, ``valida``); a page,
a report or a table for people shows the word. A program's own names (its limits, its
documents) come from its file, through ``labels.label``, which falls back to this table.

The words of a kind are in sentence case as they start a cell ("Trabajador activo"); the
states and decisions are predicates ("Estado: abierta") and go in lower case, as do the
amounts, which are read inside a sentence or a formula ("× $ 48.000.000 (patrimonio
líquido)").
"""

from __future__ import annotations

from democratiza.money import group

WORDS: dict[str, dict[str, str]] = {
    # Ley 226 de 1995 art. 3 names the Destinatarios de las Condiciones Especiales.
    "categoria": {
        "trabajador_activo": "Trabajador activo",
        "pensionado": "Pensionado",
        "extrabajador": "Extrabajador",
        "asociacion_empleados": "Asociación de empleados o ex empleados",
        "sindicato": "Sindicato de trabajadores",
        "federacion_sindicatos": "Federación de sindicatos de trabajadores",
        "confederacion_sindicatos": "Confederación de sindicatos de trabajadores",
        "fondo_empleados": "Fondo de empleados",
        "fondo_mutuo_inversion": "Fondo mutuo de inversión",
        "fondo_pensiones_cesantias": "Fondo de cesantías o de pensiones",
        "cooperativa": "Entidad cooperativa",
        "caja_compensacion": "Caja de compensación familiar",
        "persona_natural": "Persona natural",
    },
    "documento": {
        "declaracion_renta": "Declaración de renta",
        "certificado_ingresos": "Certificado de ingresos y retenciones",
        "declaracion_jurada_ingresos_usd": "Declaración juramentada de ingresos en dólares",
        "certificado_laboral": "Certificado laboral",
        "certificado_remuneracion": "Certificación de la remuneración anual",
        "estados_financieros": "Estados financieros",
        "declaracion_renta_o_ingresos_patrimonio": (
            "Declaración de renta o de ingresos y patrimonio"
        ),
        "certificado_limite_inversion": "Certificación de los límites legales de inversión",
    },
    # The figures a limit is computed on, read inside its formula.
    "monto": {
        "patrimonio_liquido": "patrimonio líquido",
        "ingresos_declaracion": "ingresos de la declaración",
        "ingresos_certificado": "ingresos del certificado de ingresos y retenciones",
        "ingresos_usd": "ingresos declarados en dólares",
        "remuneracion_anual": "remuneración anual",
        "salario_mensual_anualizado": "salario mensual × 12",
        "patrimonio_ajustado": (
            "Patrimonio Ajustado (activos, pasivos y superávit por valorización)"
        ),
        "ingresos_estados_financieros": "ingresos de los estados financieros",
        "limite_inversion": "límite de inversión certificado",
        "salario_mensual": "salario mensual certificado por el empleador",
    },
    "combinar": {"primero": "el primero presentado de", "mayor": "el mayor de"},
    # The program file's fields a design changes (``design.designs``), as the change reads.
    "campo_programa": {
        "multiplo": "múltiplo",
        "tope_acciones": "tope en acciones",
        "tope_pesos": "tope en pesos",
        "tope_smmlv": "tope en salarios mínimos",
        "tope_porcentaje_oferta": "porcentaje de las acciones ofrecidas",
        "metodo": "Método de adjudicación",
        "residuo": "Remanente",
        "lote_acciones": "Lote de acciones",
        "porcentaje_lineal": "Porcentaje del tramo igualitario",
    },
    "metodo": {
        "igualitario_redistribucion": "Igualitario con redistribución",
        "proporcional": "Proporcional a lo permitido",
        "lineal_proporcional": "Un tramo igualitario y el resto proporcional",
    },
    "residuo": {
        "primero_radicado": "Al primero en radicar",
        "mayor_solicitud": "A la mayor solicitud",
    },
    "mecanismo": {
        "subasta_holandesa": "Subasta holandesa (precio uniforme)",
        "construccion_libro": "Construcción del libro (precio de corte del vendedor)",
    },
    # How each mechanism sets the one price every buyer pays (stages/clearing.py), for the
    # stage's aviso.
    "mecanismo_precio": {
        "subasta_holandesa": (
            "Cada orden dice cuántas acciones pide y el precio más alto que paga por cada una. "
            "Al cierre, las órdenes se ordenan del precio más alto al más bajo y el precio de la "
            "etapa es el más alto al que las órdenes a ese precio o más cubren todas las "
            "acciones ofrecidas; si ninguno las cubre, es el precio mínimo y se atienden todas "
            "las órdenes válidas. Todos los compradores pagan ese mismo precio."
        ),
        "construccion_libro": (
            "Cada orden dice cuántas acciones pide y el precio más alto que paga por cada una. "
            "Al cierre, el vendedor ve la demanda a cada precio y fija el precio de corte, "
            "nunca inferior al precio mínimo; se atienden las órdenes a ese precio o más, y "
            "todos los compradores pagan ese mismo precio."
        ),
    },
    # Where a later stage's shares come from (``stages.lifecycle``: the stage's origin).
    "origen_etapa": {
        "ofrecidas_primera_etapa": "Acciones ofrecidas en la Primera Etapa",
        "adjudicadas_primera_etapa": "Acciones adjudicadas en la Primera Etapa",
        "disponibles_etapa_anterior": "Acciones disponibles en la etapa anterior",
        "asignadas_etapa_anterior": "Acciones asignadas en la etapa anterior",
        "pagadas": "Acciones pagadas",
        "resueltas_por_no_pago": "Acciones resueltas por falta de pago (vuelven)",
        "disponibles": "Acciones disponibles para esta etapa",
    },
    "forma_pago": {
        "contado": "De contado",
        "credito": "Con crédito",
        "cesantias": "Con cesantías",
        "cuotas": "En cuotas",
    },
    # How a percentage of the shares offered is taken to whole shares, inside a sentence.
    "redondeo": {
        "abajo": "redondeado hacia abajo",
        "arriba": "redondeado hacia arriba",
        "cercano": "redondeado al entero más cercano (media acción hacia arriba)",
    },
    # A program's fine (``multas``): the date its bands count from and how it is adjusted.
    "fecha_referencia_multa": {
        "enajenacion": "fecha de enajenación",
        "adjudicacion": "fecha de adjudicación",
    },
    "ajuste_multa": {
        "ipc_1_enero": "por el IPC del año anterior cada 1 de enero",
        "tasa_moratoria_dia_pago": "a la tasa máxima moratoria del día del pago",
    },
    "persona": {"natural": "Persona natural", "juridica": "Persona jurídica"},
    "tipo_identificacion": {
        "CC": "Cédula de ciudadanía",
        "CE": "Cédula de extranjería",
        "PA": "Pasaporte",
        "TI": "Tarjeta de identidad",
        "NIT": "NIT",
        "PEP": "Permiso especial de permanencia",
        "PPT": "Permiso por protección temporal",
    },
    "estado_certificado": {
        "activo": "trabajador activo",
        "pensionado": "pensionado",
        "extrabajador": "extrabajador",
    },
    "estado_oferta": {
        "borrador": "en borrador",
        "abierta": "abierta (recibe aceptaciones)",
        "cerrada": "cerrada",
        "adjudicada": "adjudicada",
        "publicada": "publicada",
        "desierta": "declarada desierta",
    },
    "estado_etapa": {
        "borrador": "en borrador",
        "abierta": "abierta (recibe órdenes)",
        "cerrada": "cerrada",
        "adjudicada": "adjudicada",
        "desierta": "desierta",
        "publicada": "publicada",
    },
    "decision": {
        "aceptada": "aceptada",
        "reducida": "reducida",
        "rechazada": "rechazada",
        "retirada": "retirada por su comisionista",
    },
    "decisiones": {
        "aceptada": "Aceptadas",
        "reducida": "Reducidas",
        "rechazada": "Rechazadas",
        "retirada": "Retiradas por su comisionista",
    },
    # The family's name of the first stage (Ley 226 de 1995 art. 7), where a program file
    # does not give its own (``nombre_primera_etapa``).
    "etapa": {"primera": "Primera Etapa"},
    "decision_orden": {
        "valida": "válida",
        "rechazada": "rechazada",
        "retirada": "retirada por su comisionista",
    },
    "estado_aceptacion": {
        "radicada": "radicada",
        "corregida": "corregida",
        "retirada": "retirada",
        "reevaluada": "evaluada de nuevo al precio ajustado",
    },
    "evento": {
        "creacion": "creación",
        "transicion": "cambio de estado",
        "interrupcion": "interrupción",
        "desierta": "declarada desierta",
    },
    "accion_auditoria": {
        "oferta.creacion": "Oferta creada",
        "oferta.transicion": "Oferta: cambio de estado",
        "oferta.interrupcion": "Oferta interrumpida",
        "oferta.desierta": "Primera Etapa declarada desierta",
        "oferta.adjudicar": "Oferta adjudicada",
        "oferta.liquidar": "Periodo de pago liquidado",
        "credito.registrar": "Línea de crédito registrada",
        "credito.corregir": "Línea de crédito corregida",
        "credito.retirar": "Línea de crédito retirada",
        "serie.cargar": "Serie oficial del interés bancario corriente cargada",
        "oferta.reevaluar": "Aceptaciones evaluadas de nuevo al precio ajustado",
        "lote.recibir": "Lote de aceptaciones recibido",
        "aceptacion.retirar": "Aceptación retirada",
        "pagos.lote": "Lote de pagos recibido",
        "pago.registrar": "Pago registrado",
        "etapa.pagos.lote": "Lote de pagos de la etapa recibido",
        "etapa.pago.registrar": "Pago de la etapa registrado",
        "etapa.liquidar": "Periodo de pago de la etapa liquidado",
        "paquete.publicar": "Paquete público armado",
        "etapa.creacion": "Etapa creada",
        "etapa.transicion": "Etapa: cambio de estado",
        "etapa.adjudicar": "Etapa adjudicada",
        "etapa.desierta": "Etapa declarada desierta",
        "ordenes.lote": "Lote de órdenes recibido",
        "orden.retirar": "Orden retirada",
        "tenencia.evento": "Evento de tenencia",
        "tenencia.ineficacia": "Ineficacia declarada",
        "token.crear": "Token creado",
        "token.revocar": "Token revocado",
        "usuario.crear": "Usuario creado",
        "usuario.bloquear": "Usuario bloqueado",
    },
    "rol": {
        "oficina": "oficina del programa",
        "comisionista": "comisionista",
        "auditor": "auditor",
        "publico": "público",
    },
    "trabajo": {"lote": "Recepción del lote", "adjudicacion": "Adjudicación"},
    "estado_trabajo": {
        "en_cola": "en cola",
        "en_curso": "en curso",
        "terminado": "terminado",
        "fallido": "fallido",
    },
}


def word(kind: str, ident: object) -> str:
    """The word for an identifier of a kind; an identifier the table does not know (a value a
    person typed, say) is shown as it is, never guessed; nothing is '—'."""
    if ident is None or ident == "":
        return "—"
    return WORDS.get(kind, {}).get(str(ident), str(ident))


def count(n: int, one: str, many: str) -> str:
    """A number and its noun in agreement: '1 aceptación', '2.500 aceptaciones'."""
    return f"{group(n)} {one if n == 1 else many}"


def filed(n: int) -> str:
    """What a received batch holds, in one wording for CLI, API and pages: '1 aceptación
    radicada', '200.000 aceptaciones radicadas'."""
    return count(n, "aceptación radicada", "aceptaciones radicadas")


def orders_filed(n: int) -> str:
    """What a received batch of a later stage's orders holds: '1 orden radicada'."""
    return count(n, "orden radicada", "órdenes radicadas")


# The estado of a stored row once it was withdrawn (an acceptance by its broker, an order, a
# credit line): the one definition every layer above compares with.
WITHDRAWN = "retirada"


def decision_of(decision: object, state: object) -> object:
    """The decision an acceptance is shown with: a withdrawn one is "retirada" (its last
    version stores "rechazada" with nothing permitted, which is how it leaves the
    adjudication, but nobody refused it)."""
    return WITHDRAWN if state == WITHDRAWN else decision


def decision_read(decision: object, state: object) -> str:
    """The decision a person reads for an acceptance: a withdrawn one is "retirada por su
    comisionista" (``decision_of``)."""
    return word("decision", decision_of(decision, state))
