"""Writes testdata/pyarrow_episodes.parquet, a Parquet file made by another tool (pyarrow).

The loaders tests read the committed output; this script documents how it was made:

    pip install pyarrow && python3 loaders/testdata/make_pyarrow.py

Five rows in three row groups (2, 2, 1), with the reference time in several column types:
TIMESTAMP(us, UTC), TIMESTAMP(ns) without zone, INT64 epoch milliseconds, DATE32 and string;
dictionary-encoded and plain strings; nulls in row 4 (text) and row 5 (ts_utc); a nested struct
(meta.user), a list column and a boolean column for the schema-error tests.
"""
import datetime as dt
import os

import pyarrow as pa
import pyarrow.parquet as pq

UTC = dt.timezone.utc
base = [
    dt.datetime(2024, 3, 1, 0, 0, 0, 123456, tzinfo=UTC),
    dt.datetime(2024, 3, 1, 0, 5, 0, tzinfo=UTC),
    dt.datetime(2024, 3, 2, 12, 0, 0, tzinfo=UTC),
    dt.datetime(2024, 3, 3, 8, 30, 0, tzinfo=UTC),
    dt.datetime(2024, 3, 4, 23, 59, 59, tzinfo=UTC),
]
table = pa.table({
    "conv": pa.array(["c1", "c1", "c2", "c2", "c 3"]).dictionary_encode(),
    "ts_utc": pa.array(base[:4] + [None], type=pa.timestamp("us", tz="UTC")),
    "ts_naive": pa.array([b.replace(tzinfo=None) for b in base], type=pa.timestamp("ns")),
    "ts_ms": pa.array([int(b.timestamp() * 1000) for b in base], type=pa.int64()),
    "day": pa.array([b.date() for b in base], type=pa.date32()),
    "ts_str": pa.array([b.strftime("%Y-%m-%d %H:%M:%S") for b in base]),
    "who": pa.array(["Ann", "Ben", None, "Ann", "Cy"]),
    "text": pa.array(["Hi Ben", "Hi Ann", "server log line", None, "안녕하세요"]),
    "msg_id": pa.array([101, 102, 103, 104, 105], type=pa.int64()),
    "meta": pa.array([{"user": u} for u in ["u1", "u1", "u2", "u2", "u3"]],
                     type=pa.struct([("user", pa.string())])),
    "tags": pa.array([["a"], [], ["b", "c"], None, ["d"]], type=pa.list_(pa.string())),
    "flag": pa.array([True, False, True, False, True]),
})
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyarrow_episodes.parquet")
pq.write_table(table, out, row_group_size=2, compression="snappy", use_dictionary=["conv", "who"])
print("wrote", out, pq.ParquetFile(out).metadata.num_row_groups, "row groups")

# A second file in the legacy layout some Spark/Impala exports still use: INT96 timestamps, and
# a UUID (FIXED_LEN_BYTE_ARRAY(16)) record key.
legacy = pa.table({
    "group_id": pa.array(["g1", "g1"]),
    "reference_time": pa.array(base[:2], type=pa.timestamp("ns", tz="UTC")),
    "content": pa.array(["first", "second"]),
    "record_key": pa.array([bytes(range(16)), bytes(range(16, 32))], type=pa.uuid()),
})
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyarrow_int96.parquet")
pq.write_table(legacy, out, use_deprecated_int96_timestamps=True)
print("wrote", out)
