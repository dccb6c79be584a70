package harness

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// sample records the largest VmRSS seen while each stage runs (from its "stage starting" line
// to the next one), and the largest size of each file, until the process ends.
func (p *Proc) sample(every time.Duration, files []string) {
	defer close(p.rssDone)
	path := fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		kib, ok := statusKiB(path, "VmRSS:")
		stage := p.Stage()
		p.mu.Lock()
		if ok && stage != "" {
			p.rss[stage] = max(p.rss[stage], kib)
		}
		for _, f := range files {
			if fi, err := os.Stat(f); err == nil {
				p.files[f] = max(p.files[f], fi.Size())
			}
		}
		exited := p.exited
		p.mu.Unlock()
		if exited || !ok {
			return
		}
		<-t.C
	}
}

// statusKiB reads one "Name:   123 kB" field of a /proc status file.
func statusKiB(path, field string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field); ok {
			v, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}
