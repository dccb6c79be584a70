package stub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// file is an uploaded or generated file.
type file struct {
	obj  wire.FileObject
	data []byte
}

// addFile stores data as a new file and returns its object; s.bmu is held.
func (s *Server) addFile(name, purpose string, data []byte) wire.FileObject {
	s.nfile++
	obj := wire.FileObject{ID: fmt.Sprintf("file-stub%06d", s.nfile), Object: "file", Bytes: int64(len(data)),
		CreatedAt: time.Now().Unix(), Filename: name, Purpose: purpose}
	s.files[obj.ID] = &file{obj: obj, data: data}
	return obj
}

// serveFiles answers POST …/files (multipart upload, purpose "batch"), GET …/files/{id} and
// GET …/files/{id}/content.
func (s *Server) serveFiles(w http.ResponseWriter, r *http.Request, rest string) {
	switch {
	case rest == "" && r.Method == http.MethodPost:
		s.upload(w, r)
	case rest != "" && r.Method == http.MethodGet:
		id, content := strings.CutSuffix(rest, "/content")
		s.bmu.Lock()
		f := s.files[id]
		s.bmu.Unlock()
		if f == nil {
			writeError(w, http.StatusNotFound, "not_found", "no such file: "+id)
			return
		}
		if content {
			w.Header().Set("Content-Type", "application/jsonl")
			_, _ = w.Write(f.data)
			return
		}
		writeJSON(w, f.obj)
	default:
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "unsupported files request")
	}
}

// upload stores a multipart upload's "file" part.
func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.BatchMaxBytes+1<<20)
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "reading the upload: "+err.Error())
		return
	}
	defer r.MultipartForm.RemoveAll()
	part, hdr, err := r.FormFile("file")
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the upload has no file part")
		return
	}
	defer part.Close()
	data, err := io.ReadAll(part)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "reading the upload: "+err.Error())
		return
	}
	purpose := r.FormValue("purpose")
	if purpose != "batch" {
		writeError(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("purpose %q: the stub takes batch files only", purpose))
		return
	}
	s.bmu.Lock()
	obj := s.addFile(hdr.Filename, purpose, data)
	s.bmu.Unlock()
	s.mu.Lock()
	s.st.BatchFiles++
	s.mu.Unlock()
	writeJSON(w, obj)
}

// writeJSON answers 200 with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(buf.Bytes())
}
