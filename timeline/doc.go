// Package timeline draws the facts of an entity on a time axis as one self-contained HTML file:
// inline SVG, inline CSS and a short inline script, nothing fetched from the network.
//
// Each fact is a row. Its bar runs from valid_at to invalid_at (true in the world); an unknown
// valid_at fades in from the left edge and an open invalid_at ends in an arrow at the right edge.
// A thin line below the bar runs from created_at (a dot: when the system learned the fact) to
// expired_at (a cross: when it learned of its end). The sentence and all four dates show on hover
// (an SVG <title>). A "known at" slider steps through the record times of the fact version log:
// at each step every row is drawn as the system knew it then (an end not yet known is open) and
// what it did not know yet is greyed out. The page opens at Page.KnownAt, drawn without the script;
// the script only moves the slider. The output is a function of the Page: same facts, same bytes.
package timeline
