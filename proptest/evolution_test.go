package proptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/factspec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/breaking"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/spec"
	"github.com/jobgen/jobgen/subagent"
	"github.com/jobgen/jobgen/subagent/subagenttest"
)

// TestEvolutionReadsAlike: the two readers of the job vocabulary — the
// generated package and factspec reading spec/jobs.yaml alone — take every
// fact alike under the rules of decisions 0173 and 0174. Facts are drawn as
// a build of an older version wrote them (job/registered v1, job/settled
// v1), as a newer build would (a version past the newest, a settlement
// cause no build knows, a fact type added since), or damaged (a required
// field gone, a value of the wrong type, a malformed id). Then:
//
//   - an older version decodes, in both, as the newest version, and as the
//     spec's declarations say (a v1 settlement's cause is producer exactly
//     when the producer reported);
//   - what a newer build wrote is, to both tolerant readers, the same
//     unknown (type, version, why), holding the bytes as written, which
//     EncodeFact gives back; the strict decoders refuse it;
//   - damage is refused by both, and never taken for an unknown.
func TestEvolutionReadsAlike(t *testing.T) {
	v := jobsVocabulary(t)
	rapid.Check(t, func(t *rapid.T) {
		doc, kind := evolvedFact(t)
		goFact, goErr := jobs.ReadFact(doc)
		specFact, specErr := v.ReadFact(doc)
		switch kind {
		case "damaged":
			if goErr == nil || specErr == nil || codec.IsUnknown(goErr) || codec.IsUnknown(specErr) {
				t.Fatalf("damaged %s: Go %v, %v; factspec %v, %v; want both refused as damage", doc, goFact, goErr, specFact, specErr)
			}
			return
		case "older":
			if goErr != nil || specErr != nil {
				t.Fatalf("older %s: Go %v; factspec %v", doc, goErr, specErr)
			}
			if _, ok := goFact.(jobs.UnknownFact); ok || specFact.Unknown != nil || goFact.FactVersion() != specFact.V || specFact.From != 1 {
				t.Fatalf("older %s read as Go %v, factspec v%d from v%d; want the newest version", doc, goFact, specFact.V, specFact.From)
			}
			checkDeclaredUpcast(t, doc, goFact)
			// factspec's data, written as an envelope of its version, is
			// what Go's upcast returns.
			env, err := json.Marshal(map[string]any{"type": specFact.Type, "v": specFact.V, "data": specFact.Data})
			if err != nil {
				t.Fatal(err)
			}
			fromSpec, err := jobs.DecodeFact(env)
			if err != nil || !reflect.DeepEqual(fromSpec, goFact) {
				t.Fatalf("older %s: factspec read %s, which is %v (%v); Go read %+v", doc, env, fromSpec, err, goFact)
			}
		default: // newer: a version, a value or a type this build does not know
			u, ok := goFact.(jobs.UnknownFact)
			if goErr != nil || specErr != nil || !ok || specFact.Unknown == nil {
				t.Fatalf("newer (%s) %s: Go %v, %v; factspec %+v, %v; want both to keep an unknown", kind, doc, goFact, goErr, specFact, specErr)
			}
			su := *specFact.Unknown
			if u.Type != su.Type || u.V != su.V || u.Why != su.Why || string(u.Why) != kind {
				t.Fatalf("newer %s: Go keeps %s, factspec %s; want both %s", doc, u.Unknown, su, kind)
			}
			if !bytes.Equal(u.Raw, doc) || !bytes.Equal(su.Raw, doc) {
				t.Fatalf("newer %s: kept %s and %s, not the bytes as written", doc, u.Raw, su.Raw)
			}
			if out, err := jobs.EncodeFact(u); err != nil || !bytes.Equal(out, doc) {
				t.Fatalf("newer %s: EncodeFact wrote %s, %v; want it as written", doc, out, err)
			}
			if _, err := jobs.DecodeFact(doc); err == nil {
				t.Fatalf("newer %s: the strict decoder read it", doc)
			}
		}
	})
}

// checkDeclaredUpcast checks the upcasts jobs.yaml declares: job/settled
// v2's cause from v1's producerReported ("true": producer), the rest
// carried; job/registered v2's host left empty.
func checkDeclaredUpcast(t *rapid.T, doc []byte, f jobs.Fact) {
	var env struct{ Data map[string]any }
	if err := json.Unmarshal(doc, &env); err != nil {
		t.Fatal(err)
	}
	switch f := f.(type) {
	case jobs.JobSettled:
		want := jobs.SettlementCause("")
		if env.Data["producerReported"] == true {
			want = jobs.SettlementCauseProducer
		}
		if f.Cause != want || string(f.Status) != env.Data["status"] || f.ProducerReported != (env.Data["producerReported"] == true) {
			t.Fatalf("%s upcast to %+v; want cause %q and the rest carried", doc, f, want)
		}
	case jobs.JobRegistered:
		if f.Host != (jobs.JobHost{}) || f.Label != env.Data["label"] {
			t.Fatalf("%s upcast to %+v; want no host and the rest carried", doc, f)
		}
	default:
		t.Fatalf("%s upcast to a %T", doc, f)
	}
}

// jobsVocabulary is factspec over jobgen's own specs, as the journal tools
// build it.
func jobsVocabulary(t *testing.T) *factspec.Vocabulary {
	t.Helper()
	var specs []*gen.Resolved
	for _, name := range spec.Names() {
		data, err := fs.ReadFile(spec.Files(), name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := gen.LoadFS(spec.Files(), name, data)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, r)
	}
	v, err := factspec.New(specs...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// evolvedFact draws a fact envelope and says what it is: older, damaged, or
// the reason a tolerant reader keeps it unknown (version, value, type).
func evolvedFact(t *rapid.T) ([]byte, string) {
	registered := rapid.Bool().Draw(t, "registered")
	id := jobs.NewJobID().String()
	reg := map[string]any{"registeredAt": rapid.Int64().Draw(t, "registeredAt"), "owner": rapid.StringN(0, 8, -1).Draw(t, "owner"),
		"kind": rapid.StringN(0, 8, -1).Draw(t, "kind"), "label": rapid.StringN(0, 8, -1).Draw(t, "label"),
		"ordinal": rapid.IntRange(0, 1000).Draw(t, "ordinal"), "record": rapid.Bool().Draw(t, "record")}
	data := map[string]any{"jobId": id, "at": rapid.Int64().Draw(t, "at")}
	typ := "job/settled"
	if registered {
		typ = "job/registered"
		for k, v := range reg {
			data[k] = v
		}
		delete(data, "registeredAt")
		if rapid.Bool().Draw(t, "toolCall") {
			data["toolCall"] = "call-1"
		}
	} else {
		data["status"] = rapid.SampledFrom([]string{"completed", "killed", "failed"}).Draw(t, "status")
		data["producerReported"] = rapid.Bool().Draw(t, "producerReported")
		data["registration"] = reg
		if rapid.Bool().Draw(t, "detail") {
			data["detail"] = rapid.StringN(0, 8, -1).Draw(t, "detailText")
		}
	}
	v := 1
	kind := rapid.SampledFrom([]string{"older", "older", "version", "value", "type", "damaged"}).Draw(t, "kind")
	switch kind {
	case "version":
		// Past the newest version this build writes of the type.
		newest := jobs.JobSettled{}.FactVersion()
		if registered {
			newest = jobs.JobRegistered{}.FactVersion()
		}
		v = rapid.IntRange(newest+1, newest+7).Draw(t, "newer")
		data["addedSince"] = "x"
	case "value":
		// A value this build does not know, in the newest version.
		v = jobs.JobSettled{}.FactVersion()
		if registered {
			typ, data["jobId"], data["status"], data["producerReported"], data["registration"] = "job/settled", id, "completed", true, reg
		}
		data["cause"] = rapid.SampledFrom([]string{"preempted", "handedOff", "Producer"}).Draw(t, "cause")
	case "type":
		typ = "job/" + rapid.SampledFrom([]string{"noted", "paused", "moved"}).Draw(t, "type")
	case "damaged":
		switch rapid.IntRange(0, 2).Draw(t, "damage") {
		case 0:
			delete(data, "jobId")
		case 1:
			data["at"] = "late"
		default:
			data["jobId"] = strings.ToUpper(id)
		}
	}
	doc, err := json.Marshal(map[string]any{"type": typ, "v": v, "data": data})
	if err != nil {
		t.Fatal(err)
	}
	return doc, kind
}

// TestAResumeNeverFoldsAroundAnUnknownFact: the cold resume's rule for
// what its build does not know (decision 0174), over random child
// histories. A child lives through one to four residencies; into its stream
// a newer build's subagent fact (a version, or an enum value, this build
// does not know) is written at random moments: while the child is resident,
// so that the checkpoint written at the residency's end covers it, or while
// it is settled, after its last checkpoint. A follow-up then resumes the
// child exactly when no such fact lies after its last checkpoint; when one
// does, it is refused with ErrNotResumable naming the fact, and nothing is
// appended to the stream.
func TestAResumeNeverFoldsAroundAnUnknownFact(t *testing.T) {
	newer := []string{
		`{"type":"subagent/message-accepted","v":2,"data":{"message":"6ba7b811-9dad-11d1-80b4-00c04fd430c8","at":5,"source":{"kind":"user"},"content":[],"priority":3}}`,
		`{"type":"subagent/residency-ended","v":1,"data":{"run":"6ba7b812-9dad-11d1-80b4-00c04fd430c8","at":5,"stopReason":"handedOff"}}`,
	}
	rapid.Check(t, func(rt *rapid.T) {
		plan := rapid.SliceOfN(rapid.IntRange(0, 2), 1, 4).Draw(rt, "residencies") // per residency: 0 none, 1 while resident, 2 after it ended
		which := rapid.IntRange(0, len(newer)-1).Draw(rt, "fact")
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			store := subagenttest.NewMemStore()
			host := subagenttest.NewHost()
			root := subagenttest.NewAgent("root")
			svc := subagent.New(subagent.WithStore(store), subagent.WithHost(host))
			defer svc.Close(ctx)
			if _, err := svc.RegisterProvider(&subagenttest.Provider{ProviderName: "fork"}); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Attach(root); err != nil {
				t.Fatal(err)
			}
			inject := func() {
				if _, err := store.Append(ctx, "c1", journal.Entry{Payload: []byte(newer[which])}); err != nil {
					t.Fatal(err)
				}
			}
			uncovered := false // an unknown fact lies after the last checkpoint
			for i, at := range plan {
				var err error
				if i == 0 {
					_, _, err = svc.StartContinuable(ctx, subagent.ContinuableSpec{Provider: "fork", Label: "x", ChildID: "c1", Parent: root, Prompt: propText("go")})
				} else {
					_, err = svc.Followup(ctx, root, "c1", propText("more"), subagent.FollowupOptions{})
				}
				if uncovered {
					if !errors.Is(err, subagent.ErrNotResumable) || !strings.Contains(err.Error(), "this build does not know") {
						t.Fatalf("residency %d of %v: %v; want the resume refused, an unknown fact lying after the last checkpoint", i, plan, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("residency %d of %v: %v; every unknown fact lies before the last checkpoint", i, plan, err)
				}
				synctest.Wait()
				a := host.Agent("c1")
				a.BeginTurn()
				if at == 1 {
					inject()
				}
				a.EndTurn(subagents.StopReasonCompleted, "")
				synctest.Wait()
				if at == 2 {
					inject()
					uncovered = true
				}
			}
			before := propRecords(t, store, "c1")
			_, err := svc.Followup(ctx, root, "c1", propText("last"), subagent.FollowupOptions{})
			switch {
			case uncovered && !errors.Is(err, subagent.ErrNotResumable):
				t.Fatalf("%v: the last follow-up: %v; want it refused", plan, err)
			case uncovered && propRecords(t, store, "c1") != before:
				t.Fatalf("%v: the refused resume appended to the stream", plan)
			case !uncovered && err != nil:
				t.Fatalf("%v: the last follow-up: %v; want a resume", plan, err)
			}
			synctest.Wait()
		})
	})
}

func propText(s string) []subagents.ContentBlock {
	return []subagents.ContentBlock{{Kind: subagents.ContentKindText, Text: s}}
}

func propRecords(t *testing.T, store journal.Store, stream journal.Stream) int {
	t.Helper()
	n := 0
	for _, err := range store.ReadStream(context.Background(), stream, 0) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}

// TestBreakingReportsAnAdditionForwardOnly: each addition a rolling upgrade
// needs readers upgraded for — an enum value a fact holds, a newer fact
// version, a union variant — drawn at random onto a small spec, is a forward
// finding of breaking, and none of them is a backward one: a reader of the
// new spec reads everything the old one wrote. A fact type added is no
// finding in any mode.
func TestBreakingReportsAnAdditionForwardOnly(t *testing.T) {
	const base = `jobgen: 1
package: {name: demo}
ids:
  TaskID: {kind: uuid}
enums:
  State:
    values: {open: {}, done: {}}
unions:
  Frame:
    discriminator: frame
    variants:
      Opened: {tag: opened, fields: {at: int64}}
facts:
  task/opened:
    versions:
      v1:
        fields: {id: TaskID, state: State}
`
	additions := map[string]struct{ edit, rule string }{
		"value":   {"    values: {open: {}, done: {}, paused: {}}\n", "ENUM_VALUE_ADDED"},
		"version": {"      v2:\n        fields: {id: TaskID, state: State, note: {type: string, optional: true}}\n", "FACT_VERSION_ADDED"},
		"variant": {"      Closed: {tag: closed}\n", "VARIANT_ADDED"},
		"fact":    {"  task/closed:\n    versions:\n      v1:\n        fields: {id: TaskID}\n", ""},
	}
	names := []string{"value", "version", "variant", "fact"}
	rapid.Check(t, func(rt *rapid.T) {
		chosen := rapid.SliceOfNDistinct(rapid.SampledFrom(names), 1, len(names), rapid.ID[string]).Draw(rt, "additions")
		next := base
		for _, c := range chosen {
			switch c {
			case "value":
				next = strings.Replace(next, "    values: {open: {}, done: {}}\n", additions[c].edit, 1)
			case "variant":
				next = strings.Replace(next, "      Opened: {tag: opened, fields: {at: int64}}\n", "      Opened: {tag: opened, fields: {at: int64}}\n"+additions[c].edit, 1)
			case "version":
				next = strings.Replace(next, "        fields: {id: TaskID, state: State}\n", "        fields: {id: TaskID, state: State}\n"+additions[c].edit, 1)
			default:
				next += additions[c].edit
			}
		}
		load := func(name, text string) *gen.Spec {
			r, err := gen.LoadFS(nil, name, []byte(text))
			if err != nil {
				rt.Fatalf("%s: %v\n%s", name, err, text)
			}
			return r.Spec()
		}
		old, new := load("old.yaml", base), load("new.yaml", next)
		rules := func(mode breaking.Mode) map[string]bool {
			out := map[string]bool{}
			for _, f := range breaking.Compare(old, new, breaking.WithMode(mode)).Findings {
				out[string(f.Rule)] = true
			}
			return out
		}
		if back := rules(breaking.Backward); len(back) > 0 {
			rt.Fatalf("%v: backward findings %v; want none", chosen, back)
		}
		fwd := rules(breaking.Forward)
		want := map[string]bool{}
		for _, c := range chosen {
			if r := additions[c].rule; r != "" {
				want[r] = true
			}
		}
		if !reflect.DeepEqual(fwd, want) {
			rt.Fatalf("%v: forward findings %v; want %v", chosen, fwd, want)
		}
	})
}
