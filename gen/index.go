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
	x := &declIndex{
		decls:    map[string]decl{},
		ids:      firstByName(s.IDs, func(d *ID) string { return d.Name }),
		enums:    firstByName(s.Enums, func(d *Enum) string { return d.Name }),
		records:  firstByName(s.Records, func(d *Record) string { return d.Name }),
		unions:   firstByName(s.Unions, func(d *Union) string { return d.Name }),
		variants: map[string]unionVariant{},
		faces:    firstByName(s.Faces, func(d *Face) string { return d.Name }),
		facts:    firstByName(s.Facts, func(d *Fact) string { return d.Name }),
		machines: map[string]*Machine{},
	}
	for _, d := range s.declarations() {
		if d.name != "" {
			putFirst(x.decls, d.name, decl{kind: d.kind, pos: d.pos})
		}
	}
	for _, u := range s.Unions {
		for _, vr := range u.Variants {
			putFirst(x.variants, vr.Name, unionVariant{u, vr})
		}
	}
	for _, m := range s.Machines {
		if m.States.Name != "" {
			putFirst(x.machines, m.States.Name, m)
		}
	}
	return x
}

// A declaration is one name a spec declares in a section of its own: a
// type, a union variant or a machine, with the section path that holds it
// ("unions.JobEvent.variants" for a variant).
type declaration struct {
	section string
	kind    declKind
	name    string
	pos     Pos
}

// path is where the declaration sits in the spec: "records.JobSnapshot".
func (d declaration) path() string { return d.section + "." + d.name }

// declarations lists s's ids, enums, records, unions (each followed by its
// variants), faces and machines, each section in spec order: the names a
// type expression may refer to, and machines.
func (s *Spec) declarations() []declaration {
	var out []declaration
	add := func(section string, kind declKind, name string, pos Pos) {
		out = append(out, declaration{section, kind, name, pos})
	}
	for _, d := range s.IDs {
		add("ids", declID, d.Name, d.Pos)
	}
	for _, d := range s.Enums {
		add("enums", declEnum, d.Name, d.Pos)
	}
	for _, d := range s.Records {
		add("records", declRecord, d.Name, d.Pos)
	}
	for _, d := range s.Unions {
		add("unions", declUnion, d.Name, d.Pos)
		for _, vr := range d.Variants {
			add("unions."+d.Name+".variants", declVariant, vr.Name, vr.Pos)
		}
	}
	for _, d := range s.Faces {
		add("faces", declFace, d.Name, d.Pos)
	}
	for _, d := range s.Machines {
		add("machines", declMachine, d.Name, d.Pos)
	}
	return out
}

// firstByName maps each item's name to the item; the first of a name wins.
func firstByName[T any](items []T, name func(T) string) map[string]T {
	m := make(map[string]T, len(items))
	for _, it := range items {
		putFirst(m, name(it), it)
	}
	return m
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
