package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// maxBatchLine bounds one line of a batch output or error file (an answer with its envelope).
const maxBatchLine = 64 << 20

// Exchanger makes the HTTP exchanges of the Files and Batch API with retries, and redacts what
// an error or a log line shows of the provider's text; *transport.Poster is one (its Exchange
// holds no Pacer slot and reserves no budget).
type Exchanger interface {
	Exchange(ctx context.Context, method, path string, body transport.Payload, read func(io.Reader) error) error
	Redact(s string) string
}

// API is the client of a provider's Files and Batches API (the OpenAI shape, also served by
// `backfill llm-stub`): upload a JSONL file, create a batch over it, get, list and cancel
// batches, read a file's content.
type API struct {
	p Exchanger
}

// NewAPI returns the batch API client of the provider p exchanges with.
func NewAPI(p Exchanger) *API { return &API{p: p} }

// Upload sends the file at path as a batch input file (multipart, purpose "batch"). The file is
// read again for every attempt.
func (a *API) Upload(ctx context.Context, path string) (wire.FileObject, error) {
	var out wire.FileObject
	body := func() (io.Reader, string, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", fmt.Errorf("opening batch file: %w", err)
		}
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		go func() {
			defer f.Close()
			err := mw.WriteField("purpose", "batch")
			if err == nil {
				var part io.Writer
				if part, err = mw.CreateFormFile("file", filepath.Base(path)); err == nil {
					if _, err = io.Copy(part, f); err == nil {
						err = mw.Close()
					}
				}
			}
			pw.CloseWithError(err)
		}()
		return pr, mw.FormDataContentType(), nil
	}
	err := a.p.Exchange(ctx, http.MethodPost, "/files", body, decodeInto(&out))
	if err == nil && out.ID == "" {
		err = errors.New("uploading batch file: the answer names no file id")
	}
	return out, err
}

// Create creates a batch.
func (a *API) Create(ctx context.Context, req wire.BatchCreate) (wire.Batch, error) {
	raw, err := json.Marshal(req)
	if err != nil {
		return wire.Batch{}, fmt.Errorf("encoding batch: %w", err)
	}
	var out wire.Batch
	err = a.p.Exchange(ctx, http.MethodPost, "/batches", jsonBody(raw), decodeInto(&out))
	if err == nil && out.ID == "" {
		err = errors.New("creating batch: the answer names no batch id")
	}
	return out, err
}

// Get returns a batch as the provider sees it now.
func (a *API) Get(ctx context.Context, id string) (wire.Batch, error) {
	var out wire.Batch
	err := a.p.Exchange(ctx, http.MethodGet, "/batches/"+url.PathEscape(id), nil, decodeInto(&out))
	return out, err
}

// Cancel asks the provider to cancel a batch; it ends as cancelled with what it finished.
func (a *API) Cancel(ctx context.Context, id string) (wire.Batch, error) {
	var out wire.Batch
	err := a.p.Exchange(ctx, http.MethodPost, "/batches/"+url.PathEscape(id)+"/cancel", nil, decodeInto(&out))
	return out, err
}

// List returns a page of batches, newest first, starting after the batch id after ("" for the
// newest).
func (a *API) List(ctx context.Context, after string, limit int) (wire.BatchList, error) {
	q := url.Values{}
	q.Set("limit", fmt.Sprint(limit))
	if after != "" {
		q.Set("after", after)
	}
	var out wire.BatchList
	err := a.p.Exchange(ctx, http.MethodGet, "/batches?"+q.Encode(), nil, decodeInto(&out))
	return out, err
}

// Lines streams a file's content line by line to fn (empty lines are skipped). When the
// download breaks it starts again from the first line, so fn must be idempotent.
func (a *API) Lines(ctx context.Context, fileID string, fn func(line []byte) error) error {
	return a.p.Exchange(ctx, http.MethodGet, "/files/"+url.PathEscape(fileID)+"/content", nil, func(r io.Reader) error {
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			line, err := readLine(br, maxBatchLine)
			if len(bytes.TrimSpace(line)) > 0 {
				if ferr := fn(line); ferr != nil {
					return ferr
				}
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
}

// readLine reads one line (without its newline) of at most limit bytes; a longer line is an
// error.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > limit {
			return nil, fmt.Errorf("a batch file line is longer than %d bytes", limit)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(out, "\r\n"), err
	}
}

// jsonBody is the payload of a JSON request body.
func jsonBody(raw []byte) transport.Payload {
	return func() (io.Reader, string, error) { return bytes.NewReader(raw), "application/json", nil }
}

// decodeInto reads a JSON answer into v.
func decodeInto(v any) func(io.Reader) error {
	return func(r io.Reader) error {
		data, err := io.ReadAll(io.LimitReader(r, 16<<20))
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("parsing batch api answer: %w", err)
		}
		return nil
	}
}
