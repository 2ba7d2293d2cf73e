// Package pgsql holds SQL over the job vocabulary's facts in a pgstore
// journal: the execution intervals of jobs as a query (intervals.sql), for
// tools that read the database directly. The journal knows no vocabulary, so
// this lives with the job history, beside the Go projection
// jobhistory.Intervals; its tests hold the two to the same answers.
package pgsql

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/jobhistory"
)

// IntervalsSQL is the intervals query, written for the default schema
// (jobgen_journal); see intervals.sql.
//
//go:embed intervals.sql
var IntervalsSQL string

// defaultSchema is the schema IntervalsSQL names.
const defaultSchema = "jobgen_journal."

// Query returns IntervalsSQL on the store schema.
func Query(schema string) string {
	return strings.ReplaceAll(IntervalsSQL, defaultSchema, pgx.Identifier{schema}.Sanitize()+".")
}

// Intervals runs the intervals query on the journal in schema and returns one
// jobhistory.Interval per job, in the order each job first appears.
func Intervals(ctx context.Context, pool *pgxpool.Pool, schema string) ([]jobhistory.Interval, error) {
	rows, err := pool.Query(ctx, Query(schema))
	if err != nil {
		return nil, fmt.Errorf("pgsql: intervals in %s: %w", schema, err)
	}
	defer rows.Close()
	var out []jobhistory.Interval
	for rows.Next() {
		var iv jobhistory.Interval
		var id, owner, toolCall, status, cause, labels string
		if err := rows.Scan(&id, &owner, &iv.Kind, &iv.Label, &iv.Ordinal, &toolCall, &iv.Record,
			&iv.RegisteredAt, &iv.SettledAt, &status, &iv.Detail, &iv.ProducerReported, &cause, &iv.Complete, &labels); err != nil {
			return out, fmt.Errorf("pgsql: intervals in %s: %w", schema, err)
		}
		if labels != "{}" {
			if err := json.Unmarshal([]byte(labels), &iv.Labels); err != nil {
				return out, fmt.Errorf("pgsql: intervals in %s: labels of %s: %w", schema, id, err)
			}
		}
		if iv.JobID, err = jobs.ParseJobID(id); err != nil {
			return out, fmt.Errorf("pgsql: intervals in %s: job id %q: %w", schema, id, err)
		}
		iv.Owner, iv.ToolCall = jobs.SessionID(owner), jobs.ToolCallID(toolCall)
		iv.Status, iv.Cause = jobs.JobStatus(status), jobs.SettlementCause(cause)
		out = append(out, iv)
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("pgsql: intervals in %s: %w", schema, err)
	}
	return out, nil
}
