"""Writes the Parquet fixtures of tests/integrity with another tool than ours (pyarrow).

The tests read the committed output; this script documents how it was made:

    python3 -m venv .cache/venv-pyarrow && .cache/venv-pyarrow/bin/pip install pyarrow
    .cache/venv-pyarrow/bin/python testdata/integrity/make_parquet.py

types.parquet: three rows, one column per integer, text and time type the loaders accept, each
holding values at the edges of its range (UINT64 max, a UINT32 epoch in 2065, INT8 -128, ...).

bad_values.parquet: an INT96 time whose time of day is more than a day (row 2), a value the loaders
cannot read exactly. dst_gap.parquet: a naive timestamp inside the America/New_York DST gap
(row 3), a wall clock that does not exist there.

footer_bomb.parquet: a small valid file whose footer is rewritten to claim 2^31 - 1 schema elements
(the Thrift list header of FileMetaData.schema), as a forged or damaged file might.

page_bomb.parquet: a small valid file whose first page header claims a compressed page of 2^31 - 1
bytes inside its chunk of a few dozen.
"""
import datetime as dt
import os
import struct

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
UTC = dt.timezone.utc

U64_MAX = 2**64 - 1
epoch_2065 = 3_000_000_000  # 2065-01-24T05:20:00Z, above the INT32 range
t = [dt.datetime(2024, 3, 1, 9, 0, 0, 123456, tzinfo=UTC), dt.datetime(2065, 1, 24, 5, 20, 0, tzinfo=UTC),
     dt.datetime(1970, 1, 1, 0, 0, 0, tzinfo=UTC)]

table = pa.table({
    "group_id": pa.array(["g", "g", "g"]),
    "content": pa.array(["one", "two", "three"]),
    # text attributes from integers (mapped as record_key)
    "u8": pa.array([0, 255, 7], type=pa.uint8()),
    "u16": pa.array([0, 65535, 7], type=pa.uint16()),
    "u32": pa.array([0, 2**32 - 1, 2**31], type=pa.uint32()),
    "u64": pa.array([0, U64_MAX, 2**63], type=pa.uint64()),
    "i8": pa.array([-128, 127, 0], type=pa.int8()),
    "i16": pa.array([-32768, 32767, 0], type=pa.int16()),
    "i32": pa.array([-2**31, 2**31 - 1, 0], type=pa.int32()),
    "i64": pa.array([-2**63, 2**63 - 1, 0], type=pa.int64()),
    "key_uuid": pa.array([bytes(range(16)), bytes([255] * 16), bytes(16)], type=pa.uuid()),
    "key_str": pa.array(["ключ", "鍵", "k\u0000ey"]),
    "key_large": pa.array(["a" * 3, "b", "c"], type=pa.large_string()),
    "key_dict": pa.array(["x", "y", "z"]).dictionary_encode(),
    # reference times
    "t_u32": pa.array([int(x.timestamp()) for x in t], type=pa.uint32()),
    "t_u64_ms": pa.array([int(x.timestamp() * 1000) for x in t], type=pa.uint64()),
    "t_i64_s": pa.array([int(x.timestamp()) for x in t], type=pa.int64()),
    "t_ts_s": pa.array(t, type=pa.timestamp("s", tz="UTC")),
    "t_ts_ms": pa.array(t, type=pa.timestamp("ms", tz="UTC")),
    "t_ts_us": pa.array(t, type=pa.timestamp("us", tz="UTC")),
    "t_ts_ns": pa.array(t, type=pa.timestamp("ns", tz="UTC")),
    "t_naive_us": pa.array([x.replace(tzinfo=None) for x in t], type=pa.timestamp("us")),
    "t_date": pa.array([x.date() for x in t], type=pa.date32()),
    "t_double": pa.array([x.timestamp() for x in t], type=pa.float64()),
    "t_str": pa.array([x.isoformat() for x in t]),
})
pq.write_table(table, os.path.join(HERE, "types.parquet"), coerce_timestamps=None, allow_truncated_timestamps=False)

# INT96: the same times in the legacy layout.
legacy = pa.table({
    "group_id": pa.array(["g", "g", "g"]),
    "content": pa.array(["one", "two", "three"]),
    "t_int96": pa.array(t, type=pa.timestamp("ns", tz="UTC")),
})
pq.write_table(legacy, os.path.join(HERE, "int96.parquet"), use_deprecated_int96_timestamps=True)

# dst_gap.parquet: naive timestamps (INT64, isAdjustedToUTC false), the third in a DST gap.
gap = pa.table({
    "group_id": pa.array(["g", "g", "g"]),
    "content": pa.array(["one", "two", "three"]),
    "t_naive": pa.array([dt.datetime(2024, 3, 10, 1, 30), dt.datetime(2024, 3, 10, 3, 30), dt.datetime(2024, 3, 10, 2, 30)],
                        type=pa.timestamp("us")),
})
pq.write_table(gap, os.path.join(HERE, "dst_gap.parquet"))

# bad_values.parquet: an INT96 whose nanoseconds of the day exceed a day (patched below).
bad = pa.table({
    "group_id": pa.array(["g", "g", "g"]),
    "content": pa.array(["one", "two", "three"]),
    "t_int96": pa.array([t[0], dt.datetime(2024, 3, 1, 23, 59, 59, tzinfo=UTC), t[0]], type=pa.timestamp("ns", tz="UTC")),
})
path = os.path.join(HERE, "bad_values.parquet")
pq.write_table(bad, path, use_deprecated_int96_timestamps=True, use_dictionary=False, compression="none")
data = bytearray(open(path, "rb").read())
# The INT96 of row 2 is 12 bytes: nanoseconds of the day (int64 LE), then the Julian day (uint32
# LE). Give it 86400 s + 1 ns: a time of day outside one day.
nanos = (23 * 3600 + 59 * 60 + 59) * 10**9
julian = 2440588 + (dt.date(2024, 3, 1) - dt.date(1970, 1, 1)).days
old = struct.pack("<qI", nanos, julian)
assert data.count(old) == 1, data.count(old)
data[data.index(old):data.index(old) + 12] = struct.pack("<qI", 86400 * 10**9 + 1, julian)
open(path, "wb").write(bytes(data))

# footer_bomb.parquet
small = pa.table({"group_id": ["g"], "reference_time": ["2024-03-01T00:00:00Z"], "content": ["hi"]})
path = os.path.join(HERE, "footer_bomb.parquet")
pq.write_table(small, path)
data = open(path, "rb").read()
footer_len = struct.unpack("<I", data[-8:-4])[0]
body, footer = data[:-8 - footer_len], data[-8 - footer_len:-8]
# FileMetaData starts with field 1 (version, i32: header 0x15) then field 2 (schema, a list of
# structs: header 0x19, then the list header: 0x4C for 4 elements).
assert footer[0] == 0x15 and footer[2] == 0x19, footer[:4].hex()
assert footer[3] == 0x4C, footer[3]
size = 2**31 - 1
varint = bytearray()
while True:
    b = size & 0x7F
    size >>= 7
    if size:
        varint.append(b | 0x80)
    else:
        varint.append(b)
        break
forged = footer[:3] + bytes([0xFC]) + bytes(varint) + footer[4:]
open(path, "wb").write(body + forged + struct.pack("<I", len(forged)) + b"PAR1")


def zigzag(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def uvarint_end(data, pos):
    while data[pos] & 0x80:
        pos += 1
    return pos + 1


# page_bomb.parquet: the first page header (at byte 4) starts with three i32 fields (header 0x15
# each): type, uncompressed_page_size, compressed_page_size.
path = os.path.join(HERE, "page_bomb.parquet")
pq.write_table(small, path, use_dictionary=False, compression="none", write_statistics=False)
data = open(path, "rb").read()
assert data[4] == 0x15
p = uvarint_end(data, 5)
assert data[p] == 0x15
p = uvarint_end(data, p + 1)
assert data[p] == 0x15
end = uvarint_end(data, p + 1)
open(path, "wb").write(data[:p + 1] + zigzag(2**31 - 1) + data[end:])
print("wrote", os.listdir(HERE))
