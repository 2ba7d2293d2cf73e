package gen

// Validate's checks of a field's bounds (decision 0208): that each bounds
// what it can (a number, a string), that a default it names exists and is
// whole in the unit it is read in, and that the bounds fit the field's type
// and leave it a value, its zero value when the field is optional.

import (
	"fmt"
	"unicode/utf8"
)

// bounds checks the bounds of every field, once the defaults are checked.
func (v *validator) bounds() {
	defaults := map[string]*Default{}
	var names []string
	for _, d := range v.spec.Defaults {
		if _, dup := defaults[d.Name]; !dup {
			defaults[d.Name] = d
			names = append(names, d.Name)
		}
	}
	paths := map[*Field]string{}
	v.eachFieldList(func(what string, fields []*Field) {
		for _, f := range fields {
			if f.Type != nil && f.Bounded() {
				paths[f] = what + "." + f.Name
				v.fieldBounds(f, paths[f], boundDefaults{defaults, newSuggester(names)})
			}
		}
	})
	if len(paths) > 0 && len(v.errs) == 0 {
		v.derivedBounds(paths)
	}
}

// derivedBounds checks that a bounded field of a derived shape (decision
// 0173) refuses nothing its older shape held: Go reads an older version as
// the newest struct by struct, and would keep what a TypeScript or Python
// decoder of the upcast JSON refuses. A default it takes must be within
// its bounds. paths are the bounded fields' paths.
func (v *validator) derivedBounds(paths map[*Field]string) {
	for _, c := range v.spec.Conversions() {
		for _, a := range c.Assigns {
			f, what := a.Field, paths[a.Field]
			switch {
			case what == "":
			case a.Source != nil:
				if why := TighterBound(f, a.Source); why != "" {
					v.add(f.Pos, "%s: %s; a derived field's bounds admit every value of the field it derives from (%s in %s), since history holds them", what, why, a.Source.Name, c.From)
				}
			case a.Default != nil && (a.Default.Kind == LitInt || a.Default.Kind == LitString):
				if why := outside(f, a.Default); why != "" {
					v.add(a.Default.Pos, "%s.default: %s", what, why)
				}
			}
		}
	}
}

// outside says how lit is outside f's bounds, or "".
func outside(f *Field, lit *Literal) string {
	if lit.Kind == LitString {
		if n := int64(utf8.RuneCountInString(lit.Text)); f.MaxLength != nil && n > f.MaxLength.Value {
			return fmt.Sprintf("%q has %d characters, more than maxLength %d", lit.Text, n, f.MaxLength.Value)
		}
		return ""
	}
	switch n := lit.Int(); {
	case f.Min != nil && n < f.Min.Value:
		return fmt.Sprintf("%d is below min %d", n, f.Min.Value)
	case f.Max != nil && n > f.Max.Value:
		return fmt.Sprintf("%d is above max %d", n, f.Max.Value)
	}
	return ""
}

// boundDefaults are the defaults a bound may name, and what suggests one
// for a name that is none.
type boundDefaults struct {
	byName  map[string]*Default
	suggest *suggester
}

// fieldBounds checks the bounds of f, declared at fwhat.
func (v *validator) fieldBounds(f *Field, fwhat string, defaults boundDefaults) {
	sc := f.Type.Scalar()
	number := sc.Integer() || sc.Kind == ScalarFloat
	ok := true
	for _, x := range f.numberBounds() {
		switch {
		case x.b == nil:
		case !number:
			v.add(x.b.Pos, "%s.%s: %s bounds a number, and %s is %s; bound the number a field holds", fwhat, x.key, x.key, f.Name, f.Type)
			ok = false
		default:
			ok = v.resolveBound(x.b, fwhat+"."+x.key, defaults) && ok
		}
	}
	if b := f.MaxLength; b != nil {
		switch {
		case sc.Kind != ScalarString:
			v.add(b.Pos, "%s.maxLength: maxLength bounds a string, and %s is %s", fwhat, f.Name, f.Type)
		case v.resolveBound(b, fwhat+".maxLength", defaults) && b.Value < 1:
			v.add(b.Pos, "%s.maxLength: %d is not a length; a string's bound is at least one character", fwhat, b.Value)
		}
	}
	if !ok {
		return
	}
	lo, hi, ranged := sc.Range()
	for _, x := range f.numberBounds() {
		switch {
		case x.b == nil:
		case ranged && (x.b.Value < lo || x.b.Value > hi):
			v.add(x.b.Pos, "%s.%s: %d is outside %s, which holds %d to %d", fwhat, x.key, x.b.Value, f.Type, lo, hi)
		case sc.Kind == ScalarUint && x.b.Value < 0:
			v.add(x.b.Pos, "%s.%s: %d is below zero, which %s cannot hold", fwhat, x.key, x.b.Value, f.Type)
		}
	}
	switch {
	case f.Min != nil && f.Max != nil && f.Min.Value > f.Max.Value:
		v.add(f.Max.Pos, "%s.max: %d is below min %d, so no value decodes", fwhat, f.Max.Value, f.Min.Value)
	case f.Optional && f.Min != nil && f.Min.Value > 0:
		v.add(f.Min.Pos, "%s.min: an optional field that is absent decodes as 0, which min %d refuses; make the field required, or let min be 0", fwhat, f.Min.Value)
	case f.Optional && f.Max != nil && f.Max.Value < 0:
		v.add(f.Max.Pos, "%s.max: an optional field that is absent decodes as 0, which max %d refuses; make the field required, or let max be 0", fwhat, f.Max.Value)
	}
}

// resolveBound sets the value of a bound that names a default: the
// default's value in the unit the bound reads it in. It reports whether the
// bound has a value.
func (v *validator) resolveBound(b *Bound, what string, defaults boundDefaults) bool {
	if !b.Named() {
		return true
	}
	d := defaults.byName[b.Default.Name]
	if d == nil {
		v.add(b.Default.Pos, "%s: no default %s%s", what, b.Default.Name, defaults.suggest.didYouMean(b.Default.Name))
		return false
	}
	if d.Unit == "" || d.Value > unitLimit(d.Unit) {
		return false // reported at the default
	}
	to := b.Unit
	switch {
	case to == "" && d.Unit.Duration():
		v.add(b.Default.Pos, "%s: %s is a duration (%d %s), which a field holds in some unit; name it, as {default: %s, unit: s}", what, d.Name, d.Value, d.Unit, d.Name)
		return false
	case to == "" && d.Unit == UnitCount:
		to = UnitCount
	case to == "":
		to = UnitBytes
	case !sameDimension(d.Unit, to):
		v.add(b.UnitPos, "%s.unit: %s is %d %s, which cannot be read in %s", what, d.Name, d.Value, d.Unit, to)
		return false
	}
	base := d.Value * unitScale(d.Unit)
	if base%unitScale(to) != 0 {
		v.add(b.Default.Pos, "%s: %s is %d %s, not a whole number of %s", what, d.Name, d.Value, d.Unit, to)
		return false
	}
	b.Value = base / unitScale(to)
	return true
}
