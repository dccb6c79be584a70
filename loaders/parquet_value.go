package loaders

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// converter turns the values of one Parquet column into row values (string, int64, float64 or
// time.Time; nil for null). Text attributes take BYTE_ARRAY (plain, STRING, JSON, ENUM), integer
// and UUID columns; the reference time also takes TIMESTAMP (any unit; naive ones are read in
// loc), DATE (midnight in loc), INT96 and floating-point epochs. Any other type is an error.
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
		if _, ok := logical.(*format.UUIDType); ok && !isTime {
			return nullable(func(v parquet.Value) any {
				u, err := uuid.FromBytes(v.ByteArray())
				if err != nil {
					return fmt.Sprintf("%x", v.ByteArray())
				}
				return u.String()
			}), nil
		}
	case parquet.Int32:
		switch logical.(type) {
		case nil, *format.IntType:
			return nullable(func(v parquet.Value) any { return int64(v.Int32()) }), nil
		case *format.DateType:
			if isTime {
				return nullable(func(v parquet.Value) any {
					return time.Date(1970, 1, 1+int(v.Int32()), 0, 0, 0, 0, loc)
				}), nil
			}
		}
	case parquet.Int64:
		switch lt := logical.(type) {
		case nil, *format.IntType:
			return nullable(func(v parquet.Value) any { return v.Int64() }), nil
		case *format.TimestampType:
			if isTime && lt.Unit.Value != nil {
				return nullable(timestampConverter(lt, loc)), nil
			}
		}
	case parquet.Int96:
		if isTime {
			return nullable(func(v parquet.Value) any {
				i := v.Int96()
				nanos := int64(uint64(i[1])<<32 | uint64(i[0]))
				days := int64(i[2]) - 2440588 // Julian day of 1970-01-01
				return time.Unix(days*86400, nanos).UTC()
			}), nil
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

// timestampConverter reads an INT64 TIMESTAMP; a naive one (not adjusted to UTC) holds a wall
// clock read in loc.
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
		return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
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
