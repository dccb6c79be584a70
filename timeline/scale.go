package timeline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// A scale maps times onto [plotX0, plotX1]: one linear segment per cluster of times, the long
// gaps between clusters squeezed into breaks breakW wide, so that one old date does not flatten
// the rest of a timeline (see breakAt).
type scale struct{ segs []segment }

// segment is a linear piece of a scale.
type segment struct {
	t0, t1 time.Time
	x0, x1 float64
}

const (
	breakW   = 28.0                // the width of a break
	breakMin = 60 * 24 * time.Hour // no shorter gap is a break
	segMinW  = 70.0                // the narrowest segment
	tickW    = 80.0                // the room one axis label needs
)

// newScale spans every time of ts: clusters padded by 2% of the whole span (a day at least).
func newScale(ts []time.Time) scale {
	if len(ts) == 0 {
		t := time.Unix(0, 0).UTC()
		return scale{[]segment{{t0: t.AddDate(0, 0, -1), t1: t.AddDate(0, 0, 1), x0: plotX0, x1: plotX1}}}
	}
	ts = slices.SortedFunc(slices.Values(ts), time.Time.Compare)
	pad := max(ts[len(ts)-1].Sub(ts[0])/50, 24*time.Hour)
	brk := breakAt(ts)
	var segs []segment
	for i, t := range ts {
		if i == 0 || brk[i] {
			segs = append(segs, segment{t0: t.Add(-pad)})
		}
		segs[len(segs)-1].t1 = t.Add(pad)
	}
	widths := segmentWidths(segs, plotX1-plotX0-breakW*float64(len(segs)-1))
	x := plotX0
	for i := range segs {
		segs[i].x0, segs[i].x1 = round1(x), round1(x+widths[i])
		x += widths[i] + breakW
	}
	segs[len(segs)-1].x1 = plotX1
	return scale{segs}
}

// breakAt says before which of the sorted times ts a break goes: the fewest of the longest gaps
// (each longer than breakMin) that together are more than twice as long as all the rest of the
// span; none when no such set exists.
func breakAt(ts []time.Time) map[int]bool {
	span := ts[len(ts)-1].Sub(ts[0])
	var gaps []int // index of the time after the gap
	for i := 1; i < len(ts); i++ {
		if ts[i].Sub(ts[i-1]) > breakMin {
			gaps = append(gaps, i)
		}
	}
	gap := func(i int) time.Duration { return ts[i].Sub(ts[i-1]) }
	slices.SortStableFunc(gaps, func(a, b int) int { return cmp.Compare(gap(b), gap(a)) })
	var sum time.Duration
	for k, i := range gaps {
		sum += gap(i)
		if sum > 2*(span-sum) {
			out := map[int]bool{}
			for _, j := range gaps[:k+1] {
				out[j] = true
			}
			return out
		}
	}
	return nil
}

// segmentWidths shares room among segments in proportion to their durations, none narrower than
// segMinW.
func segmentWidths(segs []segment, room float64) []float64 {
	w := make([]float64, len(segs))
	fixed := make([]bool, len(segs))
	for range segs {
		var free time.Duration
		left := room
		for i, s := range segs {
			if fixed[i] {
				left -= segMinW
			} else {
				free += s.t1.Sub(s.t0)
			}
		}
		changed := false
		for i, s := range segs {
			if fixed[i] {
				continue
			}
			w[i] = left * float64(s.t1.Sub(s.t0)) / float64(free)
			if w[i] < segMinW {
				w[i], fixed[i], changed = segMinW, true, true
			}
		}
		if !changed {
			break
		}
	}
	return w
}

// x maps t onto the plot: linearly within a segment, linearly across a break within a gap, and
// to the nearest edge outside the scale.
func (s scale) x(t time.Time) float64 {
	first := s.segs[0]
	if t.Before(first.t0) {
		return first.x0
	}
	for i, g := range s.segs {
		if !t.After(g.t1) {
			if t.Before(g.t0) { // in the gap before g
				p := s.segs[i-1]
				return round1(lerp(t, p.t1, g.t0, p.x1, g.x0))
			}
			return round1(lerp(t, g.t0, g.t1, g.x0, g.x1))
		}
	}
	return s.segs[len(s.segs)-1].x1
}

func lerp(t, t0, t1 time.Time, x0, x1 float64) float64 {
	return x0 + float64(t.Sub(t0))/float64(t1.Sub(t0))*(x1-x0)
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// breaks returns the x ranges of the breaks.
func (s scale) breaks() [][2]float64 {
	var out [][2]float64
	for i := 1; i < len(s.segs); i++ {
		out = append(out, [2]float64{s.segs[i-1].x1, s.segs[i].x0})
	}
	return out
}

// attr writes the segments for the page's script and for tests: "t0ms:t1ms:x0:x1 …".
func (s scale) attr() string {
	var b strings.Builder
	for i, g := range s.segs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%d:%.1f:%.1f", g.t0.UnixMilli(), g.t1.UnixMilli(), g.x0, g.x1)
	}
	return b.String()
}
