package gen

// Validate's checks of the evolution declarations (decision 0173), which
// also resolve them into the plan the backends emit: a Conversion for each
// derived fact version, record and variant (evolution.go).

import (
	"fmt"
	"slices"
	"strings"
)

// A deriver resolves one spec's derivations. Conversions are memoized by
// their two struct names, so a record reached from two fact versions is
// derived (and its mistakes reported) once.
type deriver struct {
	v      *validator
	x      *Index
	shapes map[string]*Conversion
}

// evolution checks every derivation the spec declares and records the
// conversions: records and unions first, since fact versions reach them.
func (v *validator) evolution() {
	d := &deriver{v: v, x: v.spec.idx, shapes: map[string]*Conversion{}}
	d.records()
	d.unions()
	d.facts()
	for _, c := range v.spec.Conversions() {
		v.claimInternal("upcast"+c.Name(), "the upcast from "+c.From+" to "+c.To)
	}
}

// claimInternal claims an unexported name jobgen generates, reporting the
// source that declares it too.
func (v *validator) claimInternal(name, what string) {
	if first, dup := v.idents[name]; dup && first.pos.File != "" {
		v.add(first.pos, "%s is declared by jobgen's own generated %s; rename it", name, what)
		return
	}
	v.idents[name] = ident{what: "generated " + name}
}

// facts derives each live version with no hand-written upcaster from the
// declarations of the version after it.
func (d *deriver) facts() {
	for _, f := range d.v.spec.Facts {
		what := "facts." + f.Name
		for i, fv := range f.Versions {
			vwhat := fmt.Sprintf("%s.versions.v%d", what, fv.Number)
			var prev *FactVersion
			if i > 0 {
				prev = f.Versions[i-1]
			}
			switch {
			case prev == nil:
				d.nothingToDerive(fv.Fields, fv.Drop, vwhat, fmt.Sprintf("v%d derives from no earlier version", fv.Number))
			case prev.Retired:
				d.nothingToDerive(fv.Fields, fv.Drop, vwhat, fmt.Sprintf("v%d is retired, so nothing derives from it", prev.Number))
			case prev.Upcast.Name != "":
				d.nothingToDerive(fv.Fields, fv.Drop, vwhat, fmt.Sprintf("v%d is read by its hand-written upcaster %s, which these declarations do not drive", prev.Number, prev.Upcast.Name))
			}
			if fv.Retired || fv == f.Latest() || fv.Upcast.Name != "" {
				continue
			}
			next := f.Versions[i+1]
			if next.Retired {
				d.v.add(fv.Pos, "%s: v%d after it is retired, so v%d cannot be derived step by step: name an upcaster to v%d (upcast:) or mark it retired: true", vwhat, next.Number, fv.Number, f.Latest().Number)
				continue
			}
			c := &Conversion{Kind: ShapeFact, From: f.StructName(fv), To: f.StructName(next)}
			nwhat := fmt.Sprintf("%s.versions.v%d", what, next.Number)
			if d.derive(c, nwhat, fmt.Sprintf("v%d", fv.Number), fv.Number, fv.Fields, next.Fields, next.Drop, next.Pos) {
				fv.Derived = c
			}
		}
	}
}

// records derives each record that says from: from that record.
func (d *deriver) records() {
	for _, r := range d.v.spec.Records {
		what := "records." + r.Name
		if r.From.Name == "" {
			d.nothingToDerive(r.Fields, r.Drop, what, what+" derives from no record; say from: on it first")
			continue
		}
		old := d.x.Records[r.From.Name]
		switch {
		case old == nil:
			d.v.add(r.From.Pos, "%s.from: no record %s%s", what, r.From.Name, didYouMean(r.From.Name, recordNames(d.v.spec)))
			continue
		case old == r:
			d.v.add(r.From.Pos, "%s.from: a record cannot derive from itself", what)
			continue
		}
		c := d.shape(ShapeRecord, old.Name, r.Name)
		d.derive(c, what, old.Name, 0, old.Fields, r.Fields, r.Drop, r.Pos)
	}
}

// unions derives each variant of a union that says from: from the variant
// of the same tag in that union, and checks that every old tag is kept and
// every new one says added: true.
func (d *deriver) unions() {
	for _, u := range d.v.spec.Unions {
		what := "unions." + u.Name
		if u.From.Name == "" {
			why := what + " derives from no union; say from: on it first"
			d.nothingToDerive(u.Common, nil, what+".common", why)
			for _, vr := range u.Variants {
				vwhat := what + ".variants." + vr.Name
				if vr.Added {
					d.v.add(vr.AddedPos, "%s.added: %s", vwhat, why)
				}
				d.nothingToDerive(vr.Fields, vr.Drop, vwhat, why)
			}
			continue
		}
		old := d.x.Unions[u.From.Name]
		switch {
		case old == nil:
			d.v.add(u.From.Pos, "%s.from: no union %s%s", what, u.From.Name, didYouMean(u.From.Name, unionNames(d.v.spec)))
			continue
		case old == u:
			d.v.add(u.From.Pos, "%s.from: a union cannot derive from itself", what)
			continue
		case old.Discriminator != u.Discriminator:
			d.v.add(u.DiscPos, "%s.discriminator: %s differs from %s's %s; a derived union keeps the discriminator", what, u.Discriminator, old.Name, old.Discriminator)
			continue
		}
		for _, ov := range old.Variants {
			if !slices.ContainsFunc(u.Variants, func(vr *Variant) bool { return vr.Tag.Text() == ov.Tag.Text() }) {
				d.v.add(u.Pos, "%s: %s's variant %s (tag %s) is gone; a derived union keeps every variant, since history holds them", what, old.Name, ov.Name, ov.Tag.Text())
			}
		}
		for _, vr := range u.Variants {
			vwhat := what + ".variants." + vr.Name
			i := slices.IndexFunc(old.Variants, func(ov *Variant) bool { return ov.Tag.Text() == vr.Tag.Text() })
			switch {
			case i >= 0 && vr.Added:
				d.v.add(vr.AddedPos, "%s.added: %s's variant %s has tag %s already", vwhat, old.Name, old.Variants[i].Name, vr.Tag.Text())
			case i < 0 && !vr.Added:
				d.v.add(vr.Pos, "%s: tag %s is new to %s; say added: true", vwhat, vr.Tag.Text(), old.Name)
			case i < 0:
				d.nothingToDerive(vr.Fields, vr.Drop, vwhat, vr.Name+" is added, so it derives from no variant")
			default:
				ov := old.Variants[i]
				c := d.shape(ShapeVariant, ov.Name, vr.Name)
				c.Union, c.Tag = u, vr.Tag
				d.derive(c, vwhat, ov.Name, 0, append(slices.Clone(old.Common), ov.Fields...), append(slices.Clone(u.Common), vr.Fields...), vr.Drop, vr.Pos)
			}
		}
	}
}

// shape is the memoized conversion from the struct from to the struct to.
func (d *deriver) shape(kind ShapeKind, from, to string) *Conversion {
	key := from + "\x00" + to
	if c, ok := d.shapes[key]; ok {
		return c
	}
	c := &Conversion{Kind: kind, From: from, To: to}
	d.shapes[key] = c
	return c
}

// nothingToDerive reports derivation keys on fields of a shape that
// derives from nothing; why says so.
func (d *deriver) nothingToDerive(fields []*Field, drop []Ref, what, why string) {
	for _, r := range drop {
		d.v.add(r.Pos, "%s.drop: %s", what, why)
		break
	}
	for _, f := range fields {
		if f.Derive == nil {
			continue
		}
		fwhat := what + ".fields." + f.Name
		switch {
		case f.Derive.From.Name != "":
			d.v.add(f.Derive.From.Pos, "%s.from: %s", fwhat, why)
		case f.Derive.Default != nil:
			d.v.add(f.Derive.Default.Pos, "%s.default: %s", fwhat, why)
		default:
			d.v.add(f.Derive.MapPos, "%s.map: %s", fwhat, why)
		}
	}
}

// derive fills c with the assigns that give each wire field of the newer
// shape (newFields, at what) its value from the older shape (oldFields,
// named oldName), and reports whether it could: every mistake is reported
// at its node.
//
// For a fact version, prev is the number of the older version: a field
// saying since: that version is checked by the since: rules already, which
// report it missing there or of another type, so derive does not again.
func (d *deriver) derive(c *Conversion, what, oldName string, prev int, oldFields, newFields []*Field, drop []Ref, pos Pos) bool {
	ok := true
	bad := func(p Pos, format string, args ...any) {
		d.v.add(p, format, args...)
		ok = false
	}
	oldWire := WireFields(oldFields)
	names := make([]string, len(oldWire))
	for i, f := range oldWire {
		names[i] = f.Name
	}
	find := func(name string) *Field {
		for _, f := range oldWire {
			if f.Name == name {
				return f
			}
		}
		return nil
	}
	dropped := map[string]Ref{}
	for _, r := range drop {
		switch {
		case find(r.Name) == nil:
			bad(r.Pos, "%s.drop: %s has no field %s%s", what, oldName, r.Name, didYouMean(r.Name, names))
		case dropped[r.Name].Name != "":
			bad(r.Pos, "%s.drop: %s is listed twice", what, r.Name)
		default:
			dropped[r.Name] = r
		}
	}
	taken := map[*Field]string{}
	for _, nf := range newFields {
		fwhat := what + ".fields." + nf.Name
		der := nf.Derive
		if !nf.Wire() {
			if der != nil {
				bad(nf.Pos, "%s: %s never travels in JSON, so history holds no value for it to derive", fwhat, nf.Name)
			}
			continue
		}
		if der == nil {
			der = &Derivation{}
		}
		explicit := der.From.Name != ""
		if nf.Since > 0 && (explicit || der.Default != nil) {
			bad(nf.SincePos, "%s.since: since: says the field is carried unchanged; with from: or default: say one or the other", fwhat)
			continue
		}
		a := &Assign{Field: nf}
		var src *Field
		switch {
		case explicit:
			src = find(der.From.Name)
		case dropped[nf.Name].Name == "":
			src = find(nf.Name)
		}
		switch {
		case explicit && der.Default != nil:
			bad(der.Default.Pos, "%s.default: from: already says where the value comes from; a default is for a field %s lacks", fwhat, oldName)
			continue
		case explicit && src == nil:
			bad(der.From.Pos, "%s.from: %s has no field %s%s", fwhat, oldName, der.From.Name, didYouMean(der.From.Name, names))
			continue
		case explicit && dropped[src.Name].Name != "":
			bad(der.From.Pos, "%s.from: %s is dropped (drop:) and carried here; say one or the other", fwhat, src.Name)
			continue
		case der.Default != nil && src != nil:
			bad(der.Default.Pos, "%s.default: %s has a field %s, whose value this field carries; to give history the default instead, drop it (drop: [%s])", fwhat, oldName, nf.Name, nf.Name)
			continue
		case prev > 0 && nf.Since == prev && (src == nil || src.Type.String() != nf.Type.String()):
			if src != nil {
				taken[src] = nf.Name
			}
			ok = false // reported by the since: rules
			continue
		case der.Default != nil:
			if len(der.Map) > 0 {
				bad(der.MapPos, "%s.map: map: maps the values of a field %s has (from:); a default is one value", fwhat, oldName)
				continue
			}
			if why := literalFits(d.x, der.Default, nf.Type); why != "" {
				bad(der.Default.Pos, "%s.default: %s", fwhat, why)
				continue
			}
			a.Default = der.Default
		case src != nil:
			taken[src] = nf.Name // two fields may take one old field's value
			conv, why := d.convert(src.Type, nf.Type, der, !WireRequired(nf), fwhat)
			if conv == nil {
				if why != "" {
					at := nf.Type.Pos
					if explicit {
						at = der.From.Pos
					}
					bad(at, "%s: cannot derive %s from %s's %s (%s): %s", fwhat, nf.Type, oldName, src.Name, src.Type, why)
				}
				continue
			}
			if src.Optional && WireRequired(nf) && !zeroIsAValue(d.x, nf.Type) {
				bad(nf.Pos, "%s: %s is required, and %s's %s is optional: history that leaves it out has no %s to give; keep it optional: true", fwhat, nf.Name, oldName, src.Name, nf.Type)
				continue
			}
			if src.Optional && conv.FromBool && slices.ContainsFunc(der.Map, func(m *ValueMap) bool { return m.From == "false" }) {
				bad(der.MapPos, "%s.map: %s's %s is optional, so false is its zero and history never writes it: map only true", fwhat, oldName, src.Name)
				continue
			}
			a.Source, a.Conv = src, conv
		default:
			if len(der.Map) > 0 {
				bad(der.MapPos, "%s.map: %s has no field %s to map values from; say from:", fwhat, oldName, nf.Name)
				continue
			}
			if WireRequired(nf) {
				bad(nf.Pos, "%s: %s is required, and %s has no field %s: give it default:, or from: the field it comes from, or make it optional: true", fwhat, nf.Name, oldName, nf.Name)
				continue
			}
		}
		c.Assigns = append(c.Assigns, a)
	}
	for _, of := range oldWire {
		_, carried := taken[of]
		r, isDropped := dropped[of.Name]
		switch {
		case carried && isDropped:
			bad(r.Pos, "%s.drop: %s is carried by the field %s too; drop it or carry it", what, of.Name, taken[of])
		case !carried && !isDropped:
			bad(pos, "%s: %s's field %s is neither carried (a field %s, or from: %s) nor dropped (drop: [%s])", what, oldName, of.Name, of.Name, of.Name, of.Name)
		}
	}
	return ok
}

// convert is how a value of the older type o becomes one of the newer type
// n, with der's value map; optional says the field may take its zero value
// for an enum value it cannot map. It returns nil with why when it cannot,
// and nil with no why when a type did not resolve (reported already).
func (d *deriver) convert(o, n *Type, der *Derivation, optional bool, fwhat string) (*Conv, string) {
	if unresolved(o) || unresolved(n) {
		return nil, ""
	}
	if o.String() == n.String() && (len(der.Map) == 0 || !d.isEnum(n)) {
		if len(der.Map) > 0 {
			return nil, "map: maps values to an enum, and " + n.String() + " is not one"
		}
		return &Conv{Kind: ConvSame, From: o, To: n}, ""
	}
	nested := func(kind ConvKind, oe, ne *Type, wrap bool) (*Conv, string) {
		e, why := d.convert(oe, ne, der, false, fwhat)
		if e == nil {
			return nil, why
		}
		return &Conv{Kind: kind, From: o, To: n, Elem: e, Wrap: wrap}, ""
	}
	switch {
	case o.Kind == TypePointer && n.Kind == TypePointer:
		e, why := d.convert(o.Elem, n.Elem, der, true, fwhat)
		if e == nil {
			return nil, why
		}
		return &Conv{Kind: ConvPointer, From: o, To: n, Elem: e}, ""
	case n.Kind == TypePointer:
		e, why := d.convert(o, n.Elem, der, optional, fwhat)
		if e == nil {
			return nil, why
		}
		return &Conv{Kind: ConvPointer, From: o, To: n, Elem: e, Wrap: true}, ""
	case o.Kind == TypePointer:
		return nil, fmt.Sprintf("a %s may be null, which %s cannot hold", o, n)
	case o.Kind == TypeSlice && n.Kind == TypeSlice:
		return nested(ConvSlice, o.Elem, n.Elem, false)
	case o.Kind == TypeMap && n.Kind == TypeMap:
		if o.Key.String() != n.Key.String() {
			return nil, fmt.Sprintf("the keys changed from %s to %s", o.Key, n.Key)
		}
		return nested(ConvMap, o.Elem, n.Elem, false)
	case d.isEnum(n):
		return d.enumConv(o, n, der, optional, fwhat)
	case len(der.Map) > 0:
		return nil, "map: maps values to an enum, and " + n.String() + " is not one"
	case o.Kind == TypeBuiltin && n.Kind == TypeBuiltin:
		a, b := o.Scalar(), n.Scalar()
		if Widens(o.Name, n.Name) {
			return &Conv{Kind: ConvCast, From: o, To: n}, ""
		}
		if (a.Integer() || a.Kind == ScalarFloat) && (b.Integer() || b.Kind == ScalarFloat) {
			return nil, fmt.Sprintf("%s → %s narrows: history may hold values %s cannot; keep %s, or add a field", o, n, n, o)
		}
	case n.Scalar().Kind == ScalarString && (d.isEnum(o) || d.idKind(o) == IDString):
		return &Conv{Kind: ConvCast, From: o, To: n}, ""
	case o.Scalar().Kind == ScalarString && d.idKind(n) == IDString:
		return &Conv{Kind: ConvCast, From: o, To: n}, ""
	case o.Kind == TypeNamed && n.Kind == TypeNamed && o.decl == DeclRecord && n.decl == DeclRecord:
		r := d.x.Records[n.Name]
		if r == nil || r.From.Name != o.Name {
			return nil, fmt.Sprintf("records.%s does not derive from %s; say from: %s on it", n.Name, o.Name, o.Name)
		}
		return &Conv{Kind: ConvShape, From: o, To: n, Shape: d.shape(ShapeRecord, o.Name, n.Name)}, ""
	case o.Kind == TypeNamed && n.Kind == TypeNamed && o.decl == DeclVariant && n.decl == DeclVariant:
		ov, nv := d.x.Variants[o.Name], d.x.Variants[n.Name]
		switch {
		case nv.Union.From.Name != ov.Union.Name:
			return nil, fmt.Sprintf("unions.%s does not derive from %s; say from: %s on it", nv.Union.Name, ov.Union.Name, ov.Union.Name)
		case nv.Variant.Tag.Text() != ov.Variant.Tag.Text():
			return nil, fmt.Sprintf("%s's tag is %s and %s's is %s; a variant derives from the variant of its tag", n, nv.Variant.Tag.Text(), o, ov.Variant.Tag.Text())
		}
		return &Conv{Kind: ConvShape, From: o, To: n, Shape: d.shape(ShapeVariant, o.Name, n.Name)}, ""
	}
	return nil, fmt.Sprintf("a %s is not a %s, and no conversion loses nothing between them", o, n)
}

// enumConv converts an enum or bool to the enum n, value by value: the
// value map first, then the value itself when n has it, then (for an
// optional field) the zero value.
func (d *deriver) enumConv(o, n *Type, der *Derivation, optional bool, fwhat string) (*Conv, string) {
	ne := d.x.Enums[n.Name]
	var olds []string
	fromBool := false
	switch {
	case d.isEnum(o):
		for _, v := range d.x.Enums[o.Name].Values {
			olds = append(olds, v.Value)
		}
	case o.Scalar().Kind == ScalarBool:
		olds, fromBool = []string{"true", "false"}, true
	default:
		return nil, fmt.Sprintf("only an enum or a bool converts to the enum %s", n)
	}
	has := func(e *Enum, val string) bool {
		return slices.ContainsFunc(e.Values, func(v *EnumValue) bool { return v.Value == val })
	}
	var newValues []string
	for _, v := range ne.Values {
		newValues = append(newValues, v.Value)
	}
	mapped := map[string]string{}
	bad := ""
	for _, m := range der.Map {
		switch {
		case !slices.Contains(olds, m.From):
			d.v.add(m.FromPos, "%s.map: %s is not a value of %s (%s)", fwhat, m.From, o, strings.Join(olds, ", "))
			bad = " "
		case !has(ne, m.To):
			d.v.add(m.ToPos, "%s.map.%s: %s is not a value of %s%s", fwhat, m.From, m.To, n, didYouMean(m.To, newValues))
			bad = " "
		default:
			mapped[m.From] = m.To
		}
	}
	if bad != "" {
		return nil, ""
	}
	c := &Conv{Kind: ConvEnum, From: o, To: n, FromBool: fromBool}
	for _, old := range olds {
		to, ok := mapped[old]
		switch {
		case ok:
		case has(ne, old):
			to = old
		case !optional:
			return nil, fmt.Sprintf("%s's value %s is not a value of %s, and the field is required: map it (map: {%s: …})", o, old, n, old)
		}
		c.Values = append(c.Values, &ValueMap{From: old, To: to})
	}
	return c, ""
}

func (d *deriver) isEnum(t *Type) bool {
	return t.Kind == TypeNamed && t.decl == DeclEnum && d.x.Enums[t.Name] != nil
}

// idKind is how the id t names is represented; "" when t names no id of
// this spec.
func (d *deriver) idKind(t *Type) IDKind {
	if t.Kind == TypeNamed && t.decl == DeclID && d.x.IDs[t.Name] != nil {
		return d.x.IDs[t.Name].Kind
	}
	return ""
}

// unresolved reports whether t names something Validate could not resolve.
func unresolved(t *Type) bool {
	bad := false
	t.Walk(func(u *Type) {
		if u.Kind == TypeNamed && u.decl == DeclNone {
			bad = true
		}
	})
	return bad
}

// literalFits says why the default lit cannot be a value of type t; ""
// when it can.
func literalFits(x *Index, lit *Literal, t *Type) string {
	kinds := [...]string{"a string", "a bool", "an integer", "a number"}
	wrong := func(want string) string {
		return fmt.Sprintf("%s is %s, and the field holds %s (%s)", lit.Text, kinds[lit.Kind], want, t)
	}
	if t.Kind == TypeNamed {
		switch {
		case t.decl == DeclEnum && x.Enums[t.Name] != nil:
			e := x.Enums[t.Name]
			var values []string
			for _, v := range e.Values {
				values = append(values, v.Value)
			}
			switch {
			case lit.Kind != LitString:
				return wrong("a value of the enum " + t.Name)
			case !slices.Contains(values, lit.Text):
				return fmt.Sprintf("%s is not a value of %s%s", lit.Text, t.Name, didYouMean(lit.Text, values))
			}
			return ""
		case t.decl == DeclID && x.IDs[t.Name] != nil && x.IDs[t.Name].Kind == IDString:
			if lit.Kind != LitString {
				return wrong("a string id")
			}
			return ""
		}
	}
	s := t.Scalar()
	switch s.Kind {
	case ScalarString:
		if lit.Kind != LitString {
			return wrong("a string")
		}
	case ScalarBool:
		if lit.Kind != LitBool {
			return wrong("a bool")
		}
	case ScalarInt, ScalarUint:
		if lit.Kind != LitInt {
			return wrong("an integer")
		}
		n := lit.Int()
		lo, hi, bounded := s.Range()
		switch {
		case s.Kind == ScalarUint && n < 0:
			return fmt.Sprintf("%s is negative, and %s holds none", lit.Text, t)
		case bounded && (n < lo || n > hi):
			return fmt.Sprintf("%s is out of %s's range (%d to %d)", lit.Text, t, lo, hi)
		case n > maxSafe || n < -maxSafe:
			return fmt.Sprintf("%s is past ±(2^53 − 1), which TypeScript's number cannot hold exactly", lit.Text)
		}
	case ScalarFloat:
		if lit.Kind != LitInt && lit.Kind != LitFloat {
			return wrong("a number")
		}
		if lit.Kind == LitFloat && (strings.Contains(lit.Text, "inf") || strings.Contains(lit.Text, "nan") || strings.Contains(lit.Text, "Inf") || strings.Contains(lit.Text, "NaN")) {
			return fmt.Sprintf("%s is not a finite number, which JSON cannot write", lit.Text)
		}
	default:
		return fmt.Sprintf("a default is a string, number, bool, enum value or string id, and %s is none of them; make the field optional: true, or from: a field", t)
	}
	return ""
}

// zeroIsAValue reports whether t's zero value is one its decoders read
// back: a string, bool, number or string id, not an enum, uuid or record.
func zeroIsAValue(x *Index, t *Type) bool {
	switch t.Scalar().Kind {
	case ScalarString, ScalarBool, ScalarInt, ScalarUint, ScalarFloat:
		return true
	}
	return t.Kind == TypeNamed && t.decl == DeclID && x.IDs[t.Name] != nil && x.IDs[t.Name].Kind == IDString
}

// maxSafe is the largest integer a float64 (TypeScript's number) holds exactly.
const maxSafe = 1<<53 - 1

func recordNames(s *Spec) []string {
	var out []string
	for _, r := range s.Records {
		out = append(out, r.Name)
	}
	return out
}

func unionNames(s *Spec) []string {
	var out []string
	for _, u := range s.Unions {
		out = append(out, u.Name)
	}
	return out
}

// Widens reports whether every JSON value of the predeclared type o decodes
// into n, so history written as o reads as n: an integer widened, an
// unsigned integer into a wider signed one, an integer of at most 32 bits
// into float64, a float widened.
func Widens(o, n string) bool {
	if o == n {
		return true
	}
	a, b := ScalarOf(o), ScalarOf(n)
	switch {
	case a.Integer() && b.Integer():
		return (a.Kind == b.Kind && b.Bits >= a.Bits) || (a.Kind == ScalarUint && b.Kind == ScalarInt && b.Bits > a.Bits)
	case a.Integer() && b.Kind == ScalarFloat && b.Bits == 64:
		return a.Bits <= 32 // float64 holds every 32-bit integer exactly
	case a.Kind == ScalarFloat && b.Kind == ScalarFloat:
		return b.Bits >= a.Bits
	}
	return false
}
