package gen

// Validate's checks of type references, field lists and records (emit_types.go emits them).

import (
	"regexp"
	"slices"
)

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

// eachType calls fn for every type, and every type within it, that a field
// or a face method of the spec is declared with.
func (v *validator) eachType(fn func(*Type)) {
	walk := func(t *Type) {
		if t != nil {
			t.Walk(fn)
		}
	}
	v.eachFieldList(func(_ string, fields []*Field) {
		for _, f := range fields {
			walk(f.Type)
		}
	})
	for _, f := range v.spec.Faces {
		for _, m := range f.Methods {
			walk(m.Type)
		}
	}
	v.eachRouteType(walk)
	v.eachToolType(walk)
}

// typeNames are the names in decls a type expression may refer to (all but
// machines), sorted.
func typeNames(decls map[string]Decl) []string {
	names := make([]string, 0, len(decls))
	for name, d := range decls {
		if d.Kind != DeclMachine {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// typeRefs resolves every named type and reports undeclared ones.
func (v *validator) typeRefs() {
	suggestions := newSuggester(typeNames(v.decls))
	v.eachType(func(t *Type) {
		if t.Kind != TypeNamed {
			return
		}
		d, ok := v.decls[t.Name]
		switch {
		case !ok:
			v.add(t.Pos, "undeclared type %s%s", t.Name, suggestions.didYouMean(t.Name))
		case d.Kind == DeclMachine:
			v.add(t.Pos, "%s is a machine, not a type; use its states enum", t.Name)
		default:
			t.decl = d.Kind
		}
	})
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
		f.Type.Walk(func(t *Type) {
			if t.Declared() && t.decl == DeclUnion {
				v.add(t.Pos, "%s: union %s cannot be a field type, since JSON cannot tell which variant to decode into; use a variant type", fwhat, t)
			}
			if t.Kind == TypeMap && (t.Key.Kind != TypeBuiltin || t.Key.Name != "string") && (!t.Key.Declared() || (t.Key.decl != DeclID && t.Key.decl != DeclEnum)) && !t.Key.unread() {
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
