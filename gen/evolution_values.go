package gen

// The values of evolution declarations: what a default may be for a type,
// which zeros a decoder reads back, and which widenings lose nothing.

import (
	"fmt"
	"slices"
	"strings"
)

// literalFits says why the default lit cannot be a value of type t; ""
// when it can.
func literalFits(x *Index, lit *Literal, t *Type) string {
	kinds := [...]string{"a string", "a bool", "an integer", "a number"}
	wrong := func(want string) string {
		return fmt.Sprintf("%s is %s, and the field holds %s (%s)", lit.Text, kinds[lit.Kind], want, t)
	}
	if t.Kind == TypeNamed {
		switch {
		case t.decl == DeclEnum && x.Enums[t.Name] != nil:
			e := x.Enums[t.Name]
			var values []string
			for _, v := range e.Values {
				values = append(values, v.Value)
			}
			switch {
			case lit.Kind != LitString:
				return wrong("a value of the enum " + t.Name)
			case !slices.Contains(values, lit.Text):
				return fmt.Sprintf("%s is not a value of %s%s", lit.Text, t.Name, didYouMean(lit.Text, values))
			}
			return ""
		case t.decl == DeclID && x.IDs[t.Name] != nil && x.IDs[t.Name].Kind == IDString:
			if lit.Kind != LitString {
				return wrong("a string id")
			}
			return ""
		}
	}
	s := t.Scalar()
	switch s.Kind {
	case ScalarString:
		if lit.Kind != LitString {
			return wrong("a string")
		}
	case ScalarBool:
		if lit.Kind != LitBool {
			return wrong("a bool")
		}
	case ScalarInt, ScalarUint:
		if lit.Kind != LitInt {
			return wrong("an integer")
		}
		n := lit.Int()
		lo, hi, bounded := s.Range()
		switch {
		case s.Kind == ScalarUint && n < 0:
			return fmt.Sprintf("%s is negative, and %s holds none", lit.Text, t)
		case bounded && (n < lo || n > hi):
			return fmt.Sprintf("%s is out of %s's range (%d to %d)", lit.Text, t, lo, hi)
		case n > maxSafe || n < -maxSafe:
			return fmt.Sprintf("%s is past ±(2^53 − 1), which TypeScript's number cannot hold exactly", lit.Text)
		}
	case ScalarFloat:
		if lit.Kind != LitInt && lit.Kind != LitFloat {
			return wrong("a number")
		}
		if lit.Kind == LitFloat && (strings.Contains(lit.Text, "inf") || strings.Contains(lit.Text, "nan") || strings.Contains(lit.Text, "Inf") || strings.Contains(lit.Text, "NaN")) {
			return fmt.Sprintf("%s is not a finite number, which JSON cannot write", lit.Text)
		}
	default:
		return fmt.Sprintf("a default is a string, number, bool, enum value or string id, and %s is none of them; make the field optional: true, or from: a field", t)
	}
	return ""
}

// zeroIsAValue reports whether t's zero value is one its decoders read
// back: a string, bool, number or string id, not an enum, uuid or record.
func zeroIsAValue(x *Index, t *Type) bool {
	switch t.Scalar().Kind {
	case ScalarString, ScalarBool, ScalarInt, ScalarUint, ScalarFloat:
		return true
	}
	return t.Kind == TypeNamed && t.decl == DeclID && x.IDs[t.Name] != nil && x.IDs[t.Name].Kind == IDString
}

// maxSafe is the largest integer a float64 (TypeScript's number) holds exactly.
const maxSafe = 1<<53 - 1

// Widens reports whether every JSON value of the predeclared type o decodes
// into n, so history written as o reads as n: an integer widened, an
// unsigned integer into a wider signed one, an integer of at most 32 bits
// into float64, a float widened.
func Widens(o, n string) bool {
	if o == n {
		return true
	}
	a, b := ScalarOf(o), ScalarOf(n)
	switch {
	case a.Integer() && b.Integer():
		return (a.Kind == b.Kind && b.Bits >= a.Bits) || (a.Kind == ScalarUint && b.Kind == ScalarInt && b.Bits > a.Bits)
	case a.Integer() && b.Kind == ScalarFloat && b.Bits == 64:
		return a.Bits <= 32 // float64 holds every 32-bit integer exactly
	case a.Kind == ScalarFloat && b.Kind == ScalarFloat:
		return b.Bits >= a.Bits
	}
	return false
}
