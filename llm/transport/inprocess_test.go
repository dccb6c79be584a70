package transport

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestInProcessTransport(t *testing.T) {
	hc := NewInProcessHTTPClient(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/echo":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("X-Method", r.Method)
			w.WriteHeader(http.StatusAccepted)
			w.Header().Set("X-Late", "ignored")
			w.Write(body)
		case "/v1/slow":
			<-r.Context().Done()
		case "/v1/panic":
			panic("boom")
		default:
			http.NotFound(w, r)
		}
	}))
	resp, err := hc.Post("http://x/v1/echo", "text/plain", strings.NewReader("hello"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || string(body) != "hello" || resp.Header.Get("X-Method") != "POST" || resp.Header.Get("X-Late") != "" {
		t.Fatalf("status %d body %q header %v", resp.StatusCode, body, resp.Header)
	}
	resp, err = hc.Get("http://x/v1/missing")
	if err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("missing: %v %v", err, resp)
	}
	resp.Body.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://x/v1/slow", nil)
	if _, err := hc.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("slow handler: %v", err)
	}
	if _, err := hc.Get("http://x/v1/panic"); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("panic: %v", err)
	}
}
