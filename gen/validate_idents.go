package gen

// Validate's claim on Go identifiers: every top-level name the spec generates, once.

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
		names = append(names, "Fact", "FactEnvelope", "EncodeFact", "DecodeFact", "ReadFact", "UnknownFact", "ErrUnknownFact", "ErrUnknownVersion")
	}
	if s.HTTP != nil {
		names = append(names, "Server", "Routes", "NewHandler", "Client", "NewClient")
	}
	if len(s.Tools) > 0 {
		names = append(names, "Tools")
	}
	return names
}
