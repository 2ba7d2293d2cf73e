package gen

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Breaking compares two specs of one vocabulary — the one released (old) and
// the one proposed (new) — and reports each change that would break someone
// relying on the old one. What "break" means depends on who relies on it,
// which is the finding's category:
//
//   - durable: facts, and the records, enums and ids they reach. History
//     written with the old spec must decode with the new one, forever.
//   - wire: unions (the follow stream, job starts), and the records, enums and
//     ids they reach. A reader built from the new spec must read what a writer
//     built from the old one sends, and fields must not change meaning under
//     the peers that still use the old one.
//   - goapi: the generated Go API — faces, and exported types that vanish.
//
// Deploy order matters for the wire: the rules assume readers are upgraded
// before writers, the order in which adding an optional field, an enum value
// or a variant is safe.

// A Category is who a breaking change breaks.
type Category string

// The categories of breaking changes.
const (
	Durable Category = "durable"
	Wire    Category = "wire"
	GoAPI   Category = "goapi"
)

// Categories returns every category, in the order documentation lists them.
func Categories() []Category { return []Category{Durable, Wire, GoAPI} }

// A Rule is one kind of breaking change, with a stable ID.
type Rule struct {
	ID         string
	Categories string // as documented; a finding's own categories may be fewer
	Summary    string
}

// The rule IDs. They are stable: specs name them in allow_breaking.
const (
	RuleFactDeleted             = "FACT_DELETED"
	RuleFactVersionDeleted      = "FACT_VERSION_DELETED"
	RuleFieldDeletedNotReserved = "FIELD_DELETED_NOT_RESERVED"
	RuleReservedNameDeleted     = "RESERVED_NAME_DELETED"
	RuleReservedNameReused      = "RESERVED_NAME_REUSED"
	RuleFieldDeleted            = "FIELD_DELETED"
	RuleFieldJSONNameChanged    = "FIELD_JSON_NAME_CHANGED"
	RuleFieldTypeChanged        = "FIELD_TYPE_CHANGED"
	RuleFieldMadeRequired       = "FIELD_MADE_REQUIRED"
	RuleFieldMadeTerminal       = "FIELD_MADE_TERMINAL"
	RuleRequiredFieldAdded      = "REQUIRED_FIELD_ADDED"
	RuleEnumValueDeleted        = "ENUM_VALUE_DELETED"
	RuleIDKindChanged           = "ID_KIND_CHANGED"
	RuleVariantDeleted          = "VARIANT_DELETED"
	RuleDiscriminatorChanged    = "DISCRIMINATOR_CHANGED"
	RuleVariantFieldMoved       = "VARIANT_FIELD_MOVED"
	RuleFaceMethodRemoved       = "FACE_METHOD_REMOVED"
	RuleFaceMethodChanged       = "FACE_METHOD_CHANGED"
	RuleTypeDeleted             = "TYPE_DELETED"
	RuleAllowanceUnused         = "ALLOWANCE_UNUSED"
)

// Rules returns every rule in the order the documentation lists them.
func Rules() []Rule {
	return []Rule{
		{RuleFactDeleted, "durable", "a fact was deleted; its history no longer decodes"},
		{RuleFactVersionDeleted, "durable", "a live fact version was deleted instead of marked retired: true"},
		{RuleFieldDeletedNotReserved, "durable", "a fact field was deleted without listing its name under the fact's reserved:"},
		{RuleReservedNameDeleted, "durable", "a name was removed from a fact's reserved: list, so it could come back with another meaning"},
		{RuleReservedNameReused, "durable", "a field uses a name (spec or JSON) the fact had reserved"},
		{RuleFieldDeleted, "durable, wire", "a field of a record or variant was deleted"},
		{RuleFieldJSONNameChanged, "durable, wire", "a field's JSON name changed"},
		{RuleFieldTypeChanged, "durable, wire", "a field's type changed in a way old JSON does not decode into (widening int32 → int64, T → *T, an enum or id → string are fine)"},
		{RuleFieldMadeRequired, "durable, wire", "an optional field became required (lists and maps excepted: they are never missing)"},
		{RuleFieldMadeTerminal, "durable, wire", "a field became terminal: true, so a value that is not a terminal state no longer decodes"},
		{RuleRequiredFieldAdded, "durable, wire", "a required field was added to an existing record, variant or fact version"},
		{RuleEnumValueDeleted, "durable, wire", "an enum value was deleted or renamed"},
		{RuleIDKindChanged, "goapi; durable, wire for string → uuid", "an id changed kind; old string ids need not parse as UUIDs"},
		{RuleVariantDeleted, "wire", "a union variant was deleted"},
		{RuleDiscriminatorChanged, "wire", "a union's discriminator field, or a variant's tag, changed"},
		{RuleVariantFieldMoved, "wire", "a field left a variant for another variant of the union"},
		{RuleFaceMethodRemoved, "goapi", "a face lost a method (directly or through embeds)"},
		{RuleFaceMethodChanged, "goapi", "a face method's signature changed"},
		{RuleTypeDeleted, "goapi; durable, wire when reached", "a declared type (id, enum, record, union, variant, face, machine) was deleted or renamed"},
		{RuleAllowanceUnused, "always reported", "an allow_breaking entry matches no finding; delete it"},
	}
}

// A Finding is one breaking change.
type Finding struct {
	Rule       string
	Path       string // where in the spec, as allow_breaking names it: "facts.job/settled.versions.v1.fields.at"
	Pos        Pos    // in the new spec, or in the old one for something deleted
	Msg        string
	Categories []Category // empty only for ALLOWANCE_UNUSED, which is always reported
}

// String formats the finding the way jobgen breaking prints it.
func (f Finding) String() string {
	s := fmt.Sprintf("%s: %s: %s: %s", f.Pos, f.Rule, f.Path, f.Msg)
	if len(f.Categories) > 0 {
		var names []string
		for _, c := range f.Categories {
			names = append(names, string(c))
		}
		s += " [" + strings.Join(names, ", ") + "]"
	}
	return s
}

// A BreakingReport is the outcome of comparing two specs.
type BreakingReport struct {
	Findings []Finding // what remains after allowances and the category filter, sorted
	Allowed  []Finding // findings the new spec's allow_breaking accepted
}

// Breaking compares old with new and reports the changes that break the
// given categories (all of them when none is given). Findings new accepts in
// allow_breaking are set apart; an allowance matching no finding of any
// category is itself a finding.
func Breaking(old, new *Spec, only ...Category) BreakingReport {
	c := newComparer(old, new)
	c.facts()
	c.types()
	c.records()
	c.enums()
	c.unions()
	c.faces()
	all := c.found
	slices.SortStableFunc(all, compareFindings)
	all = slices.CompactFunc(all, func(a, b Finding) bool { return a.Rule == b.Rule && a.Path == b.Path })

	var report BreakingReport
	used := make([]bool, len(new.AllowBreaking))
	for _, f := range all {
		allowed := false
		for i, a := range new.AllowBreaking {
			if a.Rule.Name == f.Rule && a.Path == f.Path {
				used[i], allowed = true, true
			}
		}
		switch {
		case allowed:
			report.Allowed = append(report.Allowed, f)
		case len(only) == 0 || slices.ContainsFunc(f.Categories, func(c Category) bool { return slices.Contains(only, c) }):
			report.Findings = append(report.Findings, f)
		}
	}
	for i, a := range new.AllowBreaking {
		if !used[i] {
			report.Findings = append(report.Findings, Finding{Rule: RuleAllowanceUnused, Path: a.Path, Pos: a.Pos,
				Msg: fmt.Sprintf("no %s finding has this path; the change was released or undone, so delete the allowance", a.Rule.Name)})
		}
	}
	slices.SortStableFunc(report.Findings, compareFindings)
	return report
}

func compareFindings(a, b Finding) int {
	return cmp.Or(comparePos(a.Pos, b.Pos), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Path, b.Path), cmp.Compare(a.Msg, b.Msg))
}

// A specIndex finds a spec's declarations by name.
type specIndex struct {
	spec     *Spec
	ids      map[string]*ID
	enums    map[string]*Enum
	records  map[string]*Record
	unions   map[string]*Union
	variants map[string]*Union // variant name → its union
	faces    map[string]*Face
	facts    map[string]*Fact
}

func index(s *Spec) *specIndex {
	x := &specIndex{spec: s, ids: map[string]*ID{}, enums: map[string]*Enum{}, records: map[string]*Record{},
		unions: map[string]*Union{}, variants: map[string]*Union{}, faces: map[string]*Face{}, facts: map[string]*Fact{}}
	for _, d := range s.IDs {
		x.ids[d.Name] = d
	}
	for _, d := range s.Enums {
		x.enums[d.Name] = d
	}
	for _, d := range s.Records {
		x.records[d.Name] = d
	}
	for _, d := range s.Unions {
		x.unions[d.Name] = d
		for _, v := range d.Variants {
			x.variants[v.Name] = d
		}
	}
	for _, d := range s.Faces {
		x.faces[d.Name] = d
	}
	for _, d := range s.Facts {
		x.facts[d.Name] = d
	}
	return x
}

func (x *specIndex) variant(name string) *Variant {
	u := x.variants[name]
	if u == nil {
		return nil
	}
	for _, v := range u.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// wireFields returns the fields a named record or variant carries in JSON.
func (x *specIndex) wireFields(name string) []*Field {
	if r := x.records[name]; r != nil {
		return r.Fields
	}
	if v := x.variant(name); v != nil {
		return append(slices.Clone(x.variants[name].Common), v.Fields...)
	}
	return nil
}

// reach adds every type name reachable from fields, through records and
// variants, to seen.
func (x *specIndex) reach(fields []*Field, seen map[string]bool) {
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

type comparer struct {
	old, new *specIndex
	durable  map[string]bool // type names the old spec's facts reach
	wire     map[string]bool // type names the old spec's unions reach
	found    []Finding
}

func newComparer(old, new *Spec) *comparer {
	c := &comparer{old: index(old), new: index(new), durable: map[string]bool{}, wire: map[string]bool{}}
	for _, f := range old.Facts {
		for _, v := range f.Versions {
			if !v.Retired {
				c.old.reach(v.Fields, c.durable)
			}
		}
	}
	for _, u := range old.Unions {
		c.wire[u.Name] = true
		for _, v := range u.Variants {
			c.wire[v.Name] = true
			c.old.reach(append(slices.Clone(u.Common), v.Fields...), c.wire)
		}
	}
	return c
}

// reachOf returns the categories a change to the old spec's type name breaks.
func (c *comparer) reachOf(name string) []Category {
	var out []Category
	if c.durable[name] {
		out = append(out, Durable)
	}
	if c.wire[name] {
		out = append(out, Wire)
	}
	return out
}

func (c *comparer) add(rule, path string, pos Pos, cats []Category, format string, args ...any) {
	order := Categories()
	cats = slices.Clone(cats)
	slices.SortFunc(cats, func(a, b Category) int { return cmp.Compare(slices.Index(order, a), slices.Index(order, b)) })
	c.found = append(c.found, Finding{Rule: rule, Path: path, Pos: pos, Msg: fmt.Sprintf(format, args...), Categories: cats})
}

func (c *comparer) facts() {
	durable := []Category{Durable}
	for _, of := range sortedBy(c.old.spec.Facts, func(f *Fact) string { return f.Name }) {
		path := "facts." + of.Name
		nf := c.new.facts[of.Name]
		if nf == nil {
			c.add(RuleFactDeleted, path, of.Pos, durable, "fact %s was deleted; its history would no longer decode (retire its versions instead)", of.Name)
			continue
		}
		reserved := map[string]bool{}
		for _, r := range nf.Reserved {
			reserved[r.Name] = true
		}
		for _, r := range of.Reserved {
			if !reserved[r.Name] {
				c.add(RuleReservedNameDeleted, path+".reserved."+r.Name, nf.Pos, durable, "%s is no longer reserved, so a field could reuse it with another meaning", r.Name)
			}
		}
		oldLive := map[int]bool{}
		for _, ov := range of.Versions {
			oldLive[ov.Number] = !ov.Retired
		}
		for _, nv := range nf.Versions {
			if nv.Retired || (oldLive[nv.Number] && nv != nf.Latest()) {
				continue // an old version keeps the names it always had
			}
			for _, fd := range nv.Fields {
				for _, r := range of.Reserved {
					if fd.Name == r.Name || fd.JSON == r.Name {
						c.add(RuleReservedNameReused, fmt.Sprintf("%s.versions.v%d.fields.%s", path, nv.Number, fd.Name), fd.Pos, durable,
							"%s was reserved (at %s); history may carry it with its old meaning", r.Name, r.Pos)
					}
				}
			}
		}
		for _, ov := range of.Versions {
			if ov.Retired {
				continue
			}
			vpath := fmt.Sprintf("%s.versions.v%d", path, ov.Number)
			var nv *FactVersion
			for _, v := range nf.Versions {
				if v.Number == ov.Number {
					nv = v
				}
			}
			switch {
			case nv == nil:
				c.add(RuleFactVersionDeleted, vpath, ov.Pos, durable, "version %d of %s was deleted; mark it retired: true to stop decoding its history on purpose", ov.Number, of.Name)
				continue
			case nv.Retired:
				continue
			}
			c.fields(placed(ov.Fields, vpath+".fields"), placed(nv.Fields, vpath+".fields"), durable, func(f *Field) bool {
				return reserved[f.Name] || reserved[f.JSON]
			}, nil)
		}
	}
}

// A placedField is a field with its path in the spec.
type placedField struct {
	*Field
	path string
}

func placed(fields []*Field, path string) []placedField {
	var out []placedField
	for _, f := range fields {
		out = append(out, placedField{f, path + "." + f.Name})
	}
	return out
}

// fields compares one shape's wire fields, old against new. For a fact
// version, isReserved says whether a deleted field's name is reserved; for a
// variant, moved finds a deleted field in another variant of the union.
func (c *comparer) fields(old, new []placedField, cats []Category, isReserved func(*Field) bool, moved func(*Field) (string, *Field)) {
	matched := map[*Field]bool{}
	find := func(of *Field) *Field {
		for _, nf := range new {
			if nf.Name == of.Name && nf.Wire() {
				return nf.Field
			}
		}
		for _, nf := range new {
			if nf.JSON == of.JSON && nf.Wire() {
				return nf.Field
			}
		}
		return nil
	}
	for _, of := range old {
		if !of.Wire() {
			continue
		}
		nf := find(of.Field)
		if nf == nil {
			switch {
			case isReserved != nil && isReserved(of.Field):
			case isReserved != nil:
				c.add(RuleFieldDeletedNotReserved, of.path, of.Pos, cats, "field %s was deleted; list %s under the fact's reserved: so it never comes back with another meaning", of.Name, of.Name)
			default:
				if moved != nil {
					if where, to := moved(of.Field); to != nil {
						c.add(RuleVariantFieldMoved, of.path, to.Pos, cats, "field %s moved to %s; readers of this variant no longer get it", of.JSON, where)
						continue
					}
				}
				c.add(RuleFieldDeleted, of.path, of.Pos, cats, "field %s was deleted; old history and peers carry it, and readers that require it break", of.JSON)
			}
			continue
		}
		matched[nf] = true
		path := of.path
		for _, p := range new {
			if p.Field == nf {
				path = p.path
			}
		}
		if nf.JSON != of.JSON {
			c.add(RuleFieldJSONNameChanged, path, nf.Pos, cats, "JSON name changed from %s to %s", of.JSON, nf.JSON)
		}
		if !c.compatible(of.Type, nf.Type) {
			c.add(RuleFieldTypeChanged, path, nf.Type.Pos, cats, "type changed from %s to %s; JSON written as %s does not decode into it", of.Type, nf.Type, of.Type)
		}
		if of.Optional && !nf.Optional && !nf.Type.Collection() {
			c.add(RuleFieldMadeRequired, path, nf.Pos, cats, "field %s became required; JSON written without it no longer decodes", nf.JSON)
		}
		if nf.Terminal && !of.Terminal {
			c.add(RuleFieldMadeTerminal, path, nf.TerminalPos, cats, "field %s became terminal: true; JSON written with a state that is not terminal no longer decodes", nf.JSON)
		}
	}
	for _, nf := range new {
		if matched[nf.Field] || !nf.Wire() || nf.Optional || nf.Type.Collection() {
			continue
		}
		fix := "make it optional: true"
		if isReserved != nil {
			fix += ", or add a new fact version"
		}
		c.add(RuleRequiredFieldAdded, nf.path, nf.Pos, cats, "required field %s was added; JSON written without it no longer decodes (%s)", nf.JSON, fix)
	}
}

// compatible reports whether JSON written for type o decodes into type n.
// Declarations that keep their name are compared on their own.
func (c *comparer) compatible(o, n *Type) bool {
	if o.String() == n.String() {
		return true
	}
	if o.Kind == TypePointer {
		o = o.Elem
	}
	if n.Kind == TypePointer {
		n = n.Elem
	}
	switch {
	case o.Kind == TypeSlice && n.Kind == TypeSlice:
		return c.compatible(o.Elem, n.Elem)
	case o.Kind == TypeMap && n.Kind == TypeMap:
		return c.compatible(o.Key, n.Key) && c.compatible(o.Elem, n.Elem)
	case o.Kind == TypeBuiltin && n.Kind == TypeBuiltin:
		return widens(o.Name, n.Name)
	case o.Kind == TypeNamed && n.Kind == TypeNamed && o.Name == n.Name:
		return true
	}
	// Every string-shaped type reads as a plain string or a string id; an
	// enum reads as another enum holding all its values; a uuid id as another.
	if c.old.stringy(o) {
		switch {
		case n.Kind == TypeBuiltin && n.Name == "string":
			return true
		case n.Kind == TypeNamed && c.new.ids[n.Name] != nil:
			return c.new.ids[n.Name].Kind == IDString || c.old.ids[o.Name] != nil && c.old.ids[o.Name].Kind == IDUUID
		case n.Kind == TypeNamed && c.new.enums[n.Name] != nil && c.old.enums[o.Name] != nil:
			for _, v := range c.old.enums[o.Name].Values {
				if !slices.ContainsFunc(c.new.enums[n.Name].Values, func(w *EnumValue) bool { return w.Value == v.Value }) {
					return false
				}
			}
			return true
		}
	}
	return o.String() == n.String()
}

// stringy reports whether t is written as a JSON string: string, an id or an enum.
func (x *specIndex) stringy(t *Type) bool {
	if t.Kind == TypeBuiltin {
		return t.Name == "string"
	}
	return t.Kind == TypeNamed && (x.ids[t.Name] != nil || x.enums[t.Name] != nil)
}

// intWidth gives the bits and signedness of Go's integer types; int and uint
// are taken as 64-bit, the platforms jobgen targets.
var intWidth = map[string]struct {
	bits   int
	signed bool
}{
	"int8": {8, true}, "int16": {16, true}, "int32": {32, true}, "rune": {32, true}, "int64": {64, true}, "int": {64, true},
	"uint8": {8, false}, "byte": {8, false}, "uint16": {16, false}, "uint32": {32, false}, "uint64": {64, false}, "uint": {64, false},
}

// widens reports whether every JSON value of builtin type o decodes into n.
func widens(o, n string) bool {
	if o == n {
		return true
	}
	a, aok := intWidth[o]
	b, bok := intWidth[n]
	switch {
	case aok && bok:
		return (a.signed == b.signed && b.bits >= a.bits) || (!a.signed && b.signed && b.bits > a.bits)
	case aok && n == "float64":
		return a.bits <= 32 // float64 holds every 32-bit integer exactly
	case o == "float32" && n == "float64":
		return true
	}
	return false
}

// types reports declarations the new spec no longer has under the same name
// and kind.
func (c *comparer) types() {
	type decl struct {
		name, path string
		pos        Pos
		kind       string
	}
	kinds := func(x *specIndex) []decl {
		var out []decl
		s := x.spec
		for _, d := range s.IDs {
			out = append(out, decl{d.Name, "ids." + d.Name, d.Pos, "id"})
		}
		for _, d := range s.Enums {
			out = append(out, decl{d.Name, "enums." + d.Name, d.Pos, "enum"})
		}
		for _, d := range s.Records {
			out = append(out, decl{d.Name, "records." + d.Name, d.Pos, "record"})
		}
		for _, d := range s.Unions {
			out = append(out, decl{d.Name, "unions." + d.Name, d.Pos, "union"})
		}
		for _, d := range s.Faces {
			out = append(out, decl{d.Name, "faces." + d.Name, d.Pos, "face"})
		}
		for _, d := range s.Machines {
			out = append(out, decl{d.Name, "machines." + d.Name, d.Pos, "machine"})
		}
		return out
	}
	have := map[string]string{}
	for _, d := range kinds(c.new) {
		have[d.name] = d.kind
	}
	for _, d := range kinds(c.old) {
		switch kind, ok := have[d.name]; {
		case !ok:
			c.add(RuleTypeDeleted, d.path, d.pos, append([]Category{GoAPI}, c.reachOf(d.name)...), "%s %s was deleted or renamed", d.kind, d.name)
		case kind != d.kind:
			c.add(RuleTypeDeleted, d.path, d.pos, append([]Category{GoAPI}, c.reachOf(d.name)...), "%s %s is now a %s", d.kind, d.name, kind)
		}
	}
	for _, oi := range sortedBy(c.old.spec.IDs, func(d *ID) string { return d.Name }) {
		ni := c.new.ids[oi.Name]
		if ni == nil || ni.Kind == oi.Kind {
			continue
		}
		cats := []Category{GoAPI}
		why := "its Go type changed"
		if ni.Kind == IDUUID {
			cats = append(cats, c.reachOf(oi.Name)...)
			why = "values written as free-form strings need not parse as UUIDs"
		}
		c.add(RuleIDKindChanged, "ids."+oi.Name, ni.Pos, cats, "kind changed from %s to %s; %s", oi.Kind, ni.Kind, why)
	}
}

func (c *comparer) records() {
	for _, or := range sortedBy(c.old.spec.Records, func(d *Record) string { return d.Name }) {
		cats := c.reachOf(or.Name)
		nr := c.new.records[or.Name]
		if len(cats) == 0 || nr == nil {
			continue
		}
		path := "records." + or.Name + ".fields"
		c.fields(placed(or.Fields, path), placed(nr.Fields, path), cats, nil, nil)
	}
}

func (c *comparer) enums() {
	for _, oe := range sortedBy(c.old.spec.Enums, func(d *Enum) string { return d.Name }) {
		cats := c.reachOf(oe.Name)
		ne := c.new.enums[oe.Name]
		if len(cats) == 0 || ne == nil {
			continue
		}
		for _, v := range oe.Values {
			if !slices.ContainsFunc(ne.Values, func(w *EnumValue) bool { return w.Value == v.Value }) {
				c.add(RuleEnumValueDeleted, "enums."+oe.Name+".values."+v.Value, v.Pos, cats, "value %s was deleted or renamed; JSON holding it no longer decodes", v.Value)
			}
		}
	}
}

func (c *comparer) unions() {
	for _, ou := range sortedBy(c.old.spec.Unions, func(d *Union) string { return d.Name }) {
		nu := c.new.unions[ou.Name]
		if nu == nil {
			continue // TYPE_DELETED
		}
		path := "unions." + ou.Name
		cats := []Category{Wire}
		for _, v := range ou.Variants {
			if c.durable[v.Name] && !slices.Contains(cats, Durable) {
				cats = []Category{Durable, Wire}
			}
		}
		if nu.Discriminator != ou.Discriminator {
			c.add(RuleDiscriminatorChanged, path+".discriminator", nu.DiscPos, cats, "discriminator changed from %s to %s; readers look for the variant in the old field", ou.Discriminator, nu.Discriminator)
		}
		for _, ov := range ou.Variants {
			vpath := path + ".variants." + ov.Name
			var nv *Variant
			for _, v := range nu.Variants {
				if v.Name == ov.Name {
					nv = v
				}
			}
			if nv == nil {
				for _, v := range nu.Variants {
					if v.Tag.Kind == ov.Tag.Kind && v.Tag.Text() == ov.Tag.Text() {
						nv = v
					}
				}
				if nv == nil {
					c.add(RuleVariantDeleted, vpath, ov.Pos, cats, "variant %s (%s %s) was deleted; its messages no longer decode", ov.Name, ou.Discriminator, ov.Tag.Text())
					continue
				}
				c.add(RuleTypeDeleted, vpath, nv.Pos, []Category{GoAPI}, "variant %s was renamed %s", ov.Name, nv.Name)
			}
			if nv.Tag.Kind != ov.Tag.Kind || nv.Tag.Text() != ov.Tag.Text() {
				c.add(RuleDiscriminatorChanged, vpath+".tag", nv.Tag.Pos, cats, "tag changed from %s to %s; messages written with the old tag no longer decode as %s", ov.Tag.Text(), nv.Tag.Text(), nv.Name)
			}
			oldFields := append(placed(ou.Common, path+".common"), placed(ov.Fields, vpath+".fields")...)
			newFields := append(placed(nu.Common, path+".common"), placed(nv.Fields, path+".variants."+nv.Name+".fields")...)
			moved := func(f *Field) (string, *Field) {
				for _, other := range nu.Variants {
					for _, g := range other.Fields {
						if other != nv && g.JSON == f.JSON && g.Wire() {
							return other.Name, g
						}
					}
				}
				return "", nil
			}
			c.fields(oldFields, newFields, cats, nil, moved)
		}
	}
}

// methods returns a face's method set, embeds included, by name.
func (x *specIndex) methods(name string, seen map[string]bool) map[string]*Method {
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

// signature renders a func type without parameter names, which callers
// never see.
func signature(t *Type) string {
	u := *t
	strip := func(ps []*Param) []*Param {
		var out []*Param
		for _, p := range ps {
			out = append(out, &Param{Type: p.Type})
		}
		return out
	}
	u.Params, u.Results = strip(t.Params), strip(t.Results)
	return u.String()
}

func (c *comparer) faces() {
	goapi := []Category{GoAPI}
	for _, of := range sortedBy(c.old.spec.Faces, func(d *Face) string { return d.Name }) {
		nf := c.new.faces[of.Name]
		if nf == nil {
			continue // TYPE_DELETED
		}
		oldSet, newSet := c.old.methods(of.Name, map[string]bool{}), c.new.methods(of.Name, map[string]bool{})
		for _, name := range sortedKeys(oldSet) {
			om, nm := oldSet[name], newSet[name]
			path := "faces." + of.Name + ".methods." + name
			switch {
			case nm == nil:
				c.add(RuleFaceMethodRemoved, path, nf.Pos, goapi, "method %s was removed; callers of %s.%s no longer compile", name, of.Name, name)
			case signature(om.Type) != signature(nm.Type):
				c.add(RuleFaceMethodChanged, path, nm.Type.Pos, goapi, "method %s changed from %s to %s", name, signature(om.Type), signature(nm.Type))
			}
		}
	}
}

// knownRule reports whether id names a rule an allowance can accept.
func knownRule(id string) bool {
	return id != RuleAllowanceUnused && slices.ContainsFunc(Rules(), func(r Rule) bool { return r.ID == id })
}
