package gen

// A declIndex finds a spec's declarations by name. Validate builds it once
// (see Spec.index) and the validator, the docs and the backends read it
// instead of each indexing the spec again. A name declared twice is an
// error Validate reports; the index keeps the first declaration.
type declIndex struct {
	// decls holds every name a type expression may refer to, and machines.
	decls map[string]decl
	enums map[string]*Enum
	faces map[string]*Face
	// machines maps a states enum to the first machine it drives.
	machines map[string]*Machine
}

// indexSpec indexes s's declarations.
func indexSpec(s *Spec) *declIndex {
	x := &declIndex{decls: map[string]decl{}, enums: map[string]*Enum{}, faces: map[string]*Face{}, machines: map[string]*Machine{}}
	put := func(name string, kind declKind, pos Pos) {
		if name == "" {
			return
		}
		if _, dup := x.decls[name]; !dup {
			x.decls[name] = decl{kind: kind, pos: pos}
		}
	}
	for _, d := range s.IDs {
		put(d.Name, declID, d.Pos)
	}
	for _, d := range s.Enums {
		put(d.Name, declEnum, d.Pos)
		if _, dup := x.enums[d.Name]; !dup {
			x.enums[d.Name] = d
		}
	}
	for _, d := range s.Records {
		put(d.Name, declRecord, d.Pos)
	}
	for _, d := range s.Unions {
		put(d.Name, declUnion, d.Pos)
		for _, vr := range d.Variants {
			put(vr.Name, declVariant, vr.Pos)
		}
	}
	for _, d := range s.Faces {
		put(d.Name, declFace, d.Pos)
		if _, dup := x.faces[d.Name]; !dup {
			x.faces[d.Name] = d
		}
	}
	for _, d := range s.Machines {
		put(d.Name, declMachine, d.Pos)
		if _, dup := x.machines[d.States.Name]; !dup && d.States.Name != "" {
			x.machines[d.States.Name] = d
		}
	}
	return x
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
