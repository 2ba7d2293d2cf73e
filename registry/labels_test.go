package registry_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/registry"
)

func TestLabelsAreKeptOnTheJobAndRecordedInItsRegisteredFact(t *testing.T) {
	r, rec := recordedRegistry()
	labels := map[string]string{"team": "infra", "ci": "nightly"}
	start := plainStart("s", "bash", newProducer())
	start.Labels = labels
	snap := mustStart(t, r, start)
	labels["team"] = "changed after the start"

	want := map[string]string{"team": "infra", "ci": "nightly"}
	if !maps.Equal(snap.Labels, want) || !maps.Equal(mustGet(t, r, "s", snap.ID).Labels, want) {
		t.Fatalf("snapshot labels %v; want %v, as started (a copy of the caller's map)", snap.Labels, want)
	}
	f, ok := rec.all()[0].(jobs.JobRegistered)
	if !ok || !maps.Equal(f.Labels, want) || f.FactVersion() != 3 {
		t.Fatalf("registered fact %+v; want version 3 with the labels", rec.all()[0])
	}
}

func TestLabelsOutOfBoundsAreAnInvalidStart(t *testing.T) {
	many := map[string]string{}
	for i := range jobs.DefaultMaxLabels + 1 {
		many[string(rune('a'+i))] = "x"
	}
	long := strings.Repeat("k", jobs.DefaultMaxLabelBytes+1)
	for name, labels := range map[string]map[string]string{
		"too many":      many,
		"empty key":     {"": "x"},
		"long key":      {long: "x"},
		"long value":    {"k": long},
		"control":       {"k": "a\nb"},
		"invalid UTF-8": {"k": "\xff"},
	} {
		t.Run(name, func(t *testing.T) {
			r := registry.New()
			start := plainStart("s", "bash", newProducer())
			start.Labels = labels
			if _, err := r.Start(t.Context(), start); !errors.Is(err, registry.ErrInvalidStart) {
				t.Fatalf("Start = %v; want ErrInvalidStart", err)
			}
		})
	}
	at := map[string]string{strings.Repeat("k", jobs.DefaultMaxLabelBytes): strings.Repeat("v", jobs.DefaultMaxLabelBytes)}
	start := plainStart("s", "bash", newProducer())
	start.Labels = at
	if _, err := registry.New().Start(t.Context(), start); err != nil {
		t.Fatalf("a label at the bounds was refused: %v", err)
	}
}
