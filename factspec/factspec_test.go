package factspec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/factspec"
	"github.com/jobgen/jobgen/gen"
)

// metrics is a vocabulary with the types spec/jobs.yaml and
// spec/subagents.yaml do not use, whose agreement with generated Go
// spec/factspec_test.go proves: unsigned integers, floats, maps, []byte,
// times and Go packages' types.
const metrics = `jobgen: 1
package: {name: metrics, path: example.com/metrics}
imports: {netip: net/netip}
enums:
  Level: {values: {low: {}, high: {}}}
records:
  Sample:
    fields:
      value: float32
      count: uint8
      byLevel: {type: "map[Level]int", optional: true}
      blob: {type: "[]byte", optional: true}
      at: {type: time.Time, optional: true}
      wait: {type: time.Duration, optional: true}
      host: {type: netip.Addr, optional: true}
      next: {type: "*Sample", optional: true}
      kids: {type: "[]Sample", optional: true}
      note: {type: string, optional: true}
  Reading:
    fields:
      value: float32
      level: Level
facts:
  metric/sampled:
    versions:
      v1:
        fields:
          sample: Sample
          samples: {type: "[]Sample", optional: true}
          readings: {type: "[]Reading", optional: true}
`

func load(t testing.TB, name, src string) *gen.Resolved {
	t.Helper()
	r, err := gen.LoadFS(nil, name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDecodeFactReadsTypesAsGoDoes(t *testing.T) {
	v, err := factspec.New(load(t, "metrics.yaml", metrics))
	if err != nil {
		t.Fatal(err)
	}
	sample := `{"value":1.5,"count":255,"byLevel":{"low":1},"blob":"aGk=","at":"2024-01-02T03:04:05Z","wait":1000,"host":"::1","next":{"value":0,"count":0}}`
	cases := []struct {
		name, data string
		want       error // nil: accepted; errUntyped: refused without a sentinel
	}{
		{"every type", `{"sample":` + sample + `}`, nil},
		{"a float32 out of range", `{"sample":{"value":1e39,"count":0}}`, errUntyped},
		{"a uint8 out of range", `{"sample":{"value":0,"count":256}}`, errUntyped},
		{"a negative uint8", `{"sample":{"value":0,"count":-1}}`, errUntyped},
		{"a map key outside its enum", `{"sample":{"value":0,"count":0,"byLevel":{"mid":1}}}`, codec.ErrInvalidEnum},
		{"a map value of the wrong type", `{"sample":{"value":0,"count":0,"byLevel":{"low":"1"}}}`, errUntyped},
		{"bytes that are not base64", `{"sample":{"value":0,"count":0,"blob":"!!"}}`, errUntyped},
		{"a time that is not RFC 3339", `{"sample":{"value":0,"count":0,"at":"yesterday"}}`, errUntyped},
		{"a duration with a fraction", `{"sample":{"value":0,"count":0,"wait":1.5}}`, errUntyped},
		{"any JSON for a Go package's type, which no spec describes (Go refuses this one)", `{"sample":{"value":0,"count":0,"host":[1,2]}}`, nil},
		{"a nested record missing a field", `{"sample":{"value":0,"count":0,"next":{"value":0}}}`, codec.ErrMissingField},
		{"null in a list of records", `{"sample":{"value":0,"count":0},"samples":[null]}`, codec.ErrMissingField},
		{"a wrong type first, where the one-pass decoder stops at it", `{"sample":{"value":"x","count":0,"byLevel":{"mid":1}}}`, errUntyped},
		{"a wrong type first, where encoding/json reads on to an enum it refuses", `{"sample":{"value":0,"count":0},"readings":[{"value":"x","level":"mid"}]}`, codec.ErrInvalidEnum},
		{"a wrong type first in a record that holds itself, which is read in one pass", `{"sample":{"value":0,"count":0},"samples":[{"value":"x","count":0,"byLevel":{"mid":1}}]}`, errUntyped},
		{"a record nested in itself through a list", `{"sample":{"value":0,"count":0,"kids":[{"value":0,"count":0,"kids":[null]}]}}`, codec.ErrMissingField},
		{"a key twice in a record nested in itself", `{"sample":{"value":0,"count":0,"next":{"value":0,"count":0,"count":1}}}`, codec.ErrAmbiguousKey},
		{"a key in another case in a nested record", `{"sample":{"value":0,"count":0,"next":{"Value":0,"count":0}}}`, codec.ErrAmbiguousKey},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := v.DecodeFact([]byte(`{"type":"metric/sampled","v":1,"data":` + c.data + `}`))
			switch {
			case c.want == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want == errUntyped && (err == nil || wrapsSentinel(err)):
				t.Fatalf("err = %v, want a refusal that wraps no sentinel", err)
			case c.want != nil && c.want != errUntyped && !errors.Is(err, c.want):
				t.Fatalf("err = %v, want one wrapping %v", err, c.want)
			}
			if err == nil && (f.Type != "metric/sampled" || f.V != 1 || f.Spec.Package.Name != "metrics") {
				t.Errorf("fact = %+v", f)
			}
		})
	}
}

// errUntyped marks a case refused without a sentinel, as Go refuses a value
// of the wrong type or range.
var errUntyped = errors.New("untyped")

func wrapsSentinel(err error) bool {
	for _, s := range []error{codec.ErrMissingField, codec.ErrInvalidEnum, codec.ErrInvalidID, codec.ErrAmbiguousKey, codec.ErrUnknownVariant, codec.ErrWrongVariant, codec.ErrUnknownFact} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func TestDecodeFactReadsValues(t *testing.T) {
	v, err := factspec.New(load(t, "metrics.yaml", metrics))
	if err != nil {
		t.Fatal(err)
	}
	f, err := v.DecodeFact([]byte(`{"data":{"sample":{"value":2.5,"count":7,"byLevel":{"high":3},"blob":"aGk=","wait":null}},"type":"metric/sampled","v":1}`))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Data["sample"].(map[string]any)
	if s["value"] != 2.5 || s["count"] != uint64(7) || string(s["blob"].([]byte)) != "hi" || s["byLevel"].(map[string]any)["high"] != int64(3) {
		t.Errorf("sample = %#v", s)
	}
	if _, ok := s["wait"]; ok {
		t.Errorf("a null duration is in the data: %#v", s)
	}
}

func TestUnknownFactsStayUnknown(t *testing.T) {
	v, err := factspec.New(load(t, "metrics.yaml", metrics))
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.DecodeFact([]byte(`{"type":"metric/sampled","v":2,"data":{}}`))
	if !errors.Is(err, codec.ErrUnknownVersion) {
		t.Errorf("a newer version: err = %v, want ErrUnknownVersion", err)
	}
	_, err = v.DecodeFact([]byte(`{"type":"deploy/approved","v":1,"data":{}}`))
	if !errors.Is(err, codec.ErrUnknownFact) || errors.Is(err, codec.ErrUnknownVersion) {
		t.Errorf("another vocabulary's fact: err = %v, want ErrUnknownFact only", err)
	}
	_, err = v.DecodeFact([]byte(`{"type":"deploy/approved","v":1,"data":{]}`))
	if err == nil || errors.Is(err, codec.ErrUnknownFact) {
		t.Errorf("an unknown fact that is not JSON: err = %v, want damage, not unknown", err)
	}
}

func TestTwoSpecsCannotDeclareOneFact(t *testing.T) {
	other := strings.Replace(metrics, "example.com/metrics", "example.com/other", 1)
	_, err := factspec.New(load(t, "metrics.yaml", metrics), load(t, "other.yaml", other))
	var list gen.ErrorList
	if !errors.As(err, &list) || !strings.Contains(err.Error(), "other.yaml:") || !strings.Contains(err.Error(), "fact metric/sampled is declared by example.com/metrics") {
		t.Fatalf("err = %v, want one positioned at the second declaration", err)
	}
	v, err := factspec.New(load(t, "metrics.yaml", metrics), load(t, "again.yaml", metrics))
	if err != nil || len(v.Specs()) != 1 || !v.Has("example.com/metrics") || !v.Knows("metric/sampled") {
		t.Fatalf("the same spec twice: %v, %d specs", err, len(v.Specs()))
	}
}

// A tool that has no Go code of a vocabulary reads its facts from the spec.
func ExampleVocabulary_DecodeFact() {
	spec, err := gen.LoadFS(nil, "deploy.yaml", []byte(`jobgen: 1
package: {name: deploy, path: example.com/deploy}
enums:
  Verdict: {values: {approved: {}, rejected: {}}}
facts:
  deploy/decided:
    versions:
      v1:
        fields:
          service: string
          verdict: Verdict
`))
	if err != nil {
		panic(err)
	}
	v, err := factspec.New(spec)
	if err != nil {
		panic(err)
	}
	f, err := v.DecodeFact([]byte(`{"type":"deploy/decided","v":1,"data":{"service":"api","verdict":"approved"}}`))
	fmt.Println(f.Data["service"], f.Data["verdict"], err)
	_, err = v.DecodeFact([]byte(`{"type":"deploy/decided","v":1,"data":{"service":"api","verdict":"maybe"}}`))
	fmt.Println(errors.Is(err, codec.ErrInvalidEnum))
	// Output:
	// api approved <nil>
	// true
}

// TestImportedRecordsOfASpecLoadedTwice: a spec imported by another is its
// own copy of a spec already in the vocabulary; the importing spec's facts
// read its records all the same.
func TestImportedRecordsOfASpecLoadedTwice(t *testing.T) {
	files := fstest.MapFS{
		"base.yaml": {Data: []byte("jobgen: 1\npackage: {name: base, path: example.com/base}\nrecords:\n  Who: {fields: {name: string}}\n")},
		"app.yaml":  {Data: []byte("jobgen: 1\npackage: {name: app, path: example.com/app}\nimports: {base: {spec: base.yaml}}\nfacts:\n  app/did:\n    versions:\n      v1:\n        fields: {who: base.Who, all: \"[]base.Who\"}\n")},
	}
	var specs []*gen.Resolved
	for _, name := range []string{"base.yaml", "app.yaml"} { // base first: app's import is a second copy
		r, err := gen.LoadFS(files, name, files[name].Data)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, r)
	}
	v, err := factspec.New(specs...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.DecodeFact([]byte(`{"type":"app/did","v":1,"data":{"who":{"name":"a"},"all":[{"name":"b"}]}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.DecodeFact([]byte(`{"type":"app/did","v":1,"data":{"who":{"name":"a"},"all":[{}]}}`)); !errors.Is(err, codec.ErrMissingField) {
		t.Fatalf("err = %v, want ErrMissingField from the imported record", err)
	}
}
