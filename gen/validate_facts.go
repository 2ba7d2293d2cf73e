package gen

// Validate's checks of facts and their upcasters (emit_facts.go emits them).

import (
	"fmt"
	"regexp"
)

var factName = regexp.MustCompile(`^[a-z][a-z0-9]*([/.\-][a-z][a-z0-9]*)*$`)

// facts checks fact names, versions, the payload of each version and the
// upcasters that carry older live versions to the newest.
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
			if ComparePos(cur.Pos, prev.Pos) < 0 {
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

// upcast checks the hand-written upcaster an older, live fact version
// names: declared in the spec's sources with the exact signature DecodeFact
// calls it with. A version that names none is derived (decision 0173).
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
	case fv == latest || fv.Retired || u.Name == "":
		return // derived from the next version's declarations: see validate_evolution.go
	}
	if why := checkIdent(u.Name, false); why != "" {
		v.add(u.Pos, "%s.upcast: %s %s", vwhat, u.Name, why)
		return
	}
	if !v.spec.sourcesRead {
		return // comparing specs, not generating: the sources are not at hand
	}
	switch {
	case len(v.spec.Sources) > 0:
	case len(v.spec.Package.Sources) > 0:
		return // its patterns matched no .go file, reported at package.sources
	default:
		v.add(u.Pos, "%s.upcast: %s must be declared in a Go file listed under package.sources, and the spec has no package.sources", vwhat, u.Name)
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
