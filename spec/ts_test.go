package spec_test

// The TypeScript module generated/ts/jobs.ts is proven equal to the Go package
// here: Go writes random values of every record, variant, union and fact, Node
// decodes and re-encodes them through the generated TypeScript, and Go decodes
// what Node wrote and compares; random damage to those documents and a table
// of bad documents are refused by both sides alike. The Node side is
// tools/ts/harness.ts, compiled with the pinned tsc into a temporary
// directory.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
)

// A tsCodec is one type as both sides know it: Go's encoder and decoder, and
// the name the harness finds decode<Name> and encode<Name> by.
type tsCodec struct {
	name   string
	gen    *rapid.Generator[any]
	encode func(any) ([]byte, error)
	decode func([]byte) (any, error)
}

func plain[T any](name string, variants ...reflect.Type) tsCodec {
	typ := reflect.TypeFor[T]()
	if len(variants) == 0 {
		variants = []reflect.Type{typ}
	}
	return tsCodec{
		name:   name,
		gen:    genOneOf(variants),
		encode: func(v any) ([]byte, error) { return json.Marshal(v) },
		decode: func(b []byte) (any, error) {
			p := reflect.New(typ)
			err := json.Unmarshal(b, p.Interface())
			return p.Elem().Interface(), err
		},
	}
}

func union[T any](decode func([]byte) (T, error), variants ...any) tsCodec {
	var types []reflect.Type
	for _, v := range variants {
		types = append(types, reflect.TypeOf(v))
	}
	return tsCodec{
		name:   reflect.TypeFor[T]().Name(),
		gen:    genOneOf(types),
		encode: func(v any) ([]byte, error) { return json.Marshal(v) },
		decode: func(b []byte) (any, error) { return decode(b) },
	}
}

// tsCodecs is every wire type of the jobs vocabulary.
func tsCodecs() []tsCodec {
	facts := genOneOf([]reflect.Type{reflect.TypeFor[jobs.JobRegistered](), reflect.TypeFor[jobs.JobSettled](), reflect.TypeFor[jobs.JobSettledV1]()})
	return []tsCodec{
		plain[jobs.AppendOptions]("AppendOptions"),
		plain[jobs.JobOutcome]("JobOutcome"),
		plain[jobs.JobRegistration]("JobRegistration"),
		plain[jobs.JobSnapshot]("JobSnapshot"),
		plain[jobs.RecordChunk]("RecordChunk"),
		plain[jobs.RecordRead]("RecordRead"),
		plain[jobs.OpenedFrame]("OpenedFrame"),
		plain[jobs.OutputFrame]("OutputFrame"),
		plain[jobs.StatusFrame]("StatusFrame"),
		plain[jobs.JobRegistered]("JobRegistered"),
		plain[jobs.JobSettled]("JobSettled"),
		plain[jobs.JobSettledV1]("JobSettledV1"),
		plain[jobs.JobID]("JobID"),
		plain[jobs.JobStatus]("JobStatus"),
		plain[jobs.Channel]("Channel"),
		union(jobs.DecodeFollowFrame, jobs.OpenedFrame{}, jobs.OutputFrame{}, jobs.StatusFrame{}),
		{
			name: "FactEnvelope",
			gen:  facts,
			encode: func(v any) ([]byte, error) {
				if old, ok := v.(jobs.JobSettledV1); ok {
					data, err := json.Marshal(old)
					return []byte(`{"type":"job/settled","v":1,"data":` + string(data) + `}`), err
				}
				return jobs.EncodeFact(v.(jobs.Fact))
			},
			decode: func(b []byte) (any, error) { return jobs.DecodeFact(b) },
		},
	}
}

// enumValues are the values of each enum; the generator draws from them, and
// an optional enum field may also be empty.
var enumValues = map[reflect.Type][]string{}

func init() {
	for _, v := range jobs.JobStatusValues() {
		enumValues[reflect.TypeFor[jobs.JobStatus]()] = append(enumValues[reflect.TypeFor[jobs.JobStatus]()], string(v))
	}
	for _, v := range jobs.ChannelValues() {
		enumValues[reflect.TypeFor[jobs.Channel]()] = append(enumValues[reflect.TypeFor[jobs.Channel]()], string(v))
	}
	for _, v := range jobs.SettlementCauseValues() {
		enumValues[reflect.TypeFor[jobs.SettlementCause]()] = append(enumValues[reflect.TypeFor[jobs.SettlementCause]()], string(v))
	}
}

// terminalFields are the fields whose enum is restricted to a machine's
// terminal states (terminal: true in the spec): Go refuses the others.
var terminalFields = map[reflect.Type]map[string][]string{
	reflect.TypeFor[jobs.JobSettled]():   {"Status": {"completed", "killed", "failed"}},
	reflect.TypeFor[jobs.JobSettledV1](): {"Status": {"completed", "killed", "failed"}},
}

func genOneOf(types []reflect.Type) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		typ := types[rapid.IntRange(0, len(types)-1).Draw(t, "variant")]
		v := reflect.New(typ).Elem()
		fill(t, v, "", false)
		return v.Interface()
	})
}

// fill sets v to a random value of its type. Go-only fields (funcs) stay
// nil. Integers are safe integers but for one in a hundred, which the
// TypeScript side must refuse. optional says an enum may be empty.
func fill(t *rapid.T, v reflect.Value, label string, optional bool) {
	if v.Type() == reflect.TypeFor[json.RawMessage]() {
		v.SetBytes([]byte(rapid.SampledFrom([]string{`{}`, `{"a":[1,"x",null]}`, `"text"`, `[true,false]`, `0`}).Draw(t, label)))
		return
	}
	if vals, ok := enumValues[v.Type()]; ok {
		if optional {
			vals = append([]string{""}, vals...)
		}
		v.SetString(rapid.SampledFrom(vals).Draw(t, label))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Type.Kind() == reflect.Func {
				continue
			}
			if vals, ok := terminalFields[v.Type()][f.Name]; ok {
				v.Field(i).SetString(rapid.SampledFrom(vals).Draw(t, label+"."+f.Name))
				continue
			}
			fill(t, v.Field(i), label+"."+f.Name, strings.Contains(f.Tag.Get("json"), "omitzero"))
		}
	case reflect.String:
		v.SetString(rapid.String().Draw(t, label))
	case reflect.Bool:
		v.SetBool(rapid.Bool().Draw(t, label))
	case reflect.Int, reflect.Int64:
		if rapid.IntRange(0, 99).Draw(t, label+"/unsafe") == 0 {
			n := rapid.Int64Range(1<<53, math.MaxInt64).Draw(t, label)
			if rapid.Bool().Draw(t, label+"/neg") {
				n = -n
			}
			v.SetInt(n)
			return
		}
		v.SetInt(rapid.Int64Range(-(1<<53-1), 1<<53-1).Draw(t, label))
	case reflect.Pointer:
		if rapid.Bool().Draw(t, label+"/nil") {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(t, p.Elem(), label, false)
		v.Set(p)
	case reflect.Array: // a uuid
		for i := range v.Len() {
			v.Index(i).SetUint(uint64(rapid.Byte().Draw(t, label)))
		}
	case reflect.Slice:
		n := rapid.IntRange(0, 3).Draw(t, label+"/len")
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(t, s.Index(i), fmt.Sprintf("%s[%d]", label, i), false)
		}
		v.Set(s)
	case reflect.Map: // labels: string keys
		if rapid.Bool().Draw(t, label+"/nil") {
			return
		}
		n := rapid.IntRange(0, 3).Draw(t, label+"/len")
		m := reflect.MakeMapWithSize(v.Type(), n)
		for i := range n {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, fmt.Sprintf("%s/key%d", label, i), false)
			fill(t, e, fmt.Sprintf("%s[%d]", label, i), false)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default:
		panic("fill: no generator for " + v.Type().String())
	}
}

// hasUnsafeInteger reports whether a JSON document holds an integer a
// TypeScript number cannot hold exactly, which the TypeScript decoders
// refuse and Go's accept: the one difference between them that is by design.
func hasUnsafeInteger(doc []byte) bool {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var tree any
	if d.Decode(&tree) != nil {
		return false
	}

	var walk func(any) bool
	walk = func(x any) bool {
		switch x := x.(type) {
		case json.Number:
			n, err := strconv.ParseInt(string(x), 10, 64)
			return err == nil && (n > 1<<53-1 || n < -(1<<53-1))
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(tree)
}

// goRoundTrips reports whether Go reads back what it writes for v.
func goRoundTrips(c tsCodec, v any) bool {
	doc, err := c.encode(v)
	if err != nil {
		return false
	}
	_, err = c.decode(doc)
	return err == nil
}

// sameJSON reports whether two documents hold the same JSON value, whatever
// their key order and escaping.
func sameJSON(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	return da.Decode(&x) == nil && db.Decode(&y) == nil && reflect.DeepEqual(x, y)
}

// A tsAnswer is what the harness says about one document.
type tsAnswer struct {
	OK   bool            `json:"ok"`
	Out  json.RawMessage `json:"out"`
	Kind string          `json:"kind"`
	Path string          `json:"path"`
	Msg  string          `json:"msg"`
	// Shared says a refusal is an instance of the package runtime's one
	// DecodeError or EncodeError class.
	Shared bool `json:"shared"`
}

type tsRequest struct {
	Type   string          `json:"type"`
	Doc    json.RawMessage `json:"doc,omitempty"`
	Encode json.RawMessage `json:"encode,omitempty"`
}

// harness compiles tools/ts/harness.ts into a temporary directory, beside
// a node_modules that links @jobgen/jobgen to generated/ts as npm does for
// tools/ts, and returns a function that sends it a batch of documents for
// the package's module.
func harness(t *testing.T, module string) func([]tsRequest) []tsAnswer {
	t.Helper()
	node, tsc := requireNode(t)
	dir := t.TempDir()
	root, _ := filepath.Abs("..")
	conf := map[string]any{
		"compilerOptions": map[string]any{
			"strict": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true,
			"noUnusedLocals": true, "noUnusedParameters": true, "noPropertyAccessFromIndexSignature": true, "verbatimModuleSyntax": true,
			"target": "ES2022", "module": "ES2022", "moduleResolution": "bundler", "lib": []string{"ES2022"}, "types": []string{},
			"rootDir": root, "outDir": dir,
		},
		"files": []string{filepath.Join(root, "tools/ts/harness.ts"), filepath.Join(root, "tools/ts/node.d.ts")},
	}
	data, _ := json.Marshal(conf)
	confPath := filepath.Join(dir, "tsconfig.json")
	os.WriteFile(confPath, data, 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "node_modules", "@jobgen"), 0o755)
	if err := os.Symlink(filepath.Join(root, "generated", "ts"), filepath.Join(dir, "node_modules", "@jobgen", "jobgen")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(tsc, "-p", confPath).CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	return func(reqs []tsRequest) []tsAnswer {
		t.Helper()
		var in bytes.Buffer
		for _, r := range reqs {
			if r.Doc != nil {
				// Written by hand: json.Marshal would refuse a document
				// nested deeper than Go reads, which the tables send.
				typ, _ := json.Marshal(r.Type)
				fmt.Fprintf(&in, "{\"type\":%s,\"doc\":%s}\n", typ, r.Doc)
				continue
			}
			line, err := json.Marshal(r)
			if err != nil {
				t.Fatalf("request %s: %v", r.Encode, err)
			}
			in.Write(line)
			in.WriteByte('\n')
		}
		cmd := exec.Command(node, filepath.Join(dir, "tools/ts/harness.js"), module)
		cmd.Stdin = &in
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node harness: %v\n%s", err, stderr.String())
		}
		var answers []tsAnswer
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var a tsAnswer
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Fatalf("harness answer %q: %v", sc.Text(), err)
			}
			answers = append(answers, a)
		}
		if len(answers) != len(reqs) {
			t.Fatalf("harness answered %d of %d documents\n%s", len(answers), len(reqs), stderr.String())
		}
		for i, a := range answers {
			if !a.OK && a.Kind != "crash" && a.Kind != "noCodec" && !a.Shared {
				t.Errorf("%s refused %s with an error that is not the package runtime's class: %s", module, reqs[i].Type, a.Msg)
			}
		}
		return answers
	}
}

// requireNode returns node and the pinned tsc, skipping locally and failing
// under CI=true when either is missing.
func requireNode(t *testing.T) (node, tsc string) {
	t.Helper()
	tsc, _ = filepath.Abs("../tools/ts/node_modules/.bin/tsc")
	node, nodeErr := exec.LookPath("node")
	_, tscErr := os.Stat(tsc)
	_, linkErr := os.Stat("../tools/ts/node_modules/@jobgen/jobgen/package.json")
	if nodeErr == nil && tscErr == nil && linkErr == nil {
		return node, tsc
	}
	msg := "the TypeScript round trip needs node and the pinned TypeScript: install Node.js, then run `make ts-deps` (npm ci in tools/ts)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}

// emptyToNil maps empty slices to nil, recursively: JSON writes both as [] or
// null, and the TypeScript side reads both as [].
func emptyToNil(v any) any {
	if v == nil {
		return nil
	}
	c := reflect.New(reflect.TypeOf(v)).Elem()
	c.Set(reflect.ValueOf(v))
	var walk func(reflect.Value)
	walk = func(x reflect.Value) {
		switch x.Kind() {
		case reflect.Struct:
			for i := range x.NumField() {
				if x.Type().Field(i).IsExported() {
					walk(x.Field(i))
				}
			}
		case reflect.Slice:
			if x.Len() == 0 {
				x.Set(reflect.Zero(x.Type()))
				return
			}
			for i := range x.Len() {
				walk(x.Index(i))
			}
		}
	}
	walk(c)
	return c.Interface()
}

// rtChecks is how many random values of each type the round trip sends.
func rtChecks() int {
	if n, err := strconv.Atoi(os.Getenv("JOBGEN_PROPTEST_CHECKS")); err == nil && n > 0 {
		return n
	}
	return 100
}

// TestTypeScriptEqualsGo compiles the harness once and runs every
// cross-language check through it.
func TestTypeScriptEqualsGo(t *testing.T) {
	send := harness(t, "jobs")
	t.Run("random values round-trip", func(t *testing.T) { roundTripThroughTS(t, send, tsCodecs()) })
	t.Run("damaged documents are refused alike", func(t *testing.T) { damagedDocuments(t, send, tsCodecs()) })
	t.Run("bad documents are refused alike", func(t *testing.T) { badDocuments(t, send) })
	t.Run("odd but valid documents are read alike", func(t *testing.T) { oddDocuments(t, send) })
	t.Run("encoders write what Go writes and refuse what Go would not read", func(t *testing.T) { encoders(t, send) })
}

func roundTripThroughTS(t *testing.T, send func([]tsRequest) []tsAnswer, codecs []tsCodec) {
	type sent struct {
		codec tsCodec
		value any
		doc   []byte
	}
	var cases []sent
	var reqs []tsRequest
	for _, c := range codecs {
		for i := range rtChecks() {
			v := c.gen.Example(i)
			doc, err := c.encode(v)
			if err != nil {
				t.Fatalf("%s: Go cannot encode %#v: %v", c.name, v, err)
			}
			cases = append(cases, sent{c, v, doc})
			reqs = append(reqs, tsRequest{Type: c.name, Doc: doc})
		}
	}
	answers := send(reqs)
	roundTrips, refusals := 0, 0
	for i, a := range answers {
		c := cases[i]
		if hasUnsafeInteger(c.doc) {
			if a.OK || a.Kind != "invalidValue" {
				t.Errorf("%s %s: TypeScript answered %+v, want a refusal of kind invalidValue for an integer beyond ±(2^53-1)", c.codec.name, c.doc, a)
			}
			refusals++
			continue
		}
		if !a.OK {
			t.Errorf("%s: TypeScript refused what Go wrote: %s (%s)\n%s", c.codec.name, a.Msg, a.Kind, c.doc)
			continue
		}
		want, err := c.codec.decode(c.doc)
		if err != nil {
			t.Fatalf("%s: Go cannot decode what it wrote: %v\n%s", c.codec.name, err, c.doc)
		}
		got, err := c.codec.decode(a.Out)
		if err != nil {
			t.Errorf("%s: Go refuses what TypeScript wrote: %v\n Go wrote %s\n TS wrote %s", c.codec.name, err, c.doc, a.Out)
			continue
		}
		if !reflect.DeepEqual(emptyToNil(got), emptyToNil(want)) {
			t.Errorf("%s: the round trip through TypeScript changed the value\n Go wrote %s\n TS wrote %s\n got %#v\nwant %#v", c.codec.name, c.doc, a.Out, got, want)
			continue
		}
		if !sameJSON(goWrites(t, c.codec, want), a.Out) {
			t.Errorf("%s: TypeScript writes the value otherwise than Go\n Go wrote %s\n TS wrote %s", c.codec.name, c.doc, a.Out)
			continue
		}
		roundTrips++
	}
	t.Logf("%d values round-tripped through TypeScript and were written as Go writes them, %d with unsafe integers refused as designed", roundTrips, refusals)
	if roundTrips == 0 {
		t.Fatal("nothing round-tripped")
	}
}

// goKind names a Go decoding error the way DecodeErrorKind does, for the
// refusals Go reports with a sentinel.
func goKind(err error) string {
	switch {
	case errors.Is(err, jobs.ErrMissingField):
		return "missingField"
	case errors.Is(err, jobs.ErrInvalidEnum):
		return "invalidEnum"
	case errors.Is(err, jobs.ErrUnknownVariant):
		return "unknownVariant"
	case errors.Is(err, codec.ErrAmbiguousKey):
		return "ambiguousKey"
	case errors.Is(err, codec.ErrInvalidID):
		return "invalidID"
	case errors.Is(err, jobs.ErrUnknownVersion): // before ErrUnknownFact, which it wraps
		return "unknownVersion"
	case errors.Is(err, jobs.ErrUnknownFact):
		return "unknownFact"
	}
	return ""
}

// mutate damages a JSON tree at one random place: a member removed, set to
// null, replaced by a value of another type or an unknown string, its key's
// case changed or a differently-cased copy added, or a UUID rewritten in
// another form Go accepts.
func mutate(t *rapid.T, tree any) any {
	switch x := tree.(type) {
	case map[string]any:
		if len(x) == 0 {
			return x
		}
		keys := sortedKeys(x)
		k := rapid.SampledFrom(keys).Draw(t, "key")
		out := map[string]any{}
		for kk, vv := range x {
			out[kk] = vv
		}
		switch rapid.IntRange(0, 8).Draw(t, "how") {
		case 0:
			delete(out, k)
		case 1:
			out[k] = nil
		case 2:
			out[k] = rapid.SampledFrom([]any{"x", "", json.Number("1"), json.Number("-1"), json.Number("1.5"), true, false, []any{}, map[string]any{}, json.Number("9007199254740993")}).Draw(t, "value")
		case 3:
			delete(out, k)
			out[strings.ToUpper(k)] = x[k]
		case 4:
			out[strings.ToUpper(k[:1])+k[1:]] = rapid.SampledFrom([]any{nil, "x", json.Number("2"), true}).Draw(t, "dup")
		case 5:
			if s, ok := x[k].(string); ok && len(s) == 36 {
				out[k] = rapid.SampledFrom([]string{"{" + s + "}", "urn:uuid:" + s, strings.ReplaceAll(s, "-", ""), strings.ToUpper(s), s[:35], "x" + s + "y"}).Draw(t, "uuid")
			} else {
				out[k] = mutate(t, x[k])
			}
		case 6:
			out[strings.Replace(k, "s", "ſ", 1)] = x[k]
			delete(out, k)
		default:
			out[k] = mutate(t, x[k])
		}
		return out
	case []any:
		if len(x) == 0 {
			return []any{nil}
		}
		i := rapid.IntRange(0, len(x)-1).Draw(t, "index")
		out := append([]any(nil), x...)
		if rapid.Bool().Draw(t, "null") {
			out[i] = nil
		} else {
			out[i] = mutate(t, x[i])
		}
		return out
	case string:
		return rapid.SampledFrom([]any{"paused", "", x + "x", json.Number("0")}).Draw(t, "string")
	}
	return rapid.SampledFrom([]any{nil, "1", json.Number("0")}).Draw(t, "scalar")
}

func sortedKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func damagedDocuments(t *testing.T, send func([]tsRequest) []tsAnswer, codecs []tsCodec) {
	type sent struct {
		codec tsCodec
		doc   []byte
	}
	var cases []sent
	var reqs []tsRequest
	for _, c := range codecs {
		g := rapid.Custom(func(t *rapid.T) []byte {
			doc, err := c.encode(c.gen.Draw(t, "value"))
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			d := json.NewDecoder(bytes.NewReader(doc))
			d.UseNumber()
			var tree any
			if err := d.Decode(&tree); err != nil {
				t.Fatalf("decode %s: %v", doc, err)
			}
			for range rapid.IntRange(1, 2).Draw(t, "mutations") {
				tree = mutate(t, tree)
			}
			out, err := json.Marshal(tree)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			return out
		})
		for i := range 2 * rtChecks() {
			doc := g.Example(i)
			cases = append(cases, sent{c, doc})
			reqs = append(reqs, tsRequest{Type: c.name, Doc: doc})
		}
	}
	answers := send(reqs)
	refused, accepted := 0, 0
	for i, a := range answers {
		c := cases[i]
		want, goErr := c.codec.decode(c.doc)
		switch {
		case hasUnsafeInteger(c.doc) && goErr == nil:
			if a.OK {
				t.Errorf("%s %s: TypeScript accepted an integer beyond ±(2^53-1)", c.codec.name, c.doc)
			}
		case goErr != nil && a.OK:
			t.Errorf("%s: Go refuses (%v) what TypeScript accepts\n doc %s\n TS wrote %s", c.codec.name, goErr, c.doc, a.Out)
		case goErr == nil && !a.OK:
			t.Errorf("%s: TypeScript refuses (%s: %s) what Go accepts\n doc %s", c.codec.name, a.Kind, a.Msg, c.doc)
		case goErr == nil:
			if !goRoundTrips(c.codec, want) {
				// Go reads null as an enum's or a UUID's zero value and then
				// cannot write it, or not read what it writes: there is no
				// round trip to compare.
				accepted++
				continue
			}
			got, err := c.codec.decode(a.Out)
			if err != nil || !reflect.DeepEqual(emptyToNil(got), emptyToNil(want)) {
				t.Errorf("%s: TypeScript read a damaged document differently from Go (%v)\n doc %s\n TS wrote %s\n got %#v\nwant %#v", c.codec.name, err, c.doc, a.Out, got, want)
			}
			accepted++
		default:
			refused++
		}
	}
	t.Logf("%d damaged documents refused by both sides, %d accepted by both and read alike", refused, accepted)
}

// snapshot is a valid JobSnapshot for the tables below.
const snapshot = `{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","name":"bash-1","kind":"bash","label":"ls","ordinal":1,"record":true,"status":"running","startedAt":1700000000000}`

func codecNamed(t *testing.T, name string) tsCodec {
	for _, c := range tsCodecs() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no codec %s", name)
	return tsCodec{}
}

// badDocuments is a table of documents both sides must refuse, with the kind
// of refusal TypeScript reports; where Go reports the refusal with a sentinel
// error, it must be the same kind.
func badDocuments(t *testing.T, send func([]tsRequest) []tsAnswer) {
	bad := badDocumentTable()
	var reqs []tsRequest
	for _, b := range bad {
		reqs = append(reqs, tsRequest{Type: b.typ, Doc: json.RawMessage(b.doc)})
	}
	answers := send(reqs)
	for i, b := range bad {
		a := answers[i]
		_, goErr := codecNamed(t, b.typ).decode([]byte(b.doc))
		switch {
		case goErr == nil:
			t.Errorf("%s: Go accepts %s %s", b.why, b.typ, b.doc)
		case a.OK:
			t.Errorf("%s: TypeScript accepts %s %s, writing %s", b.why, b.typ, b.doc, a.Out)
		case a.Kind != b.kind:
			t.Errorf("%s: TypeScript refused %s with %s (%s), want %s", b.why, b.doc, a.Kind, a.Msg, b.kind)
		case goKind(goErr) != "" && goKind(goErr) != b.kind:
			t.Errorf("%s: Go refused %s with %v, which is %s, not %s", b.why, b.doc, goErr, goKind(goErr), b.kind)
		}
	}
	// What JSON.parse hides from the decoders: Go refuses a key given twice,
	// TypeScript sees only the last.
	for _, doc := range []string{`{"frame":"output","next":1,"next":2}`, `{"frame":"output","frame":"output","next":1}`} {
		a := send([]tsRequest{{Type: "OutputFrame", Doc: json.RawMessage(doc)}})[0]
		if _, err := codecNamed(t, "OutputFrame").decode([]byte(doc)); !errors.Is(err, codec.ErrAmbiguousKey) {
			t.Errorf("Go decodes %s with %v, want ErrAmbiguousKey", doc, err)
		}
		if !a.OK {
			t.Errorf("TypeScript refuses %s (%s): JSON.parse no longer hides repeated keys; update spec/README.md, TypeScript", doc, a.Msg)
		}
	}
	// The one refusal by design that Go does not share: integers a number
	// cannot hold exactly.
	for _, doc := range []string{
		`{"frame":"output","next":9007199254740992}`,
		`{"frame":"output","next":-9007199254740993}`,
		`{"frame":"output","next":9223372036854775807}`,
	} {
		a := send([]tsRequest{{Type: "OutputFrame", Doc: json.RawMessage(doc)}})[0]
		if _, err := codecNamed(t, "OutputFrame").decode([]byte(doc)); err != nil {
			t.Errorf("Go refuses %s: %v", doc, err)
		}
		if a.OK || a.Kind != "invalidValue" || a.Path != "$.next" {
			t.Errorf("TypeScript answered %+v for %s, want invalidValue at $.next", a, doc)
		}
	}
}

// oddDocuments is a table of documents Go accepts although no Go encoder
// writes them; TypeScript must accept them too and read the same values.
func oddDocuments(t *testing.T, send func([]tsRequest) []tsAnswer) {
	odd := oddDocumentTable()
	var reqs []tsRequest
	for _, o := range odd {
		reqs = append(reqs, tsRequest{Type: o.typ, Doc: json.RawMessage(o.doc)})
	}
	answers := send(reqs)
	for i, o := range odd {
		a := answers[i]
		c := codecNamed(t, o.typ)
		want, goErr := c.decode([]byte(o.doc))
		if goErr != nil {
			t.Errorf("%s: Go refuses %s: %v", o.why, o.doc, goErr)
			continue
		}
		if !a.OK {
			t.Errorf("%s: TypeScript refuses %s: %s (%s)", o.why, o.doc, a.Msg, a.Kind)
			continue
		}
		got, err := c.decode(a.Out)
		if err != nil || !reflect.DeepEqual(emptyToNil(got), emptyToNil(want)) {
			t.Errorf("%s: TypeScript read %s as %s\n got %#v (%v)\nwant %#v", o.why, o.doc, a.Out, got, err, want)
			continue
		}
		if o.upcast {
			continue
		}
		goOut, err := c.encode(want)
		if err != nil || !sameText(goOut, a.Out) {
			t.Errorf("%s: TypeScript writes what it read from %s otherwise than Go (%v)\n TS wrote %s\n Go wrote %s", o.why, o.doc, err, a.Out, goOut)
		}
	}
}

// maxDepth is how deeply encoding/json, and so every Go decoder, nests
// arrays and objects before it refuses a document.
const maxDepth = 10000

// nested is n arrays or objects, one inside the other, around a zero.
func nested(open, close string, n int) string {
	return strings.Repeat(open, n) + "0" + strings.Repeat(close, n)
}

// surrogateEscape is a JSON escape of a UTF-16 surrogate, which
// encoding/json reads as U+FFFD unless it is half of a pair; sameJSON,
// which reads with encoding/json, cannot see one.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}`)

// sameText reports whether two documents hold the same JSON value and
// spell the same surrogate escapes: JSON.stringify writes a lone surrogate
// as one, Go writes U+FFFD.
func sameText(a, b []byte) bool {
	return sameJSON(a, b) && slices.Equal(surrogateEscape.FindAllString(string(a), -1), surrogateEscape.FindAllString(string(b), -1))
}

// encoders is a table of TypeScript values, as a caller builds them: the
// encoder must write what Go writes for the same value, or refuse one Go
// would not read back, with the kind and field given.
func encoders(t *testing.T, send func([]tsRequest) []tsAnswer) {
	rows := []struct {
		why, typ, value string
		goValue         any    // for a value that encodes: Go's value of it
		kind, field     string // for a refusal
	}{
		{"optional fields at their zero value are left out", "RecordChunk", `{"offset":0,"at":0,"text":"","channel":undefined,"gapBefore":false}`,
			jobs.RecordChunk{}, "", ""},
		{"optional fields that are set are written", "RecordChunk", `{"offset":7,"at":8,"text":"x","channel":"stderr","gapBefore":true}`,
			jobs.RecordChunk{Offset: 7, At: 8, Text: "x", Channel: jobs.ChannelStderr, GapBefore: true}, "", ""},
		{"a variant writes its tag", "FollowFrame", `{"frame":"output","chunks":[],"next":3}`,
			jobs.OutputFrame{Chunks: []jobs.RecordChunk{}, Next: 3}, "", ""},
		{"a snapshot", "JobSnapshot", snapshot,
			jobs.JobSnapshot{ID: jobs.JobID{0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8}, Name: "bash-1", Kind: "bash", Label: "ls", Ordinal: 1, Record: true, Status: jobs.JobStatusRunning, StartedAt: 1700000000000}, "", ""},
		{"a UUID in upper case", "JobSnapshot", strings.Replace(snapshot, "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", 1), nil, "invalidID", "JobSnapshot.id"},
		{"an integer beyond ±(2^53-1)", "OutputFrame", `{"frame":"output","chunks":[],"next":9007199254740992}`, nil, "invalidValue", "OutputFrame.next"},
		{"a fraction for an integer", "RecordChunk", `{"offset":1.5,"at":0,"text":""}`, nil, "invalidValue", "RecordChunk.offset"},
		{"a value outside an enum", "JobOutcome", `{"status":"paused"}`, nil, "invalidEnum", "JobOutcome.status"},
		{"a malformed UUID", "JobSnapshot", strings.Replace(snapshot, "6ba7b810-9dad", "6ba7b810x9dad", 1), nil, "invalidID", "JobSnapshot.id"},
		{"an unknown variant", "FollowFrame", `{"frame":"paused"}`, nil, "unknownVariant", "FollowFrame.frame"},
		{"an unknown fact", "FactEnvelope", `{"type":"job/paused","v":1,"data":{}}`, nil, "unknownFact", "FactEnvelope"},
	}
	var reqs []tsRequest
	for _, r := range rows {
		// undefined is how a caller leaves an optional field unset; JSON
		// cannot carry it, so the harness gets the property without it.
		v := strings.ReplaceAll(r.value, `,"channel":undefined`, "")
		reqs = append(reqs, tsRequest{Type: r.typ, Encode: json.RawMessage(v)})
	}
	answers := send(reqs)
	for i, r := range rows {
		a := answers[i]
		if r.kind != "" {
			if a.OK || a.Kind != r.kind || a.Path != r.field {
				t.Errorf("%s: encode%s(%s) answered %+v, want a refusal %s at %s", r.why, r.typ, r.value, a, r.kind, r.field)
			}
			continue
		}
		want, err := json.Marshal(r.goValue)
		if err != nil {
			t.Fatalf("%s: Go cannot encode %#v: %v", r.why, r.goValue, err)
		}
		if !a.OK || !sameJSON(want, a.Out) {
			t.Errorf("%s: encode%s(%s) wrote %s (%s), Go writes %s", r.why, r.typ, r.value, a.Out, a.Msg, want)
		}
	}
}
