"""The glossary is how a reader goes from the decree's word to the code: every module it
names exists, and every term of the family's vocabulary has its row."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "src" / "democratiza"
GLOSSARY = (ROOT / "docs" / "glosario.md").read_text(encoding="utf-8")


def test_every_module_the_glossary_names_exists() -> None:
    named = set(re.findall(r"`([a-z_/]+\.py)`", GLOSSARY))
    assert named, "the glossary names the modules that hold each term"
    assert sorted(p for p in named if not (PACKAGE / p).is_file()) == []


def test_the_glossary_names_the_shipped_texts_where_they_are() -> None:
    assert "`normas/fuentes.md`" in GLOSSARY
    assert (PACKAGE / "programs" / "normas" / "fuentes.md").is_file()
