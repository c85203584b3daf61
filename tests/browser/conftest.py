"""What the browser tests share: Debian's Chromium (never a downloaded one), launched once
for the whole run, and where the screenshots go.

The screenshots are the run's artefacts, in ``salidas/capturas/`` (``salidas/`` is not
versioned): the functional tests' steps at the top, and every page of every role at 1280
and 375 px in ``salidas/capturas/paginas/<ancho>/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(__file__).parents[2] / "salidas" / "capturas"


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip("no está /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()
