package gen

// Deriving one shape from the one before it (decision 0173): the check of
// each field's from, default and map and of the shape's drop, which also
// builds the shape's Conversion. validate_evolution.go says which shapes
// derive from which.

import (
	"slices"
)

// A derivation is one shape being derived from an older one: where the
// mistakes go, the older shape's wire fields, and which of them the newer
// shape drops and takes.
type derivation struct {
	d             *deriver
	what, oldName string
	prev          int // the older fact version's number; 0 for a record or variant
	old           []*Field
	names         []string
	dropped       map[string]Ref
	taken         map[*Field]string // an old field, and the new field that took its value
	ok            bool
}

// derive fills c with the assigns that give each wire field of the newer
// shape (newFields, at what) its value from the older shape (oldFields,
// named oldName), and reports whether it could: every mistake is reported
// at its node, and an older field neither carried nor dropped at pos.
//
// For a fact version, prev is the number of the older version: a field
// saying since: that version is checked by the since: rules already, which
// report it missing there or of another type, so derive does not again.
func (d *deriver) derive(c *Conversion, what, oldName string, prev int, oldFields, newFields []*Field, drop []Ref, pos Pos) bool {
	s := &derivation{d: d, what: what, oldName: oldName, prev: prev, old: WireFields(oldFields), dropped: map[string]Ref{}, taken: map[*Field]string{}, ok: true}
	for _, f := range s.old {
		s.names = append(s.names, f.Name)
	}
	s.drops(drop)
	for _, nf := range newFields {
		if a := s.field(nf); a != nil {
			c.Assigns = append(c.Assigns, a)
		}
	}
	s.accounted(pos)
	return s.ok
}

func (s *derivation) bad(p Pos, format string, args ...any) {
	s.d.v.add(p, format, args...)
	s.ok = false
}

// find is the older shape's wire field name, or nil.
func (s *derivation) find(name string) *Field {
	for _, f := range s.old {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// drops checks the shape's drop: names of the older shape's fields, once.
func (s *derivation) drops(drop []Ref) {
	for _, r := range drop {
		switch {
		case s.find(r.Name) == nil:
			s.bad(r.Pos, "%s.drop: %s has no field %s%s", s.what, s.oldName, r.Name, didYouMean(r.Name, s.names))
		case s.dropped[r.Name].Name != "":
			s.bad(r.Pos, "%s.drop: %s is listed twice", s.what, r.Name)
		default:
			s.dropped[r.Name] = r
		}
	}
}

// field is how the newer shape's field nf gets its value, or nil when it
// does not travel or a mistake was reported.
func (s *derivation) field(nf *Field) *Assign {
	fwhat := s.what + ".fields." + nf.Name
	der := nf.Derive
	if !nf.Wire() {
		if der != nil {
			s.bad(nf.Pos, "%s: %s never travels in JSON, so history holds no value for it to derive", fwhat, nf.Name)
		}
		return nil
	}
	if der == nil {
		der = &Derivation{}
	}
	explicit := der.From.Name != ""
	if nf.Since > 0 && (explicit || der.Default != nil) {
		s.bad(nf.SincePos, "%s.since: since: says the field is carried unchanged; with from: or default: say one or the other", fwhat)
		return nil
	}
	var src *Field
	switch {
	case explicit:
		src = s.find(der.From.Name)
	case s.dropped[nf.Name].Name == "":
		src = s.find(nf.Name)
	}
	switch {
	case explicit && der.Default != nil:
		s.bad(der.Default.Pos, "%s.default: from: already says where the value comes from; a default is for a field %s lacks", fwhat, s.oldName)
	case explicit && src == nil:
		s.bad(der.From.Pos, "%s.from: %s has no field %s%s", fwhat, s.oldName, der.From.Name, didYouMean(der.From.Name, s.names))
	case explicit && s.dropped[src.Name].Name != "":
		s.bad(der.From.Pos, "%s.from: %s is dropped (drop:) and carried here; say one or the other", fwhat, src.Name)
	case der.Default != nil && src != nil:
		s.bad(der.Default.Pos, "%s.default: %s has a field %s, whose value this field carries; to give history the default instead, drop it (drop: [%s])", fwhat, s.oldName, nf.Name, nf.Name)
	case s.prev > 0 && nf.Since == s.prev && (src == nil || src.Type.String() != nf.Type.String()):
		if src != nil {
			s.taken[src] = nf.Name
		}
		s.ok = false // reported by the since: rules
	case der.Default != nil:
		return s.defaulted(nf, der, fwhat)
	case src != nil:
		return s.carried(nf, der, src, explicit, fwhat)
	case len(der.Map) > 0:
		s.bad(der.MapPos, "%s.map: %s has no field %s to map values from; say from:", fwhat, s.oldName, nf.Name)
	case WireRequired(nf):
		s.bad(nf.Pos, "%s: %s is required, and %s has no field %s: give it default:, or from: the field it comes from, or make it optional: true", fwhat, nf.Name, s.oldName, nf.Name)
	default:
		return &Assign{Field: nf} // new and optional: its zero
	}
	return nil
}

// defaulted is nf given its default, when the default fits.
func (s *derivation) defaulted(nf *Field, der *Derivation, fwhat string) *Assign {
	if len(der.Map) > 0 {
		s.bad(der.MapPos, "%s.map: map: maps the values of a field %s has (from:); a default is one value", fwhat, s.oldName)
		return nil
	}
	if why := literalFits(s.d.x, der.Default, nf.Type); why != "" {
		s.bad(der.Default.Pos, "%s.default: %s", fwhat, why)
		return nil
	}
	return &Assign{Field: nf, Default: der.Default}
}

// carried is nf taking the value of the older field src, converted, when
// the conversion loses nothing.
func (s *derivation) carried(nf *Field, der *Derivation, src *Field, explicit bool, fwhat string) *Assign {
	s.taken[src] = nf.Name // two fields may take one old field's value
	conv, why := s.d.convert(src.Type, nf.Type, der, !WireRequired(nf), fwhat)
	switch {
	case conv == nil && why == "":
		s.ok = false // a type that did not resolve, reported already
	case conv == nil:
		at := nf.Type.Pos
		if explicit {
			at = der.From.Pos
		}
		s.bad(at, "%s: cannot derive %s from %s's %s (%s): %s", fwhat, nf.Type, s.oldName, src.Name, src.Type, why)
	case src.Optional && WireRequired(nf) && !zeroIsAValue(s.d.x, nf.Type):
		s.bad(nf.Pos, "%s: %s is required, and %s's %s is optional: history that leaves it out has no %s to give; keep it optional: true", fwhat, nf.Name, s.oldName, src.Name, nf.Type)
	case src.Optional && conv.FromBool && slices.ContainsFunc(der.Map, func(m *ValueMap) bool { return m.From == "false" }):
		s.bad(der.MapPos, "%s.map: %s's %s is optional, so false is its zero and history never writes it: map only true", fwhat, s.oldName, src.Name)
	default:
		return &Assign{Field: nf, Source: src, Conv: conv}
	}
	return nil
}

// accounted reports, at pos, each older field the newer shape neither
// carries nor drops, and each it does both.
func (s *derivation) accounted(pos Pos) {
	for _, of := range s.old {
		by, carried := s.taken[of]
		r, isDropped := s.dropped[of.Name]
		switch {
		case carried && isDropped:
			s.bad(r.Pos, "%s.drop: %s is carried by the field %s too; drop it or carry it", s.what, of.Name, by)
		case !carried && !isDropped:
			s.bad(pos, "%s: %s's field %s is neither carried (a field %s, or from: %s) nor dropped (drop: [%s])", s.what, s.oldName, of.Name, of.Name, of.Name, of.Name)
		}
	}
}
