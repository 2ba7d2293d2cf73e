package gen

import "slices"

// This file decides which declarations reach the wire: the ones a backend
// for another language (TypeScript, Python, JSON Schema) emits, as opposed to
// Go-only declarations such as faces and the records that carry Go funcs.

// OnWire reports whether values of the named declaration travel in JSON, so
// that a backend for a language other than Go emits it. Ids, enums and facts
// always do; faces and machines never do. A record does when every one of its
// fields does; a union (and each of its variants) when its common fields and
// every variant's fields do. A field travels when its type does (see
// [Type.Wire]) and every declaration its type names, in this spec or one it
// imports, is on the wire by this rule too: a record that holds a Hooks of
// funcs is as Go-only as Hooks. An unknown name is not on the wire.
//
// And whatever a live fact version holds is on the wire, through records and
// variants (a union reached with every variant): it travels in the fact's
// JSON, without its fields that cannot, and a module cannot declare the fact
// without it (decision 0104). That alone puts on the wire nothing that holds
// such a declaration outside a fact.
func (x *Index) OnWire(name string) bool {
	return x.onWire(name, map[string]bool{}) || x.factHeld()[name]
}

// factHeld is every name a live fact version of the spec holds, through
// records and variants, with every variant of a union reached; found once,
// on first use, when the field types are resolved.
func (x *Index) factHeld() map[string]bool {
	x.heldOnce.Do(func() {
		held := map[string]bool{}
		if x.spec == nil {
			x.held = held
			return
		}
		for _, f := range x.spec.Facts {
			for _, v := range f.LiveVersions() {
				x.Reach(v.Fields, held)
			}
		}
		for grown := true; grown; {
			grown = false
			for _, u := range x.spec.Unions {
				if !held[u.Name] && !slices.ContainsFunc(u.Variants, func(v *Variant) bool { return held[v.Name] }) {
					continue
				}
				held[u.Name] = true
				for _, v := range u.Variants {
					if !held[v.Name] {
						held[v.Name], grown = true, true
						x.Reach(append(slices.Clone(u.Common), v.Fields...), held)
					}
				}
			}
		}
		x.held = held
	})
	return x.held
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
				ok = t.imp.Imported.Spec().Index().onWire(t.Name, map[string]bool{})
			}
		})
		if !ok {
			return false
		}
	}
	return true
}
