package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/subagents"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/internal/upgradetest"
	"github.com/jobgen/jobgen/jobhistory"
	"github.com/jobgen/jobgen/journal"
	"github.com/jobgen/jobgen/journal/pgstore"
)

// readHistory reads every record of the history, as this build's readers
// read them, and writes the reading as JSON.
func readHistory(ctx context.Context, store *pgstore.Store, out io.Writer) error {
	var r upgradetest.Reading
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
