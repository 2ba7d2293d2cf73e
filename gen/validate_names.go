package gen

import "strings"

// initialismNames reports every Go name the spec writes out (a type, variant,
// face, machine or method name, or a go: override) that does not write Go's
// initialisms in one case, as staticcheck's ST1003 would: OrderId must be
// OrderID. Names jobgen derives (fields, enum constants, facts, defaults)
// already follow them. The spec name is the Go name, the schema's and the
// reference's, so it is refused with the fix rather than changed behind the
// author's back. Like upcasters, it is checked only in a spec read with its
// directory, to generate from.
func (v *validator) initialismNames() {
	if !v.spec.sourcesRead {
		// A spec compared without its directory (an old release, from git)
		// is never generated from, so how its Go names read does not matter.
		return
	}
	check := func(name, what string, pos Pos) {
		if fixed := fixInitialisms(name); fixed != name {
			v.add(pos, "%s: write %s as %s: Go writes initialisms in one case (staticcheck ST1003)", what, name, fixed)
		}
	}
	s := v.spec
	for _, d := range s.Declarations() {
		check(d.Name, d.Path(), d.Pos)
	}
	for _, d := range s.Enums {
		for _, val := range d.Values {
			check(val.GoName, "enums."+d.Name+".values."+val.Value, val.Pos)
		}
	}
	for _, d := range s.Faces {
		for _, m := range d.Methods {
			check(m.Name, "faces."+d.Name+".methods."+m.Name, m.Pos)
		}
	}
	v.eachFieldList(func(what string, fields []*Field) {
		for _, f := range fields {
			check(f.GoName, what+"."+f.Name, f.Pos)
		}
	})
}

// fixInitialisms returns name with every word that is a Go initialism, or
// the plural of one, written in upper case: "OrderId" → "OrderID", "JobIds" →
// "JobIDs", "UrlPath" → "URLPath". Words are split as goName splits them.
func fixInitialisms(name string) string {
	if name == "" || strings.ContainsAny(name, "/-. _") {
		return name // not an identifier; checkIdent reports it
	}
	var b strings.Builder
	for _, w := range words(name) {
		b.WriteString(initialismWord(w))
	}
	return b.String()
}

// initialismWord writes one word as Go style wants: an initialism in upper
// case, the plural of one with a lower-case s, anything else as it is.
func initialismWord(w string) string {
	up := strings.ToUpper(w)
	switch {
	case initialisms[up]:
		return up
	case len(w) > 2 && strings.HasSuffix(w, "s") && initialisms[up[:len(up)-1]]:
		return up[:len(up)-1] + "s"
	}
	return w
}
