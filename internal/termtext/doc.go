// Package termtext makes text that comes from data safe to print on a terminal: an entity name,
// a fact, a group id or a file name holding an escape sequence must show as text, never move the
// cursor, recolour the screen, set the window title or reorder what follows.
//
// Contract: Value escapes every control character (C0 including tab and newline, DEL, C1), every
// bidirectional formatting character (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069) and every
// byte that is not valid UTF-8, in Go's escape syntax (\x1b, \n, \u202e, \xff); Message does the
// same but keeps newlines and tabs, for a whole message whose lines are the tool's own; JSON
// escapes the characters JSON's encoder leaves raw (C1, bidirectional formatting) inside encoded
// JSON as \uXXXX, which keeps it valid JSON of the same value. Text without such characters comes
// back unchanged. One rule for every command: the CLI passes data through these before printing.
package termtext
