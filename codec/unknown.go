package codec

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A FactKind is a fact's type and version, as its envelope names them.
type FactKind struct {
	Type string
	V    int
}

// UnknownFacts counts the facts a reader skipped because this build cannot
// decode them (errors wrapping [ErrUnknownFact]), by type and version, so a
// tool can say what it did not read instead of skipping it in silence. It
// tells unknown from damaged by the error alone, so it works for the facts of
// any vocabulary. The zero value is empty and ready to use; it is not safe
// for concurrent use.
type UnknownFacts struct {
	counts map[FactKind]int
	total  int
}

// Add counts payload when err, the error its decoder returned, wraps
// ErrUnknownFact, and reports whether it did. The payload's envelope names
// the type and version; an envelope that does not decode (which no generated
// decoder reports as unknown) counts under the type "?".
func (u *UnknownFacts) Add(payload []byte, err error) bool {
	if !errors.Is(err, ErrUnknownFact) {
		return false
	}
	k := FactKind{Type: "?"}
	if env, eerr := DecodeEnvelope(payload); eerr == nil {
		k = FactKind{Type: env.Type, V: env.V}
	}
	if u.counts == nil {
		u.counts = make(map[FactKind]int)
	}
	u.counts[k]++
	u.total++
	return true
}

// Keep counts an Unknown a tolerant reader kept.
func (u *UnknownFacts) Keep(k Unknown) {
	if u.counts == nil {
		u.counts = make(map[FactKind]int)
	}
	u.counts[k.Kind()]++
	u.total++
}

// Total returns how many facts were counted.
func (u *UnknownFacts) Total() int { return u.total }

// Kinds returns the kinds counted and how many of each, ordered by type, then
// version.
func (u *UnknownFacts) Kinds() ([]FactKind, []int) {
	kinds := make([]FactKind, 0, len(u.counts))
	for k := range u.counts {
		kinds = append(kinds, k)
	}
	slices.SortFunc(kinds, func(a, b FactKind) int {
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return a.V - b.V
	})
	counts := make([]int, len(kinds))
	for i, k := range kinds {
		counts[i] = u.counts[k]
	}
	return kinds, counts
}

// String describes the count, such as
// "3 facts this build cannot read: job/settled v9 (3)".
func (u *UnknownFacts) String() string {
	var b strings.Builder
	noun := "facts"
	if u.total == 1 {
		noun = "fact"
	}
	fmt.Fprintf(&b, "%d %s this build cannot read", u.total, noun)
	kinds, counts := u.Kinds()
	for i, k := range kinds {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s v%d (%d)", sep, k.Type, k.V, counts[i])
	}
	return b.String()
}

// CountUnknown returns decode with every fact it cannot decode counted in u:
// a strict decoder's unknown errors, and the unknowns a tolerant reader
// (ReadFact) returns. It returns what decode returns, errors included, so a
// caller that skips unknown facts still does:
//
//	var unknown codec.UnknownFacts
//	facts := journal.Facts(records, codec.CountUnknown(jobs.ReadFact, &unknown))
func CountUnknown[F any](decode func([]byte) (F, error), u *UnknownFacts) func([]byte) (F, error) {
	return func(data []byte) (F, error) {
		f, err := decode(data)
		if err != nil {
			u.Add(data, err)
		} else if k, ok := AsUnknown(f); ok {
			u.Keep(k)
		}
		return f, err
	}
}
