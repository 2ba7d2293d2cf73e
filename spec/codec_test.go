package spec_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
)

// Generators of random vocabulary values. Go-only fields (funcs) are left
// zero, since they never travel.

func genStatus() *rapid.Generator[jobs.JobStatus] {
	return rapid.SampledFrom(jobs.JobStatusValues())
}

func genChannel() *rapid.Generator[jobs.Channel] {
	return rapid.SampledFrom(append(jobs.ChannelValues(), ""))
}

// genTerminal draws a status a settled job may have.
func genTerminal() *rapid.Generator[jobs.JobStatus] {
	return rapid.SampledFrom([]jobs.JobStatus{jobs.JobStatusCompleted, jobs.JobStatusKilled, jobs.JobStatusFailed})
}

// genID draws any id but the zero one, which no NewJobID returns and
// decoding refuses.
func genID() *rapid.Generator[jobs.JobID] {
	return rapid.Custom(func(t *rapid.T) jobs.JobID {
		var id jobs.JobID
		copy(id[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "id"))
		return id
	}).Filter(func(id jobs.JobID) bool { return !id.IsZero() })
}

func genText(t *rapid.T, label string) string { return rapid.String().Draw(t, label) }

func genSnapshot() *rapid.Generator[jobs.JobSnapshot] {
	return rapid.Custom(func(t *rapid.T) jobs.JobSnapshot {
		return jobs.JobSnapshot{
			ID:               genID().Draw(t, "id"),
			Name:             genText(t, "name"),
			Kind:             genText(t, "kind"),
			Label:            genText(t, "label"),
			Ordinal:          rapid.Int().Draw(t, "ordinal"),
			Owner:            jobs.SessionID(genText(t, "owner")),
			ToolCall:         jobs.ToolCallID(genText(t, "toolCall")),
			Record:           rapid.Bool().Draw(t, "record"),
			Status:           genStatus().Draw(t, "status"),
			Detail:           genText(t, "detail"),
			StartedAt:        rapid.Int64().Draw(t, "startedAt"),
			FinishedAt:       rapid.Int64().Draw(t, "finishedAt"),
			Reported:         rapid.Bool().Draw(t, "reported"),
			ProducerReported: rapid.Bool().Draw(t, "producerReported"),
			OutputBytes:      rapid.Int64().Draw(t, "outputBytes"),
		}
	})
}

func genChunks() *rapid.Generator[[]jobs.RecordChunk] {
	return rapid.SliceOf(rapid.Custom(func(t *rapid.T) jobs.RecordChunk {
		return jobs.RecordChunk{
			Offset:    rapid.Int64().Draw(t, "offset"),
			At:        rapid.Int64().Draw(t, "at"),
			Text:      genText(t, "text"),
			Channel:   genChannel().Draw(t, "channel"),
			GapBefore: rapid.Bool().Draw(t, "gapBefore"),
		}
	}))
}

func genFrame() *rapid.Generator[jobs.FollowFrame] {
	return rapid.OneOf(
		rapid.Custom(func(t *rapid.T) jobs.FollowFrame {
			return jobs.OpenedFrame{Job: genSnapshot().Draw(t, "job"), From: rapid.Int64().Draw(t, "from"),
				Earliest: rapid.Int64().Draw(t, "earliest"), Total: rapid.Int64().Draw(t, "total")}
		}),
		rapid.Custom(func(t *rapid.T) jobs.FollowFrame {
			return jobs.OutputFrame{Chunks: genChunks().Draw(t, "chunks"), Next: rapid.Int64().Draw(t, "next"), Lossy: rapid.Bool().Draw(t, "lossy")}
		}),
		rapid.Custom(func(t *rapid.T) jobs.FollowFrame {
			return jobs.StatusFrame{Job: genSnapshot().Draw(t, "job")}
		}),
	)
}

func genStart() *rapid.Generator[jobs.JobStart] {
	common := rapid.Custom(func(t *rapid.T) jobs.JobStartCommon {
		return jobs.JobStartCommon{
			Kind:             genText(t, "kind"),
			Label:            genText(t, "label"),
			Owner:            jobs.SessionID(genText(t, "owner")),
			OutputLimitBytes: rapid.Int64().Draw(t, "limit"),
			ToolCall:         jobs.ToolCallID(genText(t, "toolCall")),
		}
	})
	return rapid.OneOf(
		rapid.Custom(func(t *rapid.T) jobs.JobStart { return jobs.PlainJobStart{JobStartCommon: common.Draw(t, "common")} }),
		rapid.Custom(func(t *rapid.T) jobs.JobStart {
			return jobs.RecordingJobStart{JobStartCommon: common.Draw(t, "common")}
		}),
	)
}

func genFact() *rapid.Generator[jobs.Fact] {
	registered := rapid.Custom(func(t *rapid.T) jobs.JobRegistered {
		return jobs.JobRegistered{
			JobID: genID().Draw(t, "id"), At: rapid.Int64().Draw(t, "at"),
			Owner: jobs.SessionID(genText(t, "owner")), Kind: genText(t, "kind"), Label: genText(t, "label"),
			Ordinal: rapid.Int().Draw(t, "ordinal"), ToolCall: jobs.ToolCallID(genText(t, "toolCall")),
			Record: rapid.Bool().Draw(t, "record"),
		}
	})
	return rapid.OneOf(
		rapid.Custom(func(t *rapid.T) jobs.Fact { return registered.Draw(t, "registered") }),
		rapid.Custom(func(t *rapid.T) jobs.Fact {
			r := registered.Draw(t, "registration")
			return jobs.JobSettled{
				JobID: r.JobID, At: rapid.Int64().Draw(t, "at"), Status: genTerminal().Draw(t, "status"),
				Detail: genText(t, "detail"), ProducerReported: rapid.Bool().Draw(t, "producerReported"),
				Cause: rapid.SampledFrom(append(jobs.SettlementCauseValues(), "")).Draw(t, "cause"),
				Registration: jobs.JobRegistration{RegisteredAt: r.At, Owner: r.Owner, Kind: r.Kind, Label: r.Label,
					Ordinal: r.Ordinal, ToolCall: r.ToolCall, Record: r.Record},
			}
		}),
	)
}

// roundTrip checks that decode(encode(v)) == v for one value.
func roundTrip[T any](t *rapid.T, v T, encode func(T) ([]byte, error), decode func([]byte) (T, error)) {
	data, err := encode(v)
	if err != nil {
		t.Fatalf("encode %#v: %v", v, err)
	}
	got, err := decode(data)
	if err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if !reflect.DeepEqual(normalize(got), normalize(v)) {
		t.Fatalf("round trip changed the value:\n got %#v\nwant %#v\njson %s", got, v, data)
	}
}

// normalize maps an empty slice to nil: JSON cannot tell them apart.
func normalize(v any) any {
	if f, ok := v.(jobs.OutputFrame); ok && len(f.Chunks) == 0 {
		f.Chunks = nil
		return f
	}
	return v
}

func marshal[T any](v T) ([]byte, error) { return json.Marshal(v) }

func TestUnionsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		roundTrip(t, genFrame().Draw(t, "frame"), marshal, jobs.DecodeFollowFrame)
		roundTrip(t, genStart().Draw(t, "start"), marshal, jobs.DecodeJobStart)
	})
}

func TestFactsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		f := genFact().Draw(t, "fact")
		roundTrip(t, f, jobs.EncodeFact, jobs.DecodeFact)
		data, _ := jobs.EncodeFact(f)
		var env jobs.FactEnvelope
		if err := json.Unmarshal(data, &env); err != nil {
			t.Fatalf("the envelope is not JSON: %v\n%s", err, data)
		}
		if env.Type != f.FactType() || env.V != f.FactVersion() || len(env.Data) == 0 {
			t.Fatalf("envelope = %+v, want type %s v%d", env, f.FactType(), f.FactVersion())
		}
	})
}

func TestEnumsRoundTripAndRefuseUnknownValues(t *testing.T) {
	for _, s := range jobs.JobStatusValues() {
		var got jobs.JobStatus
		data, _ := json.Marshal(s)
		if err := json.Unmarshal(data, &got); err != nil || got != s {
			t.Errorf("JobStatus %q: got %q, %v", s, got, err)
		}
	}
	for _, c := range jobs.ChannelValues() {
		var got jobs.Channel
		data, _ := json.Marshal(c)
		if err := json.Unmarshal(data, &got); err != nil || got != c {
			t.Errorf("Channel %q: got %q, %v", c, got, err)
		}
	}
	var s jobs.JobStatus
	if err := json.Unmarshal([]byte(`"paused"`), &s); !errors.Is(err, jobs.ErrInvalidEnum) {
		t.Errorf("decoding an unknown status: err = %v, want ErrInvalidEnum", err)
	}
	if _, err := json.Marshal(jobs.JobOutcome{Status: "paused"}); !errors.Is(err, jobs.ErrInvalidEnum) {
		t.Errorf("encoding an unknown status: err = %v, want ErrInvalidEnum", err)
	}
	if jobs.JobStatus("paused").Valid() || !jobs.JobStatusRunning.Valid() {
		t.Error("Valid disagrees with the declared values")
	}
}

func TestDecodeRefusesBadInput(t *testing.T) {
	cases := []struct {
		name   string
		decode func([]byte) error
		input  string
		want   error
		detail string
	}{
		{"unknown frame", decodeFrame, `{"frame":"paused"}`, jobs.ErrUnknownVariant, `frame paused`},
		{"frame without discriminator", decodeFrame, `{"job":{}}`, jobs.ErrMissingField, `"frame"`},
		{"frame missing a required field", decodeFrame, `{"frame":"output","chunks":[]}`, jobs.ErrMissingField, `"next"`},
		{"frame with a case-folded discriminator", decodeFrame, `{"FRAME":"output","chunks":[],"next":1}`, codec.ErrAmbiguousKey, `"FRAME"`},
		{"frame with its discriminator twice", decodeFrame, `{"frame":"status","frame":"output","chunks":[],"next":1}`, codec.ErrAmbiguousKey, `"frame"`},
		{"start without record", decodeStart, `{"kind":"bash","label":"x"}`, jobs.ErrMissingField, `"record"`},
		{"start with a string record", decodeStart, `{"record":"yes","kind":"bash","label":"x"}`, nil, "cannot unmarshal string"},
		{"start without label", decodeStart, `{"record":true,"kind":"bash"}`, jobs.ErrMissingField, `"label"`},
		{"unknown fact type", decodeFact, `{"type":"job/paused","v":1,"data":{}}`, jobs.ErrUnknownFact, `"job/paused" v1`},
		{"unknown fact version", decodeFact, `{"type":"job/settled","v":9,"data":{}}`, jobs.ErrUnknownVersion, `v9`},
		{"fact without data", decodeFact, `{"type":"job/settled","v":1}`, jobs.ErrMissingField, `"data"`},
		{"fact missing a field", decodeFact, `{"type":"job/registered","v":1,"data":{"jobId":"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}}`, jobs.ErrMissingField, `"at"`},
		{"fact with a bad id", decodeFact, `{"type":"job/registered","v":1,"data":{"jobId":"nope"}}`, nil, `JobID "nope"`},
		{"not JSON", decodeFact, `{"type":`, nil, "unexpected end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.decode([]byte(c.input))
			if err == nil {
				t.Fatalf("decoded %s without error", c.input)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("err = %v, want one wrapping %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.detail) {
				t.Errorf("err = %v, want it to mention %s", err, c.detail)
			}
		})
	}
}

// TestUnknownFactsAreTheRuntimesErrors: a tool that knows no vocabulary
// tells an unknown fact from a damaged one with package codec alone, and a
// newer version of a known fact from a fact it has never heard of.
func TestUnknownFactsAreTheRuntimesErrors(t *testing.T) {
	if jobs.ErrUnknownFact != codec.ErrUnknownFact || jobs.ErrUnknownVersion != codec.ErrUnknownVersion ||
		jobs.ErrMissingField != codec.ErrMissingField || jobs.ErrInvalidEnum != codec.ErrInvalidEnum {
		t.Fatal("the generated errors are not the runtime's")
	}
	_, err := jobs.DecodeFact([]byte(`{"type":"job/settled","v":9,"data":{}}`))
	if !errors.Is(err, codec.ErrUnknownVersion) || !errors.Is(err, codec.ErrUnknownFact) {
		t.Errorf("newer version: err = %v, want ErrUnknownVersion wrapping ErrUnknownFact", err)
	}
	_, err = jobs.DecodeFact([]byte(`{"type":"agent/spawned","v":1,"data":{}}`))
	if !errors.Is(err, codec.ErrUnknownFact) || errors.Is(err, codec.ErrUnknownVersion) {
		t.Errorf("unknown type: err = %v, want ErrUnknownFact only", err)
	}
	_, err = jobs.DecodeFact([]byte(`{"type":"job/settled","v":2,"data":{"jobId":"x"}}`))
	if err == nil || errors.Is(err, codec.ErrUnknownFact) {
		t.Errorf("damaged fact: err = %v, want an error that is not ErrUnknownFact", err)
	}
	env, err := codec.DecodeEnvelope([]byte(`{"type":"agent/spawned","v":3,"data":{"x":1}}`))
	if err != nil || env.Type != "agent/spawned" || env.V != 3 {
		t.Errorf("DecodeEnvelope = %+v, %v", env, err)
	}
}

// A valid job/settled v2 fact, for the strict-decoding cases below to damage.
const (
	goodID       = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
	registration = `"registration":{"registeredAt":1,"owner":"s","kind":"bash","label":"x","ordinal":1,"record":false}`
)

func settled(id, status string) string {
	return `{"type":"job/settled","v":2,"data":{"jobId":"` + id + `","at":2,"status":"` + status + `","producerReported":true,` + registration + `}}`
}

// TestDecodeFactRefusesAmbiguousInput: encoding/json matches keys without
// regard to case and keeps the last of duplicate keys, and uuid.Parse reads
// several spellings of one UUID, so one fact could be written many ways and
// a damaged or forged one read as plausible. DecodeFact reads exactly what
// EncodeFact writes, and a settled fact only in a terminal status.
func TestDecodeFactRefusesAmbiguousInput(t *testing.T) {
	if _, err := jobs.DecodeFact([]byte(settled(goodID, "completed"))); err != nil {
		t.Fatalf("the valid fact the cases start from does not decode: %v", err)
	}
	cases := []struct {
		name  string
		input string
		want  error
	}{
		{"case-folded data key", strings.Replace(settled(goodID, "completed"), `"jobId"`, `"JOBID"`, 1), codec.ErrAmbiguousKey},
		{"case-folded envelope key", strings.Replace(settled(goodID, "completed"), `"type"`, `"Type"`, 1), codec.ErrAmbiguousKey},
		{"case-folded nested key", strings.Replace(settled(goodID, "completed"), `"registeredAt"`, `"registeredat"`, 1), codec.ErrAmbiguousKey},
		{"duplicate data key", strings.Replace(settled(goodID, "completed"), `"at":2,`, `"at":2,"at":3,`, 1), codec.ErrAmbiguousKey},
		{"duplicate envelope key", strings.Replace(settled(goodID, "completed"), `"v":2,`, `"v":1,"v":2,`, 1), codec.ErrAmbiguousKey},
		{"duplicate nested key", strings.Replace(settled(goodID, "completed"), `"kind":"bash"`, `"kind":"bash","kind":"sh"`, 1), codec.ErrAmbiguousKey},
		{"upper-case UUID", settled(strings.ToUpper(goodID), "completed"), codec.ErrInvalidID},
		{"UUID without hyphens", settled(strings.ReplaceAll(goodID, "-", ""), "completed"), codec.ErrInvalidID},
		{"UUID in braces", settled("{"+goodID+"}", "completed"), codec.ErrInvalidID},
		{"UUID as a URN", settled("urn:uuid:"+goodID, "completed"), codec.ErrInvalidID},
		{"zero UUID", settled("00000000-0000-0000-0000-000000000000", "completed"), codec.ErrInvalidID},
		{"settled while running", settled(goodID, "running"), codec.ErrInvalidEnum},
		{"settled while stopping", settled(goodID, "stopping"), codec.ErrInvalidEnum},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := jobs.DecodeFact([]byte(c.input))
			if err == nil {
				t.Fatalf("decoded %s as %+v", c.input, f)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("err = %v, want one wrapping %v", err, c.want)
			}
			if errors.Is(err, codec.ErrUnknownFact) {
				t.Errorf("err = %v wraps ErrUnknownFact; a damaged fact would be skipped as unknown", err)
			}
		})
	}
}

func TestParseIDAcceptsOnlyTheCanonicalForm(t *testing.T) {
	if _, err := jobs.ParseJobID(goodID); err != nil {
		t.Fatalf("ParseJobID(%s): %v", goodID, err)
	}
	for _, in := range []string{strings.ToUpper(goodID), "urn:uuid:" + goodID, "{" + goodID + "}", strings.ReplaceAll(goodID, "-", ""), "00000000-0000-0000-0000-000000000000"} {
		if _, err := jobs.ParseJobID(in); !errors.Is(err, codec.ErrInvalidID) {
			t.Errorf("ParseJobID(%s): err = %v, want ErrInvalidID", in, err)
		}
	}
}

func decodeFrame(b []byte) error { _, err := jobs.DecodeFollowFrame(b); return err }
func decodeStart(b []byte) error { _, err := jobs.DecodeJobStart(b); return err }
func decodeFact(b []byte) error  { _, err := jobs.DecodeFact(b); return err }

// TestVariantRefusesAnotherVariantsTag: a variant's decoder given a
// sibling's JSON says so, with a sentinel a caller can branch on, for a
// string discriminator as for a boolean one.
func TestVariantRefusesAnotherVariantsTag(t *testing.T) {
	var plain jobs.PlainJobStart
	err := json.Unmarshal([]byte(`{"record":true,"kind":"bash","label":"x"}`), &plain)
	if err == nil || !strings.Contains(err.Error(), "record is true, want false") || !errors.Is(err, jobs.ErrWrongVariant) {
		t.Errorf("PlainJobStart given a recording start: err = %v, want one wrapping ErrWrongVariant", err)
	}
	var output jobs.OutputFrame
	err = json.Unmarshal([]byte(`{"frame":"opened","next":1}`), &output)
	if !errors.Is(err, codec.ErrWrongVariant) || errors.Is(err, codec.ErrUnknownVariant) {
		t.Errorf("OutputFrame given an opened frame: err = %v, want ErrWrongVariant and not ErrUnknownVariant (the tag is known)", err)
	}
}

func TestWireShapes(t *testing.T) {
	start := jobs.RecordingJobStart{JobStartCommon: jobs.JobStartCommon{Kind: "bash", Label: "build"}}
	data, _ := json.Marshal(start)
	if string(data) != `{"record":true,"kind":"bash","label":"build"}` {
		t.Errorf("RecordingJobStart JSON = %s", data)
	}
	frame, _ := json.Marshal(jobs.OutputFrame{Next: 4})
	if string(frame) != `{"frame":"output","chunks":[],"next":4}` {
		t.Errorf("OutputFrame JSON = %s", frame)
	}
	var id jobs.JobID
	if err := id.UnmarshalText([]byte("6ba7b810-9dad-11d1-80b4-00c04fd430c8")); err != nil || id.String() != "6ba7b810-9dad-11d1-80b4-00c04fd430c8" {
		t.Errorf("JobID text round trip: %v %v", id, err)
	}
	if parsed, err := jobs.ParseJobID(id.String()); err != nil || parsed != id {
		t.Errorf("ParseJobID: %v %v", parsed, err)
	}
	if !(jobs.JobID{}).IsZero() || id.IsZero() {
		t.Error("IsZero is wrong")
	}
}

func TestLifecycleMachineMatchesTheSpec(t *testing.T) {
	m := jobs.JobLifecycle{}
	allowed := map[[2]jobs.JobStatus]bool{}
	for _, to := range []jobs.JobStatus{jobs.JobStatusStopping, jobs.JobStatusCompleted, jobs.JobStatusKilled, jobs.JobStatusFailed} {
		allowed[[2]jobs.JobStatus{jobs.JobStatusRunning, to}] = true
	}
	for _, to := range []jobs.JobStatus{jobs.JobStatusCompleted, jobs.JobStatusKilled, jobs.JobStatusFailed} {
		allowed[[2]jobs.JobStatus{jobs.JobStatusStopping, to}] = true
	}
	for _, from := range jobs.JobStatusValues() {
		for _, to := range jobs.JobStatusValues() {
			if got := m.CanTransition(from, to); got != allowed[[2]jobs.JobStatus{from, to}] {
				t.Errorf("CanTransition(%s, %s) = %v", from, to, got)
			}
		}
	}
	terminal := map[jobs.JobStatus]bool{jobs.JobStatusCompleted: true, jobs.JobStatusKilled: true, jobs.JobStatusFailed: true}
	for _, s := range jobs.JobStatusValues() {
		if s.Terminal() != terminal[s] {
			t.Errorf("%s.Terminal() = %v", s, s.Terminal())
		}
	}
	if m.Initial() != jobs.JobStatusRunning {
		t.Errorf("Initial() = %s", m.Initial())
	}
}
