package stub

import (
	"slices"

	"github.com/tkgraph/backfill/llm/wire"
)

// fate is what becomes of a batch besides its requests' own faults.
type fate int

const (
	fateNone      fate = iota
	fateLost           // the stub forgets the batch after BatchLoseAfter polls (BatchLoseRate)
	fateFailed         // the batch ends failed with a reason, its requests undone (BatchFailedRate)
	fateFilesLost      // the batch ends, but the stub forgets its output and error files (BatchLoseFilesRate)
)

// pickFate decides the fate of a new batch by the seed and its requests (requestSetKey). A
// batch is lost, or loses its files, only when none of its requests was in such a batch before,
// so a request meets one loss at most; it fails only when none of its requests has had MaxFaults
// troubles in a row. s.bmu is held.
func (s *Server) pickFate(b *batch) fate {
	key := requestSetKey(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := !slices.ContainsFunc(b.keys, func(k [32]byte) bool { return s.subs[k].lost })
	uncapped := !slices.ContainsFunc(b.keys, func(k [32]byte) bool { return s.capped(s.subs[k].troubleInRow) })
	var f fate
	switch {
	case fresh && s.opts.BatchLoseRate > 0 && s.roll(key, 0, "batch-lose") < s.opts.BatchLoseRate:
		f = fateLost
	case uncapped && s.opts.BatchFailedRate > 0 && s.roll(key, 0, "batch-failed") < s.opts.BatchFailedRate:
		f = fateFailed
	case fresh && s.opts.BatchLoseFilesRate > 0 && s.roll(key, 0, "batch-lose-files") < s.opts.BatchLoseFilesRate:
		f = fateFilesLost
	}
	if f == fateLost || f == fateFilesLost {
		for _, k := range b.keys {
			s.subs[k].lost = true
		}
		s.st.BatchLostRequests += int64(len(b.keys))
	}
	return f
}

// forgets reports whether a GET of b finds it forgotten: a batch whose fate is to be lost
// answers BatchLoseAfter polls (in progress), then the stub forgets it, its files with it, and
// answers 404 as for a batch it never had. b.mu is held.
func (s *Server) forgets(b *batch) bool {
	if b.fate != fateLost {
		return false
	}
	if b.polls < s.opts.BatchLoseAfter {
		b.polls++
		return false
	}
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if _, ok := s.batches[b.obj.ID]; ok {
		delete(s.batches, b.obj.ID)
		s.order = slices.DeleteFunc(s.order, func(id string) bool { return id == b.obj.ID })
		s.dropFiles(b.obj.InputFileID)
		s.countLine(func(st *Stats) { st.BatchesLost++ })
	}
	return true
}

// dropFiles forgets files (their ids then answer 404); s.bmu is held.
func (s *Server) dropFiles(ids ...string) {
	for _, id := range ids {
		delete(s.files, id)
	}
}

// failReason is the reason a batch failed by BatchFailedRate gives in its errors.
const failReason = "stub: injected batch failure, the batch was not run"

// fail ends a batch as failed with its reason in errors.data, every request undone and no
// output; b.mu is held.
func (s *Server) fail(b *batch) {
	b.obj.Status = wire.BatchFailed
	b.obj.Errors = &wire.BatchErrors{Data: []wire.BatchLineError{{Code: "stub_batch_failed", Message: failReason}}}
	b.obj.RequestCounts.Completed, b.obj.RequestCounts.Failed = 0, 0
	s.mu.Lock()
	for _, k := range b.keys {
		h := s.subs[k]
		h.troubleInRow = bump(h.troubleInRow, true)
	}
	s.st.BatchesFailed++
	s.st.BatchUnfinished += int64(len(b.keys))
	s.mu.Unlock()
}
