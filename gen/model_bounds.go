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

// CheckedMin is the field's min when its type does not keep it by itself
// (min 0 on an unsigned field, -128 on an int8 is kept): the bound a
// decoder checks, nil for none. CheckedMax is its max so.
func (f *Field) CheckedMin() *Bound {
	sc := f.Type.Scalar()
	lo, _, ranged := sc.Range()
	if b := f.Min; b != nil && !(ranged && b.Value <= lo) && !(sc.Kind == ScalarUint && b.Value <= 0) {
		return b
	}
	return nil
}

// CheckedMax is the field's max when its type does not keep it by itself
// (255 on a uint8), nil otherwise; see CheckedMin.
func (f *Field) CheckedMax() *Bound {
	_, hi, ranged := f.Type.Scalar().Range()
	if b := f.Max; b != nil && !(ranged && b.Value >= hi) {
		return b
	}
	return nil
}

// numberBounds are the field's min and max with their keys.
func (f *Field) numberBounds() []keyedBound { return []keyedBound{{"min", f.Min}, {"max", f.Max}} }

// A keyedBound is a bound and the key the spec writes it under.
type keyedBound struct {
	key string
	b   *Bound
}

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
