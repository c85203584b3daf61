"""``benchmarks/bench_web.py`` refuses to start on a port another program listens on: it
once measured someone else's service there and printed 0 per second."""

from __future__ import annotations

import importlib.util
import socket
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def bench_web() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))  # as the script itself does, for its neighbours
    try:
        spec = importlib.util.spec_from_file_location("bench_web", BENCHMARKS / "bench_web.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_web"] = module  # its dataclasses look their module up
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_a_port_another_service_listens_on_is_refused_in_spanish_and_a_free_one_is_not() -> None:
    bench = bench_web()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other:
        other.bind(("0.0.0.0", 0))  # another service, on every address
        other.listen()
        port = other.getsockname()[1]
        assert bench.port_taken(port)
        with pytest.raises(SystemExit) as refused:
            bench.refuse_taken_ports([port])
        assert str(refused.value) == (
            f"el puerto {port} ya está en uso: otro programa escucha en él, y se mediría ese "
            "servicio en vez del que arranca esta prueba; elija otro con --puerto (y otra base "
            "con --base)"
        )
    # Closed: the port is free again (as one left in TIME_WAIT by a previous run would be).
    assert not bench.port_taken(port)
