"""A broker's stage page, once the stage is allocated, says what came of its orders: the cut
price (the stage's single price), the shares assigned to each order and what each pays, and
their sums; the same figures as its allocation file.

Worked example: the Segunda Fase of Central's sample, Casa de Bolsa's orders O1 ($ 1.300 ×
8.000) and O2 ($ 1.200 × 9.000) valid, O3 refused below the minimum price, O4 withdrawn.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import Engine

from democratiza.money import group, pesos
from democratiza.stages.allocate import stored_allocation
from democratiza.web.app import create_app
from tests.test_web_stage_public import STAGE, allocated_stage
from tests.test_web_support import add_people, log_in


def test_the_broker_reads_its_assigned_shares_cut_price_and_sum_to_pay(
    engine: Engine, tmp_path: Path
) -> None:
    by_reference = allocated_stage(engine, tmp_path)
    add_people(engine)
    broker = TestClient(create_app(engine))
    log_in(broker, "comisionista_a")
    page = broker.get(f"/comisionista/etapas/{STAGE}").text
    done = stored_allocation(engine, STAGE)
    price = done.header["precio"]
    assert isinstance(price, int) and price > 0
    assigned = dict(zip(done.results["radicado"], done.results["asignada"], strict=True))
    total = sum(assigned.values())
    assert total > 0
    shown = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", page)))
    assert f"{pesos(price)} precio de corte por acción" in shown
    assert f"{group(total)} acciones asignadas a mis órdenes" in shown
    assert f"{pesos(total * price)} valor a pagar por mis órdenes" in shown
    for reference in ("O1", "O2", "O3"):
        radicado = str(by_reference[reference]["radicado"])
        row = re.search(rf"<tr><td><code>{radicado}</code>.*?</tr>", page)
        assert row, reference
        cells = re.findall(r'<td class="num">([^<]*)</td>', row.group(0))
        shares = assigned.get(radicado, 0)
        assert cells[-2:] == [group(shares), pesos(shares * price)], reference
