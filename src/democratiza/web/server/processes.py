"""The service in several processes, each with its own listening socket (SO_REUSEPORT).

Why not uvicorn's ``workers``: there the processes share one socket, and whichever is idle
when connections arrive accepts all of them; brokers' systems keep their connections open,
so a burst of them at the opening of the window could leave one process serving everyone
and the other idle (we measured exactly that). With one socket per process bound with
SO_REUSEPORT the kernel spreads new connections over the processes evenly.

The parent only supervises: it starts the processes, stops them all on SIGINT/SIGTERM, and
if one dies it stops the others and exits with an error, so that whatever started the
service (systemd, a container) restarts it whole. Where SO_REUSEPORT does not exist, the
command falls back to uvicorn's own workers.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

from democratiza.web.server.slow_clients import PROTOCOL

APP = "democratiza.web.app:from_environment"  # uvicorn's factory, one app per process
# uvicorn would believe X-Forwarded-For from 127.0.0.1 and overwrite the peer's address with
# it; the application reads it itself, from the proxies it is told to trust only.
# uvicorn's own protocol with read timeouts and a cap per address (``slow_clients``).
SERVER_OPTIONS: dict[str, Any] = {"proxy_headers": False, "http": PROTOCOL}
BACKLOG = 2048
PARENT_CHECK = 0.5  # seconds between a process's checks that its parent is alive


def can_share_port() -> bool:
    return hasattr(socket, "SO_REUSEPORT")


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _listen(host: str, port: int) -> socket.socket:
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(BACKLOG)
    return sock


def _serve_one(host: str, port: int, url: str, parent: int) -> None:
    import uvicorn

    os.environ["DEMOCRATIZA_DB"] = url
    config = uvicorn.Config(APP, factory=True, log_level="warning", **SERVER_OPTIONS)
    threading.Thread(target=end_with_parent, args=(parent,), daemon=True).start()
    uvicorn.Server(config).run(sockets=[_listen(host, port)])


def end_with_parent(parent: int) -> None:
    """Stop this process (SIGTERM: gracefully, where it has a handler) once ``parent`` is gone.

    Why: a parent killed outright (SIGKILL, out of memory) cannot stop its processes; left
    alone a service process would go on serving the port, orphaned, and a new ``servir``
    would find the port taken; a batch worker would live on with nothing to serve.
    """
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK)
    os.kill(os.getpid(), signal.SIGTERM)


def port_in_use(host: str, port: int) -> str | None:
    """Why the port cannot be used, if it cannot.

    Bound without SO_REUSEPORT on purpose: a service already running there (even one of
    ours, whose sockets share the port) makes this fail, instead of silently splitting
    the connections with it.
    """
    with socket.socket(_family(host), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.strerror or str(exc)
    return None


def serve(
    host: str, port: int, url: str, processes: int, target: Callable[..., None] = _serve_one
) -> int:
    """Run ``processes`` service processes until a signal; the exit status for the shell.

    ``target`` runs in each process (``_serve_one``; a test may give one that dies).
    """
    busy = port_in_use(host, port)
    if busy is not None:
        print(f"No se puede escuchar en {host}:{port}: {busy}.", file=sys.stderr)
        return 1
    context = multiprocessing.get_context("spawn")
    children: list[BaseProcess] = [
        context.Process(target=target, args=(host, port, url, os.getpid()), name=f"servicio-{n}")
        for n in range(processes)
    ]
    stopping = False

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for child in children:
            child.start()
        while not stopping and all(child.is_alive() for child in children):
            time.sleep(0.2)
        failed = not stopping
        if failed:
            dead = [c.name for c in children if not c.is_alive()]
            print(
                f"Terminó un proceso del servicio ({', '.join(dead)}); se detiene todo.",
                file=sys.stderr,
            )
    finally:
        for child in children:
            if child.is_alive() and child.pid is not None:
                os.kill(child.pid, signal.SIGTERM)  # uvicorn finishes what it is answering
        # Imported only now: the library must first see the folder this command set.
        from democratiza.web.server import metrics

        for child in children:
            child.join(timeout=30)
            if child.is_alive():
                child.kill()
                child.join()
            metrics.forget_process(child.pid)
        for s, handler in previous.items():
            signal.signal(s, handler)
    return 1 if failed else 0


METRICS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def prepare_metrics_folder() -> str:
    """The folder where every process of the service writes its figures (``server.metrics``).

    Why always, even for one process: batches are filed in the bulk lane's own process,
    whose figures would otherwise be lost to ``/metricas``. The operator's folder
    (``PROMETHEUS_MULTIPROC_DIR``) is emptied of a previous run's files, as the library
    asks; without one, a new private folder. Set before any process imports the library.
    """
    import tempfile
    from pathlib import Path

    folder = os.environ.get(METRICS_VARIABLE)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        for stale in Path(folder).glob("*.db"):
            stale.unlink(missing_ok=True)
    else:
        folder = tempfile.mkdtemp(prefix="democratiza-metricas-")
        os.environ[METRICS_VARIABLE] = folder
    return folder
