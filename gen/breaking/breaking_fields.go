package breaking

import (
	"slices"

	"github.com/jobgen/jobgen/gen"
)

// A placedField is a field with its path in the spec.
type placedField struct {
	*gen.Field
	path string
}

// placed gives each field its path under path, as findings name it.
func placed(fields []*gen.Field, path string) []placedField {
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
func (c *comparer) fields(old, new []placedField, near gen.Pos, cats []gen.Category, isReserved func(*gen.Field) bool, moved func(*gen.Field) (string, *gen.Field)) {
	matched := map[*gen.Field]bool{}
	for _, of := range old {
		if !of.Wire() {
			c.goOnlyField(of, new, near)
			continue
		}
		nf, ok := findField(of.Field, new)
		if !ok {
			c.deletedField(of, near, cats, isReserved, moved)
			continue
		}
		matched[nf.Field] = true
		c.changedField(of.Field, nf, cats)
	}
	for _, nf := range new {
		if matched[nf.Field] || !nf.Wire() || nf.Optional || nf.Type.Collection() {
			continue
		}
		fix := "make it optional: true"
		if isReserved != nil {
			fix += ", or add a new fact version"
		}
		c.add(gen.RuleRequiredFieldAdded, nf.path, nf.Pos, cats, "required field %s was added; JSON written without it no longer decodes (%s)", nf.JSON, fix)
	}
}

// findField finds old field of among a shape's new wire fields: by its spec
// name, or else by its JSON name.
func findField(of *gen.Field, new []placedField) (placedField, bool) {
	for _, nf := range new {
		if nf.Name == of.Name && nf.Wire() {
			return nf, true
		}
	}
	for _, nf := range new {
		if nf.JSON == of.JSON && nf.Wire() {
			return nf, true
		}
	}
	return placedField{}, false
}

// deletedField reports a wire field the new shape no longer has: a fact
// field whose name is (or is not) reserved, a variant field that moved to
// another variant, or a field simply gone.
func (c *comparer) deletedField(of placedField, near gen.Pos, cats []gen.Category, isReserved func(*gen.Field) bool, moved func(*gen.Field) (string, *gen.Field)) {
	goapi := append(slices.Clone(cats), gen.GoAPI)
	switch {
	case isReserved != nil && isReserved(of.Field):
		c.addNear(gen.RuleFieldDeleted, of.path, of.Pos, near, []gen.Category{gen.GoAPI}, "field %s was deleted (its name stays reserved); Go code naming %s no longer compiles; keep it, or accept the break in allow_breaking", of.Name, of.GoName)
	case isReserved != nil:
		c.addNear(gen.RuleFieldDeletedNotReserved, of.path, of.Pos, near, goapi, "field %s was deleted; list %s under the fact's reserved: so it never comes back with another meaning", of.Name, of.Name)
	default:
		if moved != nil {
			if where, to := moved(of.Field); to != nil {
				c.add(gen.RuleVariantFieldMoved, of.path, to.Pos, goapi, "field %s moved to %s; readers of this variant no longer get it; move it to the union's common: fields, or keep it here too", of.JSON, where)
				return
			}
		}
		why := "Go code naming " + of.GoName + " no longer compiles"
		if len(cats) > 0 {
			why = "old history and peers carry it, readers that require it break, and " + why
		}
		c.addNear(gen.RuleFieldDeleted, of.path, of.Pos, near, goapi, "field %s was deleted; %s; keep it (optional: true, and stop setting it)", of.Name, why)
	}
}

// changedField compares a wire field the new shape still has, under its
// spec or its JSON name: its names, its type, whether it became required
// or terminal, and its bounds.
func (c *comparer) changedField(of *gen.Field, nf placedField, cats []gen.Category) {
	goapi := append(slices.Clone(cats), gen.GoAPI)
	path := nf.path
	if nf.GoName != of.GoName {
		c.add(gen.RuleFieldRenamed, path, nf.Pos, []gen.Category{gen.GoAPI}, "field %s was renamed %s; Go code naming %s no longer compiles; keep the name %s", of.Name, nf.Name, of.GoName, of.Name)
	}
	if nf.JSON != of.JSON {
		c.add(gen.RuleFieldJSONNameChanged, path, nf.Pos, cats, "JSON name changed from %s to %s; set json: %s to keep the wire name", of.JSON, nf.JSON, of.JSON)
	}
	switch {
	case !c.compatible(of.Type, nf.Type):
		c.add(gen.RuleFieldTypeChanged, path, nf.Type.Pos, goapi, "type changed from %s to %s; JSON written as %s does not decode into it, and Go code using the field no longer compiles; keep %s and add a field of the new type", of.Type, nf.Type, of.Type, of.Type)
	case of.Type.String() != nf.Type.String() && !c.renamedIn(of.Type) && len(cats) > 0 && !c.readsBack(nf.Type, of.Type):
		c.addIn(Forward, gen.RuleFieldTypeChanged, path, nf.Type.Pos, gen.Pos{}, goapi, "type widened from %s to %s; old JSON still decodes, but a reader of the old spec cannot read every %s the new one writes, and Go code using the field as %s no longer compiles; keep %s, or accept the break in allow_breaking", of.Type, nf.Type, nf.Type, of.Type, of.Type)
	case of.Type.String() != nf.Type.String() && !c.renamedIn(of.Type):
		c.add(gen.RuleFieldTypeChanged, path, nf.Type.Pos, []gen.Category{gen.GoAPI}, "type changed from %s to %s; old JSON still decodes, but Go code using the field as %s no longer compiles; keep %s, or accept the break in allow_breaking", of.Type, nf.Type, of.Type, of.Type)
	}
	if of.Optional && !nf.Optional && !nf.Type.Collection() {
		c.add(gen.RuleFieldMadeRequired, path, nf.Pos, cats, "field %s became required; JSON written without it no longer decodes; keep it optional: true", nf.JSON)
	}
	if !of.Optional && nf.Optional && !of.Type.Collection() {
		c.add(gen.RuleFieldMadeOptional, path, nf.Pos, cats, "field %s became optional; the new spec's writers may leave it out, which readers of the old spec refuse; keep it required, or accept the break in allow_breaking", nf.JSON)
	}
	if nf.Terminal && !of.Terminal {
		c.add(gen.RuleFieldMadeTerminal, path, nf.TerminalPos, cats, "field %s became terminal: true; JSON written with a state that is not terminal no longer decodes; drop terminal: true", nf.JSON)
	}
	c.bounds(of, nf, cats)
}

// goOnlyField compares a field that never travels (a func, a channel, a
// face): only Go callers see it, so only goapi findings apply.
func (c *comparer) goOnlyField(of placedField, new []placedField, near gen.Pos) {
	goapi := []gen.Category{gen.GoAPI}
	i := slices.IndexFunc(new, func(nf placedField) bool { return nf.Name == of.Name })
	if i < 0 {
		c.addNear(gen.RuleFieldDeleted, of.path, of.Pos, near, goapi, "field %s was deleted; Go code naming %s no longer compiles; keep it", of.Name, of.GoName)
		return
	}
	if nf := new[i]; of.Type.String() != nf.Type.String() && !c.renamedIn(of.Type) {
		c.add(gen.RuleFieldTypeChanged, nf.path, nf.Type.Pos, goapi, "type changed from %s to %s; Go code using the field no longer compiles; keep %s", of.Type, nf.Type, of.Type)
	}
}

// renamedIn reports whether t names a declaration the new spec no longer
// has: TYPE_DELETED reports that once, not at every field using it.
func (c *comparer) renamedIn(t *gen.Type) bool {
	gone := false
	t.Walk(func(u *gen.Type) {
		if u.Kind != gen.TypeNamed {
			return
		}
		if d, ok := c.newx.Decls[u.Name]; !ok || d.Kind == gen.DeclMachine {
			gone = true
		}
	})
	return gone
}

// compatible reports whether JSON written for the old spec's type o
// decodes into the new spec's type n: backward. Declarations that keep their
// name are compared on their own.
func (c *comparer) compatible(o, n *gen.Type) bool {
	return decodesInto(o, c.oldx, n, c.newx)
}

// readsBack reports whether JSON written for the new spec's type n decodes
// into the old spec's type o: forward. A value that may now be null does
// not, where the old type held no pointer.
func (c *comparer) readsBack(n, o *gen.Type) bool {
	if n.Kind == gen.TypePointer && o.Kind != gen.TypePointer {
		return false
	}
	return decodesInto(n, c.newx, o, c.oldx)
}

// decodesInto reports whether JSON written for type from, of the spec
// fx indexes, decodes into type to, of the spec tx indexes.
func decodesInto(from *gen.Type, fx *gen.Index, to *gen.Type, tx *gen.Index) bool {
	if from.String() == to.String() {
		return true
	}
	if from.Kind == gen.TypePointer {
		from = from.Elem
	}
	if to.Kind == gen.TypePointer {
		to = to.Elem
	}
	switch {
	case from.Kind == gen.TypeSlice && to.Kind == gen.TypeSlice:
		return decodesInto(from.Elem, fx, to.Elem, tx)
	case from.Kind == gen.TypeMap && to.Kind == gen.TypeMap:
		return decodesInto(from.Key, fx, to.Key, tx) && decodesInto(from.Elem, fx, to.Elem, tx)
	case from.Kind == gen.TypeBuiltin && to.Kind == gen.TypeBuiltin:
		return gen.Widens(from.Name, to.Name)
	case from.Kind == gen.TypeNamed && to.Kind == gen.TypeNamed && from.Name == to.Name:
		return true
	}
	// Every string-shaped type reads as a plain string or a string id; an
	// enum reads as another enum holding all its values; a uuid id as another.
	if fx.Stringy(from) {
		switch {
		case to.Scalar().Kind == gen.ScalarString:
			return true
		case to.Kind == gen.TypeNamed && tx.IDs[to.Name] != nil:
			return tx.IDs[to.Name].Kind == gen.IDString || fx.IDs[from.Name] != nil && fx.IDs[from.Name].Kind == gen.IDUUID
		case to.Kind == gen.TypeNamed && tx.Enums[to.Name] != nil && fx.Enums[from.Name] != nil:
			for _, v := range fx.Enums[from.Name].Values {
				if !slices.ContainsFunc(tx.Enums[to.Name].Values, func(w *gen.EnumValue) bool { return w.Value == v.Value }) {
					return false
				}
			}
			return true
		}
	}
	return from.String() == to.String()
}
