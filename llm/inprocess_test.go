package llm

import (
	"context"
	"testing"

	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

func TestInProcessClientServesCalls(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: validExtract}}}
	c := NewClient(Options{BaseURL: "http://offline/v1", Model: "offline", APIKey: "k"}, transport.NewInProcessHTTPClient(f), nil, nil)
	var out wire.ExtractOutput
	if err := c.Call(context.Background(), "extract", wire.TaskExtract, sampleExtractInput(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Entities) != 1 || f.count() != 1 || f.request(0).ResponseFormat.JSONSchema.Name != wire.TaskExtract {
		t.Fatalf("out %+v, %d requests", out, f.count())
	}
	if f.headers[0].Get("Authorization") != "Bearer k" {
		t.Fatal("headers not passed to the handler")
	}
}
