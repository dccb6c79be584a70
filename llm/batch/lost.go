package batch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"

	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// gone reports whether err is the provider's answer that it does not know what was asked for:
// HTTP 404 or 410.
func gone(err error) bool {
	var s *transport.StatusError
	return errors.As(err, &s) && (s.Status == http.StatusNotFound || s.Status == http.StatusGone)
}

// poll gets a batch from the provider. When the provider answers that it does not know the
// batch (gone), the loss is confirmed before it is believed: a second poll, then the provider's
// batch list (by r's provider id, or by the metadata that names r). lost says why the batch is
// lost when neither finds it; a batch found in the list is returned as found there.
func (b *Batcher) poll(ctx context.Context, r Record) (bt wire.Batch, lost string, err error) {
	bt, err = b.api.Get(ctx, r.ProviderID)
	if !gone(err) {
		return bt, "", err
	}
	first := err
	if bt, err = b.api.Get(ctx, r.ProviderID); !gone(err) {
		return bt, "", err
	}
	bt, ok, err := b.find(ctx, r)
	if err != nil || ok {
		return bt, "", err
	}
	return wire.Batch{}, "the provider no longer knows the batch, nor lists it: " + b.api.p.Redact(printable(first.Error())), nil
}

// readFile streams a batch file to fn (API.Lines); a file the provider answers is gone is asked
// once more before the answer is believed.
func (b *Batcher) readFile(ctx context.Context, file string, fn func(line []byte) error) error {
	err := b.api.Lines(ctx, file, fn)
	if gone(err) {
		err = b.api.Lines(ctx, file, fn)
	}
	return err
}

// maxReasons bounds the provider errors a failed batch's reason quotes.
const maxReasons = 3

// reasonOf is the provider's reason for a failed batch: its errors ("code: message; …", at
// most maxReasons of them and the number of the rest), redacted and bounded like any provider
// text.
func (b *Batcher) reasonOf(bt wire.Batch) string {
	if bt.Errors == nil || len(bt.Errors.Data) == 0 {
		return "the provider gave no reason"
	}
	var parts []string
	for _, e := range bt.Errors.Data[:min(len(bt.Errors.Data), maxReasons)] {
		parts = append(parts, strings.TrimPrefix(e.Code+": "+e.Message, ": "))
	}
	if n := len(bt.Errors.Data) - maxReasons; n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more", n))
	}
	return b.api.p.Redact(printable(strings.Join(parts, "; ")))
}

// printable replaces the control characters of a provider's text, which status and the report
// print to a terminal, by spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
