package gen

import (
	"os"
	"testing"
	"testing/fstest"
)

// TestOnWireTellsGoOnlyDeclarationsApart: ids, enums and plain records and
// unions reach the wire; faces, records of funcs, unions whose variants
// carry funcs, and whatever holds one of those are Go-only, in the spec and
// across a spec import; a recursive record is on the wire.
func TestOnWireTellsGoOnlyDeclarationsApart(t *testing.T) {
	base := []byte(`jobgen: 1
package: {name: base, path: example.com/base}
records:
  Hooks: {fields: {cancel: {type: "func() error"}}}
`)
	spec := []byte(`jobgen: 1
package: {name: p, path: example.com/p}
imports:
  base: {spec: base.yaml}
ids:
  ID: {kind: string}
enums:
  Color: {values: {red: {}}}
records:
  Plain: {fields: {id: {type: ID}, color: {type: Color}, tags: {type: "[]string"}}}
  Funcs: {fields: {run: {type: "func()"}}}
  HoldsFuncs: {fields: {inner: {type: "[]Funcs"}}}
  HoldsImportedFuncs: {fields: {hooks: {type: base.Hooks}}}
  HoldsFace: {fields: {job: {type: Job}}}
  Tree: {fields: {children: {type: "[]Tree"}, plain: {type: "*Plain"}}}
unions:
  Event:
    discriminator: kind
    variants:
      Started: {tag: started, fields: {id: {type: ID}}}
  Start:
    discriminator: kind
    common: {label: {type: string}}
    variants:
      Go: {tag: go, fields: {run: {type: "func()"}}}
      Data: {tag: data, fields: {n: {type: int}}}
faces:
  Job: {methods: {ID: {type: "func() ID"}}}
`)
	r, err := LoadFS(fstest.MapFS{"base.yaml": {Data: base}}, "p.yaml", spec)
	if err != nil {
		t.Fatal(err)
	}
	x := r.Spec().Index()
	for name, want := range map[string]bool{
		"ID": true, "Color": true, "Plain": true, "Tree": true, "Event": true, "Started": true,
		"Funcs": false, "HoldsFuncs": false, "HoldsImportedFuncs": false, "HoldsFace": false,
		"Start": false, "Go": false, "Data": false, "Job": false, "Missing": false,
	} {
		if got := x.OnWire(name); got != want {
			t.Errorf("OnWire(%s) = %v, want %v", name, got, want)
		}
	}
}

// TestOnWireOfTheJobVocabulary: of spec/jobs.yaml, the Go-only declarations
// are the faces, Hooks and TerminalInput (records of funcs alone) and the
// JobStart union with its variants.
func TestOnWireOfTheJobVocabulary(t *testing.T) {
	data, err := os.ReadFile("../spec/jobs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := LoadFS(os.DirFS("../spec"), "jobs.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	x := r.Spec().Index()
	var goOnly []string
	for _, d := range r.Spec().Declarations() {
		if d.Kind != DeclMachine && !x.OnWire(d.Name) {
			goOnly = append(goOnly, d.Name)
		}
	}
	want := []string{"Hooks", "TerminalInput", "JobStart", "PlainJobStart", "RecordingJobStart", "RunningJob", "RecordingJob", "TerminalJob"}
	if len(goOnly) != len(want) {
		t.Fatalf("Go-only declarations = %v, want %v", goOnly, want)
	}
	for i := range want {
		if goOnly[i] != want[i] {
			t.Fatalf("Go-only declarations = %v, want %v", goOnly, want)
		}
	}
}

// TestOnWireCountsWhatFactsHold: a record a live fact version holds is on
// the wire though a field of it cannot travel (that field is left out), and
// so is what it holds, and a union one of whose variants a fact holds, with
// every variant; what holds such a record outside a fact stays Go-only, in
// the spec and across an import.
func TestOnWireCountsWhatFactsHold(t *testing.T) {
	base := []byte(`jobgen: 1
package: {name: base, path: example.com/base}
records:
  Dish: {fields: {name: {type: string}, cook: {type: "func() error"}}}
facts:
  order/placed:
    versions:
      v1: {fields: {dishes: {type: "[]Dish"}}}
`)
	spec := []byte(`jobgen: 1
package: {name: p, path: example.com/p}
imports:
  base: {spec: base.yaml}
records:
  Dish: {fields: {name: {type: string}, side: {type: "*Side"}, cook: {type: "func() error"}}}
  Side: {fields: {done: {type: "chan string"}}}
  Menu: {fields: {dishes: {type: "[]Dish"}}}
  Table: {fields: {dishes: {type: "[]Dish"}}}
  Imported: {fields: {dish: {type: base.Dish}}}
unions:
  Step:
    discriminator: kind
    variants:
      Prep: {tag: prep, fields: {run: {type: "func()"}}}
      Plate: {tag: plate, fields: {menu: {type: Menu}}}
facts:
  order/placed:
    versions:
      v1: {fields: {dishes: {type: "[]Dish"}, step: {type: Prep}}}
`)
	r, err := LoadFS(fstest.MapFS{"base.yaml": {Data: base}}, "p.yaml", spec)
	if err != nil {
		t.Fatal(err)
	}
	x := r.Spec().Index()
	for name, want := range map[string]bool{
		"Dish": true, "Side": true, "Step": true, "Prep": true, "Plate": true, "Menu": true,
		"Table": false, "Imported": false,
	} {
		if got := x.OnWire(name); got != want {
			t.Errorf("OnWire(%s) = %v, want %v", name, got, want)
		}
	}
	if !r.Spec().Imports[0].Imported.Spec().Index().OnWire("Dish") {
		t.Error("base's Dish, which its own fact holds, is not on the wire")
	}
}
