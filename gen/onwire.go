package gen

// This file decides which declarations reach the wire: the ones a backend
// for another language (TypeScript, Python, JSON Schema) emits, as opposed to
// Go-only declarations such as faces and the records that carry Go funcs.

// OnWire reports whether values of the named declaration travel in JSON, so
// that a backend for a language other than Go emits it. Ids, enums and facts
// always do; faces and machines never do. A record does when every one of its
// fields does; a union (and each of its variants) when its common fields and
// every variant's fields do. A field travels when its type does (see
// [Type.Wire]) and every declaration its type names, in this spec or one it
// imports, is on the wire too: a record that holds a Hooks of funcs is as
// Go-only as Hooks. An unknown name is not on the wire.
func (x *Index) OnWire(name string) bool {
	return x.onWire(name, map[string]bool{})
}

// onWire is OnWire with the names under evaluation in visiting: a name met
// again while deciding it (a recursive type) is taken as on the wire, so
// recursion alone never makes a type Go-only.
func (x *Index) onWire(name string, visiting map[string]bool) bool {
	if visiting[name] {
		return true
	}
	visiting[name] = true
	defer delete(visiting, name)
	switch {
	case x.IDs[name] != nil, x.Enums[name] != nil:
		return true
	case x.Records[name] != nil:
		return x.fieldsOnWire(x.Records[name].Fields, visiting)
	case x.Unions[name] != nil:
		u := x.Unions[name]
		if !x.fieldsOnWire(u.Common, visiting) {
			return false
		}
		for _, vr := range u.Variants {
			if !x.fieldsOnWire(vr.Fields, visiting) {
				return false
			}
		}
		return true
	}
	if uv, ok := x.Variants[name]; ok {
		return x.onWire(uv.Union.Name, visiting)
	}
	return false
}

// fieldsOnWire reports whether every field's type travels in JSON and names
// only declarations that are on the wire.
func (x *Index) fieldsOnWire(fields []*Field, visiting map[string]bool) bool {
	for _, f := range fields {
		if f.Type == nil || !f.Type.Wire() {
			return false
		}
		ok := true
		f.Type.Walk(func(t *Type) {
			if !ok {
				return
			}
			switch {
			case t.Kind == TypeNamed:
				ok = x.onWire(t.Name, visiting)
			case t.Kind == TypeQualified && t.imp != nil && t.imp.Imported != nil:
				ok = t.imp.Imported.Spec().Index().OnWire(t.Name)
			}
		})
		if !ok {
			return false
		}
	}
	return true
}
