package termtext

import (
	"encoding/json"
	"testing"
)

func TestValueAndMessage(t *testing.T) {
	for _, c := range []struct{ in, value, message string }{
		{"Alice", "Alice", "Alice"},
		{"지훈 über", "지훈 über", "지훈 über"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"title\x1b]0;owned\x07", `title\x1b]0;owned\a`, `title\x1b]0;owned\a`},
		{"a\nb\tc\r", `a\nb\tc\r`, "a\nb\tc\\r"},
		{"\u009b31m", `\u009b31m`, `\u009b31m`},
		{"abc\u202edcba", `abc\u202edcba`, `abc\u202edcba`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"del\x7f", `del\x7f`, `del\x7f`},
	} {
		if got := Value(c.in); got != c.value {
			t.Errorf("Value(%q) = %q, want %q", c.in, got, c.value)
		}
		if got := Message(c.in); got != c.message {
			t.Errorf("Message(%q) = %q, want %q", c.in, got, c.message)
		}
	}
}

func TestJSONKeepsTheValue(t *testing.T) {
	in := map[string]string{"name": "x\u009b2J\u202ey\x1b[0m", "plain": "지훈"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(b)
	if !clean(string(got), false) {
		t.Fatalf("JSON left a control character: %q", got)
	}
	var back map[string]string
	if err := json.Unmarshal(got, &back); err != nil || back["name"] != in["name"] || back["plain"] != in["plain"] {
		t.Fatalf("JSON changed the value: %q (%v)", back, err)
	}
}
