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
//   - goapi: the generated Go API — faces, exported types that vanish, and
//     the fields, field types and enum constants Go callers name. Every
//     record and enum counts here, reached by a fact or union or not.
//
// Deploy order matters for the wire: the rules assume readers are upgraded
// before writers, the order in which adding an optional field, an enum value
// or a variant is safe.

// A Finding is one breaking change.
type Finding struct {
	Rule       RuleID
	Path       string // where in the spec, as allow_breaking names it: "facts.job/settled.versions.v1.fields.at"
	Pos        Pos    // in the new spec, or in the old one for something deleted
	Near       Pos    // for something deleted, the declaration in the new spec that held it (zero if none)
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
			if a.ruleID() == f.Rule && a.Path == f.Path {
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

type comparer struct {
	old, new   *Spec
	oldx, newx *declIndex      // their indexes
	durable    map[string]bool // type names the old spec's facts reach
	wire       map[string]bool // type names the old spec's unions reach
	found      []Finding
}

func newComparer(old, new *Spec) *comparer {
	c := &comparer{old: old, new: new, oldx: old.index(), newx: new.index(), durable: map[string]bool{}, wire: map[string]bool{}}
	for _, f := range old.Facts {
		for _, v := range f.Versions {
			if !v.Retired {
				c.oldx.reach(v.Fields, c.durable)
			}
		}
	}
	for _, u := range old.Unions {
		c.wire[u.Name] = true
		for _, v := range u.Variants {
			c.wire[v.Name] = true
			c.oldx.reach(append(slices.Clone(u.Common), v.Fields...), c.wire)
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

func (c *comparer) add(rule RuleID, path string, pos Pos, cats []Category, format string, args ...any) {
	c.addNear(rule, path, pos, Pos{}, cats, format, args...)
}

// addNear adds a finding about something deleted, at pos in the old spec,
// with near the place in the new spec that held it.
func (c *comparer) addNear(rule RuleID, path string, pos, near Pos, cats []Category, format string, args ...any) {
	if len(cats) == 0 {
		return // a change no category cares about: JSON rules on a type nothing sends
	}
	order := Categories()
	cats = slices.Clone(cats)
	slices.SortFunc(cats, func(a, b Category) int { return cmp.Compare(slices.Index(order, a), slices.Index(order, b)) })
	c.found = append(c.found, Finding{Rule: rule, Path: path, Pos: pos, Near: near, Msg: fmt.Sprintf(format, args...), Categories: cats})
}

func (c *comparer) facts() {
	durable := []Category{Durable}
	for _, of := range sortedBy(c.old.Facts, func(f *Fact) string { return f.Name }) {
		path := "facts." + of.Name
		nf := c.newx.facts[of.Name]
		if nf == nil {
			c.addNear(RuleFactDeleted, path, of.Pos, c.new.Package.Pos, durable, "fact %s was deleted; its history would no longer decode (retire its versions instead)", of.Name)
			continue
		}
		reserved := map[string]bool{}
		for _, r := range nf.Reserved {
			reserved[r.Name] = true
		}
		for _, r := range of.Reserved {
			if !reserved[r.Name] {
				c.add(RuleReservedNameDeleted, path+".reserved."+r.Name, nf.Pos, durable, "%s is no longer reserved, so a field could reuse it with another meaning; list it under reserved: again", r.Name)
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
							"%s was reserved (at %s); history may carry it with its old meaning; give the field another name and json: name", r.Name, r.Pos)
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
				c.addNear(RuleFactVersionDeleted, vpath, ov.Pos, nf.Pos, durable, "version %d of %s was deleted; mark it retired: true to stop decoding its history on purpose", ov.Number, of.Name)
				continue
			case nv.Retired:
				continue
			}
			c.fields(placed(ov.Fields, vpath+".fields"), placed(nv.Fields, vpath+".fields"), nv.Pos, durable, func(f *Field) bool {
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

// fields compares one shape's wire fields, old against new; near is the
// shape in the new spec, and cats the categories its JSON matters to (none
// for a record nothing sends, whose Go fields still matter to goapi). For a
// fact version, isReserved says whether a deleted field's name is reserved;
// for a variant, moved finds a deleted field in another variant of the union.
func (c *comparer) fields(old, new []placedField, near Pos, cats []Category, isReserved func(*Field) bool, moved func(*Field) (string, *Field)) {
	goapi := append(slices.Clone(cats), GoAPI)
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
			c.goOnlyField(of, new, near)
			continue
		}
		nf := find(of.Field)
		if nf == nil {
			switch {
			case isReserved != nil && isReserved(of.Field):
				c.addNear(RuleFieldDeleted, of.path, of.Pos, near, []Category{GoAPI}, "field %s was deleted (its name stays reserved); Go code naming %s no longer compiles; keep it, or accept the break in allow_breaking", of.Name, of.GoName)
			case isReserved != nil:
				c.addNear(RuleFieldDeletedNotReserved, of.path, of.Pos, near, goapi, "field %s was deleted; list %s under the fact's reserved: so it never comes back with another meaning", of.Name, of.Name)
			default:
				if moved != nil {
					if where, to := moved(of.Field); to != nil {
						c.add(RuleVariantFieldMoved, of.path, to.Pos, goapi, "field %s moved to %s; readers of this variant no longer get it; move it to the union's common: fields, or keep it here too", of.JSON, where)
						continue
					}
				}
				why := "Go code naming " + of.GoName + " no longer compiles"
				if len(cats) > 0 {
					why = "old history and peers carry it, readers that require it break, and " + why
				}
				c.addNear(RuleFieldDeleted, of.path, of.Pos, near, goapi, "field %s was deleted; %s; keep it (optional: true, and stop setting it)", of.Name, why)
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
		if nf.GoName != of.GoName {
			c.add(RuleFieldRenamed, path, nf.Pos, []Category{GoAPI}, "field %s was renamed %s; Go code naming %s no longer compiles; keep the name %s", of.Name, nf.Name, of.GoName, of.Name)
		}
		if nf.JSON != of.JSON {
			c.add(RuleFieldJSONNameChanged, path, nf.Pos, cats, "JSON name changed from %s to %s; set json: %s to keep the wire name", of.JSON, nf.JSON, of.JSON)
		}
		switch {
		case !c.compatible(of.Type, nf.Type):
			c.add(RuleFieldTypeChanged, path, nf.Type.Pos, goapi, "type changed from %s to %s; JSON written as %s does not decode into it, and Go code using the field no longer compiles; keep %s and add a field of the new type", of.Type, nf.Type, of.Type, of.Type)
		case of.Type.String() != nf.Type.String() && !c.renamedIn(of.Type):
			c.add(RuleFieldTypeChanged, path, nf.Type.Pos, []Category{GoAPI}, "type changed from %s to %s; old JSON still decodes, but Go code using the field as %s no longer compiles; keep %s, or accept the break in allow_breaking", of.Type, nf.Type, of.Type, of.Type)
		}
		if of.Optional && !nf.Optional && !nf.Type.Collection() {
			c.add(RuleFieldMadeRequired, path, nf.Pos, cats, "field %s became required; JSON written without it no longer decodes; keep it optional: true", nf.JSON)
		}
		if nf.Terminal && !of.Terminal {
			c.add(RuleFieldMadeTerminal, path, nf.TerminalPos, cats, "field %s became terminal: true; JSON written with a state that is not terminal no longer decodes; drop terminal: true", nf.JSON)
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

// goOnlyField compares a field that never travels (a func, a channel, a
// face): only Go callers see it, so only goapi findings apply.
func (c *comparer) goOnlyField(of placedField, new []placedField, near Pos) {
	goapi := []Category{GoAPI}
	i := slices.IndexFunc(new, func(nf placedField) bool { return nf.Name == of.Name })
	if i < 0 {
		c.addNear(RuleFieldDeleted, of.path, of.Pos, near, goapi, "field %s was deleted; Go code naming %s no longer compiles; keep it", of.Name, of.GoName)
		return
	}
	if nf := new[i]; of.Type.String() != nf.Type.String() && !c.renamedIn(of.Type) {
		c.add(RuleFieldTypeChanged, nf.path, nf.Type.Pos, goapi, "type changed from %s to %s; Go code using the field no longer compiles; keep %s", of.Type, nf.Type, of.Type)
	}
}

// renamedIn reports whether t names a declaration the new spec no longer
// has: TYPE_DELETED reports that once, not at every field using it.
func (c *comparer) renamedIn(t *Type) bool {
	gone := false
	t.walk(func(u *Type) {
		if u.Kind != TypeNamed {
			return
		}
		if d, ok := c.newx.decls[u.Name]; !ok || d.kind == declMachine {
			gone = true
		}
	})
	return gone
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
	if c.oldx.stringy(o) {
		switch {
		case n.Kind == TypeBuiltin && n.Name == "string":
			return true
		case n.Kind == TypeNamed && c.newx.ids[n.Name] != nil:
			return c.newx.ids[n.Name].Kind == IDString || c.oldx.ids[o.Name] != nil && c.oldx.ids[o.Name].Kind == IDUUID
		case n.Kind == TypeNamed && c.newx.enums[n.Name] != nil && c.oldx.enums[o.Name] != nil:
			for _, v := range c.oldx.enums[o.Name].Values {
				if !slices.ContainsFunc(c.newx.enums[n.Name].Values, func(w *EnumValue) bool { return w.Value == v.Value }) {
					return false
				}
			}
			return true
		}
	}
	return o.String() == n.String()
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
	kinds := func(s *Spec) []decl {
		var out []decl
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
			c.addNear(RuleTypeDeleted, d.path, d.pos, c.new.Package.Pos, append([]Category{GoAPI}, c.reachOf(d.name)...), "%s %s was deleted or renamed; Go code naming it no longer compiles; keep it under its old name", d.kind, d.name)
		case kind != d.kind:
			c.add(RuleTypeDeleted, d.path, d.pos, append([]Category{GoAPI}, c.reachOf(d.name)...), "%s %s is now a %s; keep it a %s and give the %s another name", d.kind, d.name, kind, d.kind, kind)
		}
	}
	for _, oi := range sortedBy(c.old.IDs, func(d *ID) string { return d.Name }) {
		ni := c.newx.ids[oi.Name]
		if ni == nil || ni.Kind == oi.Kind {
			continue
		}
		cats := []Category{GoAPI}
		why := "its Go type changed"
		if ni.Kind == IDUUID {
			cats = append(cats, c.reachOf(oi.Name)...)
			why = "values written as free-form strings need not parse as UUIDs"
		}
		c.add(RuleIDKindChanged, "ids."+oi.Name, ni.Pos, cats, "kind changed from %s to %s; %s; keep kind: %s and declare a new id", oi.Kind, ni.Kind, why, oi.Kind)
	}
}

func (c *comparer) records() {
	for _, or := range sortedBy(c.old.Records, func(d *Record) string { return d.Name }) {
		cats := c.reachOf(or.Name)
		nr := c.newx.records[or.Name]
		if nr == nil {
			continue // TYPE_DELETED
		}
		path := "records." + or.Name + ".fields"
		c.fields(placed(or.Fields, path), placed(nr.Fields, path), nr.Pos, cats, nil, nil)
	}
}

func (c *comparer) enums() {
	for _, oe := range sortedBy(c.old.Enums, func(d *Enum) string { return d.Name }) {
		cats := append(c.reachOf(oe.Name), GoAPI)
		ne := c.newx.enums[oe.Name]
		if ne == nil {
			continue // TYPE_DELETED
		}
		for _, v := range oe.Values {
			if !slices.ContainsFunc(ne.Values, func(w *EnumValue) bool { return w.Value == v.Value }) {
				why := "Go code naming " + v.GoName + " no longer compiles"
				if len(cats) > 1 {
					why = "JSON holding it no longer decodes, and " + why
				}
				c.addNear(RuleEnumValueDeleted, "enums."+oe.Name+".values."+v.Value, v.Pos, ne.Pos, cats, "value %s was deleted or renamed; %s; keep the value (say in its doc that it is no longer used)", v.Value, why)
			}
		}
	}
}

func (c *comparer) unions() {
	for _, ou := range sortedBy(c.old.Unions, func(d *Union) string { return d.Name }) {
		nu := c.newx.unions[ou.Name]
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
			c.add(RuleDiscriminatorChanged, path+".discriminator", nu.DiscPos, cats, "discriminator changed from %s to %s; readers look for the variant in the old field; keep discriminator: %s", ou.Discriminator, nu.Discriminator, ou.Discriminator)
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
					c.addNear(RuleVariantDeleted, vpath, ov.Pos, nu.Pos, append(slices.Clone(cats), GoAPI), "variant %s (%s %s) was deleted; its messages no longer decode; keep the variant", ov.Name, ou.Discriminator, ov.Tag.Text())
					continue
				}
				c.add(RuleTypeDeleted, vpath, nv.Pos, []Category{GoAPI}, "variant %s was renamed %s; Go code naming %s no longer compiles; keep the name %s", ov.Name, nv.Name, ov.Name, ov.Name)
			}
			if nv.Tag.Kind != ov.Tag.Kind || nv.Tag.Text() != ov.Tag.Text() {
				c.add(RuleDiscriminatorChanged, vpath+".tag", nv.Tag.Pos, cats, "tag changed from %s to %s; messages written with the old tag no longer decode as %s; keep tag: %s", ov.Tag.Text(), nv.Tag.Text(), nv.Name, ov.Tag.Text())
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
			c.fields(oldFields, newFields, nv.Pos, cats, nil, moved)
		}
	}
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
	for _, of := range sortedBy(c.old.Faces, func(d *Face) string { return d.Name }) {
		nf := c.newx.faces[of.Name]
		if nf == nil {
			continue // TYPE_DELETED
		}
		oldSet, newSet := c.oldx.methods(of.Name, map[string]bool{}), c.newx.methods(of.Name, map[string]bool{})
		for _, name := range sortedKeys(oldSet) {
			om, nm := oldSet[name], newSet[name]
			path := "faces." + of.Name + ".methods." + name
			switch {
			case nm == nil:
				c.add(RuleFaceMethodRemoved, path, nf.Pos, goapi, "method %s was removed; callers of %s.%s no longer compile; keep it, or accept the break in allow_breaking", name, of.Name, name)
			case signature(om.Type) != signature(nm.Type):
				c.add(RuleFaceMethodChanged, path, nm.Type.Pos, goapi, "method %s changed from %s to %s; keep the old method and add one with the new signature under another name", name, signature(om.Type), signature(nm.Type))
			}
		}
		// A face is an interface: code outside the generated package that
		// implements it (a test fake, a wrapper) stops compiling when it
		// gains a method, as Go's apidiff reports too.
		for _, name := range sortedKeys(newSet) {
			if oldSet[name] == nil {
				c.add(RuleFaceMethodAdded, "faces."+of.Name+".methods."+name, newSet[name].Type.Pos, goapi, "method %s was added; types outside the package that implement %s (test fakes, wrappers) no longer compile until they add it; add it to a new face that embeds %s instead, or accept the break in allow_breaking", name, of.Name, of.Name)
			}
		}
	}
}
