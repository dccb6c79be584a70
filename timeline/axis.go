package timeline

import "time"

// tick is a labelled time on the axis.
type tick struct {
	X     float64
	Label string
}

// steps of the axis, finest first.
var tickSteps = []struct {
	months, days int
	layout       string
}{
	{0, 1, "2006-01-02"}, {0, 7, "2006-01-02"}, {0, 14, "2006-01-02"}, {1, 0, "2006-01"}, {3, 0, "2006-01"},
	{6, 0, "2006-01"}, {12, 0, "2006"}, {24, 0, "2006"}, {60, 0, "2006"}, {120, 0, "2006"},
}

// ticks returns the labelled times of the axis, segment by segment: the finest step that leaves
// each label tickW of room, aligned to midnight, the month or the year.
func (s scale) ticks() []tick {
	var out []tick
	for _, g := range s.segs {
		out = append(out, g.ticks(max(1, int((g.x1-g.x0)/tickW)))...)
	}
	return out
}

func (g segment) ticks(most int) []tick {
	one := scale{[]segment{g}}
	for _, st := range tickSteps {
		t := time.Date(g.t0.Year(), g.t0.Month(), g.t0.Day(), 0, 0, 0, 0, time.UTC)
		switch {
		case st.months >= 12:
			t = time.Date(t.Year()-t.Year()%(st.months/12), 1, 1, 0, 0, 0, 0, time.UTC)
		case st.months > 0:
			t = time.Date(t.Year(), t.Month()-(t.Month()-1)%time.Month(st.months), 1, 0, 0, 0, 0, time.UTC)
		}
		var out []tick
		for ; !t.After(g.t1) && len(out) <= most; t = t.AddDate(0, st.months, st.days) {
			if !t.Before(g.t0) {
				out = append(out, tick{X: one.x(t), Label: t.Format(st.layout)})
			}
		}
		if len(out) <= most {
			return out
		}
	}
	return nil
}
