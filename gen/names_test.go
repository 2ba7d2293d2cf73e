package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveSuggest is the definition suggest must agree with: the candidate at
// the smallest case-blind edit distance, the first by name on a tie, when
// that distance is within suggestLimit.
func naiveSuggest(s string, candidates []string) string {
	best, bestDist := "", 0
	for _, c := range candidates {
		d := editDistance(strings.ToLower(s), strings.ToLower(c))
		if best == "" || d < bestDist || (d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	if best == "" || bestDist > suggestLimit(s) {
		return ""
	}
	return best
}

// TestSuggesterAgreesWithTheNaiveSearch: the grouping, the bounds and the
// cache change how fast a suggestion is found, never which.
func TestSuggesterAgreesWithTheNaiveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	letters := []rune("abcAB_xyzéÉ")
	word := func(min int) string {
		var b strings.Builder
		for range min + r.IntN(9) {
			b.WriteRune(letters[r.IntN(len(letters))])
		}
		return b.String()
	}
	for range 300 {
		var cands []string
		for range r.IntN(40) {
			cands = append(cands, word(1))
		}
		g := newSuggester(cands)
		for range 30 {
			s := word(0)
			if got, want := g.suggest(s), naiveSuggest(s, cands); got != want {
				t.Fatalf("suggest(%q) among %q = %q, want %q", s, cands, got, want)
			}
		}
	}
}

// TestUndeclaredNamesAreNotQuadratic: 8,000 references
// to undeclared types against 8,000 declared records get their errors,
// with suggestions, in well under a second of work (the search used to
// compare every reference with every name: 42 s).
func TestUndeclaredNamesAreNotQuadratic(t *testing.T) {
	spec := func(n int) []byte {
		var b strings.Builder
		b.WriteString("jobgen: 1\npackage: {name: p}\nrecords:\n")
		for i := range n {
			fmt.Fprintf(&b, "  Record%d: {fields: {a: Recrod%dx}}\n", i, i)
		}
		return []byte(b.String())
	}
	// No wall clock: on a loaded machine any bound on seconds is noise. The
	// errors must be right, and the work (below) bounded.
	data := spec(8000)
	_, err := Load("many.yaml", data)
	list, _ := err.(ErrorList)
	if len(list) != 8000 || !strings.HasSuffix(list[7999].Msg, "undeclared type Recrod7999x; did you mean Record7999?") {
		t.Fatalf("got %d errors, the last %v", len(list), list[len(list)-1])
	}
	// The work, which no machine's load changes: comparing every name with
	// every candidate fills about 8,000 × 8,000 × 12 cells.
	var names []string
	for i := range 8000 {
		names = append(names, fmt.Sprintf("Record%d", i))
	}
	g := newSuggester(names)
	for i := range 8000 {
		g.suggest(fmt.Sprintf("Recrod%dx", i))
	}
	if used := suggestBudget - g.budget; used > 20_000_000 {
		t.Errorf("the suggestions filled %d cells", used)
	}
}

// BenchmarkSuggest is "did you mean" for 1,000 misspelt names against 1,000
// declared ones: the suggester against the naive search it must agree with.
func BenchmarkSuggest(b *testing.B) {
	var names, typos []string
	for i := range 1000 {
		names = append(names, fmt.Sprintf("Record%d", i))
		typos = append(typos, fmt.Sprintf("Recrod%dx", i))
	}
	b.Run("naive", func(b *testing.B) {
		for b.Loop() {
			for _, s := range typos {
				naiveSuggest(s, names)
			}
		}
	})
	b.Run("suggester", func(b *testing.B) {
		for b.Loop() {
			g := newSuggester(names)
			for _, s := range typos {
				g.suggest(s)
			}
		}
	})
}

// TestScalarsAreTheModels: the model says what each predeclared type is on
// the wire, so that no backend keeps a table of Go's type names.
func TestScalarsAreTheModels(t *testing.T) {
	tests := []struct {
		name   string
		kind   ScalarKind
		bits   int
		lo, hi int64
		ranged bool
	}{
		{"int8", ScalarInt, 8, -128, 127, true},
		{"rune", ScalarInt, 32, -1 << 31, 1<<31 - 1, true},
		{"int64", ScalarInt, 64, 0, 0, false},
		{"int", ScalarInt, 64, 0, 0, false},
		{"byte", ScalarUint, 8, 0, 255, true},
		{"uint32", ScalarUint, 32, 0, 1<<32 - 1, true},
		{"uint", ScalarUint, 64, 0, 0, false},
		{"float32", ScalarFloat, 32, 0, 0, false},
		{"string", ScalarString, 0, 0, 0, false},
		{"any", ScalarAny, 0, 0, 0, false},
		{"error", NotScalar, 0, 0, 0, false},
		{"Item", NotScalar, 0, 0, 0, false},
	}
	for _, tt := range tests {
		s := ScalarOf(tt.name)
		lo, hi, ok := s.Range()
		if s.Kind != tt.kind || s.Bits != tt.bits || ok != tt.ranged || lo != tt.lo || hi != tt.hi {
			t.Errorf("%s: %+v, range %d..%d %v; want kind %d, %d bits, range %d..%d %v", tt.name, s, lo, hi, ok, tt.kind, tt.bits, tt.lo, tt.hi, tt.ranged)
		}
		if builtin(tt.name) != (tt.name != "Item") {
			t.Errorf("builtin(%s) = %v", tt.name, builtin(tt.name))
		}
	}
	if !(&Type{Kind: TypeSlice, Elem: &Type{Kind: TypeBuiltin, Name: "uint8"}}).IsBytes() || (&Type{Kind: TypeSlice, Elem: &Type{Kind: TypeBuiltin, Name: "int8"}}).IsBytes() {
		t.Error("IsBytes is wrong")
	}
}
