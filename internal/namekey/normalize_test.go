package namekey

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/golden"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Alice", "alice"},
		{"  Alice   \t Smith \n", "alice smith"},
		{"ALICE", "alice"},
		{"Straße", "strasse"},                    // full case folding
		{"Ｐａｒｉｓ", "paris"},                       // NFKC fullwidth
		{"ﬁnn", "finn"},                          // NFKC ligature
		{"Ali\u200bce", "alice"},                 // zero-width space removed
		{"Alice\u00a0Smith", "alice smith"},      // no-break space is whitespace
		{"\"Alice\"", "alice"},                   // quotes
		{"“Alice”", "alice"},                     // curly quotes
		{"'Alice's'", "alice's"},                 // inner apostrophe kept
		{"Dr. Kim.", "dr. kim"},                  // trailing period
		{"@alice!", "alice"},                     // surrounding punctuation
		{"(Alice)", "alice"},                     // matched brackets around the name
		{"Alice (PM)", "alice (pm)"},             // bracket kept when its partner is inside
		{"(Alice) (Bob)", "(alice) (bob)"},       // the outer brackets are two pairs
		{"[Alice", "alice"},                      // lone bracket
		{"AT&T", "at&t"},                         // inner punctuation kept
		{"C++", "c++"},                           // symbols are not punctuation
		{"...", ""},                              // nothing left
		{"", ""},                                 // empty
		{"지훈은", "지훈은"},                           // particles are kept (see Stems)
		{"'지훈'은", "지훈'은"},                        // an unpaired leading quote is trimmed
		{"지훈은.", "지훈은"},                          // punctuation after the particle
		{"Alice는", "alice는"},                     // mixed script
		{"Dominique", "dominique"},               // English names are untouched
		{"Sarah Connor", "sarah connor"},         // English names are untouched
		{"\u110c\u1175\u1112\u116e\u11ab", "지훈"}, // conjoining jamo compose under NFKC
		{"Ｓｅｏｙｅｏｎ　ＰＡＲＫ", "seoyeon park"},         // fullwidth letters and ideographic space
		{"İstanbul", "i̇stanbul"},                // full case folding keeps the dot
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripParticle(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"지훈은", "지훈", true},      // topic particle
		{"지훈의", "지훈", true},      // genitive
		{"지훈이", "지훈", true},      // subject / name suffix
		{"지훈이가", "지훈이", true},    // one particle per call
		{"지훈에게", "지훈", true},     // two-syllable particle, longest first
		{"엄마께서", "엄마", true},     // honorific subject
		{"친구한테", "친구", true},     // colloquial dative
		{"스타벅스에서", "스타벅스", true}, // locative
		{"김 지훈은", "김 지훈", true},  // particle on the last word
		{"lg전자는", "lg전자", true},  // two Hangul syllables before the particle
		{"'지훈'은", "지훈", true},    // quotes between name and particle are trimmed from the stem
		{"이지은", "이지", true},      // looks like a particle: Stems only proposes, resolution decides
		{"k팝의", "k팝의", false},    // one Hangul syllable before the particle
		{"이가", "이가", false},      // one-syllable remainder
		{"서은", "서은", false},      // one-syllable remainder
		{"은", "은", false},        // particle alone
		{"alice는", "alice는", false},
		{"dominique", "dominique", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got, ok := StripParticle(tt.in); got != tt.want || ok != tt.ok {
				t.Errorf("StripParticle(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestStems(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"지훈은", []string{"지훈"}},
		{"지훈이가", []string{"지훈이", "지훈"}},
		{"이지은은", []string{"이지은", "이지"}},
		{"지훈", nil},
		{"alice", nil},
	}
	for _, tt := range tests {
		if got := Stems(Normalize(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Stems(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEntropy(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"", 0},
		{"aaaa", 0},
		{"AAaa", 0}, // case-folded first
		{"ok", 1},
		{"abcd", 2},
		{"a b", 1},           // whitespace ignored
		{"지훈", math.Log2(5)}, // ᄌ ᅵ ᄒ ᅮ ᆫ
		{"하하", 1},            // ᄒ ᅡ ᄒ ᅡ
		{"aab", -(2.0/3*math.Log2(2.0/3) + 1.0/3*math.Log2(1.0/3))},
	}
	for _, tt := range tests {
		if got := Entropy(tt.in); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Entropy(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestAmbiguous(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", true},
		{"ok", true},        // short
		{"Al", true},        // short
		{"aaaa", true},      // low entropy
		{"bob", true},       // 0.92 bits
		{"abab abab", true}, // 1 bit, 2 distinct
		{"지", true},         // one syllable
		{"지훈은", false},      // three syllables
		{"하하", true},        // repetition
		{"ㅋㅋㅋ", true},       // compatibility jamo, one rune repeated
		{"지훈", false},       // two syllables, five jamo
		{"김지훈", false},      //
		{"Tom", false},      // 1.58 bits
		{"Alice", false},    //
		{"Sarah Connor", false},
		{"王伟", true},                             // two Han characters: long enough, but 1 bit
		{"毛泽东", false},                           // three Han characters
		{"王", true},                              // one Han character
		{"aaaaaaaaaaaaaaaaaaaaaaaabcdef", false}, // low entropy but 6 distinct runes
	}
	for _, tt := range tests {
		if got := Ambiguous(tt.in); got != tt.want {
			t.Errorf("Ambiguous(%q) = %v, want %v (normalized %q, entropy %.3f)",
				tt.in, got, tt.want, Normalize(tt.in), Entropy(tt.in))
		}
	}
}

// TestNormalizeGolden checks Normalize, Stems, Entropy and Ambiguous over testdata/names.txt.
func TestNormalizeGolden(t *testing.T) {
	in, err := os.Open(filepath.Join("testdata", "names.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var b strings.Builder
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		name := sc.Text()
		fmt.Fprintf(&b, "%q\t%q\t%q\t%.3f\t%v\n", name, Normalize(name), Stems(Normalize(name)), Entropy(name), Ambiguous(name))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "normalize.golden"), []byte(b.String()))
}

func TestNormalizeIdempotent(t *testing.T) {
	for _, s := range []string{"Alice", " “Dr. Kim.” ", "지훈은", "이지은은", "지훈이가", "(Alice)", "LG전자는", "Ｐａｒｉｓ", "'지훈'은"} {
		once := Normalize(s)
		if twice := Normalize(once); twice != once {
			t.Errorf("Normalize(Normalize(%q)) = %q, want %q", s, twice, once)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Alice", "지훈은", "(a)", "\"", "'지훈'은", "\u200b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if strings.TrimSpace(n) != n || strings.Contains(n, "  ") {
			t.Errorf("Normalize(%q) = %q has untrimmed or repeated whitespace", s, n)
		}
		if h := Entropy(s); h < 0 || math.IsNaN(h) {
			t.Errorf("Entropy(%q) = %v", s, h)
		}
		if Normalize(n) != n {
			t.Errorf("Normalize is not idempotent on %q: %q then %q", s, n, Normalize(n))
		}
		if n == "" && !Ambiguous(s) {
			t.Errorf("Ambiguous(%q) = false for an empty normalization", s)
		}
	})
}
