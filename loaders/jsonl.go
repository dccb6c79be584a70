package loaders

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxLineBytes bounds one JSON line: the body limit with room for escapes and other fields.
func maxLineBytes(maxBody int) int { return 8*maxBody + 64<<10 }

// readJSONL streams one JSON Lines file: one object per line; blank lines are skipped.
func (fr *fileReader) readJSONL(ctx context.Context, r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	limit := maxLineBytes(fr.b.spec.MaxBodyBytes)
	var buf []byte
	for row := int64(1); ; row++ {
		if row%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, tooLong, err := readLine(br, buf[:0], limit)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading line %d: %w", row, err)
		}
		buf = line
		if row == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if tooLong {
			reason := fmt.Sprintf("line is over %d bytes", limit)
			if err := fr.emit(Result{Bad: &Bad{File: fr.name, Row: row, Reason: reason, Raw: rawText(line)}}); err != nil {
				return err
			}
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		res := fr.jsonLine(row, line)
		if res.Bad != nil {
			res.Bad.Raw = rawText(line)
		}
		if err := fr.emit(res); err != nil {
			return err
		}
	}
}

// jsonLine decodes one non-blank line into a Result.
func (fr *fileReader) jsonLine(row int64, line []byte) Result {
	pos := fr.pos(row)
	if line[0] != '{' {
		reason := "not a JSON object"
		if !json.Valid(line) {
			reason = "invalid JSON"
		}
		return Result{Bad: &Bad{File: pos.file, Row: row, Reason: reason}}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		return Result{Bad: &Bad{File: pos.file, Row: row, Reason: "invalid JSON: " + err.Error()}}
	}
	m := &fr.names
	v := rowValues{
		group:       decodeValue(lookup(obj, m.Group)),
		refTime:     decodeValue(lookup(obj, m.ReferenceTime)),
		speaker:     decodeValue(lookup(obj, m.Speaker)),
		source:      decodeValue(lookup(obj, m.Source)),
		description: decodeValue(lookup(obj, m.Description)),
		recordKey:   decodeValue(lookup(obj, m.RecordKey)),
		name:        decodeValue(lookup(obj, m.Name)),
	}
	if m.Body == "*" {
		v.body = decodeBody(line, fr.b.spec.JSONShape)
	} else {
		v.body = decodeBody(lookup(obj, m.Body), fr.b.spec.JSONShape)
	}
	res := fr.b.build(pos, m, &v)
	if res.Bad == nil {
		res = fr.b.withRecord(pos, m, obj, res)
	}
	return res
}

// readLine reads one line without its "\n" (and "\r") into buf. A line longer than limit is
// consumed but only its first limit bytes are kept, with tooLong set. io.EOF means no more lines.
func readLine(br *bufio.Reader, buf []byte, limit int) (line []byte, tooLong bool, err error) {
	read := 0
	for {
		frag, err := br.ReadSlice('\n')
		read += len(frag)
		if room := limit + 1 - len(buf); room > 0 {
			buf = append(buf, frag[:min(room, len(frag))]...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if read == 0 {
				return nil, false, io.EOF
			}
		case err != nil:
			return nil, false, err
		}
		if len(frag) > 0 && frag[len(frag)-1] == '\n' {
			read--
		}
		if read > limit {
			return buf[:limit], true, nil
		}
		buf = bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r"))
		return buf, false, nil
	}
}
