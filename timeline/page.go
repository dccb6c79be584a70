package timeline

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"last": func(n int) int { return n - 1 },
	"num":  func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"add":  func(a, b float64) float64 { return a + b },
	"sub":  func(a, b float64) float64 { return a - b },
}).Parse(pageHTML))

// Write writes the page as one self-contained HTML document.
func Write(w io.Writer, p Page) error {
	if err := page.Execute(w, build(p)); err != nil {
		return fmt.Errorf("writing timeline: %w", err)
	}
	return nil
}
