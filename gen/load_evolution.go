package gen

// The loader's readers of the evolution keys (decision 0173): a field's
// from, default and map, a shape's drop, a record's or union's from, a
// variant's added. Validate (validate_evolution.go) gives them meaning.

import (
	"strconv"

	"gopkg.in/yaml.v3"
)

// derivationKeys are the keys a field may carry to say how it derives from
// the older shape's fields.
var derivationKeys = []string{"from", "default", "map"}

// derivation reads a field's from, default and map into f.Derive.
func (l *loader) derivation(m map[string]entry, f *Field, fwhat string) {
	d := &Derivation{}
	found := false
	if e, ok := m["from"]; ok {
		d.From, found = l.ref(e.val, fwhat+".from"), true
	}
	if e, ok := m["default"]; ok {
		d.Default, found = l.literal(e.val, fwhat+".default"), true
	}
	if e, ok := m["map"]; ok {
		d.Map, d.MapPos, found = l.valueMaps(e.val, fwhat+".map"), l.pos(resolve(e.val)), true
	}
	if found {
		f.Derive = d
	}
}

// literal reads a default: a string, bool, integer or float scalar.
func (l *loader) literal(n *yaml.Node, what string) *Literal {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.add(n, "%s: expected a string, number or true/false, found %s", what, kindName(n))
		return nil
	}
	lit := &Literal{Text: n.Value, Pos: l.pos(n)}
	switch n.Tag {
	case "!!str":
		lit.Kind = LitString
	case "!!bool":
		lit.Kind = LitBool
	case "!!int":
		var v int64
		if n.Decode(&v) != nil {
			l.add(n, "%s: %s does not fit in 64 bits", what, n.Value)
			return nil
		}
		lit.Kind, lit.Text = LitInt, strconv.FormatInt(v, 10)
	case "!!float":
		lit.Kind = LitFloat
	default:
		l.add(n, "%s: expected a string, number or true/false, found %s", what, describe(n))
		return nil
	}
	return lit
}

// valueMaps reads a map: old value → new enum value, in spec order. A key
// may be an enum value or true / false; the values are enum values.
func (l *loader) valueMaps(n *yaml.Node, what string) []*ValueMap {
	var out []*ValueMap
	for _, e := range l.entries(n, what) {
		vm := &ValueMap{From: e.key, FromPos: l.pos(e.keyNode)}
		v := resolve(e.val)
		if s, ok := l.str(v, what+"."+e.key); ok {
			vm.To, vm.ToPos = s, l.pos(v)
			out = append(out, vm)
		}
	}
	return out
}

// drops reads a shape's drop: the names of the older shape's fields it
// does not carry.
func (l *loader) drops(m map[string]entry, what string) []Ref {
	if e, ok := m["drop"]; ok {
		return l.refs(e.val, what+".drop")
	}
	return nil
}
