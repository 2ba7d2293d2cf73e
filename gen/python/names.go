package python

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/jobgen/jobgen/gen"
)

// This file holds the names of a module: how spec names become Python ones,
// and the names a module may not bind or a model may not hold.

// pyKeywords are Python's keywords, which no name may be.
var pyKeywords = []string{
	"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
	"def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
	"is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
}

// modelAttributes are the attributes of pydantic's BaseModel and of the
// runtime's Model, which a field named the same would shadow.
var modelAttributes = []string{
	"construct", "copy", "decode", "dict", "encode", "from_orm", "json", "model_computed_fields",
	"model_config", "model_construct", "model_copy", "model_dump", "model_dump_json", "model_extra",
	"model_fields", "model_fields_set", "model_json_schema", "model_parametrized_name",
	"model_post_init", "model_rebuild", "model_validate", "model_validate_json",
	"model_validate_strings", "parse_file", "parse_obj", "parse_raw", "schema", "schema_json",
	"update_forward_refs", "validate",
}

// fixedNames are the names every module may bind whatever the spec says:
// its imports, from typing, pydantic, datetime and the runtime, and the
// builtins it uses.
var fixedNames = []string{
	"Annotated", "Any", "Bytes", "Envelope", "Field", "Final", "Float32", "Float64", "Int16",
	"Int32", "Int64", "Int8", "JsonValue", "Literal", "Model", "StringIdentifier", "Timestamp",
	"TypeAlias", "UUIDIdentifier", "Uint16", "Uint32", "Uint64", "Uint8", "annotations", "bool",
	"bytes", "decode_envelope", "decode_union", "dict", "list", "str", "timedelta", "tuple", "type",
}

// pyIdent is what a Python name of jobgen's writing may be: ASCII, since
// Python folds other identifiers by NFKC and two spellings would meet.
var pyIdent = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// words splits a name at separators, at lower-to-upper case changes and
// before the last capital of a run followed by a lower-case letter, so
// "HTTPServer" is HTTP and Server.
func words(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	flush := func(end int) {
		if end > start {
			out = append(out, string(rs[start:end]))
		}
		start = end
	}
	for i, r := range rs {
		switch {
		case strings.ContainsRune("/-_. ", r):
			flush(i)
			start = i + 1
		case i > start && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])):
			flush(i)
		case i > start && unicode.IsUpper(r) && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		}
	}
	flush(len(rs))
	return out
}

// snake is a name in lower_snake_case: "gapBefore" is gap_before.
func snake(s string) string {
	ws := words(s)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return strings.Join(ws, "_")
}

// upperSnake is a name in UPPER_SNAKE_CASE, as constants are written.
func upperSnake(s string) string { return strings.ToUpper(snake(s)) }

// pyName is the attribute a field is held in: its spec name in snake case,
// with a trailing underscore when it is a keyword or a model's attribute
// (PEP 8's way).
func pyName(specName string) string {
	n := snake(specName)
	if slices.Contains(pyKeywords, n) || slices.Contains(modelAttributes, n) {
		n += "_"
	}
	return n
}

func fieldName(f *gen.Field) string { return pyName(f.Name) }

// checkNames reports what Python cannot hold: a name the module binds
// twice, or that is taken by its imports; a type that is a keyword; a field
// name that is no ASCII identifier or that two fields of one model share.
func checkNames(s *gen.Spec) gen.ErrorList {
	var errs gen.ErrorList
	x := s.Index()
	type claim struct {
		name, what string
		pos        gen.Pos
	}
	var claims []claim
	add := func(what string, pos gen.Pos, names ...string) {
		for _, n := range names {
			claims = append(claims, claim{n, what, pos})
		}
	}
	for _, im := range s.Imports {
		if im.Imported != nil {
			add("imports."+im.Alias, im.Pos, im.Alias)
		}
	}
	for _, d := range s.IDs {
		add("ids."+d.Name, d.Pos, d.Name)
	}
	for _, d := range s.Enums {
		add("enums."+d.Name, d.Pos, d.Name, upperSnake(d.Name)+"_VALUES")
	}
	for _, d := range s.Records {
		if x.OnWire(d.Name) {
			add("records."+d.Name, d.Pos, d.Name)
		}
	}
	for _, u := range s.Unions {
		if !x.OnWire(u.Name) {
			continue
		}
		add("unions."+u.Name, u.Pos, u.Name, "decode_"+snake(u.Name))
		if len(u.Common) > 0 {
			add("unions."+u.Name, u.Pos, u.CommonName())
		}
		for _, v := range u.Variants {
			add("unions."+u.Name+".variants."+v.Name, v.Pos, v.Name)
		}
	}
	for _, f := range s.Facts {
		for _, v := range f.LiveVersions() {
			add(fmt.Sprintf("facts.%s.versions.v%d", f.Name, v.Number), v.Pos, f.StructName(v), f.StructName(v)+"Envelope")
		}
	}
	if len(s.Facts) > 0 {
		add("", gen.Pos{}, "FactEnvelope", "decode_fact", "read_fact")
	}
	for _, d := range s.Defaults {
		add("defaults."+d.Name, d.Pos, upperSnake(d.GoName))
	}
	taken := map[string]claim{}
	fixed := fixedNames
	if len(s.Tools) > 0 {
		fixed = append(slices.Clone(fixed), "TOOLS", "ToolAnnotations", "ToolDefinition") // the tool table and its runtime types
	}
	for _, n := range fixed {
		taken[n] = claim{n, "", gen.Pos{}}
	}
	for _, c := range claims {
		switch first, dup := taken[c.name]; {
		case c.what == "":
			taken[c.name] = c
		case slices.Contains(pyKeywords, c.name):
			errs.Add(c.pos, "%s: %s is a Python keyword; rename it", c.what, c.name)
		case !dup:
			taken[c.name] = c
		case first.what == "":
			errs.Add(c.pos, "%s: Python name %s is taken by the module's own %s", c.what, c.name, c.name)
		case first.what != c.what:
			errs.Add(c.pos, "%s: generates the Python name %s, as %s at %d:%d does", c.what, c.name, first.what, first.pos.Line, first.pos.Col)
		}
	}
	return append(errs, checkFieldNames(s)...)
}

// checkFieldNames reports the fields of one model that share a Python
// name, and the names Python cannot hold as an attribute pydantic reads.
func checkFieldNames(s *gen.Spec) gen.ErrorList {
	var errs gen.ErrorList
	x := s.Index()
	check := func(what string, fields []*gen.Field, taken map[string]string) {
		for _, f := range wireFields(x, fields) {
			n := fieldName(f)
			switch {
			case !pyIdent.MatchString(n):
				errs.Add(f.Pos, "%s.%s: Python cannot name the field %s (an ASCII identifier that starts with a letter); rename it", what, f.Name, n)
			case taken[n] != "":
				errs.Add(f.Pos, "%s.%s: Python name %s is taken by %s", what, f.Name, n, taken[n])
			default:
				taken[n] = what + "." + f.Name
			}
		}
	}
	for _, r := range s.Records {
		check("records."+r.Name+".fields", r.Fields, map[string]string{})
	}
	for _, u := range s.Unions {
		common := map[string]string{pyName(u.Discriminator): "the discriminator " + u.Discriminator}
		check("unions."+u.Name+".common", u.Common, common)
		for _, v := range u.Variants {
			taken := map[string]string{}
			for k, val := range common {
				taken[k] = val
			}
			check("unions."+u.Name+".variants."+v.Name+".fields", v.Fields, taken)
		}
	}
	for _, f := range s.Facts {
		for _, v := range f.LiveVersions() {
			check(fmt.Sprintf("facts.%s.versions.v%d.fields", f.Name, v.Number), v.Fields, map[string]string{})
		}
	}
	return errs
}

// isortMembers returns the names a from-import binds in the order isort
// (ruff's I001, with its defaults) wants them: constants (names in upper
// case), then classes (a capital first), then the rest, each group in
// natural order without regard to case ("Uint16" before "UUIDIdentifier",
// "Int8" before "Int16"), the names as written breaking ties.
func isortMembers(names map[string]bool) []string {
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	return isortOrder(out)
}

// isortOrder sorts names in place in isortMembers' order and returns them.
func isortOrder(out []string) []string {
	slices.SortFunc(out, func(a, b string) int {
		if d := memberType(a) - memberType(b); d != 0 {
			return d
		}
		if d := naturalCompare(strings.ToLower(a), strings.ToLower(b)); d != 0 {
			return d
		}
		return naturalCompare(a, b)
	})
	return out
}

// memberType is isort's kind of an imported name: 0 a constant, 1 a class,
// 2 anything else.
func memberType(name string) int {
	switch {
	case len(name) > 1 && strings.ToUpper(name) == name && strings.ToLower(name) != name:
		return 0
	case name != "" && unicode.IsUpper([]rune(name)[0]):
		return 1
	}
	return 2
}

// naturalCompare compares a and b as natural order does: runs of digits by
// their value, everything else byte by byte.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if d := len(na) - len(nb); d != 0 {
				return d
			}
			if d := strings.Compare(na, nb); d != 0 {
				return d
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

// digitRun is the length of the run of ASCII digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
