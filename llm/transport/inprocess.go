package transport

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// NewInProcessHTTPClient returns an http.Client whose Transport serves every request with h in
// the same process, without sockets (provider "offline"). The handler sees the request's
// context; when that context ends first, the round trip returns its error at once.
func NewInProcessHTTPClient(h http.Handler) *http.Client {
	return &http.Client{Transport: inProcessTransport{h: h}}
}

type inProcessTransport struct{ h http.Handler }

// RoundTrip runs the handler on a server-side copy of req and returns its buffered answer.
func (t inProcessTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	sreq := req.Clone(req.Context())
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "in-process"
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}
	rec := &recorder{header: http.Header{}}
	done := make(chan any, 1)
	go func() {
		defer func() {
			if req.Body != nil {
				req.Body.Close()
			}
			done <- recover()
		}()
		t.h.ServeHTTP(rec, sreq)
	}()
	select {
	case p := <-done:
		if p != nil {
			return nil, fmt.Errorf("serving %s in process: handler panicked: %v", req.URL.Path, p)
		}
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	code := rec.code
	if code == 0 {
		code = http.StatusOK
	}
	header := rec.sent
	if header == nil {
		header = rec.header.Clone()
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", code, http.StatusText(code)),
		StatusCode:    code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        header,
		Body:          io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		ContentLength: int64(rec.body.Len()),
		Request:       req,
	}, nil
}

// recorder is a minimal buffered http.ResponseWriter.
type recorder struct {
	header http.Header
	sent   http.Header // header as it was when the status was written
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.code != 0 {
		return
	}
	r.code = code
	r.sent = r.header.Clone()
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

// Flush is a no-op: the answer is returned whole.
func (r *recorder) Flush() {}
