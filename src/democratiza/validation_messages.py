"""What a person wrote, refused in Spanish: pydantic's messages, and YAML read strictly.

Program files, stage terms, the API's bodies and the pages' forms are all read by pydantic,
whose messages are English ("Input should be greater than or equal to 1"); whatever reads
them for a person turns each error into Spanish here, with the figures of its context
("debe ser mayor o igual a 1").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

# Pydantic's messages in Spanish, by the error's type; the ``{…}`` are its context's values.
VALIDATION_TEXT = {
    "missing": "falta este campo",
    "json_invalid": "el JSON está mal formado",
    "model_attributes_type": "se espera un objeto con claves",
    "model_type": "se espera un objeto con claves",
    "dict_type": "se espera un objeto con claves",
    "string_type": "se espera texto",
    "int_type": "se espera un número entero",
    "int_parsing": "se espera un número entero",
    "int_from_float": "se espera un número entero sin decimales",
    "float_type": "se espera un número",
    "float_parsing": "se espera un número",
    "decimal_type": "se espera un número",
    "decimal_parsing": "se espera un número",
    "bool_type": "se espera sí o no (true/false)",
    "bool_parsing": "se espera sí o no (true/false)",
    "date_type": "se espera una fecha AAAA-MM-DD",
    "date_parsing": "se espera una fecha AAAA-MM-DD",
    "date_from_datetime_parsing": "se espera una fecha AAAA-MM-DD",
    "date_from_datetime_inexact": "se espera una fecha AAAA-MM-DD, sin hora",
    "datetime_type": "se espera una fecha y hora AAAA-MM-DDTHH:MM",
    "datetime_parsing": "se espera una fecha y hora AAAA-MM-DDTHH:MM",
    "datetime_from_date_parsing": "se espera una fecha y hora AAAA-MM-DDTHH:MM",
    "list_type": "se espera una lista",
    "tuple_type": "se espera una lista",
    "string_too_long": "el texto es demasiado largo (a lo sumo {max_length} caracteres)",
    "string_too_short": "el texto está vacío o es demasiado corto",
    "string_pattern_mismatch": "el texto tiene caracteres no admitidos",
    "too_long": "demasiados elementos (a lo sumo {max_length})",
    "too_short": "faltan elementos (al menos {min_length})",
    "literal_error": "valor no admitido (se admite: {expected})",
    "enum": "valor no admitido (se admite: {expected})",
    "greater_than": "debe ser mayor que {gt}",
    "greater_than_equal": "debe ser mayor o igual a {ge}",
    "less_than": "debe ser menor que {lt}",
    "less_than_equal": "debe ser menor o igual a {le}",
    "extra_forbidden": "clave desconocida",
    "union_tag_invalid": "valor no admitido",
    "finite_number": "se espera un número finito",
    "frozen_instance": "no se puede cambiar",
    "decimal_max_digits": "tiene más de {max_digits} cifras",
    "decimal_max_places": "tiene más de {decimal_places} decimales",
}


def validation_message(error: Mapping[str, Any]) -> str:
    """One of pydantic's errors in Spanish: 'debe ser mayor o igual a 1', never 'Input should
    be greater than or equal to 1'. A validator of this project already speaks Spanish: its
    own message is kept, without pydantic's 'Value error, ' before it."""
    return spanish(str(error.get("type")), error.get("ctx"))


def spanish(kind: str, ctx: Mapping[str, Any] | None) -> str:
    """One pydantic error type, with its context, said in Spanish."""
    context = dict(ctx or {})
    if kind in ("value_error", "assertion_error") and "error" in context:
        return str(context["error"])
    template = VALIDATION_TEXT.get(kind, "valor no válido")
    if "expected" in context:  # "'a', 'b' or 'c'": the last one joined in Spanish
        context["expected"] = str(context["expected"]).replace(" or ", " o ")
    try:
        return template.format(**context)
    except (KeyError, IndexError, ValueError):
        return template.split(" (")[0]


Model = TypeVar("Model", bound=BaseModel)


def validated_yaml(
    model: type[Model], text: str, name: str, error: type[Exception], floats: bool = False
) -> Model:
    """A YAML file a person wrote (a designs file, a population's parameters, a stage's
    terms) as ``model``; else ``error`` with every problem in Spanish under its key path
    ('aceptantes.pensionado: se espera un número entero'), the file named by ``name``."""
    try:
        data = load_yaml(text, floats)
    except YamlProblem as exc:
        raise error(f"{name}: {exc}") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in e['loc']) or 'el archivo'}: {validation_message(e)}"
            for e in exc.errors()
        ]
        raise error(f"{name}: " + "; ".join(problems)) from None


# YAML a person wrote (program files, designs files, populations, a stage's terms) is read
# safely, with LibYAML's parser where installed, and a key written twice is refused: YAML
# keeps the last of two equal keys, so an edit written under a key already there would be
# silently lost. Aliases (``*nombre``) are refused too: see ``_refuse``.


class YamlProblem(ValueError):
    """The text is not YAML, or repeats a key; the message says where, in Spanish."""


class _RepeatedKey(yaml.MarkedYAMLError):
    pass


class _Alias(yaml.MarkedYAMLError):
    pass


class _Floats(yaml.YAMLError):
    """The numbers of a file YAML reads with decimals, each as a person reads it."""

    def __init__(self, found: list[str]) -> None:
        super().__init__("; ".join(found))
        self.found = tuple(found)


FLOAT_TAG = "tag:yaml.org,2002:float"


def _refuse(root: yaml.Node, floats: bool) -> None:
    """Walk the composed nodes once, before anything is built, and refuse a document in which
    a node is reached twice (that is an alias, ``*nombre``) or, unless ``floats``, any number
    YAML reads with decimals (``1.500`` is 1,5 to YAML): every one of the file at once, each
    by its key path, the value as written and its line.

    Why aliases: nine levels of them, each naming the previous one ten times, make 633 bytes
    stand for 10^9 values, and whatever walks them next (validation, a design's simulation)
    keeps a core busy for hours. No file a person writes here needs them; the first node
    reached again stops the walk, so it never walks what they stand for.
    """
    seen: set[int] = set()
    # (key path, node); the path is None for a mapping's key, and when floats are allowed.
    pending: list[tuple[str | None, yaml.Node]] = [(None if floats else "", root)]
    found: list[tuple[int, int, str]] = []
    while pending:
        path, node = pending.pop()
        if id(node) in seen:
            raise _Alias(problem="alias", problem_mark=node.start_mark)
        seen.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                pending.append((None if path is None else f"{path}[{i}]", item))
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                under = None if path is None else f"{path}.{key.value}" if path else str(key.value)
                pending += [(None, key), (under, value)]
        elif path is not None and node.tag == FLOAT_TAG:
            mark = node.start_mark
            where = f"(línea {mark.line + 1}, columna {mark.column + 1})"
            found.append((mark.line, mark.column, f"{path or 'el archivo'}: {node.value} {where}"))
    if found:
        raise _Floats([said for *_, said in sorted(found)])


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    def construct_document(self, node: yaml.Node) -> Any:
        _refuse(node, self.floats)
        return super().construct_document(node)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise _RepeatedKey(problem=str(key), problem_mark=key_node.start_mark)
            seen.add(key)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping

    # Money, shares and prices are exact: YAML reads an unquoted 1.500 as the float 1.5, so
    # a float is refused in every file but those that give shares of a whole (populations).
    floats = False


class _FloatsLoader(_StrictLoader):
    floats = True


def load_yaml(text: str, floats: bool = False) -> Any:
    """The text's YAML as data; ``YamlProblem`` for a syntax error, a repeated key or (unless
    ``floats``, for a file of proportions) a number with decimals that YAML would read as
    inexact: ``1.500`` is 1,5 to YAML, never one thousand five hundred."""
    loader = _FloatsLoader if floats else _StrictLoader
    try:
        return yaml.load(text, Loader=loader)  # a SafeLoader: no arbitrary objects
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (línea {mark.line + 1}, columna {mark.column + 1})" if mark else ""
        if isinstance(exc, _RepeatedKey):
            raise YamlProblem(f"la clave '{exc.problem}' está repetida{where}") from None
        if isinstance(exc, _Alias):
            raise YamlProblem(
                "no se admiten anclas ni alias de YAML (&nombre, *nombre): el valor"
                f"{where} se usa más de una vez; escriba cada valor en su lugar"
            ) from None
        if isinstance(exc, _Floats):
            read = (
                "ese número como un decimal inexacto"
                if len(exc.found) == 1
                else "esos números como decimales inexactos"
            )
            said = "; ".join(exc.found)
            raise YamlProblem(
                f"{said}: YAML lee {read} (1.500 sería 1,5); los montos, las acciones "
                'y los precios son exactos: escriba 1500, o "1.500" entre comillas'
            ) from None
        raise YamlProblem(f"no es YAML válido{where}") from None
