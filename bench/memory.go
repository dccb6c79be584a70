package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

const mib = 1024.0 // KiB per MiB

// synthInput writes n synthetic episodes to dir once and returns the file.
func synthInput(dir string, n, groupSize int, seed uint64) (string, error) {
	p := filepath.Join(dir, fmt.Sprintf("synth-%d-%d.jsonl", n, groupSize))
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	f, err := os.Create(p)
	if err != nil {
		return "", fmt.Errorf("creating synthetic input: %w", err)
	}
	if err := Synth(f, n, groupSize, seed); err != nil {
		f.Close()
		return "", err
	}
	return p, f.Close()
}

// offlineJob writes a job over one JSON Lines file with the offline responder.
func offlineJob(dir, name, input string) (job, checkpoint string, err error) {
	checkpoint = filepath.Join(dir, name+".db")
	job = filepath.Join(dir, name+".yaml")
	text := fmt.Sprintf("name: %s\ncheckpoint: %s\nrecord_time: reference\nsources:\n  - path: %s\nllm:\n  provider: offline\nembedder:\n  provider: offline\n",
		name, checkpoint, input)
	return job, checkpoint, os.WriteFile(job, []byte(text), 0o644)
}

// benchMemory runs n synthetic episodes through every stage (plan false) or through ingest
// alone (`backfill plan`, plan true) and measures the child's peak RSS.
func benchMemory(ctx context.Context, bin, dir string, n, groupSize int, seed uint64, plan bool) (MemoryResult, error) {
	mode := "all stages"
	if plan {
		mode = "ingest (plan)"
	}
	r := MemoryResult{Mode: mode, Episodes: n, GroupSize: groupSize}
	input, err := synthInput(dir, n, groupSize, seed)
	if err != nil {
		return r, err
	}
	name := fmt.Sprintf("mem-%d-%v", n, plan)
	job, checkpoint, err := offlineJob(dir, name, input)
	if err != nil {
		return r, err
	}
	defer removeStore(checkpoint)
	args := []string{"run", job}
	if plan {
		args = []string{"plan", job, "--sample", "200"}
	}
	wal := checkpoint + "-wal"
	res, err := harness.Run(ctx, bin, args, harness.Options{SampleRSS: 100 * time.Millisecond, SampleFiles: []string{wal}})
	if err != nil {
		return r, err
	}
	if res.Code != 0 {
		return r, fmt.Errorf("backfill %s on %d synthetic episodes: exit %d: %s", args[0], n, res.Code, lastLine(res.Stderr))
	}
	r.Seconds = res.Elapsed.Seconds()
	r.PeakRSSMiB = float64(res.MaxRSSKiB) / mib
	r.PeakWALMiB = float64(res.FileBytes[wal]) / (1 << 20)
	if fi, err := os.Stat(checkpoint); err == nil && !plan {
		r.StoreMiB = float64(fi.Size()) / (1 << 20)
	}
	if len(res.StageRSS) > 0 && !plan {
		r.StageRSS = map[string]float64{}
		for k, v := range res.StageRSS {
			r.StageRSS[k] = float64(v) / mib
		}
	}
	if !plan {
		r.Stages = map[string]Stage{}
		begun := map[string]time.Duration{}
		for _, ev := range res.Events {
			if !ev.Finished {
				begun[ev.Stage] = ev.At
			} else {
				r.Stages[ev.Stage] = Stage{Seconds: (ev.At - begun[ev.Stage]).Seconds()}
			}
		}
	}
	return r, nil
}

// removeStore deletes a checkpoint and its side files.
func removeStore(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", ".quarantine.jsonl"} {
		os.Remove(path + suffix)
	}
}
