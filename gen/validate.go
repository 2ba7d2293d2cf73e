package gen

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// declKind is what a declared name stands for.
type declKind int

const (
	declNone declKind = iota
	declID
	declEnum
	declRecord
	declUnion
	declVariant
	declFace
	declMachine
)

func (k declKind) String() string {
	return [...]string{"nothing", "id", "enum", "record", "union", "union variant", "face", "machine"}[k]
}

// Validate checks what Parse cannot see alone: names, references, cycles,
// uniqueness, machines and facts. It reports every problem at the node that
// causes it and returns them sorted. It returns the spec as a Resolved, for
// the backends, only when there is no problem, here or in what Parse, or
// LoadFS reading sources and imports, reported before.
func Validate(s *Spec) (*Resolved, ErrorList) {
	v := &validator{spec: s, decls: map[string]decl{}, idents: map[string]ident{}}
	v.pkg()
	v.declare()
	v.identifiers()
	v.initialismNames()
	v.importedTypes()
	v.typeRefs()
	v.records()
	v.unions()
	v.faces()
	v.machines()
	v.terminalFields()
	v.facts()
	v.defaults()
	v.allowances()
	v.errs.RemoveMultiples()
	if len(v.errs) > 0 || s.incomplete {
		return nil, v.errs
	}
	return &Resolved{spec: s}, nil
}

type decl struct {
	kind declKind
	pos  Pos
}

type ident struct {
	what string // where the identifier comes from, e.g. "records.JobSnapshot"
	spec string // the spec name that generates it
	pos  Pos
}

type validator struct {
	spec   *Spec
	errs   ErrorList
	decls  map[string]decl
	idents map[string]ident
}

func (v *validator) add(p Pos, format string, args ...any) { v.errs.Add(p, format, args...) }

func (v *validator) pkg() {
	p := v.spec.Package
	if p.Name == "" {
		return // reported by Parse
	}
	if why := checkIdent(p.Name, false); why != "" {
		v.add(p.Pos, "package.name: %s %s", p.Name, why)
	}
	for _, im := range v.spec.Imports {
		if why := checkIdent(im.Alias, false); why != "" {
			v.add(im.Pos, "imports: alias %s %s", im.Alias, why)
		}
	}
}

// declare records every name a type expression may refer to.
func (v *validator) declare() {
	put := func(name string, kind declKind, pos Pos) {
		if name == "" {
			return
		}
		if _, dup := v.decls[name]; !dup {
			v.decls[name] = decl{kind: kind, pos: pos}
		}
	}
	for _, d := range v.spec.IDs {
		put(d.Name, declID, d.Pos)
	}
	for _, d := range v.spec.Enums {
		put(d.Name, declEnum, d.Pos)
	}
	for _, d := range v.spec.Records {
		put(d.Name, declRecord, d.Pos)
	}
	for _, d := range v.spec.Unions {
		put(d.Name, declUnion, d.Pos)
		for _, vr := range d.Variants {
			put(vr.Name, declVariant, vr.Pos)
		}
	}
	for _, d := range v.spec.Faces {
		put(d.Name, declFace, d.Pos)
	}
	for _, d := range v.spec.Machines {
		put(d.Name, declMachine, d.Pos)
	}
}

// claim records that a spec name generates a top-level Go identifier, and
// reports names that are not valid identifiers or that collide. It returns
// false for an invalid identifier, so callers skip the names derived from it.
func (v *validator) claim(goIdent, what, specName string, pos Pos) bool {
	if goIdent == "" {
		v.add(pos, "%s: a name must not be empty", what)
		return false
	}
	if why := checkIdent(goIdent, true); why != "" {
		if goIdent == specName {
			v.add(pos, "%s: name %s %s", what, specName, why)
		} else {
			v.add(pos, "%s: Go name %s %s", what, goIdent, why)
		}
		return false
	}
	first, dup := v.idents[goIdent]
	if !dup {
		v.idents[goIdent] = ident{what: what, spec: specName, pos: pos}
		return true
	}
	if comparePos(pos, first.pos) < 0 {
		// Report at the later declaration, whichever order we met them in.
		v.idents[goIdent] = ident{what: what, spec: specName, pos: pos}
		first, what, specName, pos = ident{what: what, spec: specName, pos: pos}, first.what, first.spec, first.pos
	}
	switch {
	case first.pos.File == "":
		v.add(pos, "%s: Go name %s is taken by jobgen's own %s", what, goIdent, first.what)
	case first.spec == specName:
		v.add(pos, "%s: %s is declared twice (first as %s at %d:%d)", what, specName, first.what, first.pos.Line, first.pos.Col)
	default:
		v.add(pos, "%s: %s generates the Go name %s, as %s at %d:%d does", what, specName, goIdent, first.what, first.pos.Line, first.pos.Col)
	}
	return true
}

// identifiers claims every top-level Go identifier the spec will generate.
func (v *validator) identifiers() {
	for _, name := range fixedIdents(v.spec) {
		v.idents[name] = ident{what: "generated " + name}
	}
	s := v.spec
	for _, d := range s.IDs {
		if v.claim(d.Name, "ids."+d.Name, d.Name, d.Pos) && d.Kind == IDUUID {
			v.claim("New"+d.Name, "ids."+d.Name, d.Name, d.Pos)
			v.claim("Parse"+d.Name, "ids."+d.Name, d.Name, d.Pos)
		}
	}
	for _, d := range s.Enums {
		if len(d.Values) == 0 {
			v.add(d.Pos, "enums.%s: an enum needs at least one value", d.Name)
		}
		if !v.claim(d.Name, "enums."+d.Name, d.Name, d.Pos) {
			continue
		}
		v.claim(d.Name+"Values", "enums."+d.Name, d.Name, d.Pos)
		for _, val := range d.Values {
			if val.Value == "" {
				v.add(val.Pos, "enums.%s.values: a value must not be empty", d.Name)
				continue
			}
			v.claim(val.GoName, "enums."+d.Name+".values."+val.Value, val.Value, val.Pos)
		}
	}
	for _, d := range s.Records {
		v.claim(d.Name, "records."+d.Name, d.Name, d.Pos)
	}
	for _, d := range s.Unions {
		if !v.claim(d.Name, "unions."+d.Name, d.Name, d.Pos) {
			continue
		}
		v.claim("Decode"+d.Name, "unions."+d.Name, d.Name, d.Pos)
		if len(d.Common) > 0 {
			v.claim(d.CommonName(), "unions."+d.Name+".common", d.Name, d.Pos)
		}
		for _, vr := range d.Variants {
			what := "unions." + d.Name + ".variants." + vr.Name
			if v.claim(vr.Name, what, vr.Name, vr.Pos) {
				v.claim(vr.Name+"Tag", what, vr.Name, vr.Pos)
			}
		}
	}
	for _, d := range s.Faces {
		v.claim(d.Name, "faces."+d.Name, d.Name, d.Pos)
	}
	for _, d := range s.Machines {
		v.claim(d.Name, "machines."+d.Name, d.Name, d.Pos)
	}
	for _, f := range s.Facts {
		if len(f.Versions) == 0 {
			continue
		}
		v.claim(f.GoName+"Type", "facts."+f.Name, f.Name, f.Pos)
		for _, fv := range f.Versions {
			if !fv.Retired {
				v.claim(f.StructName(fv), "facts."+f.Name+".versions.v"+itoa(fv.Number), f.Name, fv.Pos)
			}
		}
	}
	for _, d := range s.Defaults {
		v.claim(d.GoName, "defaults."+d.Name, d.Name, d.Pos)
	}
	for _, src := range s.Sources {
		for _, name := range src.topLevel() {
			v.claimSource(name, src)
		}
	}
}

// claimSource reports a name a source declares that the generated package
// already declares, which would not compile.
func (v *validator) claimSource(name Ref, src *Source) {
	first, dup := v.idents[name.Name]
	switch {
	case !dup:
		v.idents[name.Name] = ident{what: "source " + src.Path, spec: name.Name, pos: name.Pos}
	case first.pos.File == "":
		v.add(name.Pos, "%s is declared by jobgen's own %s; rename it", name.Name, first.what)
	default:
		v.add(name.Pos, "%s is declared by %s at %s; rename it", name.Name, first.what, first.pos)
	}
}

// fixedIdents are the identifiers jobgen generates whatever the spec says.
func fixedIdents(s *Spec) []string {
	names := []string{"ErrInvalidEnum", "ErrMissingField", "ErrUnknownVariant", "ErrAmbiguousKey", "ErrInvalidID"}
	if len(s.Facts) > 0 {
		names = append(names, "Fact", "FactEnvelope", "EncodeFact", "DecodeFact", "ErrUnknownFact", "ErrUnknownVersion")
	}
	return names
}

// eachField calls fn for every field list in the spec, with its location.
func (v *validator) eachFieldList(fn func(what string, fields []*Field)) {
	for _, r := range v.spec.Records {
		fn("records."+r.Name+".fields", r.Fields)
	}
	for _, u := range v.spec.Unions {
		fn("unions."+u.Name+".common", u.Common)
		for _, vr := range u.Variants {
			fn("unions."+u.Name+".variants."+vr.Name+".fields", vr.Fields)
		}
	}
	for _, f := range v.spec.Facts {
		for _, fv := range f.Versions {
			fn("facts."+f.Name+".versions.v"+itoa(fv.Number)+".fields", fv.Fields)
		}
	}
}

// typeRefs resolves every named type and reports undeclared ones.
func (v *validator) typeRefs() {
	names := make([]string, 0, len(v.decls))
	for name, d := range v.decls {
		if d.kind != declMachine {
			names = append(names, name)
		}
	}
	suggestions := newSuggester(names)
	check := func(t *Type) {
		if t == nil {
			return
		}
		t.walk(func(t *Type) {
			if t.Kind != TypeNamed {
				return
			}
			d, ok := v.decls[t.Name]
			switch {
			case !ok:
				v.add(t.Pos, "undeclared type %s%s", t.Name, suggestions.didYouMean(t.Name))
			case d.kind == declMachine:
				v.add(t.Pos, "%s is a machine, not a type; use its states enum", t.Name)
			default:
				t.decl = d.kind
			}
		})
	}
	v.eachFieldList(func(_ string, fields []*Field) {
		for _, f := range fields {
			check(f.Type)
		}
	})
	for _, f := range v.spec.Faces {
		for _, m := range f.Methods {
			check(m.Type)
		}
	}
	v.eachFieldList(v.fieldList)
}

// memberNames are methods jobgen generates on structs; a field may not take them.
var memberNames = []string{"MarshalJSON", "UnmarshalJSON", "Common", "FactType", "FactVersion"}

var jsonName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// fieldList checks one list of fields on its own.
func (v *validator) fieldList(what string, fields []*Field) {
	goNames, jsonNames := map[string]*Field{}, map[string]*Field{}
	for _, f := range fields {
		fwhat := what + "." + f.Name
		if why := checkIdent(f.GoName, true); why != "" {
			v.add(f.Pos, "%s: Go field name %s %s", fwhat, f.GoName, why)
		} else if slices.Contains(memberNames, f.GoName) {
			v.add(f.Pos, "%s: Go field name %s clashes with a method jobgen generates", fwhat, f.GoName)
		}
		if first, dup := goNames[f.GoName]; dup {
			v.add(f.Pos, "%s: %s and %s both become the Go field %s", fwhat, first.Name, f.Name, f.GoName)
		} else {
			goNames[f.GoName] = f
		}
		if f.Type == nil || !f.Wire() {
			continue
		}
		if !jsonName.MatchString(f.JSON) {
			v.add(f.Pos, "%s: JSON name %q must be a letter or underscore followed by letters, digits or underscores", fwhat, f.JSON)
		}
		if first, dup := jsonNames[f.JSON]; dup {
			v.add(f.Pos, "%s: %s and %s both use the JSON name %s", fwhat, first.Name, f.Name, f.JSON)
		} else {
			jsonNames[f.JSON] = f
		}
		f.Type.walk(func(t *Type) {
			if t.declared() && t.decl == declUnion {
				v.add(t.Pos, "%s: union %s cannot be a field type, since JSON cannot tell which variant to decode into; use a variant type", fwhat, t)
			}
			if t.Kind == TypeMap && (t.Key.Kind != TypeBuiltin || t.Key.Name != "string") && (!t.Key.declared() || (t.Key.decl != declID && t.Key.decl != declEnum)) && !t.Key.unread() {
				v.add(t.Key.Pos, "%s: map keys on the wire must be strings, ids or enums, not %s", fwhat, t.Key)
			}
		})
	}
}

// records checks for structs that contain themselves by value.
func (v *validator) records() {
	// Edges run from a struct to the structs its fields hold by value.
	type node struct {
		name   string
		what   string // where the fields are declared
		fields []*Field
		extra  []string // embedded structs
	}
	nodes := map[string]node{}
	var order []string
	for _, r := range v.spec.Records {
		nodes[r.Name] = node{name: r.Name, what: "records." + r.Name + ".fields", fields: r.Fields}
		order = append(order, r.Name)
	}
	for _, u := range v.spec.Unions {
		var extra []string
		if len(u.Common) > 0 {
			nodes[u.CommonName()] = node{name: u.CommonName(), what: "unions." + u.Name + ".common", fields: u.Common}
			order = append(order, u.CommonName())
			extra = []string{u.CommonName()}
		}
		for _, vr := range u.Variants {
			nodes[vr.Name] = node{name: vr.Name, what: "unions." + u.Name + ".variants." + vr.Name + ".fields", fields: vr.Fields, extra: extra}
			order = append(order, vr.Name)
		}
	}
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(name string) bool
	visit = func(name string) bool {
		n, ok := nodes[name]
		if !ok || state[name] == done {
			return false
		}
		if state[name] == active {
			return true
		}
		state[name] = active
		for _, embedded := range n.extra {
			if visit(embedded) {
				v.add(nodes[embedded].fields[0].Pos, "%s: %s contains itself by value through its common fields; use a slice or pointer", nodes[embedded].what, name)
				state[name] = done
				return false
			}
		}
		for _, f := range n.fields {
			if f.Type != nil && f.Type.Kind == TypeNamed && visit(f.Type.Name) {
				v.add(f.Pos, "%s.%s: %s contains itself by value through this field; use a slice or pointer", n.what, f.Name, name)
				state[name] = done
				return false
			}
		}
		state[name] = done
		return false
	}
	for _, name := range order {
		visit(name)
	}
}

func (v *validator) unions() {
	for _, u := range v.spec.Unions {
		what := "unions." + u.Name
		if u.Discriminator != "" && !jsonName.MatchString(u.Discriminator) {
			v.add(u.DiscPos, "%s.discriminator: %q must be a letter or underscore followed by letters, digits or underscores", what, u.Discriminator)
		}
		if len(u.Variants) == 0 {
			v.add(u.Pos, "%s: a union needs at least one variant", what)
		}
		discGo := goName(u.Discriminator)
		for _, f := range u.Common {
			if u.Discriminator != "" && f.GoName == discGo {
				v.add(f.Pos, "%s.common.%s: Go field name %s is taken by the discriminator %s", what, f.Name, f.GoName, u.Discriminator)
			}
		}
		for _, f := range u.Common {
			if f.JSON == u.Discriminator && f.Type != nil && f.Wire() {
				v.add(f.Pos, "%s.common.%s: JSON name %s is the union's discriminator", what, f.Name, f.JSON)
			}
		}
		tags := map[string]*Variant{}
		var kind TagKind
		for _, vr := range u.Variants {
			vwhat := what + ".variants." + vr.Name
			for _, f := range vr.Fields {
				fwhat := vwhat + ".fields." + f.Name
				if u.Discriminator != "" && f.GoName == discGo {
					v.add(f.Pos, "%s: Go field name %s is taken by the discriminator %s", fwhat, f.GoName, u.Discriminator)
				}
				if f.JSON == u.Discriminator && f.Type != nil && f.Wire() {
					v.add(f.Pos, "%s: JSON name %s is the union's discriminator", fwhat, f.JSON)
				}
				for _, c := range u.Common {
					if c.GoName == f.GoName || (c.JSON == f.JSON && f.Type != nil && f.Wire() && c.Type != nil && c.Wire()) {
						v.add(f.Pos, "%s: the union's common fields already have %s", fwhat, c.Name)
					}
				}
			}
			if vr.Tag.Kind == "" {
				continue
			}
			if kind == "" {
				kind = vr.Tag.Kind
			} else if vr.Tag.Kind != kind {
				v.add(vr.Tag.Pos, "%s.tag: %s is a %s, but this union's tags are %ss", vwhat, vr.Tag.Text(), vr.Tag.Kind, kind)
			}
			if vr.Tag.Kind == TagString && vr.Tag.String == "" {
				v.add(vr.Tag.Pos, "%s.tag: a tag must not be empty", vwhat)
			}
			key := string(vr.Tag.Kind) + ":" + vr.Tag.Text()
			if first, dup := tags[key]; dup {
				v.add(vr.Tag.Pos, "%s.tag: duplicate %s value %s (also %s at %d:%d)", vwhat, u.Discriminator, vr.Tag.Text(), first.Name, first.Tag.Pos.Line, first.Tag.Pos.Col)
			} else {
				tags[key] = vr
			}
		}
	}
}

func (v *validator) faces() {
	byName := map[string]*Face{}
	for _, f := range v.spec.Faces {
		if _, dup := byName[f.Name]; !dup {
			byName[f.Name] = f
		}
	}
	faceNames := newSuggester(sortedKeys(byName))
	for _, f := range v.spec.Faces {
		what := "faces." + f.Name
		for _, e := range f.Embeds {
			d, ok := v.decls[e.Name]
			switch {
			case !ok:
				v.add(e.Pos, "%s.embeds: undeclared face %s%s", what, e.Name, faceNames.didYouMean(e.Name))
			case d.kind != declFace:
				v.add(e.Pos, "%s.embeds: %s is a %s, not a face", what, e.Name, d.kind)
			}
		}
		for _, m := range f.Methods {
			if why := checkIdent(m.Name, true); why != "" {
				v.add(m.Pos, "%s.methods: method name %s %s", what, m.Name, why)
			}
		}
	}
	// Embed cycles: a face may not reach itself through embeds.
	for _, f := range v.spec.Faces {
		for _, e := range f.Embeds {
			if path := embedPath(byName, e.Name, f.Name, map[string]bool{}); path != nil {
				v.add(e.Pos, "faces.%s.embeds: embed cycle %s", f.Name, strings.Join(append([]string{f.Name}, path...), " → "))
			}
		}
	}
	// Method sets: a method may come from only one place.
	for _, f := range v.spec.Faces {
		seen := map[string]string{}
		for _, m := range f.Methods {
			if prev, dup := seen[m.Name]; dup {
				v.add(m.Pos, "faces.%s.methods: %s is declared twice (%s)", f.Name, m.Name, prev)
			}
			seen[m.Name] = "declared by " + f.Name
		}
		for _, e := range f.Embeds {
			for _, name := range methodSet(byName, e.Name, map[string]bool{f.Name: true}) {
				if prev, dup := seen[name]; dup {
					v.add(e.Pos, "faces.%s.embeds: %s brings method %s, already %s", f.Name, e.Name, name, prev)
					continue
				}
				seen[name] = "from " + e.Name
			}
		}
	}
}

// embedPath returns the embed chain from name to target, or nil when there is none.
func embedPath(faces map[string]*Face, name, target string, seen map[string]bool) []string {
	if name == target {
		return []string{name}
	}
	f, ok := faces[name]
	if !ok || seen[name] {
		return nil
	}
	seen[name] = true
	for _, e := range f.Embeds {
		if p := embedPath(faces, e.Name, target, seen); p != nil {
			return append([]string{name}, p...)
		}
	}
	return nil
}

func methodSet(faces map[string]*Face, name string, seen map[string]bool) []string {
	f, ok := faces[name]
	if !ok || seen[name] {
		return nil
	}
	seen[name] = true
	var out []string
	for _, m := range f.Methods {
		out = append(out, m.Name)
	}
	for _, e := range f.Embeds {
		out = append(out, methodSet(faces, e.Name, seen)...)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (v *validator) machines() {
	enums := map[string]*Enum{}
	for _, e := range v.spec.Enums {
		enums[e.Name] = e
	}
	driven := map[string]*Machine{}
	for _, m := range v.spec.Machines {
		what := "machines." + m.Name
		if m.States.Name == "" {
			continue
		}
		enum, ok := enums[m.States.Name]
		if !ok {
			if d, declared := v.decls[m.States.Name]; declared {
				v.add(m.States.Pos, "%s.states: %s is a %s; states come from an enum", what, m.States.Name, d.kind)
			} else {
				v.add(m.States.Pos, "%s.states: undeclared enum %s%s", what, m.States.Name, didYouMean(m.States.Name, sortedKeys(enums)))
			}
			continue
		}
		if first, dup := driven[enum.Name]; dup {
			v.add(m.States.Pos, "%s.states: enum %s already drives machine %s; a Terminal method can answer for only one", what, enum.Name, first.Name)
		} else {
			driven[enum.Name] = m
		}
		var values []string
		for _, val := range enum.Values {
			values = append(values, val.Value)
		}
		isState := func(r Ref, where string) bool {
			if r.Name == "" {
				return false
			}
			if !slices.Contains(values, r.Name) {
				v.add(r.Pos, "%s.%s: %s is not a state of %s (states: %s)%s", what, where, r.Name, enum.Name, strings.Join(values, ", "), didYouMean(r.Name, values))
				return false
			}
			return true
		}
		isState(m.Initial, "initial")
		terminal := map[string]bool{}
		for _, t := range m.Terminal {
			if isState(t, "terminal") {
				if terminal[t.Name] {
					v.add(t.Pos, "%s.terminal: %s is listed twice", what, t.Name)
				}
				terminal[t.Name] = true
			}
		}
		if terminal[m.Initial.Name] {
			v.add(m.Initial.Pos, "%s.initial: the initial state %s is terminal, so nothing can ever happen", what, m.Initial.Name)
		}
		next := map[string][]string{}
		for _, tr := range m.Transitions {
			from := isState(tr.From, "transitions")
			if from && terminal[tr.From.Name] {
				v.add(tr.From.Pos, "%s.transitions: %s is terminal; no transition may leave it", what, tr.From.Name)
			}
			seen := map[string]bool{}
			for _, to := range tr.To {
				if !isState(to, "transitions."+tr.From.Name) {
					continue
				}
				if seen[to.Name] {
					v.add(to.Pos, "%s.transitions.%s: %s is listed twice", what, tr.From.Name, to.Name)
				}
				seen[to.Name] = true
				if from {
					next[tr.From.Name] = append(next[tr.From.Name], to.Name)
				}
			}
		}
		// Every state must be reachable, and every non-terminal state must have a way out.
		reached := map[string]bool{m.Initial.Name: true}
		queue := []string{m.Initial.Name}
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			for _, n := range next[s] {
				if !reached[n] {
					reached[n] = true
					queue = append(queue, n)
				}
			}
		}
		if !slices.Contains(values, m.Initial.Name) {
			continue
		}
		for _, val := range enum.Values {
			switch {
			case !reached[val.Value]:
				v.add(m.Pos, "%s: state %s cannot be reached from %s", what, val.Value, m.Initial.Name)
			case !terminal[val.Value] && len(next[val.Value]) == 0:
				v.add(m.Pos, "%s: state %s is not terminal but no transition leaves it", what, val.Value)
			}
		}
	}
}

var factName = regexp.MustCompile(`^[a-z][a-z0-9]*([/.\-][a-z][a-z0-9]*)*$`)

func (v *validator) facts() {
	for _, f := range v.spec.Facts {
		what := "facts." + f.Name
		if !factName.MatchString(f.Name) {
			v.add(f.Pos, "%s: a fact name is lower-case words joined by / . or - (like job/settled)", what)
		}
		if len(f.Versions) == 0 {
			v.add(f.Pos, "%s: a fact needs at least one version", what)
			continue
		}
		for i := 1; i < len(f.Versions); i++ {
			prev, cur := f.Versions[i-1], f.Versions[i]
			if comparePos(cur.Pos, prev.Pos) < 0 {
				v.add(prev.Pos, "%s.versions: v%d is listed after v%d; list versions oldest first", what, prev.Number, cur.Number)
			}
		}
		latest := f.Latest()
		if latest.Retired {
			v.add(latest.Pos, "%s.versions.v%d: the newest version cannot be retired; it is what new facts are written as", what, latest.Number)
		}
		byNumber := map[int]*FactVersion{}
		for _, fv := range f.Versions {
			byNumber[fv.Number] = fv
		}
		reserved := map[string]Ref{}
		for _, r := range f.Reserved {
			if first, dup := reserved[r.Name]; dup {
				v.add(r.Pos, "%s.reserved: %s is listed twice (first at %d:%d)", what, r.Name, first.Pos.Line, first.Pos.Col)
			}
			reserved[r.Name] = r
		}
		for _, fv := range f.Versions {
			vwhat := fmt.Sprintf("%s.versions.v%d", what, fv.Number)
			if fv.Retired && len(fv.Fields) > 0 {
				v.add(fv.Pos, "%s: a retired version keeps no fields; remove them", vwhat)
			}
			v.upcast(f, fv, vwhat)
			for _, fd := range fv.Fields {
				fwhat := vwhat + ".fields." + fd.Name
				if fd.Type != nil && !fd.Wire() {
					v.add(fd.Type.Pos, "%s: %s cannot be written to a journal; fact fields must be JSON values", fwhat, fd.Type)
				}
				if r, ok := reserved[fd.Name]; ok && fv == latest {
					v.add(fd.Pos, "%s: field name %s is reserved (at %d:%d); it was removed and may not come back", fwhat, fd.Name, r.Pos.Line, r.Pos.Col)
				} else if r, ok := reserved[fd.JSON]; ok && fv == latest {
					v.add(fd.Pos, "%s: JSON name %s is reserved (at %d:%d); it was removed and may not come back", fwhat, fd.JSON, r.Pos.Line, r.Pos.Col)
				}
				if fd.Since == 0 {
					continue
				}
				if fd.Since > fv.Number {
					v.add(fd.SincePos, "%s.since: v%d is newer than the version declaring it", fwhat, fd.Since)
					continue
				}
				origin, ok := byNumber[fd.Since]
				if !ok || origin.Retired || origin == fv {
					continue
				}
				var prev *Field
				for _, of := range origin.Fields {
					if of.Name == fd.Name {
						prev = of
					}
				}
				switch {
				case prev == nil:
					v.add(fd.SincePos, "%s.since: v%d has no field %s", fwhat, fd.Since, fd.Name)
				case prev.JSON != fd.JSON:
					v.add(fd.Pos, "%s: JSON name %s differs from %s in v%d", fwhat, fd.JSON, prev.JSON, fd.Since)
				case prev.Type != nil && fd.Type != nil && prev.Type.String() != fd.Type.String():
					v.add(fd.Type.Pos, "%s: type %s differs from %s in v%d", fwhat, fd.Type, prev.Type, fd.Since)
				}
			}
		}
	}
}

// upcast checks that an older, live fact version names an upcaster to the
// newest version, declared in the spec's sources with the exact signature
// DecodeFact calls it with.
func (v *validator) upcast(f *Fact, fv *FactVersion, vwhat string) {
	latest := f.Latest()
	older, newest := f.StructName(fv), f.StructName(latest)
	want := fmt.Sprintf("func(%s) (%s, error)", older, newest)
	u := fv.Upcast
	switch {
	case fv == latest && u.Name != "":
		v.add(u.Pos, "%s.upcast: the newest version is what facts decode to; it has no upcaster", vwhat)
		return
	case fv.Retired && u.Name != "":
		v.add(u.Pos, "%s.upcast: a retired version is never decoded, so it has no upcaster", vwhat)
		return
	case fv == latest || fv.Retired:
		return
	case u.Name == "":
		v.add(fv.Pos, "%s: an older version needs an upcaster to v%d: write a %s in a file of package.sources and name it with upcast:, or mark the version retired: true", vwhat, latest.Number, want)
		return
	}
	if why := checkIdent(u.Name, false); why != "" {
		v.add(u.Pos, "%s.upcast: %s %s", vwhat, u.Name, why)
		return
	}
	if !v.spec.sourcesRead {
		return // comparing specs, not generating: the sources are not at hand
	}
	if len(v.spec.Sources) == 0 {
		v.add(u.Pos, "%s.upcast: %s must be declared in a file of package.sources, and the spec lists none", vwhat, u.Name)
		return
	}
	fn, src := findFunc(v.spec.Sources, u.Name)
	switch {
	case fn == nil:
		v.add(u.Pos, "%s.upcast: no func %s in package.sources (%s); declare it as %s", vwhat, u.Name, sourceNames(v.spec), want)
	case !hasSignature(fn, older, newest):
		at := src.pos(fn.Name.Pos())
		v.add(u.Pos, "%s.upcast: %s (%s:%d:%d) is %s; want %s", vwhat, u.Name, src.Path, at.Line, at.Col, funcText(src, fn), want)
	}
}

// allowances checks that each allow_breaking entry names a rule jobgen has.
// Whether it matches a finding is for jobgen breaking to say.
func (v *validator) allowances() {
	var ids []string
	for _, r := range Rules() {
		if knownRule(r.ID) {
			ids = append(ids, r.ID)
		}
	}
	for _, a := range v.spec.AllowBreaking {
		switch {
		case a.Rule.Name == RuleAllowanceUnused:
			v.add(a.Rule.Pos, "allow_breaking.rule: %s cannot be allowed; delete the stale allowance instead", a.Rule.Name)
		case a.Rule.Name != "" && !knownRule(a.Rule.Name):
			v.add(a.Rule.Pos, "allow_breaking.rule: unknown rule %s%s", a.Rule.Name, didYouMean(a.Rule.Name, ids))
		}
		if a.PathPos.Line > 0 && strings.TrimSpace(a.Path) == "" {
			v.add(a.PathPos, "allow_breaking.path: name the finding's path, as jobgen breaking prints it")
		}
	}
}

func (v *validator) defaults() {
	for _, d := range v.spec.Defaults {
		what := "defaults." + d.Name
		if d.Unit == "" {
			continue
		}
		sized := d.Unit == UnitBytes || d.Unit == UnitKiB || d.Unit == UnitMiB
		if strings.HasSuffix(d.Name, "Bytes") && !sized {
			v.add(d.UnitPos, "%s.unit: %s names a size in bytes but its unit is %s; use bytes, KiB or MiB", what, d.Name, d.Unit)
		}
		for _, suffix := range []string{"Ms", "Millis", "Seconds", "Secs"} {
			if strings.HasSuffix(d.Name, suffix) && d.Unit.Duration() {
				v.add(d.Pos, "%s: the unit makes the constant a time.Duration; drop the %s suffix from the name", what, suffix)
			}
		}
		if d.Value > unitLimit(d.Unit) {
			v.add(d.Pos, "%s.value: %d %s does not fit in an int64", what, d.Value, d.Unit)
		}
	}
}

// unitLimit is the largest value of the unit that fits the generated constant.
func unitLimit(u Unit) int64 {
	const maxInt64 = 1<<63 - 1
	switch u {
	case UnitKiB:
		return maxInt64 >> 10
	case UnitMiB:
		return maxInt64 >> 20
	case UnitMs:
		return maxInt64 / 1_000_000
	case UnitSeconds:
		return maxInt64 / 1_000_000_000
	case UnitMinutes:
		return maxInt64 / 60_000_000_000
	}
	return maxInt64
}
