"""The identifiers that must never reach a person's eyes where their word belongs: what the
browser sweep looks for on every page and the command-line flow in its reports and output.

The vocabulary's codes with '_', '-' or '.' (an audit action, 'oferta.transicion'), and words
whose label only adds accents ('valida' for 'válida'); every id of a bundled program (its own,
its limits', documents' and undertakings'), also inside a key path
('limites.central-a.2(iii).tope_acciones'); and any audit action, known to ``words`` or not
('paquete.publicar' had no word). A file's name ('paquete.zip') is not one.
"""

from __future__ import annotations

import re
import unicodedata

from democratiza.programs.loader import bundled_program_ids, load_program
from democratiza.words import WORDS


def _plain(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


def identifiers() -> re.Pattern[str]:
    found = set()
    for words in WORDS.values():
        for ident, word in words.items():
            first = word.split(" ")[0].lower()
            plain = first != ident.lower() and _plain(first) == ident.lower()
            if "_" in ident or "." in ident or plain:
                found.add(ident)
    for program_id in bundled_program_ids():
        program = load_program(program_id)
        pledges = [*program.undertakings, program.sworn_statement]
        found.add(program.id)
        found.update(rule.id for rule in program.limits)
        found.update(document.id for document in program.documents)
        found.update(pledge.id for pledge in pledges if pledge is not None)
    alternatives = "|".join(re.escape(i) for i in sorted(found, key=len, reverse=True))
    # What the audit log's actions start with ('oferta.transicion', 'etapa.pagos.lote').
    audited = sorted({action.split(".")[0] for action in WORDS["accion_auditoria"]} | {"paquete"})
    files = r"(?!(?:zip|csv|xlsx|pdf|json|yaml|html)\b)"
    audit_action = rf"(?:{'|'.join(audited)})\.{files}[a-z_]+(?:\.[a-z_]+)?"
    return re.compile(rf"(?<![\w-])(?:{alternatives}|{audit_action})(?![\w-])")


IDENTIFIER = identifiers()
# The project's own words about itself, never a reader's: the sources document's file name
# (its source is given in words, "Fuentes de los programas §3"), "decisión de producto",
# "nuestro texto" (the text at hand is "el texto disponible del decreto") and "el motor".
INTERNAL = re.compile(
    r"fuentes\.md|decisi[oó]n(?:es)? de producto|\bnuestr[oa]s? (?:texto|copia)|"
    r"\b[Ee]l motor\b|\bque (?:no )?tenemos\b"
)


def internal_words(text: str) -> list[str]:
    """Each of the project's own words found in ``text``, with what surrounds it."""
    found = []
    for match in sorted({m.group(0) for m in INTERNAL.finditer(text)}):
        at = text.find(match)
        around = " ".join(text[max(0, at - 40) : at + len(match) + 40].split())
        found.append(f"palabra interna {match!r}: …{around}…")
    return found


def leaks(text: str) -> list[str]:
    """Each identifier found in ``text``, with what surrounds it."""
    found = []
    for match in sorted({m.group(0) for m in IDENTIFIER.finditer(text)}):
        at = text.find(match)
        around = " ".join(text[max(0, at - 40) : at + len(match) + 40].split())
        found.append(f"identificador {match!r} donde va su palabra: …{around}…")
    return found
