package gen

// The model of a field's bounds (decision 0208): the least and greatest
// value of a number and the most characters of a string, each a literal or
// a default of the spec, which every decoder checks and every schema
// states.

// A Bound is one limit of a field's values: an integer the spec writes, or
// a default of the spec it names, read in Unit. Validate resolves a
// default's Value; a backend reads Value alone.
type Bound struct {
	Value int64
	// Default names the default the bound is, for a bound written as one;
	// empty for a literal.
	Default Ref
	// Unit is the unit Default is read in: empty for its own base unit
	// (bytes, or the count), set for a duration, which has none.
	Unit    Unit
	UnitPos Pos
	Pos     Pos
}

// Named reports whether the bound is a default of the spec, by name.
func (b *Bound) Named() bool { return b != nil && b.Default.Name != "" }

// Bounded reports whether the field has a bound: min, max or maxLength.
func (f *Field) Bounded() bool { return f.Min != nil || f.Max != nil || f.MaxLength != nil }

// unitScale is how many of a unit's base unit (bytes, milliseconds, one)
// one of it is.
func unitScale(u Unit) int64 {
	switch u {
	case UnitKiB:
		return 1 << 10
	case UnitMiB:
		return 1 << 20
	case UnitSeconds:
		return 1000
	case UnitMinutes:
		return 60_000
	}
	return 1
}

// sameDimension reports whether a and b measure the same thing: sizes,
// durations or counts.
func sameDimension(a, b Unit) bool {
	sized := func(u Unit) bool { return u == UnitBytes || u == UnitKiB || u == UnitMiB }
	switch {
	case sized(a) || sized(b):
		return sized(a) && sized(b)
	case a.Duration() || b.Duration():
		return a.Duration() && b.Duration()
	}
	return a == b
}
