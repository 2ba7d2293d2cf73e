package gen

import (
	"cmp"
	"fmt"
	"slices"
)

// A Pos is a position in a spec file. Line and Col count from 1; a zero Line
// means the position is unknown and only the file is named.
type Pos struct {
	File string
	Line int
	Col  int
}

// String formats p as file:line:col, the form editors and go vet use.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

func ComparePos(a, b Pos) int {
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
}

// An Error is one problem in a spec, at the node that causes it.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// An ErrorList is every problem found in a spec. Like go/scanner's ErrorList it
// sorts by position and its Err method returns nil when it is empty, so callers
// can collect problems freely and report them all at once.
type ErrorList []*Error

// Add appends a problem at pos.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the list by file, line, column and then message.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(ComparePos(a.Pos, b.Pos), cmp.Compare(a.Msg, b.Msg))
	})
}

// RemoveMultiples sorts the list and drops exact repeats of a message at one position.
func (l *ErrorList) RemoveMultiples() {
	l.Sort()
	*l = slices.CompactFunc(*l, func(a, b *Error) bool { return a.Pos == b.Pos && a.Msg == b.Msg })
}

// Error reports the first problem and how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
