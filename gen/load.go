package gen

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Language is the version of the spec language this package reads; a spec
// declares it with the top-level key "jobgen".
const Language = 1

// Load reads and validates a spec, reading the sources it names from the
// directory of file. It returns the model only when the whole spec is valid;
// otherwise the error is an ErrorList of every problem found. It reads no
// other module's spec unless WithModules says where modules are.
func Load(file string, data []byte, opts ...LoadOption) (*Resolved, error) {
	dir, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return LoadFS(sourcesFS(dir), file, data, opts...)
}

// LoadFS is Load reading the spec's sources from dir, a file system rooted
// at the spec's directory. With a nil dir the sources are not read and
// upcasters are not checked against them: enough to compare two specs, not
// to generate from one.
func LoadFS(dir fs.FS, file string, data []byte, opts ...LoadOption) (*Resolved, error) {
	var o loadOptions
	for _, opt := range opts {
		opt(&o)
	}
	return loadChain(dir, file, data, importChain{modules: o.modules, noSources: o.noSources, specs: []string{path.Base(filepath.ToSlash(file))}})
}

// An importChain is how a load reached a spec: the path of each spec that
// imports the next, ending with this spec's own (relative to the first one's
// directory, or a module path and the spec's path in it), the module the
// spec was read from (nil for the first spec's tree), and what finds other
// modules.
type importChain struct {
	specs     []string
	module    *Module
	modules   Modules
	noSources bool
}

// loadChain is LoadFS for the last spec of an import chain. With a nil dir
// imports, like sources, are not read.
func loadChain(dir fs.FS, file string, data []byte, chain importChain) (*Resolved, error) {
	spec, errs := Parse(file, data)
	if spec == nil {
		return nil, errs.Err()
	}
	if dir != nil && !chain.noSources {
		errs = append(errs, readSources(spec, dir)...)
	}
	if dir != nil {
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
		"records", "unions", "faces", "machines", "facts", "defaults", "tools", "http", "allow_breaking")
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
	for _, sec := range sections {
		if e, ok := top[sec.key]; ok {
			for _, d := range l.entries(e.val, sec.key) {
				sec.read(l, spec, d)
			}
		}
	}
	if e, ok := top["http"]; ok {
		spec.HTTP = l.http(e)
	}
	if e, ok := top["allow_breaking"]; ok {
		spec.AllowBreaking = l.allowances(e.val)
	}
	spec.incomplete = len(l.errs) > 0
	return spec, l.errs
}

// sections are the spec's sections of named declarations, in the order Parse
// reads them: each key holds a mapping whose entries one loader method reads
// into the spec.
var sections = []struct {
	key  string
	read func(l *loader, s *Spec, d entry)
}{
	{"ids", func(l *loader, s *Spec, d entry) { s.IDs = append(s.IDs, l.id(d)) }},
	{"enums", func(l *loader, s *Spec, d entry) { s.Enums = append(s.Enums, l.enum(d)) }},
	{"records", func(l *loader, s *Spec, d entry) { s.Records = append(s.Records, l.record(d)) }},
	{"unions", func(l *loader, s *Spec, d entry) { s.Unions = append(s.Unions, l.union(d)) }},
	{"faces", func(l *loader, s *Spec, d entry) { s.Faces = append(s.Faces, l.face(d)) }},
	{"machines", func(l *loader, s *Spec, d entry) { s.Machines = append(s.Machines, l.machine(d)) }},
	{"facts", func(l *loader, s *Spec, d entry) { s.Facts = append(s.Facts, l.fact(d)) }},
	{"defaults", func(l *loader, s *Spec, d entry) { s.Defaults = append(s.Defaults, l.def(d)) }},
	{"tools", func(l *loader, s *Spec, d entry) { s.Tools = append(s.Tools, l.tool(d)) }},
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
