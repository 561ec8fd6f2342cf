"""An exported table as a Parquet file, typed and streamed.

``ledger export --format parquet`` writes each table of
``projections.export.ladder_tables`` as one ``.parquet`` file that pandas, R
(arrow), polars and DuckDB read natively, with its columns typed:

- ``date``: ``date32`` (a game's date, a player's last game);
- ``timestamp``: ``timestamp[us, UTC]`` (when a game was recorded, a player
  registered);
- ``integer``: ``int64``; ``number``: ``float64``; ``boolean``: ``bool``;
- ``text``: ``string``, exactly as stored (Parquet is not a spreadsheet: no
  cell is neutralised, unlike CSV and XLSX).

Every column is nullable but those a table names ``required`` (ids, the
numbers of every rating change). Rows go out in record batches of
``BATCH_ROWS`` (one row group each) through ``pyarrow.parquet.ParquetWriter``,
so memory stays bounded at any ladder size.

pyarrow is an optional extra (``pip install 'ledger[parquet]'``): the base
install stays light, and without it ``--format parquet`` fails in one line
saying how to install it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from ledger.kernel.errors import Invalid
from ledger.kernel.translation import Message

if TYPE_CHECKING:
    import pyarrow

#: What a column holds (``projections.export.Table.kinds``).
ColumnKind = Literal["text", "date", "timestamp", "integer", "number", "boolean"]
#: Rows per record batch, and so per row group.
BATCH_ROWS = 32_768
#: What a person types when pyarrow is missing.
INSTALL_HINT = Message(
    "--format parquet needs pyarrow, an optional extra the base install leaves out: "
    "pip install 'ledger[parquet]'"
)


def arrow() -> Any:
    """The ``pyarrow`` module, with ``pyarrow.parquet`` loaded; Invalid
    (one line, the install command) when it is not installed."""
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401 - loads pyarrow.parquet for the writer
    except ImportError:
        raise Invalid(INSTALL_HINT, field="format") from None
    return pyarrow


def schema(
    columns: Sequence[str], kinds: Sequence[ColumnKind], required: Iterable[str] = ()
) -> pyarrow.Schema:
    """The Arrow schema of a table: one typed field per column, nullable
    unless ``required``."""
    pa = arrow()
    types = {
        "text": pa.string(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("us", tz="UTC"),
        "integer": pa.int64(),
        "number": pa.float64(),
        "boolean": pa.bool_(),
    }
    never_empty = set(required)
    return pa.schema(
        [
            pa.field(name, types[kind], nullable=name not in never_empty)
            for name, kind in zip(columns, kinds, strict=True)
        ]
    )


def write_parquet(
    path: Path,
    table: str,
    columns: Sequence[str],
    kinds: Sequence[ColumnKind],
    rows: Iterable[Sequence[Any]],
    required: Iterable[str] = (),
) -> int:
    """Write ``rows`` (one value per column) to ``path`` as Parquet, a batch
    at a time; returns the number of rows. A partial file is removed when
    writing fails."""
    pa = arrow()
    import pyarrow.parquet as pq

    shape = schema(columns, kinds, required)
    n = 0
    try:
        with pq.ParquetWriter(path, shape, compression="zstd") as writer:
            rows = iter(rows)
            while batch := list(itertools.islice(rows, BATCH_ROWS)):
                arrays = [
                    _array(pa, values, kind, field)
                    for values, kind, field in zip(
                        zip(*batch, strict=True), kinds, shape, strict=True
                    )
                ]
                n += len(batch)
                del batch  # the rows, once they are columns
                for array, field in zip(arrays, shape, strict=True):
                    if not field.nullable and array.null_count:
                        raise Invalid(
                            Message(
                                "{table}.{name}: an empty value in a required column",
                                table=table,
                                name=field.name,
                            )
                        )
                writer.write_batch(pa.RecordBatch.from_arrays(arrays, schema=shape))
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return n


def _array(pa: Any, values: Sequence[Any], kind: ColumnKind, field: Any) -> Any:
    """One column of a batch as an Arrow array of the field's type."""
    if kind == "text":
        try:
            return pa.array(values, pa.string())
        except (pa.ArrowTypeError, pa.ArrowInvalid):  # a value not text: as JSON
            return pa.array([_text(v) for v in values], pa.string())
    if kind in ("date", "timestamp"):
        # Parsed by Arrow, the whole column at once (ISO 8601 text).
        texts = pa.array(values, pa.string())
        try:
            return texts.cast(field.type)
        except pa.ArrowInvalid:  # a time without its offset, say: parsed one by one
            parse = _day if kind == "date" else _when
            return pa.array([parse(v) for v in values], field.type)
    return pa.array(values, field.type)


def _text(value: Any) -> str | None:
    """A text cell: text as it is, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()


def _day(value: str | None) -> date | None:
    """A date, from a date or a date and time."""
    return None if value is None else date.fromisoformat(value[:10])


def _when(value: str | None) -> datetime | None:
    """A date and time; one without an offset is taken as UTC."""
    if value is None:
        return None
    when = datetime.fromisoformat(value)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
