"""Private folders for a request's files (an upload, a report being drawn), and their leftovers.

Each folder is named with the id of the process that made it, and removed by it when the
request ends. A process killed outright (``kill -9``, out of memory) cannot remove its
folders: the service, when it starts, removes those of every process that no longer
exists, and never those of one still running (another service, a command, a test run).

Files kept past a request (the designer's downloads, which any of the service's processes
may serve) live in the service's own folder (``service_folder``): made private (mode 0700)
by ``democratiza servir`` and named to its processes in ``DEMOCRATIZA_TEMPORAL``, or made
by a process for itself when it runs alone. Never a fixed name in the system's temporary
folder, which every instance, user and test run would share. Removing never follows a
symbolic link: a link is removed as a link, and only real folders of this user are emptied.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

PREFIX = "democratiza-"
SERVICE_VARIABLE = "DEMOCRATIZA_TEMPORAL"
_own: list[Path] = []  # this process's service folder, once made
_lock = threading.Lock()


def service_folder() -> Path:
    """The service's private folder: the one ``DEMOCRATIZA_TEMPORAL`` names if it is a real
    folder of this user that only this user may enter, else one made for this process."""
    named = os.environ.get(SERVICE_VARIABLE)
    if named and _private(Path(named)):
        return Path(named)
    with _lock:
        if not _own or not _private(_own[0]):
            _own[:] = [scratch_folder()]
        return _own[0]


def _ours(folder: Path) -> bool:
    """A real folder (not a link) of this user."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()


def _private(folder: Path) -> bool:
    """A real folder of this user that no one else may enter."""
    return _ours(folder) and stat.S_IMODE(folder.lstat().st_mode) & 0o077 == 0


def remove_older(folder: Path, seconds: float, now: float) -> None:
    """Remove what ``folder`` holds that is older than ``seconds``, never following a link."""
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return
    for entry in entries:
        try:
            if now - entry.stat(follow_symlinks=False).st_mtime <= seconds:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)  # never follows links inside
            else:
                os.unlink(entry.path)  # a file, or a link itself (not what it points to)
        except FileNotFoundError:  # removed at the same moment by another process
            continue


def scratch_folder() -> Path:
    """A new private folder (mode 0700) for one request's files."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))


def process_alive(pid: int) -> bool:
    """Whether a process of this machine still runs (a number not ours to signal counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    return True


def remove_leftovers(where: Path | None = None) -> list[Path]:
    """Remove the folders of processes that ended without removing them; those removed."""
    removed = []
    for folder in sorted(Path(where or tempfile.gettempdir()).glob(f"{PREFIX}*-*")):
        owner = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if not _ours(folder) or not owner.isdigit() or process_alive(int(owner)):
            continue  # a link, someone else's folder, or a running process's
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed
