package gen

import (
	"slices"
	"sync"
)

// An Index finds a spec's declarations by name. Validate builds it once
// (see Spec.Index) and the validator, the docs, the backends and Breaking
// read it instead of each indexing the spec again. A name declared twice is
// an error Validate reports; the index keeps the first declaration.
type Index struct {
	// Decls holds every name a type expression may refer to, and machines.
	Decls    map[string]Decl
	IDs      map[string]*ID
	Enums    map[string]*Enum
	Records  map[string]*Record
	Unions   map[string]*Union
	Variants map[string]UnionVariant
	Faces    map[string]*Face
	Facts    map[string]*Fact
	// Machines maps a states enum to the first machine it drives.
	Machines map[string]*Machine

	spec     *Spec
	heldOnce sync.Once
	held     map[string]bool // see factHeld
}

// A UnionVariant is a variant with the union that declares it.
type UnionVariant struct {
	Union   *Union
	Variant *Variant
}

// indexSpec indexes s's declarations.
func indexSpec(s *Spec) *Index {
	x := &Index{
		Decls:    map[string]Decl{},
		IDs:      firstByName(s.IDs, func(d *ID) string { return d.Name }),
		Enums:    firstByName(s.Enums, func(d *Enum) string { return d.Name }),
		Records:  firstByName(s.Records, func(d *Record) string { return d.Name }),
		Unions:   firstByName(s.Unions, func(d *Union) string { return d.Name }),
		Variants: map[string]UnionVariant{},
		Faces:    firstByName(s.Faces, func(d *Face) string { return d.Name }),
		Facts:    firstByName(s.Facts, func(d *Fact) string { return d.Name }),
		Machines: map[string]*Machine{},
		spec:     s,
	}
	for _, d := range s.Declarations() {
		if d.Name != "" {
			putFirst(x.Decls, d.Name, Decl{Kind: d.Kind, Pos: d.Pos})
		}
	}
	for _, u := range s.Unions {
		for _, vr := range u.Variants {
			putFirst(x.Variants, vr.Name, UnionVariant{u, vr})
		}
	}
	for _, m := range s.Machines {
		if m.States.Name != "" {
			putFirst(x.Machines, m.States.Name, m)
		}
	}
	return x
}

// A Declaration is one name a spec declares in a section of its own: a
// type, a union variant or a machine, with the section path that holds it
// ("unions.JobEvent.variants" for a variant).
type Declaration struct {
	Section string
	Kind    DeclKind
	Name    string
	Pos     Pos
}

// Path is where the declaration sits in the spec: "records.JobSnapshot".
func (d Declaration) Path() string { return d.Section + "." + d.Name }

// Declarations lists s's ids, enums, records, unions (each followed by its
// variants), faces and machines, each section in spec order: the names a
// type expression may refer to, and machines.
func (s *Spec) Declarations() []Declaration {
	var out []Declaration
	add := func(section string, kind DeclKind, name string, pos Pos) {
		out = append(out, Declaration{section, kind, name, pos})
	}
	for _, d := range s.IDs {
		add("ids", DeclID, d.Name, d.Pos)
	}
	for _, d := range s.Enums {
		add("enums", DeclEnum, d.Name, d.Pos)
	}
	for _, d := range s.Records {
		add("records", DeclRecord, d.Name, d.Pos)
	}
	for _, d := range s.Unions {
		add("unions", DeclUnion, d.Name, d.Pos)
		for _, vr := range d.Variants {
			add("unions."+d.Name+".variants", DeclVariant, vr.Name, vr.Pos)
		}
	}
	for _, d := range s.Faces {
		add("faces", DeclFace, d.Name, d.Pos)
	}
	for _, d := range s.Machines {
		add("machines", DeclMachine, d.Name, d.Pos)
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

// Index returns the spec's declaration index, building it on first use for
// a spec Validate has not seen. Validate rebuilds it, so a Resolved spec's
// index is only read, never written, by the backends.
func (s *Spec) Index() *Index {
	if s.idx == nil {
		s.idx = indexSpec(s)
	}
	return s.idx
}

// Spec is the spec whose declarations x finds: with Spec.IndexOf, the spec
// that declares a type.
func (x *Index) Spec() *Spec { return x.spec }

// WireFields returns the fields a named record or variant carries in JSON.
func (x *Index) WireFields(name string) []*Field {
	if r := x.Records[name]; r != nil {
		return r.Fields
	}
	if uv, ok := x.Variants[name]; ok {
		return append(slices.Clone(uv.Union.Common), uv.Variant.Fields...)
	}
	return nil
}

// Reach adds every type name reachable from fields, through records and
// variants, to seen.
func (x *Index) Reach(fields []*Field, seen map[string]bool) {
	for _, f := range fields {
		if f.Type == nil || !f.Wire() {
			continue
		}
		f.Type.Walk(func(t *Type) {
			if t.Kind != TypeNamed || seen[t.Name] {
				return
			}
			seen[t.Name] = true
			x.Reach(x.WireFields(t.Name), seen)
		})
	}
}

// Stringy reports whether t is written as a JSON string: string, an id or an enum.
func (x *Index) Stringy(t *Type) bool {
	if t.Kind == TypeBuiltin {
		return t.Scalar().Kind == ScalarString
	}
	return t.Kind == TypeNamed && (x.IDs[t.Name] != nil || x.Enums[t.Name] != nil)
}

// Methods returns a face's method set, embeds included, by name.
func (x *Index) Methods(name string, seen map[string]bool) map[string]*Method {
	out := map[string]*Method{}
	f := x.Faces[name]
	if f == nil || seen[name] {
		return out
	}
	seen[name] = true
	for _, e := range f.Embeds {
		for k, m := range x.Methods(e.Name, seen) {
			out[k] = m
		}
	}
	for _, m := range f.Methods {
		out[m.Name] = m
	}
	return out
}
