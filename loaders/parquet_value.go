package loaders

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// converter turns the values of one Parquet column into row values exactly (string, int64,
// json.Number for an unsigned 64-bit value above the int64 range, float64 or time.Time; nil for
// null), or into a badValue with the reason when a stored value does not fit its type, so the
// row is quarantined. Text attributes take BYTE_ARRAY (plain, STRING, JSON, ENUM), signed and
// unsigned integer (INT32/INT64, any INT(bits, signed) annotation, legacy converted types
// included) and UUID columns; the reference time also takes TIMESTAMP (any unit; naive ones are
// read in loc), DATE (midnight in loc), INT96 and floating-point epochs. Any other type is an
// error.
func converter(t parquet.Type, isTime bool, loc *time.Location) (func(parquet.Value) any, error) {
	var logical format.LogicalTypeValue
	if lt := t.LogicalType(); lt != nil {
		logical = lt.Value
	}
	bad := fmt.Errorf("unsupported type %s", t)
	switch t.Kind() {
	case parquet.ByteArray:
		switch logical.(type) {
		case nil, *format.StringType, *format.JsonType, *format.EnumType:
			return nullable(func(v parquet.Value) any { return string(v.ByteArray()) }), nil
		}
	case parquet.FixedLenByteArray:
		if _, ok := logical.(*format.UUIDType); ok && !isTime && t.Length() == 16 {
			return nullable(func(v parquet.Value) any {
				u, err := uuid.FromBytes(v.ByteArray())
				if err != nil {
					return badValue{fmt.Sprintf("a UUID of %d bytes", len(v.ByteArray()))}
				}
				return u.String()
			}), nil
		}
	case parquet.Int32, parquet.Int64:
		switch lt := logical.(type) {
		case nil:
			return nullable(intConverter(t.Kind(), 64, true)), nil
		case *format.IntType:
			if lt.BitWidth != 8 && lt.BitWidth != 16 && lt.BitWidth != 32 && lt.BitWidth != 64 {
				return nil, fmt.Errorf("unsupported type %s (bit width %d)", t, lt.BitWidth)
			}
			return nullable(intConverter(t.Kind(), int(lt.BitWidth), lt.IsSigned)), nil
		case *format.DateType:
			if isTime && t.Kind() == parquet.Int32 {
				return nullable(func(v parquet.Value) any {
					return time.Date(1970, 1, 1+int(v.Int32()), 0, 0, 0, 0, loc)
				}), nil
			}
		case *format.TimestampType:
			if isTime && t.Kind() == parquet.Int64 && lt.Unit.Value != nil {
				return nullable(timestampConverter(lt, loc)), nil
			}
		}
	case parquet.Int96:
		if isTime {
			return nullable(int96Time), nil
		}
	case parquet.Float:
		if isTime {
			return nullable(func(v parquet.Value) any { return float64(v.Float()) }), nil
		}
	case parquet.Double:
		if isTime {
			return nullable(func(v parquet.Value) any { return v.Double() }), nil
		}
	}
	return nil, bad
}

// intConverter reads an INT32 or INT64 value as an integer of the given width and signedness:
// unsigned values are the stored bits read unsigned (a UINT32 of 3,000,000,000 is not
// negative), and a value outside its annotated width is a badValue. An unsigned 64-bit value
// above the int64 range becomes a json.Number with its exact decimal digits.
func intConverter(kind parquet.Kind, bits int, signed bool) func(parquet.Value) any {
	return func(v parquet.Value) any {
		var s int64  // the stored value, signed
		var u uint64 // the stored bits, unsigned
		if kind == parquet.Int32 {
			s, u = int64(v.Int32()), uint64(uint32(v.Int32()))
		} else {
			s, u = v.Int64(), v.Uint64()
		}
		if signed {
			if bits < 64 && (s < -1<<(bits-1) || s >= 1<<(bits-1)) {
				return badValue{fmt.Sprintf("%d does not fit its type INT(%d, signed)", s, bits)}
			}
			return s
		}
		if bits < 64 && u >= 1<<bits {
			return badValue{fmt.Sprintf("%d does not fit its type INT(%d, unsigned)", u, bits)}
		}
		if u > math.MaxInt64 {
			return json.Number(strconv.FormatUint(u, 10))
		}
		return int64(u)
	}
}

// nanosPerDay bounds the time of day of an INT96 timestamp.
const nanosPerDay = 86400 * int64(time.Second)

// int96Time reads a legacy INT96 timestamp: nanoseconds of the day, then the Julian day. A time
// of day outside one day is a badValue (it would silently roll over into other days).
func int96Time(v parquet.Value) any {
	i := v.Int96()
	nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
	if nanos < 0 || nanos >= nanosPerDay {
		return badValue{fmt.Sprintf("INT96 time of day %d ns is outside one day", nanos)}
	}
	days := int64(i[2]) - 2440588 // Julian day of 1970-01-01
	return time.Unix(days*86400, nanos).UTC()
}

// timestampConverter reads an INT64 TIMESTAMP; a naive one (not adjusted to UTC) holds a wall
// clock read in loc, and a wall clock that loc skips (a DST gap) is a badValue.
func timestampConverter(lt *format.TimestampType, loc *time.Location) func(parquet.Value) any {
	unit := lt.Unit.Value.Duration()
	return func(v parquet.Value) any {
		x := v.Int64()
		var t time.Time
		switch unit {
		case time.Millisecond:
			t = time.UnixMilli(x).UTC()
		case time.Microsecond:
			t = time.UnixMicro(x).UTC()
		default:
			t = time.Unix(0, x).UTC()
		}
		if lt.IsAdjustedToUTC {
			return t
		}
		local, err := wallClockIn(t, loc)
		if err != nil {
			return badValue{err.Error()}
		}
		return local
	}
}

// nullable maps null values to nil before calling f.
func nullable(f func(parquet.Value) any) func(parquet.Value) any {
	return func(v parquet.Value) any {
		if v.IsNull() {
			return nil
		}
		return f(v)
	}
}
