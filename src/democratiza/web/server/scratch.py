"""Private folders for a request's files (an upload, a report being drawn), and their leftovers.

Each folder is named with the id of the process that made it, and removed by it when the
request ends. A process killed outright (``kill -9``, out of memory) cannot remove its
folders: the service, when it starts, removes those of every process that no longer
exists, and never those of one still running (another service, a command, a test run).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "democratiza-"


def scratch_folder() -> Path:
    """A new private folder (mode 0700) for one request's files."""
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))


def _alive(pid: int) -> bool:
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
        if not folder.is_dir() or not owner.isdigit() or _alive(int(owner)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed
