"""A broker's system as brokers build them: a client generated from ``/api/openapi.json``.

The description is first checked against the OpenAPI specification
(``openapi-spec-validator``); then ``openapi-python-client`` generates a Python client from
it, with no network, into a temporary folder, and that client, imported as a broker's
system would import it, files a batch, files a single acceptance, lists its acceptances and
withdraws one, against the service on the loopback (on SQLite and on PostgreSQL). Every
operation of the description must be in the client (a generator drops a route whose schemas
it cannot tell apart), and every answer arrives as the generator's typed class, not as a
dictionary.

The generator lives in its own environment (``make setup`` makes it beside the project's,
``.venv/generador``): it pins a version of typer the command line cannot use.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate
from sqlalchemy import Engine

from democratiza.storage.database import make_engine
from democratiza.web.app import create_app
from tests.test_web_support import BROKER_A, CODE, SAMPLE, add_people, bearer, open_offer, serving

# One worker runs this file (make test, pytest-xdist): its client is generated once.
pytestmark = pytest.mark.xdist_group("test_generated_client")

GENERATOR = Path(sys.prefix) / "generador" / "bin" / "openapi-python-client"
PACKAGE = "cliente_democratiza"
OPTIONS = ["--meta", "none", "--config", "config.yaml"]  # the package alone; no formatter
STAGE_ROUTES = [  # the five a clash of two schema names once cost
    "api_etapa_abrir",
    "api_etapa_cerrar",
    "api_etapa_desierta",
    "api_etapa_publicar",
    "api_etapa_orden_retirar",
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, dict[str, Any]]]:
    """The client package, generated from the service's own description, and that
    description."""
    assert GENERATOR.exists(), f"falta el generador de clientes: {GENERATOR} (make setup)"
    folder = tmp_path_factory.mktemp("cliente")
    spec = create_app(make_engine("sqlite://")).openapi()
    validate(spec)  # raises on anything the OpenAPI specification does not allow
    (folder / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    (folder / "config.yaml").write_text("post_hooks: []\n", encoding="utf-8")
    done = subprocess.run(
        [str(GENERATOR), "generate", "--path", "openapi.json", "--output-path", PACKAGE, *OPTIONS],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "will not be generated" not in said and "Unable to parse" not in said, said
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module(PACKAGE), spec
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
            del sys.modules[name]


def _operation(package: Any, operation_id: str) -> Any:
    """The generated module of one operation (the generator puts it under its tag)."""
    found = sorted((Path(package.__file__).parent / "api").glob(f"*/{operation_id}.py"))
    assert found, f"el cliente no trae la operación {operation_id}"
    tag = found[0].parent.name
    return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation_id}")


def test_every_operation_of_the_description_is_in_the_client(
    generated: tuple[Any, dict[str, Any]],
) -> None:
    package, spec = generated
    operations = [op["operationId"] for path in spec["paths"].values() for op in path.values()]
    for operation_id in operations:
        assert callable(_operation(package, operation_id).sync_detailed)
    assert set(STAGE_ROUTES) <= set(operations)


def test_a_broker_files_lists_and_withdraws_through_the_generated_client(
    generated: tuple[Any, dict[str, Any]], engine: Engine
) -> None:
    package, _ = generated
    models = importlib.import_module(f"{PACKAGE}.models")
    types = importlib.import_module(f"{PACKAGE}.types")
    add_people(engine)
    open_offer(engine)
    token = bearer(engine, BROKER_A)["Authorization"].removeprefix("Bearer ")
    sample = SAMPLE / "lote-1-casa-de-bolsa.csv"
    header, first = sample.read_text(encoding="utf-8").splitlines()[:2]
    row = {k: v for k, v in zip(header.split(","), first.split(","), strict=True) if v}
    with serving(create_app(engine)) as url:
        client = package.AuthenticatedClient(base_url=url, token=token)

        with sample.open("rb") as payload:
            upload = models.BodyApiLoteSubir(
                archivo=types.File(payload=payload, file_name=sample.name), lote="L1"
            )
            batch = _operation(package, "api_lote_subir").sync(
                codigo=CODE, client=client, body=upload
            )
        assert isinstance(batch, models.BatchAnswer), batch
        assert batch.creado and batch.filas == 750 and batch.numero_lote == 1
        assert sum(batch.por_decision.additional_properties.values()) == 750
        assert all(isinstance(r, models.RowDecision) for r in batch.resultado)
        reduced = [r for r in batch.resultado if r.decision == "reducida"]
        assert reduced and all("Reducida de" in r.explicacion for r in reduced)

        one = models.OneAcceptance(
            aceptacion=models.OneAcceptanceAceptacion.from_dict(row | {"referencia": "UNA-1"}),
            lote="UNA-1",
        )
        single = _operation(package, "api_aceptacion_radicar").sync(
            codigo=CODE, client=client, body=one
        )
        assert isinstance(single, models.BatchAnswer), single
        assert single.filas == 1 and single.resultado[0].referencia == "UNA-1"

        listed = _operation(package, "api_aceptaciones").sync(
            codigo=CODE, client=client, limite=5000
        )
        assert all(isinstance(a, models.AcceptanceRow) for a in listed)
        assert len(listed) == 751 and {a.comisionista for a in listed} == {BROKER_A}
        mine = listed[0]
        assert mine.cantidad >= mine.cantidad_permitida and mine.estado == "radicada"

        withdrawn = _operation(package, "api_aceptacion_retirar").sync(
            codigo=CODE,
            radicado=mine.radicado,
            client=client,
            body=models.Withdrawal(motivo="el aceptante desistió"),
        )
        assert isinstance(withdrawn, models.Message), withdrawn
        assert withdrawn.detalle == f"Aceptación {mine.radicado} retirada."
        history = _operation(package, "api_aceptacion").sync(
            codigo=CODE, radicado=mine.radicado, client=client
        )
        assert isinstance(history, models.AcceptanceVersions), history
        assert [(v.version, v.estado) for v in history.versiones] == [
            (2, "retirada"),
            (1, "radicada"),
        ]
        assert history.versiones[0].vigente and not history.versiones[1].vigente
