"""Spanish explanations, rendered from the engine's structured results when they are shown.

Nothing here decides anything: it reads the rule ids, limits and cause bits the engine
produced and the program's citations, and writes them for a person. Every sentence is a
column expression (``limit_texts``, ``cause_texts``), so one acceptance (the calculator) and a
million (``democratiza evaluar``) are explained by the same code, the million in seconds.
A few rows (a group of single acceptances, a page, the calculator) are written one row at a
time instead (``rules.explain_rows``), the same text byte for byte, in a fraction of the time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import polars as pl

from democratiza.money import group_parts, joined
from democratiza.programs.schema import Citation, LimitRule, Program
from democratiza.rules.cause_texts import cause_sentence
from democratiza.rules.engine import CompiledProgram
from democratiza.rules.explain_rows import Explanation as Explanation
from democratiza.rules.explain_rows import RowExplainer
from democratiza.rules.limit_texts import SHARE_GROUPS, LimitTexts, shares_parts
from democratiza.words import count

SEPARATOR = " | "  # between the sentences of one row in a file's cell
FEW_ROWS = 1_000  # up to this many rows are explained row by row (``rules.explain_rows``)


def cite(program: Program, citation: Citation) -> str:
    return program.cite(citation)


def _sentence(name: str) -> str:
    return f"_frase__{name}"


def _on_rows(frame: pl.DataFrame, rows: pl.Series, columns: list[pl.Expr]) -> pl.DataFrame:
    """``frame`` with ``columns`` computed on the rows where ``rows`` is true, null elsewhere.

    Computed on those rows alone when they are fewer than half (gathered, then scattered
    back); on the whole frame otherwise, where gathering would cost more than it saves.
    """
    count = int(rows.sum())
    names = [c.meta.output_name() for c in columns]
    if count * 2 >= frame.height:
        chosen = pl.lit(rows)
        return frame.with_columns(
            pl.when(chosen).then(c).alias(n) for c, n in zip(columns, names, strict=True)
        )
    if count == 0:
        return frame.with_columns(
            pl.Series(n, dtype=pl.String).extend_constant(None, frame.height) for n in names
        )
    positions = rows.arg_true()
    needed = sorted({name for c in columns for name in c.meta.root_names()}) or ["causas"]
    computed = frame[needed][positions].with_columns(columns)
    return frame.with_columns(
        pl.Series(n, dtype=computed[n].dtype)
        .extend_constant(None, frame.height)
        .scatter(positions, computed[n])
        for n in names
    )


def _pieced(frame: pl.DataFrame, pieces: list[tuple[pl.Series, pl.Expr]], name: str) -> pl.Series:
    """One text column from pieces that concern disjoint rows (each piece: its rows, its
    text), null where none does.

    Each piece is computed on its rows alone (gathered), and all are put in place with one
    scatter. Why: computing a piece on every row and keeping its own (as ``_on_rows`` does for
    more than half) wrote numbers nobody reads, and a scatter per piece copied the column
    once for each.
    """
    positions, texts = [], []
    for rows, text in pieces:
        count = int(rows.sum())
        if count == frame.height:  # the pieces are disjoint: this one is the whole column
            return frame.with_columns(text.alias(name))[name]
        if count:
            at = rows.arg_true()
            needed = sorted(set(text.meta.root_names())) or [frame.columns[0]]
            positions.append(at)
            texts.append(frame[needed][at].with_columns(text.alias(name))[name])
    column = pl.Series(name, dtype=pl.String).extend_constant(None, frame.height)
    if not positions:
        return column
    return column.scatter(pl.concat(positions), pl.concat(texts))


Step = tuple[pl.Expr, list[pl.Expr]]  # the rows a step concerns, and the columns it computes


@dataclass(frozen=True)
class _Plan:
    limits: list[Step]  # each limit's sentence, in pieces (one per figure it may come from)
    pieces: dict[str, list[int]]  # each limit's pieces (in ``limits``), on disjoint rows
    rest: list[Step]  # the binding limits, the causes, the summaries
    accepted: pl.Expr  # the summary of an accepted row, which reads no sentence


_EXPLAINERS: dict[int, Explainer] = {}
_EXPLAINERS_MAX = 64  # compiled programs are few (one per offer and price); a bound anyway
_EXPLAINERS_LOCK = threading.Lock()


def explainer_for(compiled: CompiledProgram) -> Explainer:
    """The compiled program's explainer, built once and reused while the program lives.

    Why: building the plan of the sentences (``Explainer._plan``) costs about 20 ms, more
    than explaining the rows of a group of single acceptances; made anew for each group it
    was a fifth of every group's time. Compiled programs are reused while an offer's
    parameters stay the same (``filing.compiled.compiled_program``), so the explainer is
    found by the program object itself (its identity, checked, never a reused number).
    """
    with _EXPLAINERS_LOCK:
        found = _EXPLAINERS.get(id(compiled))
        if found is not None and found.compiled is compiled:
            return found
        if len(_EXPLAINERS) >= _EXPLAINERS_MAX:
            _EXPLAINERS.clear()
        made = _EXPLAINERS[id(compiled)] = Explainer(compiled)
        return made


class Explainer:
    """The explanations of one compiled program, as columns or as ``Explanation`` objects."""

    def __init__(self, compiled: CompiledProgram) -> None:
        self.compiled = compiled
        self.program = compiled.offer.program
        self._cites = {r.id: cite(self.program, r.citation) for r in self.program.limits}
        self._limits = LimitTexts(compiled, self._cites)
        self._rows = RowExplainer(compiled)

    def cite_rule(self, rule: LimitRule) -> str:
        return self._cites[rule.id]

    @cached_property
    def _plan(self) -> _Plan:
        """The sentences, in steps: each step's rows (where it concerns) and its columns.

        Built once per program and offer. A step is computed only on the rows it concerns (a
        limit where it applies, the causes where there is one, the binding limits where the
        quantity was cut): most limits apply to few rows, and a rejection is rare.
        """
        rules, checks = self.program.limits, self.compiled.checks
        limits: list[Step] = []
        pieces: dict[str, list[int]] = {}
        for r in rules:
            for rows, text in self._limits.sentences(r):
                pieces.setdefault(r.id, []).append(len(limits))
                limits.append((rows, [text]))
        steps: list[Step] = []
        binding, tied = self._limits.binding({r.id: _sentence(r.id) for r in rules})
        lot = self.program.validity.lot
        if lot is not None:  # what the limits leave is taken down to whole lots
            size = count(lot.value, "acción", "acciones")
            lots = f", en lotes de {size} ({cite(self.program, lot.citation)})"
            binding = pl.concat_str([binding, pl.lit(lots)])
        decision = pl.col("decision").cast(pl.String)
        steps.append(
            (decision != "aceptada", [binding.alias("_limitantes"), tied.alias("_cuantos")])
        )
        # Each cause on the rows that have it: most causes have none in a file.
        steps.extend(
            (
                (pl.col("causas") // (1 << i)) % 2 == 1,
                [
                    cause_sentence(c, self.program, cite(self.program, c.citation), binding).alias(
                        _sentence(f"c{i}")
                    )
                ],
            )
            for i, c in enumerate(checks)
        )
        allowed = shares_parts(pl.col("cantidad_permitida"))
        accepted = joined([pl.lit("Aceptada por "), *allowed, pl.lit(": ningún límite es menor.")])
        article = (
            pl.when(pl.col("_cuantos") > 1)
            .then(pl.lit("los límites "))
            .otherwise(pl.lit("el límite "))
        )
        reduced = joined(
            [
                pl.lit("Reducida de "),
                *group_parts(pl.col("cantidad"), SHARE_GROUPS),
                pl.lit(" a "),
                *allowed,
                pl.lit(" por "),
                article,
                pl.col("_limitantes"),
                pl.lit("."),
            ]
        )
        causes_found = pl.col("causas").bitwise_count_ones()
        rejected = joined(
            [
                pl.lit("Rechazada: "),
                causes_found.cast(pl.String),
                pl.when(causes_found == 1).then(pl.lit(" causa.")).otherwise(pl.lit(" causas.")),
            ]
        )
        steps.extend(
            [
                (decision == "aceptada", [accepted.alias("_aceptada")]),
                (decision == "reducida", [reduced.alias("_reducida")]),
                (decision == "rechazada", [rejected.alias("_rechazada")]),
            ]
        )
        return _Plan(limits, pieces, steps, accepted.alias("explicacion"))

    @cached_property
    def _binding_limits(self) -> list[Step]:
        """The limits' steps (``_Plan.limits``), each on the rows where its limit binds."""
        plan = self._plan
        rule_of = {i: rule for rule, indices in plan.pieces.items() for i in indices}
        return [
            (rows & self._limits.binds(self.program.limit(rule_of[i])), columns)
            for i, (rows, columns) in enumerate(plan.limits)
        ]

    def _sentences(
        self, results: pl.DataFrame, frame: pl.DataFrame, binding_only: bool = False
    ) -> pl.DataFrame:
        """The results with every sentence column beside them, and ``explicacion``.

        ``binding_only``: each limit's sentence only on the rows where that limit binds (its
        number is the least), the only rows where the explanation and the causes read it;
        elsewhere it is left null, so ``limites_detalle`` is then incomplete and not to be
        shown. Why: the file a person opens shows no limit's own sentence, and a limit that
        applies to a row seldom binds it (half the sentences written on the rows explained).
        """
        done = pl.concat([results, self.compiled.bases(frame)], how="horizontal")
        plan = self._plan
        # Every step's rows at once: one pass, where a select per step cost more than most
        # steps (most concern few rows). The later steps' rows read only the engine's columns.
        steps = [*(self._binding_limits if binding_only else plan.limits), *plan.rest]
        masks = done.select(
            rows.fill_null(False).alias(f"_{i}") for i, (rows, _) in enumerate(steps)
        )
        done = done.with_columns(
            _pieced(
                done,
                [(masks[f"_{i}"], plan.limits[i][1][0]) for i in indices],
                _sentence(rule),
            )
            for rule, indices in plan.pieces.items()
        )
        for i, (_, columns) in enumerate(plan.rest, start=len(plan.limits)):
            done = _on_rows(done, masks[f"_{i}"], columns)
        summary = pl.coalesce("_aceptada", "_reducida", "_rechazada").alias("explicacion")
        return done.with_columns(summary)

    def columns(
        self, results: pl.DataFrame, frame: pl.DataFrame, detail: bool = True
    ) -> pl.DataFrame:
        """``explicacion``, ``causas_detalle`` and (if ``detail``) ``limites_detalle`` for
        each row of ``results`` (the sentences of a row joined by ``SEPARATOR``).

        Without ``detail``, the sentences are written only on the rows whose explanation
        reads them (not accepted, or with a cause), taken apart; the others are "Aceptada
        por …: ningún límite es menor." with no cause. Why: the file a person opens shows no
        limit's sentence, most rows are accepted, and writing every limit's sentence on
        every row was most of ``evaluar``'s time.
        """
        if detail:
            return self._columns(results, frame)
        reads = (results["decision"].cast(pl.String) != "aceptada") | (results["causas"] != 0)
        positions = reads.arg_true()
        found = self._columns(results[positions], frame[positions], binding_only=True)
        short = results.select(self._plan.accepted, pl.lit("").alias("causas_detalle"))
        return short.with_columns(
            short[name].scatter(positions, found[name]) for name in short.columns
        )

    def _columns(
        self, results: pl.DataFrame, frame: pl.DataFrame, binding_only: bool = False
    ) -> pl.DataFrame:
        rules, checks = self.program.limits, self.compiled.checks
        done = self._sentences(results, frame, binding_only)
        causes = [pl.col(_sentence(f"c{i}")) for i in range(len(checks))]
        joined_causes = pl.concat_str(causes, separator=SEPARATOR, ignore_nulls=True)
        done = _on_rows(done, done["causas"] != 0, [joined_causes.alias("causas_detalle")])
        limits = [pl.col(_sentence(r.id)) for r in rules]
        return done.select(
            "explicacion",
            pl.col("causas_detalle").fill_null(""),
            pl.concat_str(limits, separator=SEPARATOR, ignore_nulls=True).alias("limites_detalle"),
        )

    def explain_all(self, results: pl.DataFrame, frame: pl.DataFrame) -> Iterator[Explanation]:
        """One ``Explanation`` per row: a few rows one by one, many as columns.

        Why: for a few rows (a page, an answer, the calculator, a group of single
        acceptances) the column steps cost a Polars query each, 20 ms for thirty rows, and
        the row by row text under one (``rules.explain_rows``); for many rows the columns
        win. Both write the same bytes (``tests/test_explanations.py``).
        """
        if results.height <= FEW_ROWS:
            return self._rows.explain_all(results, frame)
        return self.explain_all_columns(results, frame)

    def explain_all_columns(
        self, results: pl.DataFrame, frame: pl.DataFrame
    ) -> Iterator[Explanation]:
        """``explain_all`` from the column expressions, whatever the number of rows."""
        rules, checks = self.program.limits, self.compiled.checks
        found = self._sentences(results, frame).select(
            pl.col("decision").cast(pl.String),
            "explicacion",
            pl.concat_list([pl.col(_sentence(f"c{i}")) for i in range(len(checks))])
            .list.drop_nulls()
            .alias("_causas"),
            pl.concat_list([pl.col(_sentence(r.id)) for r in rules])
            .list.drop_nulls()
            .alias("_limites"),
        )
        for decision, summary, causes, limits in found.iter_rows():
            yield Explanation(decision, summary, tuple(limits), tuple(causes))

    def explain_not_accepted(
        self, results: pl.DataFrame, frame: pl.DataFrame, limit: int | None = None
    ) -> list[Explanation | None]:
        """Each row's explanation if it was not accepted (at most ``limit`` of them), else None.

        Why only those: a broker is told why a row was reduced or rejected; building the
        texts of accepted rows (most of a batch) only to drop them costs time other requests
        are waiting for.
        """
        positions = (
            results.with_row_index("_fila")
            .filter(pl.col("decision").cast(pl.String) != "aceptada")["_fila"]
            .head(limit if limit is not None else results.height)
            .to_list()
        )
        explained: list[Explanation | None] = [None] * results.height
        if positions:
            found = self.explain_all(results[positions], frame[positions])
            for position, explanation in zip(positions, found, strict=True):
                explained[position] = explanation
        return explained
