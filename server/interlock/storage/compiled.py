"""Prebuilt Core statements compiled once per dialect and run on the driver's cursor.

``connection.execute(statement, params)`` costs SQLAlchemy about ten times the CPU the
driver's own ``execute`` does for the hot paths' small statements: a cache lookup of the
compiled form (its cache key walked each time), an execution context, its parameters built
and processed, a result object and its metadata. Here a prebuilt statement is compiled once
per dialect (and, for an ``INSERT`` or ``UPDATE`` without explicit values, per set of columns
given) into its SQL text, the order of its parameters, the processing of each parameter
(``bind_processor``: JSON encoded, datetimes as the column type stores them) and of each
result column (``result_processor``: JSON decoded, SQLite's text datetimes parsed, integers
as booleans), so every execution only builds a tuple or dict and calls the driver.

What SQLAlchemy's execution does and this keeps: literal values bound in the statement, the
Python-side column defaults of the columns not given (an ``INSERT``'s ``default=``, an
``UPDATE``'s ``onupdate=``; callables are called without an execution context), the
``before_cursor_execute`` listeners (called with no cursor and no context), and driver errors
raised as SQLAlchemy raises them (:class:`sqlalchemy.exc.DBAPIError` and its subclasses, the
driver's error as ``orig``). A literal list of an ``IN`` is expanded once, at compilation. Statements this does not cover
(``IN`` lists given at execution, escaped bind names, callable bind values) raise
``NotImplementedError`` when first compiled.

Only prebuilt statements (module constants, a model's cached ``INSERT``) belong here: the
cache holds a statement by identity, so a statement built anew for every call would be
compiled anew every time (the cache is cleared past :data:`CACHE_SIZE` entries).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import Executable
from sqlalchemy.sql.compiler import SQLCompiler

__all__ = ["CACHE_SIZE", "Compiled", "compiled", "raise_as_sqlalchemy"]

CACHE_SIZE = 1024
_CACHE: dict[tuple[Any, ...], Compiled] = {}


class Compiled:
    """One statement compiled for one dialect and one set of parameter names.

    Attributes:
        sql: The SQL text the driver runs.
        keys: The result columns' names (empty for a statement that returns no rows).
        returns_rows: Whether the statement returns rows (a ``SELECT``, ``RETURNING``).
        implicit_returning: An ``INSERT`` whose generated key comes back as its one row.
        lastrowid: An ``INSERT`` whose generated key is the cursor's ``lastrowid`` (SQLite).
    """

    def __init__(self, statement: Executable, dialect: Dialect, names: Sequence[str]) -> None:
        compiled = statement.compile(  # type: ignore[attr-defined]
            dialect=dialect, column_keys=list(names) or None
        )
        assert isinstance(compiled, SQLCompiler)
        late = compiled.post_compile_params | compiled.literal_execute_params
        if (
            any(bind.required for bind in late)
            or compiled.escaped_bind_names
            or any(bind.callable is not None for bind in compiled.bind_names)
        ):
            raise NotImplementedError(f"not a statement for storage.compiled: {compiled}")
        required = [name for bind, name in compiled.bind_names.items() if bind.required]
        self._required = frozenset(required)
        self._processors: dict[str, Callable[[Any], Any]] = dict(
            compiled._bind_processors  # type: ignore[arg-type]
        )
        if late:  # literal lists (``IN``): expanded into one parameter per value, once
            expanded = compiled._process_parameters_for_postcompile(
                compiled.construct_params(dict.fromkeys(required), _check=False),
                _populate_self=False,
            )
            self.sql: str = expanded.statement
            positional = expanded.positiontup if dialect.positional else None
            self._literals = {
                name: value
                for name, value in expanded.parameters.items()
                if name not in self._required
            }
            self._processors.update(expanded.processors)  # type: ignore[arg-type]
        else:
            self.sql = compiled.string
            positional = compiled.positiontup if dialect.positional else None
            self._literals = {
                name: bind.value for bind, name in compiled.bind_names.items() if not bind.required
            }
        # the values in the driver's order, as a tuple (one C call; None: a dict)
        self._order: Callable[[dict[str, Any]], tuple[Any, ...]] | None = None
        if positional is not None:
            self._order = _tuple_getter(positional)
        # (parameter name, (value, is scalar, is callable, is sentinel)) per default to fill
        self._defaults: list[tuple[str, Any]] = []
        if compiled.insert_prefetch or compiled.update_prefetch:
            key = compiled._within_exec_param_key_getter
            self._defaults = [
                (key(column), column._default_description_tuple)
                for column in compiled.insert_prefetch
            ] + [
                (key(column), column._onupdate_description_tuple)
                for column in compiled.update_prefetch
            ]
        if any(not (d[1] or d[2]) or d[3] for _name, d in self._defaults):
            raise NotImplementedError(f"a column default storage.compiled cannot make: {compiled}")
        self.implicit_returning = bool(compiled.implicit_returning)
        self.lastrowid = bool(compiled.postfetch_lastrowid)
        self.returns_rows = bool(
            compiled.returning or compiled._result_columns or self.implicit_returning
        )
        columns = compiled._result_columns
        self.keys: tuple[str, ...] = tuple(column[0] for column in columns)
        self._row: Callable[[Any], Any] = namedtuple(  # type: ignore[misc, attr-defined]
            "Row", self.keys, rename=True
        )._make
        processors = [column[3]._cached_result_processor(dialect, None) for column in columns]
        self._result_processors = (
            None
            if all(processor is None for processor in processors)
            else [(i, p) for i, p in enumerate(processors) if p is not None]
        )

    def parameters(self, values: Mapping[str, Any] | None) -> Any:
        """The driver's parameters for one row of ``values`` (by bind name): a tuple for a
        positional dialect (SQLite), else a dict.

        Raises:
            sqlalchemy.exc.ArgumentError: A required parameter is missing.
        """
        given = dict(self._literals)
        if values:
            given.update(values)
        for name, (arg, is_scalar, _is_callable, _sentinel) in self._defaults:
            given[name] = arg if is_scalar else arg(None)
        if not self._required <= given.keys():
            from sqlalchemy.exc import ArgumentError

            missing = sorted(self._required - given.keys())
            raise ArgumentError(f"a value is required for bind parameter(s) {missing}")
        for name, process in self._processors.items():
            if name in given:
                given[name] = process(given[name])
        return given if self._order is None else self._order(given)

    def rows(self, raw: Sequence[Sequence[Any]]) -> list[Any]:
        """``raw`` rows (as the driver read them) with each column's result processing, as
        named tuples (by :attr:`keys`, like SQLAlchemy's ``Row``: by index, by attribute,
        ``_asdict()``)."""
        make = self._row
        processors = self._result_processors
        if processors is None:
            return [make(row) for row in raw]
        out = []
        for row in raw:
            values = list(row)
            for index, process in processors:
                values[index] = process(values[index])
            out.append(make(values))
        return out


def _tuple_getter(names: Sequence[str]) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    if len(names) > 1:
        return itemgetter(*names)
    if names:
        (name,) = names
        return lambda values: (values[name],)
    return lambda _values: ()


def compiled(dialect: Dialect, statement: Executable, names: Sequence[str] = ()) -> Compiled:
    """The :class:`Compiled` form of the prebuilt ``statement`` for ``dialect``, given the
    parameter names ``names`` (which columns an ``INSERT`` or ``UPDATE`` without explicit
    values sets)."""
    key = (statement, dialect.name, tuple(names))
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.clear()
        found = _CACHE[key] = Compiled(statement, dialect, names)
    return found


def raise_as_sqlalchemy(
    exc: Exception, dialect: Dialect, sql: str, parameters: Any, *, invalidated: bool = False
) -> None:
    """Raise the driver's ``exc`` as SQLAlchemy raises a failed statement's error.

    Raises:
        sqlalchemy.exc.DBAPIError: For a driver error (``IntegrityError``,
            ``OperationalError`` …), with ``exc`` as ``orig``; ``exc`` itself otherwise.
    """
    dbapi = dialect.loaded_dbapi
    if isinstance(exc, dbapi.Error):
        raise DBAPIError.instance(
            sql, parameters, exc, dbapi.Error, connection_invalidated=invalidated
        ) from exc
    raise exc
