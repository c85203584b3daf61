"""Check the audit chain's head a package carries against a chain the auditor is given.

Why: the chain shows any entry altered, removed or reordered, but a chain cut short, or
rewritten from some entry on with every hash recomputed, is whole again. The package's
manifest names the chain's last entry when it was published (``cadena_auditoria``: its
number and hash), and the package is public, kept by anyone: so the given chain (an
auditor's export, or the database itself) must verify from its first entry and still hold
that entry with that very hash. A chain that ends before it was cut short; one whose entry
has another hash was rewritten.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from democratiza.money import group
from democratiza.storage.audit import Anchor, verify_entries
from democratiza.verification.package import HEAD, MANIFEST


class HeadUnreadable(ValueError):
    """The manifest's ``cadena_auditoria`` is not a number and a hash."""


def package_head(files: dict[str, bytes]) -> Anchor | None:
    """The head a package's manifest names (``None`` if it names none)."""
    try:
        value = json.loads(files[MANIFEST]).get(HEAD)
    except (ValueError, KeyError, AttributeError):
        return None
    if value is None:
        return None
    if (
        not isinstance(value, dict)
        or not isinstance(value.get("entrada"), int)
        or isinstance(value.get("entrada"), bool)
        or not isinstance(value.get("huella"), str)
    ):
        raise HeadUnreadable(f"{HEAD} no dice la entrada (un número) y su huella")
    try:
        return Anchor.parse(f"{value['entrada']}:{value['huella']}")
    except ValueError:
        raise HeadUnreadable(f"{HEAD} no dice la entrada (un número) y su huella") from None


@dataclass(frozen=True)
class HeadCheck:
    ok: bool
    message: str


def check_head(head: Anchor, chunks: Iterable[Sequence[Any]], source: str) -> HeadCheck:
    """Whether the chain in ``chunks`` verifies and holds the entry ``head`` names, with its
    hash; ``source`` names the chain for a person ("del archivo …", "de la base de datos").

    The check is the chain's own against one anchor (``audit.verify_entries``); only its
    words are the package's."""
    report = verify_entries(chunks, [head])
    named = f"la entrada {group(head.entries)} (huella {head.last_hash[:12]}…)"
    missed = report.missed
    if missed is not None and missed.found is None:
        return HeadCheck(
            False,
            f"La cadena de auditoría {source} termina en la entrada {group(report.entries)} "
            f"y el paquete dice que al publicarse llegaba a {named}: faltan las entradas "
            f"{group(report.entries + 1)} a {group(head.entries)} (la cadena fue recortada).",
        )
    if missed is not None and missed.found is not None:
        return HeadCheck(
            False,
            f"La entrada {group(head.entries)} de la cadena de auditoría {source} no es la "
            f"que el paquete nombra: su huella es {missed.found[:12]}… y el paquete "
            f"dice {head.last_hash[:12]}… (la cadena fue reescrita desde esa entrada o antes).",
        )
    if not report.ok:
        return HeadCheck(
            False,
            f"La cadena de auditoría {source} está rota en la entrada "
            f"{group(report.broken_at or 0)}: {report.reason}.",
        )
    return HeadCheck(
        True,
        f"La cadena de auditoría {source} está íntegra ({group(report.entries)} entradas) "
        f"y contiene {named}, la última al publicarse el paquete.",
    )
