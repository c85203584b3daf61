"""``democratiza servir --procesos N``: N processes, each with its own socket on one port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from democratiza.web.processes import can_share_port, port_in_use

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


def test_two_processes_serve_one_port_and_stop_together(tmp_path: Path) -> None:
    port = free_port()
    server = start(tmp_path, port)
    try:
        wait_until_serving(port, server)
        workers = [
            p
            for p in children(server.pid)
            if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
        ]
        assert len(workers) == 2
        # Each process listens on the port with a socket of its own.
        sockets = {p: listening_sockets(p, port) for p in workers}
        assert all(len(found) == 1 for found in sockets.values())
        assert len(set.union(*sockets.values())) == 2
        # A second service on the same port is refused instead of sharing its connections.
        assert port_in_use("127.0.0.1", port) is not None
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0
        assert all(
            not Path(f"/proc/{p}").exists()
            or b"zombie" in Path(f"/proc/{p}/status").read_bytes().lower()
            for p in workers
        )
    finally:
        if server.poll() is None:
            server.kill()


def test_if_one_process_dies_the_service_stops_with_an_error(tmp_path: Path) -> None:
    port = free_port()
    server = start(tmp_path, port)
    try:
        wait_until_serving(port, server)
        workers = [
            p
            for p in children(server.pid)
            if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()
        ]
        os.kill(workers[0], signal.SIGKILL)
        assert server.wait(timeout=30) == 1
        assert b"se detiene todo" in (server.stderr.read() if server.stderr else b"")
    finally:
        if server.poll() is None:
            server.kill()
