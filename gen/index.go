package gen

import "slices"

// A declIndex finds a spec's declarations by name. Validate builds it once
// (see Spec.index) and the validator, the docs, the backends and Breaking
// read it instead of each indexing the spec again. A name declared twice is
// an error Validate reports; the index keeps the first declaration.
type declIndex struct {
	// decls holds every name a type expression may refer to, and machines.
	decls    map[string]decl
	ids      map[string]*ID
	enums    map[string]*Enum
	records  map[string]*Record
	unions   map[string]*Union
	variants map[string]unionVariant
	faces    map[string]*Face
	facts    map[string]*Fact
	// machines maps a states enum to the first machine it drives.
	machines map[string]*Machine
}

// A unionVariant is a variant with the union that declares it.
type unionVariant struct {
	union   *Union
	variant *Variant
}

// indexSpec indexes s's declarations.
func indexSpec(s *Spec) *declIndex {
	x := &declIndex{decls: map[string]decl{}, ids: map[string]*ID{}, enums: map[string]*Enum{}, records: map[string]*Record{},
		unions: map[string]*Union{}, variants: map[string]unionVariant{}, faces: map[string]*Face{}, facts: map[string]*Fact{},
		machines: map[string]*Machine{}}
	for _, d := range s.IDs {
		x.put(d.Name, declID, d.Pos)
		putFirst(x.ids, d.Name, d)
	}
	for _, d := range s.Enums {
		x.put(d.Name, declEnum, d.Pos)
		putFirst(x.enums, d.Name, d)
	}
	for _, d := range s.Records {
		x.put(d.Name, declRecord, d.Pos)
		putFirst(x.records, d.Name, d)
	}
	for _, d := range s.Unions {
		x.put(d.Name, declUnion, d.Pos)
		putFirst(x.unions, d.Name, d)
		for _, vr := range d.Variants {
			x.put(vr.Name, declVariant, vr.Pos)
			putFirst(x.variants, vr.Name, unionVariant{d, vr})
		}
	}
	for _, d := range s.Faces {
		x.put(d.Name, declFace, d.Pos)
		putFirst(x.faces, d.Name, d)
	}
	for _, d := range s.Machines {
		x.put(d.Name, declMachine, d.Pos)
		if d.States.Name != "" {
			putFirst(x.machines, d.States.Name, d)
		}
	}
	for _, d := range s.Facts {
		putFirst(x.facts, d.Name, d)
	}
	return x
}

// put records a name a type expression may refer to, or a machine; an
// empty name (an error Validate reports) refers to nothing.
func (x *declIndex) put(name string, kind declKind, pos Pos) {
	if name != "" {
		putFirst(x.decls, name, decl{kind: kind, pos: pos})
	}
}

// putFirst adds v to m under name unless name is already there: the first
// declaration of a name wins.
func putFirst[T any](m map[string]T, name string, v T) {
	if _, dup := m[name]; !dup {
		m[name] = v
	}
}

// index returns the spec's declaration index, building it on first use for
// a spec Validate has not seen. Validate rebuilds it, so a Resolved spec's
// index is only read, never written, by the backends.
func (s *Spec) index() *declIndex {
	if s.idx == nil {
		s.idx = indexSpec(s)
	}
	return s.idx
}

// wireFields returns the fields a named record or variant carries in JSON.
func (x *declIndex) wireFields(name string) []*Field {
	if r := x.records[name]; r != nil {
		return r.Fields
	}
	if uv, ok := x.variants[name]; ok {
		return append(slices.Clone(uv.union.Common), uv.variant.Fields...)
	}
	return nil
}

// reach adds every type name reachable from fields, through records and
// variants, to seen.
func (x *declIndex) reach(fields []*Field, seen map[string]bool) {
	for _, f := range fields {
		if f.Type == nil || !f.Wire() {
			continue
		}
		f.Type.walk(func(t *Type) {
			if t.Kind != TypeNamed || seen[t.Name] {
				return
			}
			seen[t.Name] = true
			x.reach(x.wireFields(t.Name), seen)
		})
	}
}

// stringy reports whether t is written as a JSON string: string, an id or an enum.
func (x *declIndex) stringy(t *Type) bool {
	if t.Kind == TypeBuiltin {
		return t.Name == "string"
	}
	return t.Kind == TypeNamed && (x.ids[t.Name] != nil || x.enums[t.Name] != nil)
}

// methods returns a face's method set, embeds included, by name.
func (x *declIndex) methods(name string, seen map[string]bool) map[string]*Method {
	out := map[string]*Method{}
	f := x.faces[name]
	if f == nil || seen[name] {
		return out
	}
	seen[name] = true
	for _, e := range f.Embeds {
		for k, m := range x.methods(e.Name, seen) {
			out[k] = m
		}
	}
	for _, m := range f.Methods {
		out[m.Name] = m
	}
	return out
}
