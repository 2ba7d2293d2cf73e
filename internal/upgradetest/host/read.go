package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// A reading is the history as one build reads it: how many records, how
// many its strict decoders refuse, what its tolerant readers kept as
// unknown, what is damaged, and the job intervals.
type reading struct {
	Records   int             `json:"records"`
	Refused   int             `json:"refused"`
	Unknown   int             `json:"unknown"`
	Kinds     string          `json:"kinds"`
	Damaged   int             `json:"damaged"`
	Intervals []wire.Interval `json:"intervals"`
}

// readHistory reads every record of the history, as this build's readers
// read them, and writes the reading as JSON.
func readHistory(ctx context.Context, store *pgstore.Store, out io.Writer) error {
	var r reading
	var unknown codec.UnknownFacts
	var facts []jobs.Fact
	for rec, err := range store.ReadAll(ctx, journal.Position{}) {
		if err != nil {
			return err
		}
		r.Records++
		if _, err := jobs.DecodeFact(rec.Payload); err != nil {
			if _, err := subagents.DecodeFact(rec.Payload); err != nil {
				r.Refused++
			}
		}
		f, err := jobs.ReadFact(rec.Payload)
		if err != nil {
			r.Damaged++
			continue
		}
		u, isUnknown := f.(jobs.UnknownFact)
		if !isUnknown {
			facts = append(facts, f)
			continue
		}
		if u.Why != codec.UnknownType {
			unknown.Keep(u.Unknown)
			facts = append(facts, f) // the intervals read what they can of it
			continue
		}
		sf, err := subagents.ReadFact(rec.Payload)
		switch su, isUnknown := sf.(subagents.UnknownFact); {
		case err != nil:
			r.Damaged++
		case isUnknown:
			unknown.Keep(su.Unknown)
		}
	}
	ivs, err := jobhistory.Intervals(func(yield func(jobs.Fact, error) bool) {
		for _, f := range facts {
			if !yield(f, nil) {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	for _, iv := range ivs {
		r.Intervals = append(r.Intervals, wire.Interval(iv))
	}
	r.Unknown, r.Kinds = unknown.Total(), unknown.String()
	return json.NewEncoder(out).Encode(r)
}
