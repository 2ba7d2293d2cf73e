package gen

// Validate's checks of faces (emit_faces.go emits them).

import (
	"slices"
	"strings"
)

// faces checks that faces embed only faces, without cycles, and that each
// method of a face's method set comes from one place.
func (v *validator) faces() {
	byName := v.spec.Index().Faces
	faceNames := newSuggester(SortedKeys(byName))
	for _, f := range v.spec.Faces {
		what := "faces." + f.Name
		for _, e := range f.Embeds {
			d, ok := v.decls[e.Name]
			switch {
			case !ok:
				v.add(e.Pos, "%s.embeds: undeclared face %s%s", what, e.Name, faceNames.didYouMean(e.Name))
			case d.Kind != DeclFace:
				v.add(e.Pos, "%s.embeds: %s is a %s, not a face", what, e.Name, d.Kind)
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

// methodSet returns the methods face name has, its own and embedded ones;
// seen stops cycles, which faces reports on its own.
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

// SortedKeys returns m's keys in order, for stable suggestions.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
