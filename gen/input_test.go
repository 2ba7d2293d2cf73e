package gen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// firstError parses data and returns its first error line.
func firstError(t *testing.T, data string) string {
	t.Helper()
	_, err := LoadFS(nil, "s.yaml", []byte(data))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("err = %v, want an ErrorList", err)
	}
	return list[0].Error()
}

// TestYAMLSyntaxErrorsAreAtTheOffendingToken: yaml.v3
// reports the line the enclosing construct began on, counted from 0, and no
// column; jobgen reports the token the parser stopped at, or the construct
// left open.
func TestYAMLSyntaxErrorsAreAtTheOffendingToken(t *testing.T) {
	const head = "jobgen: 1\npackage:\n  name: demo\n"
	for _, c := range []struct{ name, spec, want string }{
		{"unclosed list", head + "broken: [1, 2\nrecords: {}\n", "s.yaml:4:9: YAML syntax: did not find expected ',' or ']'"},
		{"unclosed list at the end", head + "broken: [1, 2", "s.yaml:4:9: YAML syntax: did not find expected ',' or ']'"},
		{"unclosed mapping", head + "records: {A: {fields: {a: string}}\n", "s.yaml:4:10: YAML syntax: did not find expected ',' or '}'"},
		{"key out of place", head + " records: {}\n", "s.yaml:4:2: YAML syntax: did not find expected key"},
		{"text after a list", head + "records:\n  A:\n    fields:\n      tags: []string\n", "s.yaml:7:15: YAML syntax: did not find expected key (a list type must be quoted, as in \"[]T\")"},
		{"unterminated quote", head + "records:\n  A: {doc: \"never closed}\n", "s.yaml:5:12: YAML syntax: found unexpected end of stream"},
		{"tab indentation", head + "records:\n\tA: {}\n", "s.yaml:5:1: YAML syntax: found character that cannot start any token"},
		{"first line", "jobgen: [1\n", "s.yaml:1:9: YAML syntax: did not find expected ',' or ']'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := firstError(t, c.spec); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestBytesThatAreNotTextAreAtTheirPosition: invalid
// UTF-8, NUL and control characters are reported where they are, not at 1:1.
func TestBytesThatAreNotTextAreAtTheirPosition(t *testing.T) {
	for _, c := range []struct{ name, spec, want string }{
		{"invalid UTF-8", "jobgen: 1\npackage: {name: dé\xffmo}\n", "s.yaml:2:19: invalid UTF-8 (byte 0xff); a spec must be UTF-8 text"},
		{"NUL", "jobgen: 1\npackage:\n  name: de\x00mo\n", "s.yaml:3:11: NUL byte; a spec must be text"},
		{"control character", "jobgen: 1\n\x07\n", "s.yaml:2:1: control character U+0007 is not allowed in YAML; write it as an escape in a double-quoted string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := firstError(t, c.spec); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// aliasBomb is a valid spec of n records that all alias one record of n
// fields: about 25 n bytes that stand for n*n fields.
func aliasBomb(n int) string {
	var b strings.Builder
	b.WriteString("jobgen: 1\npackage: {name: p}\nrecords:\n  R0: &r {fields: &f {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "a%d: string", i)
	}
	b.WriteString("}}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  R%d: *r\n", i)
	}
	return b.String()
}

// TestAliasExpansionHasABudget: aliases may add at most
// as many nodes as the spec writes out (or 10,000); past that, the spec is
// refused at the alias that crosses the budget, before anything else runs.
func TestAliasExpansionHasABudget(t *testing.T) {
	if _, err := LoadFS(nil, "s.yaml", []byte(aliasBomb(20))); err != nil {
		t.Fatalf("a modest use of aliases is refused: %v", err)
	}
	got := firstError(t, aliasBomb(1000))
	if want := "s.yaml:"; !strings.HasPrefix(got, want) || !strings.Contains(got, ": YAML alias *r takes the spec's aliases past their budget of 10000 nodes") {
		t.Errorf("got %s", got)
	}
	if !strings.HasPrefix(got, "s.yaml:9:7:") { // R5: each *r adds 2,002 nodes
		t.Errorf("the error is not at the alias that crosses the budget: %s", got)
	}
	nested := "jobgen: 1\npackage: {name: p}\n" +
		"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n" +
		"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n" +
		"e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
	// b adds 100 nodes, c 1,100, and the eighth *c of d crosses 10,000.
	if got := firstError(t, nested); !strings.HasPrefix(got, "s.yaml:6:36: YAML alias *c takes the spec's aliases past their budget") {
		t.Errorf("nested aliases: %s", got)
	}
	if got := firstError(t, "jobgen: 1\npackage: {name: p}\nrecords: &x {A: *x}\n"); got != "s.yaml:3:17: YAML alias *x names a node that contains it, which would never end; write the repeated part out" {
		t.Errorf("a cycle: %s", got)
	}
}

// TestReadSpecHasASizeLimit: a spec over the limit is
// refused before it is read, with an error saying how to raise the limit;
// what is not a regular file is refused rather than blocking.
func TestReadSpecHasASizeLimit(t *testing.T) {
	name := filepath.Join(t.TempDir(), "big.yaml")
	writeFile(t, name, []byte(strings.Repeat("#\n", 600)))
	if _, err := ReadSpec(name, 1000); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "--max-spec-size") {
		t.Errorf("err = %v, want ErrTooLarge naming the flag", err)
	}
	if data, err := ReadSpec(name, 1200); err != nil || len(data) != 1200 {
		t.Errorf("a spec at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := ReadSpec(filepath.Dir(name), 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := ReadSpec(filepath.Join(t.TempDir(), "none.yaml"), 1<<20); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
