"""``democratiza servir --procesos N``: N processes, each with its own socket on one port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from democratiza.web.server.processes import can_share_port, port_in_use

pytestmark = pytest.mark.skipif(not can_share_port(), reason="sin SO_REUSEPORT en este sistema")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children(pid: int) -> list[int]:
    found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(p) for p in found]


def listening_sockets(pid: int, port: int) -> set[str]:
    """The process's sockets listening on the port (matched by inode in /proc/net/tcp)."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port and fields[3] == "0A":  # 0A: LISTEN
            inodes.add(f"socket:[{fields[9]}]")
    links = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            links.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
    return links & inodes


def start(tmp_path: Path, port: int) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-c",
        "from democratiza.cli.main import app; app()",
        "servir",
        "--db",
        f"sqlite:///{tmp_path / 'web.db'}",
        "--puerto",
        str(port),
        "--procesos",
        "2",
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_until_serving(port: int, server: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/programas", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError("el servicio no arrancó")


@dataclass
class Service:
    server: subprocess.Popen[bytes]
    port: int
    workers: list[int]  # the service processes the parent started


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    port = free_port()
    server = start(tmp_path, port)
    try:
        wait_until_serving(port, server)
        workers = [
            p
            for p in children(server.pid)
            if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
        ]
        yield Service(server, port, workers)
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=30)


def test_two_processes_serve_one_port_and_stop_together(service: Service) -> None:
    assert len(service.workers) == 2
    # Each process listens on the port with a socket of its own.
    sockets = {p: listening_sockets(p, service.port) for p in service.workers}
    assert all(len(found) == 1 for found in sockets.values())
    assert len(set.union(*sockets.values())) == 2
    service.server.send_signal(signal.SIGTERM)
    assert service.server.wait(timeout=30) == 0
    assert not any(alive(p) for p in service.workers)


def test_a_second_service_on_the_same_port_is_refused(service: Service, tmp_path: Path) -> None:
    """Instead of silently sharing the first one's connections through SO_REUSEPORT."""
    assert port_in_use("127.0.0.1", service.port) is not None
    second = start(tmp_path, service.port)
    assert second.wait(timeout=60) == 1
    assert b"No se puede escuchar" in (second.stderr.read() if second.stderr else b"")
    assert service.server.poll() is None  # the first one goes on


def test_if_one_process_dies_the_service_stops_with_an_error(service: Service) -> None:
    os.kill(service.workers[0], signal.SIGKILL)
    assert service.server.wait(timeout=30) == 1
    stderr = service.server.stderr.read() if service.server.stderr else b""
    assert b"se detiene todo" in stderr


def test_if_the_parent_is_killed_its_processes_stop_too(service: Service) -> None:
    """Not left behind, orphaned, serving the port (a new servir would find it taken)."""
    service.server.kill()  # SIGKILL: the parent cannot stop anything
    service.server.wait(timeout=30)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(alive(p) for p in service.workers):
        time.sleep(0.2)
    assert not any(alive(p) for p in service.workers)
    assert port_in_use("127.0.0.1", service.port) is None


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "zombie" not in status.lower()
