package gen

// Validate's checks of unions (emit_unions.go emits them).

// unions checks each union's discriminator and variant tags: one tag type per
// union, no tag twice, and no variant field that shadows the common ones or the
// discriminator.
func (v *validator) unions() {
	for _, u := range v.spec.Unions {
		what := "unions." + u.Name
		if u.Discriminator != "" && !jsonName.MatchString(u.Discriminator) {
			v.add(u.DiscPos, "%s.discriminator: %q must be a letter or underscore followed by letters, digits or underscores", what, u.Discriminator)
		}
		if len(u.Variants) == 0 {
			v.add(u.Pos, "%s: a union needs at least one variant", what)
		}
		discGo := GoName(u.Discriminator)
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
