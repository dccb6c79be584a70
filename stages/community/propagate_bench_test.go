package community

import (
	"bufio"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// plantedBlocks assigns n nodes to blocks of the given size through a random permutation, so block
// members are scattered over the id range. It draws the permutation from rng first.
func plantedBlocks(rng *rand.Rand, n, block int) []int {
	blockOf := make([]int, n)
	for i, u := range rng.Perm(n) {
		blockOf[u] = i / block
	}
	return blockOf
}

// plantedPartition returns m unit-weight edges over n nodes in blocks of the given size (as
// plantedBlocks draws them): 90% join two random members of one random block, 10% join two random
// nodes. Repeated pairs and self-loops are left in, as real edge lists have them.
func plantedPartition(rng *rand.Rand, n, block, m int) ([]Edge, int) {
	blockOf := plantedBlocks(rng, n, block)
	blocks := (n + block - 1) / block
	members := make([][]int32, blocks)
	for u, b := range blockOf {
		members[b] = append(members[b], int32(u))
	}
	edges := make([]Edge, m)
	for i := range edges {
		if rng.IntN(10) < 9 {
			ms := members[rng.IntN(blocks)]
			edges[i] = Edge{ms[rng.IntN(len(ms))], ms[rng.IntN(len(ms))], 1}
		} else {
			edges[i] = Edge{int32(rng.IntN(n)), int32(rng.IntN(n)), 1}
		}
	}
	return edges, n
}

// BenchmarkPropagate1M measures Propagate (adjacency build included) on 1,000,000 facts over
// 200,000 entities in planted blocks of 50. Besides time and allocations it reports the peak
// heap above the input (sampled), the peak RSS of the process during the loop (VmHWM, reset
// first when the kernel allows) and the sweeps and communities found.
//
//	go test -run '^$' -bench Propagate1M -benchtime 5x ./stages/community/
func BenchmarkPropagate1M(b *testing.B) {
	edges, n := plantedPartition(rand.New(rand.NewPCG(2024, 1)), 200_000, 50, 1_000_000)
	runtime.GC()
	base := heapBytes()
	resetPeakRSS()
	stop := samplePeakHeap()
	b.ReportAllocs()
	var communities, sweeps int
	for b.Loop() {
		var labels []int32
		labels, sweeps = propagate(n, edges, Options{})
		communities = len(Groups(labels))
	}
	peak := stop()
	b.ReportMetric(float64(communities), "communities")
	b.ReportMetric(float64(sweeps), "sweeps")
	b.ReportMetric(float64(peak-base)/(1<<20), "peak-heap-MiB")
	if kb, ok := peakRSSKiB(); ok {
		b.ReportMetric(float64(kb)/1024, "peak-RSS-MiB")
	}
}

// heapBytes is the memory held by heap objects (live and not yet swept).
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeakHeap samples heapBytes every millisecond until the returned stop is called, which
// returns the largest value seen.
func samplePeakHeap() (stop func() uint64) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, heapBytes())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// resetPeakRSS resets the process's VmHWM to its current RSS (Linux: "5" to clear_refs); it
// does nothing where that is not possible.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSKiB reads VmHWM, the peak resident set size, from /proc/self/status.
func peakRSSKiB() (int, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb, err == nil
		}
	}
	return 0, false
}

func TestPeakRSSKiB(t *testing.T) {
	kb, ok := peakRSSKiB()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status here")
	}
	if !ok || kb <= 0 {
		t.Errorf("peakRSSKiB = %d, %v; want a positive size", kb, ok)
	}
}
