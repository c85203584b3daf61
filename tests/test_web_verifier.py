"""The public verifier's page, used by anyone without logging in: upload a package's ZIP and
read what ``democratiza verificar`` says of it, word for word; a file that is not a package,
too large, or a ZIP bomb is refused in Spanish under the field, and the form still works."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.adjudication.record import adjudicate, publish
from democratiza.money import group
from democratiza.storage.database import make_engine, migrate
from democratiza.verification.archive import LOCAL, MIB, UPLOAD_BYTES, UPLOADED
from democratiza.verification.package import AWARDS, HEAD, MANIFEST, canonical
from democratiza.verification.verify import verify, zipped
from democratiza.web.app import create_app
from tests.test_shared_budget import holds
from tests.test_web_public_statistics import text
from tests.test_web_support import CODE, add_people, csrf_of, file_samples, move, open_offer

# One worker runs this file (make test, pytest-xdist): its published offer is built once.
pytestmark = pytest.mark.xdist_group("test_web_verifier")

PAGE = "/verificar"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One published Primera Etapa (the sample offer) for every test of this file."""
    engine = make_engine(f"sqlite:///{tmp_path_factory.mktemp('verificar') / 'democratiza.db'}")
    migrate(engine)
    add_people(engine)
    open_offer(engine)
    file_samples(engine)
    move(engine, "cerrada")
    adjudicate(engine, CODE, "oficina", "adjudicación")
    publish(engine, CODE, "oficina", "publicación de resultados")
    yield engine
    engine.dispose()


@pytest.fixture
def public(engine: Engine) -> TestClient:
    return TestClient(create_app(engine))


def send(client: TestClient, data: bytes, name: str = "paquete.zip") -> tuple[int, str]:
    answer = client.post(
        PAGE,
        params={"csrf": csrf_of(client, PAGE)},
        files={"paquete": (name, data, "application/zip")},
    )
    return answer.status_code, answer.text


def cli_message(data: bytes, folder: Path) -> str:
    """What ``democratiza verificar`` says of the same ZIP (it prints ``verify``'s message)."""
    path = folder / "paquete.zip"
    path.write_bytes(data)
    return verify(path).message


def verdict_of(page: str) -> str:
    found = re.search(r'id="veredicto-mensaje">(.*?)</p>', page, re.S)
    assert found, "la página no trae el veredicto"
    return found.group(1)


def under_the_field(page: str) -> str:
    found = re.search(r'id="error-paquete">(.*?)</small>', page, re.S)
    assert found, "no hay error bajo el campo del paquete"
    return text(found.group(1)).strip()


def test_the_page_is_in_spanish_and_linked_from_home_and_statistics(public: TestClient) -> None:
    page = public.get(PAGE)  # no login
    assert page.status_code == 200
    shown = text(page.text)
    assert "Verifique usted mismo una adjudicación" in shown
    assert "byte por byte" in shown and "primera fila distinta" in shown
    assert f"Paquete (ZIP), hasta {UPLOAD_BYTES // MIB} MiB" in shown
    assert 'enctype="multipart/form-data"' in page.text and 'name="csrf"' in page.text
    assert 'href="/verificar"' in public.get("/").text
    statistics = public.get(f"/ofertas/{CODE}/estadisticas").text
    assert 'href="/verificar"' in statistics
    assert "Verifique usted mismo el paquete" in text(statistics)


def test_an_untouched_package_verifies_as_the_command_says(
    public: TestClient, tmp_path: Path
) -> None:
    package = public.get(f"/ofertas/{CODE}/paquete.zip").content
    status, page = send(public, package)
    assert status == 200
    said = cli_message(package, tmp_path)
    assert said.startswith("El paquete coincide: la adjudicación recalculada de sus ")
    assert text(verdict_of(page)) == said
    assert '<p class="ok" id="veredicto-mensaje">' in page
    assert "<code>adjudicacion.csv</code>" in page  # the file to look for, as code
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        manifest = archive.read(MANIFEST)
        digest = hashlib.sha256(manifest).hexdigest()
    assert f'id="veredicto-huella">{digest}<' in page
    head = json.loads(manifest)[HEAD]  # the chain's head, as the statistics page shows it
    assert f'id="veredicto-cabeza">entrada {head["entrada"]}: {head["huella"]}<' in page
    statistics = public.get(f"/ofertas/{CODE}/estadisticas").text
    assert f'id="huella-manifiesto">{digest}<' in statistics  # the one to compare it with


def test_one_award_changed_by_one_share_is_named_by_its_row(
    public: TestClient, tmp_path: Path
) -> None:
    package = public.get(f"/ofertas/{CODE}/paquete.zip").content
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    table = pl.read_csv(files[AWARDS], schema_overrides={"seudonimo": pl.String()})
    row = table.with_row_index().filter(pl.col("adjudicada") > 0)["index"][2]
    changed = table.with_columns(
        pl.when(pl.int_range(pl.len()) == row)
        .then(pl.col("adjudicada") + 1)
        .otherwise(pl.col("adjudicada"))
    )
    files[AWARDS] = changed.write_csv().encode()
    manifest = json.loads(files[MANIFEST])
    manifest["archivos"][AWARDS] = hashlib.sha256(files[AWARDS]).hexdigest()
    files[MANIFEST] = canonical(manifest)  # a forger who also rewrites the manifest
    forged = zipped(files)
    status, page = send(public, forged)
    assert status == 200  # the verification ran: its answer is that the package is wrong
    shown = text(page)
    who = table["seudonimo"][row]
    assert f"fila {row + 2} (orden {row + 1}, seudónimo {who})" in shown
    assert f"el paquete dice {table['adjudicada'][row] + 1} acciones" in shown
    assert text(verdict_of(page)) == cli_message(forged, tmp_path)
    assert 'class="error" id="veredicto-mensaje"' in page


def test_a_file_that_is_not_a_zip_is_refused_under_the_field_and_the_form_still_works(
    public: TestClient, tmp_path: Path
) -> None:
    status, page = send(public, b"orden,seudonimo\n1,abc\n", "paquete.zip")
    assert status == 422
    said = "No se pudo leer el paquete paquete.zip: no es un archivo ZIP íntegro"
    assert under_the_field(page).startswith(said)
    assert 'id="verificar"' in page and 'name="csrf"' in page  # the form, again
    package = public.get(f"/ofertas/{CODE}/paquete.zip").content
    status, page = send(public, package)
    assert status == 200 and "El paquete coincide" in text(page)


def test_no_file_is_refused_under_the_field(public: TestClient) -> None:
    answer = public.post(PAGE, params={"csrf": csrf_of(public, PAGE)}, data={"x": "y"})
    assert answer.status_code == 422
    assert under_the_field(answer.text).startswith("elija el archivo del paquete")


def test_a_file_larger_than_a_package_is_refused_without_being_read(public: TestClient) -> None:
    status, page = send(public, b"\0" * (UPLOAD_BYTES + 1), "grande.zip")
    assert status == 413
    assert under_the_field(page) == (
        f"No se pudo leer el paquete grande.zip: el archivo pasa del límite de "
        f"{UPLOAD_BYTES // MIB} MiB de un paquete."
    )


def test_a_zip_bomb_is_refused_on_what_it_declares(public: TestClient) -> None:
    # A few hundred KiB that would unpack to more than a package may (zeros compress well).
    unpacked = UPLOADED.unpacked_bytes + MIB
    buffer = io.BytesIO()
    archive = zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED)
    with archive, archive.open(AWARDS, "w", force_zip64=True) as member:
        for _ in range(unpacked // MIB):
            member.write(b"0" * MIB)
    bomb = buffer.getvalue()
    assert len(bomb) < MIB
    status, page = send(public, bomb, "bomba.zip")
    assert status == 422
    assert under_the_field(page) == (
        f"No se pudo leer el paquete bomba.zip: el ZIP se descomprime a {unpacked // MIB} MiB, "
        f"más que el límite de {UPLOADED.unpacked_bytes // MIB} MiB de un paquete."
    )


def test_a_zip_of_many_files_is_refused(public: TestClient) -> None:
    many = zipped({f"archivo-{n}.txt": b"x" for n in range(UPLOADED.members + 1)})
    status, page = send(public, many)
    assert status == 422
    assert f"el ZIP tiene {UPLOADED.members + 1} archivos" in under_the_field(page)


def test_the_form_needs_its_csrf_token(public: TestClient) -> None:
    answer = public.post(PAGE, files={"paquete": ("paquete.zip", b"x", "application/zip")})
    assert answer.status_code == 403


def test_the_documentation_states_the_page_s_limits() -> None:
    docs = Path(__file__).parents[1] / "docs/verificacion.md"
    said = " ".join(docs.read_text(encoding="utf-8").split())
    assert f"un ZIP de hasta {UPLOAD_BYTES // MIB} MiB" in said
    assert f"se descomprima a lo sumo a {UPLOADED.unpacked_bytes // MIB} MiB" in said
    assert f"a lo sumo {UPLOADED.members} archivos" in said
    assert f"descomprime hasta {group(LOCAL.unpacked_bytes // MIB)} MiB" in said


def test_an_address_gets_twenty_verifications_a_minute(public: TestClient) -> None:
    token = csrf_of(public, PAGE)
    files = {"paquete": ("paquete.zip", b"no es un ZIP", "application/zip")}
    answers = [public.post(PAGE, params={"csrf": token}, files=files) for _ in range(21)]
    assert [a.status_code for a in answers[:20]] == [422] * 20
    assert answers[20].status_code == 429
    assert "Demasiados intentos desde esta dirección" in text(answers[20].text)


def test_without_its_token_in_the_address_the_body_is_never_read(
    public: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No cookie, or the token only inside the multipart body: 403 before a byte is held."""

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("se leyó el cuerpo")

    files = {"paquete": ("paquete.zip", b"x" * MIB, "application/zip")}
    stranger = TestClient(public.app)
    token = csrf_of(public, PAGE)
    monkeypatch.setattr("starlette.requests.Request.form", never)
    assert stranger.post(PAGE, params={"csrf": token}, files=files).status_code == 403
    assert public.post(PAGE, data={"csrf": token}, files=files).status_code == 403


def test_attempts_without_a_token_are_counted_too(public: TestClient) -> None:
    files = {"paquete": ("paquete.zip", b"x", "application/zip")}
    answers = [public.post(PAGE, files=files) for _ in range(21)]
    assert [a.status_code for a in answers[:20]] == [403] * 20
    assert answers[20].status_code == 429


def test_anonymous_uploads_past_the_shared_budget_get_503_unread(public: TestClient) -> None:
    budget = public.app.state.anonymous_uploads  # type: ignore[attr-defined]
    token = csrf_of(public, PAGE)
    others = budget.reserve(budget.total - MIB)  # other uploads hold all but 1 MiB
    assert others is not None
    try:
        files = {"paquete": ("paquete.zip", b"x" * (2 * MIB), "application/zip")}
        answer = public.post(PAGE, params={"csrf": token}, files=files)
        assert answer.status_code == 503
        assert under_the_field(answer.text) == (
            "el servicio está recibiendo demasiados paquetes a la vez; intente de nuevo en un "
            "momento"
        )
        small = {"paquete": ("paquete.zip", b"no es un ZIP", "application/zip")}
        assert public.post(PAGE, params={"csrf": token}, files=small).status_code == 422
    finally:
        budget.release(others)
    assert holds(budget, 0)  # every upload gave its bytes back
