package gen

import (
	"strings"
)

// DeclKind is what a declared name stands for.
type DeclKind int

const (
	DeclNone DeclKind = iota
	DeclID
	DeclEnum
	DeclRecord
	DeclUnion
	DeclVariant
	DeclFace
	DeclMachine
)

func (k DeclKind) String() string {
	return [...]string{"nothing", "id", "enum", "record", "union", "union variant", "face", "machine"}[k]
}

// Validate checks what Parse cannot see alone: names, references, cycles,
// uniqueness, machines and facts. It reports every problem at the node that
// causes it and returns them sorted. It returns the spec as a Resolved, for
// the backends, only when there is no problem, here or in what Parse, or
// LoadFS reading sources and imports, reported before.
func Validate(s *Spec) (*Resolved, ErrorList) {
	s.idx = indexSpec(s)
	v := &validator{spec: s, decls: s.idx.Decls, idents: map[string]ident{}}
	v.pkg()
	v.identifiers()
	v.initialismNames()
	v.importedTypes()
	v.typeRefs()
	v.records()
	v.unions()
	v.routes()
	v.faces()
	v.machines()
	v.terminalFields()
	v.facts()
	v.evolution()
	v.defaults()
	v.bounds()
	v.tools()
	v.allowances()
	v.errs.RemoveMultiples()
	if len(v.errs) > 0 || s.incomplete {
		return nil, v.errs
	}
	return &Resolved{spec: s}, nil
}

type Decl struct {
	Kind DeclKind
	Pos  Pos
}

type ident struct {
	what string // where the identifier comes from, e.g. "records.JobSnapshot"
	spec string // the spec name that generates it
	pos  Pos
}

type validator struct {
	spec   *Spec
	errs   ErrorList
	decls  map[string]Decl // the spec's, from its index
	idents map[string]ident
}

func (v *validator) add(p Pos, format string, args ...any) { v.errs.Add(p, format, args...) }

// pkg checks the package name and the import aliases are Go identifiers.
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
	if ComparePos(pos, first.pos) < 0 {
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

// allowances checks that each allow_breaking entry names a rule jobgen has.
// Whether it matches a finding is for jobgen breaking to say.
func (v *validator) allowances() {
	var ids []string
	for _, r := range Rules() {
		if knownRule(r.ID) {
			ids = append(ids, string(r.ID))
		}
	}
	for _, a := range v.spec.AllowBreaking {
		switch {
		case a.RuleID() == RuleAllowanceUnused:
			v.add(a.Rule.Pos, "allow_breaking.rule: %s cannot be allowed; delete the stale allowance instead", a.Rule.Name)
		case a.Rule.Name != "" && !knownRule(a.RuleID()):
			v.add(a.Rule.Pos, "allow_breaking.rule: unknown rule %s%s", a.Rule.Name, didYouMean(a.Rule.Name, ids))
		}
		if a.PathPos.Line > 0 && strings.TrimSpace(a.Path) == "" {
			v.add(a.PathPos, "allow_breaking.path: name the finding's path, as jobgen breaking prints it")
		}
	}
}
