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
