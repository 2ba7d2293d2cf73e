package gen

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Language is the version of the spec language this package reads; a spec
// declares it with the top-level key "jobgen".
const Language = 1

// Load reads and validates a spec, reading the sources it names from the
// directory of file. It returns the model only when the whole spec is valid;
// otherwise the error is an ErrorList of every problem found.
func Load(file string, data []byte) (*Resolved, error) {
	dir, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return LoadFS(sourcesFS(dir), file, data)
}

// LoadFS is Load reading the spec's sources from dir, a file system rooted
// at the spec's directory. With a nil dir the sources are not read and
// upcasters are not checked against them: enough to compare two specs, not
// to generate from one.
func LoadFS(dir fs.FS, file string, data []byte) (*Resolved, error) {
	return loadChain(dir, file, data, []string{path.Base(filepath.ToSlash(file))})
}

// loadChain is LoadFS for the last spec of an import chain: chain holds the
// path of each spec that imports the next, relative to the first one's
// directory, ending with this spec's own. With a nil dir imports, like
// sources, are not read.
func loadChain(dir fs.FS, file string, data []byte, chain []string) (*Resolved, error) {
	spec, errs := Parse(file, data)
	if spec == nil {
		return nil, errs.Err()
	}
	if dir != nil {
		errs = append(errs, readSources(spec, dir)...)
		errs = append(errs, readImports(spec, dir, chain)...)
	}
	spec.incomplete = len(errs) > 0
	r, verrs := Validate(spec)
	errs = append(errs, verrs...)
	errs.RemoveMultiples()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// Parse reads a spec's structure: its YAML, its keys and the shape of each value.
// It reports every structural problem it finds and returns as much of the model
// as it could build; the model is nil only when the YAML cannot be read at all.
// Cross-references are checked by Validate.
func Parse(file string, data []byte) (*Spec, ErrorList) {
	if errs := checkText(file, data); len(errs) > 0 {
		return nil, errs
	}
	l := &loader{file: file, src: data}
	root := l.parseYAML(data)
	if root == nil {
		return nil, l.errs
	}
	if errs := checkAliases(file, root); len(errs) > 0 {
		return nil, append(l.errs, errs...)
	}
	spec := &Spec{File: file}
	if root.Kind != yaml.MappingNode {
		l.add(root, "spec: expected a mapping of sections (jobgen, package, records …), found %s", kindName(root))
		return nil, l.errs
	}
	top := l.object(root, "spec", "jobgen", "package", "imports", "ids", "enums",
		"records", "unions", "faces", "machines", "facts", "defaults", "allow_breaking")
	if e, ok := top["jobgen"]; ok {
		if v, ok := l.integer(e.val, "jobgen"); ok {
			spec.Language = int(v)
			if v != Language {
				l.add(e.val, "jobgen: language version %d is not supported; this jobgen reads version %d", v, Language)
			}
		}
	} else {
		l.add(root, "spec: missing key jobgen (the spec language version; write jobgen: %d)", Language)
	}
	if e, ok := top["package"]; ok {
		spec.Package = l.pkg(e)
	} else {
		l.add(root, "spec: missing key package")
	}
	if e, ok := top["imports"]; ok {
		for _, im := range l.entries(e.val, "imports") {
			if imp := l.importEntry(im); imp != nil {
				spec.Imports = append(spec.Imports, imp)
			}
		}
	}
	imports := func(alias string) (string, bool) {
		for _, im := range spec.Imports {
			if im.Alias == alias {
				return im.Path, true
			}
		}
		for _, im := range standardImports() {
			if im.Alias == alias {
				return im.Path, true
			}
		}
		return "", false
	}
	l.types = imports
	if e, ok := top["ids"]; ok {
		for _, d := range l.entries(e.val, "ids") {
			spec.IDs = append(spec.IDs, l.id(d))
		}
	}
	if e, ok := top["enums"]; ok {
		for _, d := range l.entries(e.val, "enums") {
			spec.Enums = append(spec.Enums, l.enum(d))
		}
	}
	if e, ok := top["records"]; ok {
		for _, d := range l.entries(e.val, "records") {
			spec.Records = append(spec.Records, l.record(d))
		}
	}
	if e, ok := top["unions"]; ok {
		for _, d := range l.entries(e.val, "unions") {
			spec.Unions = append(spec.Unions, l.union(d))
		}
	}
	if e, ok := top["faces"]; ok {
		for _, d := range l.entries(e.val, "faces") {
			spec.Faces = append(spec.Faces, l.face(d))
		}
	}
	if e, ok := top["machines"]; ok {
		for _, d := range l.entries(e.val, "machines") {
			spec.Machines = append(spec.Machines, l.machine(d))
		}
	}
	if e, ok := top["facts"]; ok {
		for _, d := range l.entries(e.val, "facts") {
			spec.Facts = append(spec.Facts, l.fact(d))
		}
	}
	if e, ok := top["defaults"]; ok {
		for _, d := range l.entries(e.val, "defaults") {
			spec.Defaults = append(spec.Defaults, l.def(d))
		}
	}
	if e, ok := top["allow_breaking"]; ok {
		spec.AllowBreaking = l.allowances(e.val)
	}
	spec.incomplete = len(l.errs) > 0
	return spec, l.errs
}

type loader struct {
	file  string
	src   []byte
	errs  ErrorList
	types func(alias string) (string, bool)
}

// An entry is one key and value of a YAML mapping.
type entry struct {
	key     string
	keyNode *yaml.Node
	val     *yaml.Node
}

func nodePos(file string, n *yaml.Node) Pos { return Pos{File: file, Line: n.Line, Col: n.Column} }

func (l *loader) pos(n *yaml.Node) Pos { return nodePos(l.file, n) }

func (l *loader) add(n *yaml.Node, format string, args ...any) {
	l.errs.Add(l.pos(n), format, args...)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML reads exactly one YAML document and returns its root node.
func (l *loader) parseYAML(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			l.errs.Add(Pos{File: l.file, Line: 1, Col: 1}, "spec is empty")
			return nil
		}
		l.yamlError(err)
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		l.add(&extra, "a spec is one YAML document; remove this second document")
	} else if !errors.Is(err, io.EOF) {
		l.yamlError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		l.errs.Add(Pos{File: l.file, Line: 1, Col: 1}, "spec is empty")
		return nil
	}
	return doc.Content[0]
}

func (l *loader) yamlError(err error) {
	msg := err.Error()
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(strings.TrimPrefix(line, "yaml: unmarshal errors:"))
		if line == "" {
			continue
		}
		m := yamlLine.FindStringSubmatch(line)
		if m == nil {
			m = yamlLine.FindStringSubmatch("yaml: " + line)
		}
		if m != nil {
			n, _ := strconv.Atoi(m[1])
			line, col := syntaxPos(l.src, m[2], n)
			l.errs.Add(Pos{File: l.file, Line: line, Col: col}, "YAML syntax: %s%s", m[2], l.syntaxHint(line))
			continue
		}
		msg := strings.TrimPrefix(line, "yaml: ")
		at, col := syntaxPos(l.src, msg, 0)
		l.errs.Add(Pos{File: l.file, Line: at, Col: col}, "YAML syntax: %s", msg)
	}
}

var unquotedList = regexp.MustCompile(`:\s*\[\][A-Za-z*]`)

// syntaxHint recognises a common cause of a YAML syntax error near line n:
// an unquoted list type such as `type: []Chunk`, which YAML reads as an empty
// list followed by stray text.
func (l *loader) syntaxHint(n int) string {
	lines := strings.Split(string(l.src), "\n")
	for i := max(0, n-1); i < min(len(lines), n+2); i++ {
		if unquotedList.MatchString(lines[i]) && i+1 == n {
			return " (a list type must be quoted, as in \"[]T\")"
		}
		if unquotedList.MatchString(lines[i]) {
			return fmt.Sprintf(" (line %d: a list type must be quoted, as in \"[]T\")", i+1)
		}
	}
	return ""
}

// resolve follows aliases, so *anchor values read like the anchored node.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return "a scalar"
	}
	return "an unexpected node"
}

// entries returns a mapping's entries in source order, reporting duplicate
// keys and keys that are not plain strings.
func (l *loader) entries(n *yaml.Node, what string) []entry {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // "records:" with nothing under it declares nothing
	}
	if n.Kind != yaml.MappingNode {
		l.add(n, "%s: expected a mapping, found %s", what, kindName(n))
		return nil
	}
	var out []entry
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			l.add(k, "%s: a key must be a plain name, found %s", what, kindName(k))
			continue
		}
		if k.Value == "<<" {
			l.add(k, "%s: merge keys (<<) are not supported; write the keys out", what)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			l.add(k, "%s: duplicate key %s (first at %d:%d)", what, k.Value, first.Line, first.Column)
			continue
		}
		seen[k.Value] = k
		out = append(out, entry{key: k.Value, keyNode: k, val: v})
	}
	return out
}

// object reads a mapping whose keys must come from known. Unknown keys are
// reported with the closest known key as a suggestion.
func (l *loader) object(n *yaml.Node, what string, known ...string) map[string]entry {
	out := map[string]entry{}
	for _, e := range l.entries(n, what) {
		if !contains(known, e.key) {
			hint := didYouMean(e.key, known)
			if strings.Contains(e.key, " ") && n.Style&yaml.FlowStyle != 0 {
				hint = "; a comma inside {…} starts a new key, so quote text that has one"
			}
			l.add(e.keyNode, "%s: unknown key %s%s", what, e.key, hint)
			continue
		}
		out[e.key] = e
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (l *loader) str(n *yaml.Node, what string) (string, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.add(n, "%s: expected a string, found %s", what, kindName(n))
		return "", false
	}
	if n.Tag != "!!str" {
		l.add(n, "%s: expected a string, found %s %s; quote it if it is meant as text", what, strings.TrimPrefix(n.Tag, "!!"), n.Value)
		return "", false
	}
	return n.Value, true
}

func (l *loader) doc(m map[string]entry, what string) string {
	e, ok := m["doc"]
	if !ok {
		return ""
	}
	s, _ := l.str(e.val, what+".doc")
	return strings.TrimSpace(s)
}

func (l *loader) boolean(n *yaml.Node, what string) (bool, bool) {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		l.add(n, "%s: expected true or false, found %s", what, describe(n))
		return false, false
	}
	return n.Value == "true", true
}

func (l *loader) integer(n *yaml.Node, what string) (int64, bool) {
	n = resolve(n)
	var v int64
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&v) != nil {
		l.add(n, "%s: expected an integer, found %s", what, describe(n))
		return 0, false
	}
	return v, true
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return strconv.Quote(n.Value)
	}
	return kindName(n)
}

// refs reads a list of names, or a single name, as references.
func (l *loader) refs(n *yaml.Node, what string) []Ref {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return []Ref{{Name: n.Value, Pos: l.pos(n)}}
	}
	if n.Kind != yaml.SequenceNode {
		l.add(n, "%s: expected a list of names, found %s", what, kindName(n))
		return nil
	}
	var out []Ref
	for _, item := range n.Content {
		item = resolve(item)
		if s, ok := l.str(item, what); ok {
			out = append(out, Ref{Name: s, Pos: l.pos(item)})
		}
	}
	return out
}

func (l *loader) ref(n *yaml.Node, what string) Ref {
	n = resolve(n)
	s, _ := l.str(n, what)
	return Ref{Name: s, Pos: l.pos(n)}
}

func (l *loader) pkg(e entry) Package {
	m := l.object(e.val, "package", "name", "path", "doc", "sources")
	p := Package{Pos: l.pos(e.keyNode), Doc: l.doc(m, "package")}
	if n, ok := m["name"]; ok {
		p.Name, _ = l.str(n.val, "package.name")
		p.Pos = l.pos(n.val)
	} else {
		l.add(e.keyNode, "package: missing key name")
	}
	if n, ok := m["path"]; ok {
		p.Path, _ = l.str(n.val, "package.path")
	}
	if n, ok := m["sources"]; ok {
		p.Sources = l.refs(n.val, "package.sources")
	}
	return p
}

// allowances reads allow_breaking: a list of {rule, path, reason}.
func (l *loader) allowances(n *yaml.Node) []*Allowance {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		l.add(n, "allow_breaking: expected a list of {rule, path, reason}, found %s", kindName(n))
		return nil
	}
	var out []*Allowance
	for _, item := range n.Content {
		item = resolve(item)
		const what = "allow_breaking"
		m := l.object(item, what, "rule", "path", "reason")
		a := &Allowance{Pos: l.pos(item)}
		for _, key := range []string{"rule", "path", "reason"} {
			if _, ok := m[key]; !ok && item.Kind == yaml.MappingNode {
				l.add(item, "%s: missing key %s", what, key)
			}
		}
		if e, ok := m["rule"]; ok {
			a.Rule = l.ref(e.val, what+".rule")
		}
		if e, ok := m["path"]; ok {
			a.Path, _ = l.str(e.val, what+".path")
			a.PathPos = l.pos(e.val)
		}
		if e, ok := m["reason"]; ok {
			if s, ok := l.str(e.val, what+".reason"); ok {
				a.Reason = strings.TrimSpace(s)
				if a.Reason == "" {
					l.add(e.val, "%s.reason: say why the break is intended; a reason must not be empty", what)
				}
			}
		}
		out = append(out, a)
	}
	return out
}

func (l *loader) id(e entry) *ID {
	what := "ids." + e.key
	m := l.object(e.val, what, "kind", "doc")
	id := &ID{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	k, ok := m["kind"]
	if !ok {
		l.add(e.keyNode, "%s: missing key kind (uuid or string)", what)
		return id
	}
	if s, ok := l.str(k.val, what+".kind"); ok {
		switch IDKind(s) {
		case IDUUID, IDString:
			id.Kind = IDKind(s)
		default:
			l.add(k.val, "%s.kind: unknown kind %s; use uuid or string%s", what, s, didYouMean(s, []string{"uuid", "string"}))
		}
	}
	return id
}

func (l *loader) enum(e entry) *Enum {
	what := "enums." + e.key
	m := l.object(e.val, what, "values", "doc")
	en := &Enum{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	vals, ok := m["values"]
	if !ok {
		l.add(e.keyNode, "%s: missing key values", what)
		return en
	}
	for _, v := range l.entries(vals.val, what+".values") {
		vwhat := what + ".values." + v.key
		ev := &EnumValue{Value: v.key, Pos: l.pos(v.keyNode)}
		if v.keyNode.Tag != "!!str" {
			l.add(v.keyNode, "%s: enum value %s is read as %s; quote it", what, v.key, strings.TrimPrefix(v.keyNode.Tag, "!!"))
		}
		vm := l.object(v.val, vwhat, "doc", "go")
		ev.Doc = l.doc(vm, vwhat)
		ev.GoName = e.key + goName(v.key)
		if g, ok := vm["go"]; ok {
			if s, ok := l.str(g.val, vwhat+".go"); ok {
				ev.GoName = s
			}
		}
		en.Values = append(en.Values, ev)
	}
	return en
}

// fields reads a field list: each key is a field, each value either a type
// expression or a mapping with type, optional, doc, json, go (and since, in facts).
func (l *loader) fields(n *yaml.Node, what string, inFact bool) []*Field {
	var out []*Field
	keys := []string{"type", "optional", "doc", "json", "go", "terminal"}
	if inFact {
		keys = append(keys, "since")
	}
	for _, e := range l.entries(n, what) {
		fwhat := what + "." + e.key
		f := &Field{Name: e.key, JSON: e.key, GoName: goName(e.key), Pos: l.pos(e.keyNode)}
		val := resolve(e.val)
		switch {
		case val.Kind == yaml.ScalarNode && val.Tag == "!!str":
			if f.Type = parseType(val, l.file, l.types, &l.errs); f.Type != nil {
				out = append(out, f)
			}
			continue
		case val.Kind == yaml.SequenceNode:
			l.add(val, "%s: a list type must be quoted: write \"[]%s\"", fwhat, seqHint(val))
			continue
		case val.Kind != yaml.MappingNode:
			l.add(val, "%s: expected a type such as string, or a mapping with a type key, found %s", fwhat, describe(val))
			continue
		}
		m := l.object(val, fwhat, keys...)
		f.Doc = l.doc(m, fwhat)
		if t, ok := m["type"]; ok {
			tv := resolve(t.val)
			if tv.Kind == yaml.SequenceNode {
				l.add(tv, "%s.type: a list type must be quoted: write \"[]%s\"", fwhat, seqHint(tv))
			} else if _, ok := l.str(tv, fwhat+".type"); ok {
				f.Type = parseType(tv, l.file, l.types, &l.errs)
			}
		} else {
			l.add(e.keyNode, "%s: missing key type", fwhat)
		}
		if o, ok := m["optional"]; ok {
			f.Optional, _ = l.boolean(o.val, fwhat+".optional")
		}
		if t, ok := m["terminal"]; ok {
			f.Terminal, _ = l.boolean(t.val, fwhat+".terminal")
			f.TerminalPos = l.pos(resolve(t.val))
		}
		if j, ok := m["json"]; ok {
			if s, ok := l.str(j.val, fwhat+".json"); ok {
				f.JSON = s
			}
		}
		if g, ok := m["go"]; ok {
			if s, ok := l.str(g.val, fwhat+".go"); ok {
				f.GoName = s
			}
		}
		if s, ok := m["since"]; ok {
			f.SincePos = l.pos(s.val)
			sv := resolve(s.val)
			if v, ok := versionNumber(sv.Value); ok && sv.Kind == yaml.ScalarNode {
				f.Since = v
			} else if n, err := strconv.Atoi(sv.Value); err == nil && n > 0 && sv.Tag == "!!int" {
				f.Since = n
			} else {
				l.add(sv, "%s.since: %s is not a version; write v1, v2 …", fwhat, describe(sv))
			}
		}
		if f.Type != nil {
			out = append(out, f)
		}
	}
	return out
}

func seqHint(n *yaml.Node) string {
	if len(n.Content) == 1 && n.Content[0].Kind == yaml.ScalarNode {
		return n.Content[0].Value
	}
	return "T"
}

func versionNumber(s string) (int, bool) {
	if !strings.HasPrefix(s, "v") {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil || n < 1 || "v"+strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

func (l *loader) record(e entry) *Record {
	what := "records." + e.key
	m := l.object(e.val, what, "fields", "doc")
	r := &Record{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if f, ok := m["fields"]; ok {
		r.Fields = l.fields(f.val, what+".fields", false)
	}
	return r
}

func (l *loader) union(e entry) *Union {
	what := "unions." + e.key
	m := l.object(e.val, what, "discriminator", "common", "variants", "doc")
	u := &Union{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if d, ok := m["discriminator"]; ok {
		u.Discriminator, _ = l.str(d.val, what+".discriminator")
		u.DiscPos = l.pos(d.val)
	} else {
		l.add(e.keyNode, "%s: missing key discriminator (the JSON field that tells variants apart)", what)
	}
	if c, ok := m["common"]; ok {
		u.Common = l.fields(c.val, what+".common", false)
	}
	vs, ok := m["variants"]
	if !ok {
		l.add(e.keyNode, "%s: missing key variants", what)
		return u
	}
	for _, v := range l.entries(vs.val, what+".variants") {
		vwhat := what + ".variants." + v.key
		vm := l.object(v.val, vwhat, "tag", "fields", "doc")
		variant := &Variant{Name: v.key, Pos: l.pos(v.keyNode), Doc: l.doc(vm, vwhat)}
		if t, ok := vm["tag"]; ok {
			tn := resolve(t.val)
			variant.Tag.Pos = l.pos(tn)
			switch {
			case tn.Kind == yaml.ScalarNode && tn.Tag == "!!str":
				variant.Tag.Kind, variant.Tag.String = TagString, tn.Value
			case tn.Kind == yaml.ScalarNode && tn.Tag == "!!bool":
				variant.Tag.Kind, variant.Tag.Bool = TagBool, tn.Value == "true"
			default:
				l.add(tn, "%s.tag: expected a string or true/false, found %s", vwhat, describe(tn))
			}
		} else {
			l.add(v.keyNode, "%s: missing key tag (the variant's discriminator value)", vwhat)
		}
		if f, ok := vm["fields"]; ok {
			variant.Fields = l.fields(f.val, vwhat+".fields", false)
		}
		u.Variants = append(u.Variants, variant)
	}
	return u
}

func (l *loader) face(e entry) *Face {
	what := "faces." + e.key
	m := l.object(e.val, what, "embeds", "methods", "doc")
	f := &Face{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if em, ok := m["embeds"]; ok {
		f.Embeds = l.refs(em.val, what+".embeds")
	}
	if ms, ok := m["methods"]; ok {
		for _, me := range l.entries(ms.val, what+".methods") {
			mwhat := what + ".methods." + me.key
			method := &Method{Name: me.key, Pos: l.pos(me.keyNode)}
			val := resolve(me.val)
			var typeNode *yaml.Node
			if val.Kind != yaml.MappingNode {
				typeNode = val
			} else {
				mm := l.object(val, mwhat, "type", "doc")
				method.Doc = l.doc(mm, mwhat)
				if t, ok := mm["type"]; ok {
					typeNode = resolve(t.val)
				} else {
					l.add(me.keyNode, "%s: missing key type (a func type such as \"func(detail string)\")", mwhat)
				}
			}
			if typeNode != nil {
				if _, ok := l.str(typeNode, mwhat+".type"); ok {
					method.Type = parseType(typeNode, l.file, l.types, &l.errs)
					if method.Type != nil && method.Type.Kind != TypeFunc {
						l.add(typeNode, "%s.type: a method needs a func type, found %s", mwhat, method.Type)
						method.Type = nil
					}
				}
			}
			if method.Type != nil {
				f.Methods = append(f.Methods, method)
			}
		}
	}
	return f
}

func (l *loader) machine(e entry) *Machine {
	what := "machines." + e.key
	m := l.object(e.val, what, "states", "initial", "terminal", "transitions", "doc")
	mc := &Machine{Name: e.key, Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	for _, key := range []string{"states", "initial", "terminal", "transitions"} {
		if _, ok := m[key]; !ok {
			l.add(e.keyNode, "%s: missing key %s", what, key)
		}
	}
	if s, ok := m["states"]; ok {
		mc.States = l.ref(s.val, what+".states")
	}
	if s, ok := m["initial"]; ok {
		mc.Initial = l.ref(s.val, what+".initial")
	}
	if s, ok := m["terminal"]; ok {
		mc.Terminal = l.refs(s.val, what+".terminal")
	}
	if s, ok := m["transitions"]; ok {
		for _, t := range l.entries(s.val, what+".transitions") {
			mc.Transitions = append(mc.Transitions, &Transition{
				From: Ref{Name: t.key, Pos: l.pos(t.keyNode)},
				To:   l.refs(t.val, what+".transitions."+t.key),
			})
		}
	}
	return mc
}

func (l *loader) fact(e entry) *Fact {
	what := "facts." + e.key
	m := l.object(e.val, what, "versions", "reserved", "doc")
	f := &Fact{Name: e.key, GoName: goName(e.key), Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if r, ok := m["reserved"]; ok {
		f.Reserved = l.refs(r.val, what+".reserved")
	}
	vs, ok := m["versions"]
	if !ok {
		l.add(e.keyNode, "%s: missing key versions (write versions: {v1: {fields: …}})", what)
		return f
	}
	for _, v := range l.entries(vs.val, what+".versions") {
		vwhat := what + ".versions." + v.key
		n, ok := versionNumber(v.key)
		if !ok {
			l.add(v.keyNode, "%s: version %s must be written v1, v2 …", what+".versions", v.key)
			continue
		}
		vm := l.object(v.val, vwhat, "fields", "retired", "upcast", "doc")
		fv := &FactVersion{Number: n, Pos: l.pos(v.keyNode), Doc: l.doc(vm, vwhat)}
		if u, ok := vm["upcast"]; ok {
			fv.Upcast = l.ref(u.val, vwhat+".upcast")
		}
		if r, ok := vm["retired"]; ok {
			fv.Retired, _ = l.boolean(r.val, vwhat+".retired")
		}
		if fs, ok := vm["fields"]; ok {
			fv.Fields = l.fields(fs.val, vwhat+".fields", true)
		} else if !fv.Retired {
			l.add(v.keyNode, "%s: missing key fields", vwhat)
		}
		f.Versions = append(f.Versions, fv)
	}
	// Versions are kept sorted by number; Validate reports a spec that lists
	// them out of order, comparing positions.
	slices.SortStableFunc(f.Versions, func(a, b *FactVersion) int { return cmp.Compare(a.Number, b.Number) })
	return f
}

func (l *loader) def(e entry) *Default {
	what := "defaults." + e.key
	m := l.object(e.val, what, "value", "unit", "doc")
	d := &Default{Name: e.key, GoName: "Default" + goName(e.key), Pos: l.pos(e.keyNode), Doc: l.doc(m, what)}
	if v, ok := m["value"]; ok {
		d.Value, _ = l.integer(v.val, what+".value")
		if d.Value < 0 {
			l.add(v.val, "%s.value: %d is negative; a default measures a size, count or duration", what, d.Value)
		}
	} else {
		l.add(e.keyNode, "%s: missing key value", what)
	}
	u, ok := m["unit"]
	if !ok {
		l.add(e.keyNode, "%s: missing key unit (one of %s)", what, unitList())
		return d
	}
	d.UnitPos = l.pos(u.val)
	if s, ok := l.str(u.val, what+".unit"); ok {
		for _, known := range Units() {
			if Unit(s) == known {
				d.Unit = known
			}
		}
		if d.Unit == "" {
			names := make([]string, 0, len(Units()))
			for _, u := range Units() {
				names = append(names, string(u))
			}
			l.add(u.val, "%s.unit: unknown unit %s; use one of %s%s", what, s, unitList(), didYouMean(s, names))
		}
	}
	return d
}

func unitList() string {
	var names []string
	for _, u := range Units() {
		names = append(names, string(u))
	}
	return strings.Join(names, ", ")
}
