package gen

import (
	"strconv"
	"strings"
)

// Evolution: how a newer shape derives from the one before it (decision
// 0173). The declarations are the spec's (Derivation on a field, Drop on a
// shape, From on a record or union, Added on a variant); Validate resolves
// them into a plan every backend emits the same way: a Conversion per
// derived shape, an Assign per field of it, a Conv per type change.

// A Derivation is what a field of a derived shape says about where its
// value comes from. A field that says nothing takes the value of the field
// of the same name in the shape it derives from.
type Derivation struct {
	// From names the older shape's field whose value this one takes: a
	// rename, or (with another type) a conversion.
	From Ref
	// Default is the value history gets for a field the older shape lacks.
	Default *Literal
	// Map maps values of the older field (an enum's, or a bool's true and
	// false) to values of this field's enum.
	Map    []*ValueMap
	MapPos Pos
}

// A LiteralKind is how a default value was written.
type LiteralKind int

// The kinds of literal.
const (
	LitString LiteralKind = iota
	LitBool
	LitInt
	LitFloat
)

// A Literal is a scalar value written in the spec: a default.
type Literal struct {
	Kind LiteralKind
	Text string // as written: "1", "true", "producer"
	Pos  Pos
}

// Bool is the value of a LitBool.
func (l *Literal) Bool() bool { return l.Text == "true" }

// Int is the value of a LitInt.
func (l *Literal) Int() int64 { n, _ := strconv.ParseInt(l.Text, 0, 64); return n }

// Float is the value of a LitInt or LitFloat, as JSON writes it.
func (l *Literal) Float() string {
	f, err := strconv.ParseFloat(strings.ReplaceAll(l.Text, "_", ""), 64)
	if err != nil {
		return l.Text
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// A ValueMap maps one value of an older field to one of the newer field's
// enum.
type ValueMap struct {
	From    string // an enum value, or true / false
	FromPos Pos
	To      string // a value of the new field's enum
	ToPos   Pos
}

// A ShapeKind says what a Conversion converts.
type ShapeKind int

// The kinds of shape.
const (
	ShapeFact    ShapeKind = iota // a fact version to the next
	ShapeRecord                   // a record to the record derived from it
	ShapeVariant                  // a union variant to the variant of the same tag in the union derived from it
)

// A Conversion turns a value of one shape (a fact version, a record, a
// variant) into a value of the shape derived from it. It never fails:
// Validate accepts only conversions that lose nothing.
type Conversion struct {
	Kind ShapeKind
	// From and To are the Go names of the two structs: JobSettledV1 and
	// JobSettled, JobRegistration and JobRegistration2.
	From, To string
	// Assigns give each wire field of To its value, in To's field order.
	Assigns []*Assign
	// Union and Tag are the derived variant's, for ShapeVariant.
	Union *Union
	Tag   Tag
}

// Name is the conversion's name in generated code, FromToTo: backends
// prefix it (Go's upcastJobSettledV1ToJobSettled).
func (c *Conversion) Name() string { return c.From + "To" + c.To }

// An Assign is how one field of a derived shape gets its value.
type Assign struct {
	Field *Field // the field of the derived shape
	// Source is the older shape's field the value comes from; nil when the
	// field is new (Default, or else its zero value).
	Source  *Field
	Default *Literal
	Conv    *Conv // how Source's value becomes Field's; nil without Source
}

// KeepsAbsent reports whether a's source is optional and its conversion
// could turn the source's zero value into one that is not zero (a record
// derived with defaults, a value wrapped in a pointer): an optional field
// the older shape leaves at its zero stays zero in the newer shape, so
// backends read such a source only when it is not zero. Every other
// conversion maps zero to zero by itself.
func (a *Assign) KeepsAbsent() bool {
	if a.Source == nil || !a.Source.Optional {
		return false
	}
	return a.Conv.Kind == ConvShape || (a.Conv.Kind == ConvPointer && a.Conv.Wrap)
}

// A ConvKind says how a value of one type becomes a value of another.
type ConvKind int

// The kinds of conversion.
const (
	ConvSame    ConvKind = iota // the same type: the value as it is
	ConvCast                    // a number widened, an enum or string id to string, a string to a string id
	ConvEnum                    // an enum or bool to an enum, value by value (Values)
	ConvShape                   // a record or variant to the one derived from it (Shape)
	ConvSlice                   // each element (Elem)
	ConvMap                     // each value (Elem); the keys as they are
	ConvPointer                 // through a pointer (Elem); Wrap: from a value, not a pointer
)

// A Conv is how a value of type From becomes a value of type To.
type Conv struct {
	Kind     ConvKind
	From, To *Type
	Shape    *Conversion // ConvShape
	Elem     *Conv       // ConvSlice, ConvMap, ConvPointer
	Wrap     bool        // ConvPointer from a T that is not a pointer
	// Values maps every value of the older enum (or "true" and "false") to a
	// value of the new enum, or to "" (the zero value), for ConvEnum.
	Values []*ValueMap
	// FromBool reports that a ConvEnum reads a bool.
	FromBool bool
}

// A Path is how DecodeFact reads an older version as the newest: the
// declared steps, one conversion each, and then, when a version on the way
// names a hand-written upcaster, that upcaster, which returns the newest
// version.
type Path struct {
	Steps []*Conversion
	// Upcast is the hand-written upcaster that ends the path, at the version
	// Reached; empty when the steps reach the newest version.
	Upcast Ref
	// Reached is the version the declared steps end at: the newest, or the
	// version whose hand-written upcaster goes on.
	Reached *FactVersion
}

// UpcastPath is how DecodeFact reads version v of f as the newest version.
// For the newest version it is empty, Reached v.
func (f *Fact) UpcastPath(v *FactVersion) Path {
	p := Path{Reached: v}
	for cur := v; cur != f.Latest(); {
		if cur.Upcast.Name != "" {
			p.Upcast = cur.Upcast
			return p
		}
		if cur.Derived == nil {
			return p // not validated, or no way on: Validate reported it
		}
		p.Steps = append(p.Steps, cur.Derived)
		cur = f.next(cur)
		p.Reached = cur
	}
	return p
}

// next is the version listed after v, or nil for the newest.
func (f *Fact) next(v *FactVersion) *FactVersion {
	for i, w := range f.Versions {
		if w == v && i+1 < len(f.Versions) {
			return f.Versions[i+1]
		}
	}
	return nil
}

// Conversions returns every conversion the spec's upcasts use, each once:
// the fact steps in fact and version order, then the records and variants
// they reach, in the order first reached. A backend emits one function for
// each.
func (s *Spec) Conversions() []*Conversion {
	var out []*Conversion
	seen := map[*Conversion]bool{}
	var add func(c *Conversion)
	add = func(c *Conversion) {
		if c == nil || seen[c] {
			return
		}
		seen[c] = true
		out = append(out, c)
		for _, a := range c.Assigns {
			a.Conv.walk(func(cv *Conv) { add(cv.Shape) })
		}
	}
	for _, f := range SortedBy(s.Facts, func(f *Fact) string { return f.Name }) {
		for _, v := range f.Versions {
			add(v.Derived)
		}
	}
	return out
}

// walk calls fn for c and every conversion inside it; c may be nil.
func (c *Conv) walk(fn func(*Conv)) {
	if c == nil {
		return
	}
	fn(c)
	c.Elem.walk(fn)
}

// Innermost is the conversion of the values a list, map or pointer holds:
// c itself for any other.
func (c *Conv) Innermost() *Conv {
	for c.Elem != nil {
		c = c.Elem
	}
	return c
}

// Trivial reports whether the conversion leaves the value as it is in JSON
// and in every language but Go: the same type, a cast, or lists, maps and
// pointers of those.
func (c *Conv) Trivial() bool {
	switch c.Kind {
	case ConvSame, ConvCast:
		return true
	case ConvSlice, ConvMap, ConvPointer:
		return c.Elem.Trivial()
	}
	return false
}
