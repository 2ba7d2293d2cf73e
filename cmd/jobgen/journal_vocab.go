package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"strings"

	"github.com/jobgen/jobgen/codec"
	"github.com/jobgen/jobgen/factspec"
	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/spec"
)

// The journal commands read facts of any vocabulary: the specs --spec names,
// or those jobgen.yaml lists (found upward from the working directory, as for
// every command), and the specs they import, plus jobgen's own job and
// subagent vocabularies, built in. Each fact is decoded from the spec model
// (package factspec), as strictly as generated code would, so a runtime's own
// facts need no Go code of theirs in jobgen. See the factspec package doc.

// registerVocabulary adds the flags that name the specs whose facts the
// command reads.
func (j *journalRun) registerVocabulary(fs *flag.FlagSet) {
	j.flags = fs
	fs.Func("spec", "a spec whose facts the journal holds (file or glob; repeat for several); default: the specs "+configName+" lists, if there is one. jobgen's own job and subagent specs are always known", func(s string) error {
		j.sf.specs = append(j.sf.specs, s)
		return nil
	})
	fs.StringVar(&j.sf.config, "config", "", "read the specs from this file (default without --spec: "+configName+" in the working directory or a parent, up to the module root)")
}

// vocabulary loads the specs the command reads facts of. It reports a
// problem through j and returns nil then; code is the exit status to stop
// with.
func (j *journalRun) vocabulary() (v *factspec.Vocabulary, code int) {
	r := newReporter(formatText, j.stdout, j.stderr)
	v, ok := j.loadVocabularyTo(r)
	if !ok {
		return nil, r.code
	}
	return v, exitOK
}

// loadVocabulary is vocabulary with its problem returned rather than
// reported: for a command that loaded the vocabulary once and loads it
// again.
func (j *journalRun) loadVocabulary() (*factspec.Vocabulary, error) {
	var stdout, stderr bytes.Buffer
	v, ok := j.loadVocabularyTo(newReporter(formatText, &stdout, &stderr))
	if !ok {
		return nil, errors.New(strings.TrimSpace(stderr.String()))
	}
	return v, nil
}

// loadVocabularyTo loads the vocabulary, reporting a problem to r.
func (j *journalRun) loadVocabularyTo(r *reporter) (*factspec.Vocabulary, bool) {
	if j.flags != nil && !j.sf.withConfig(j.flags, r) {
		return nil, false
	}
	var specs []*gen.Resolved
	if len(j.sf.specs) > 0 {
		var ok bool
		if specs, ok = j.sf.parseSpecs(r); !ok {
			return nil, false
		}
	}
	own, err := ownSpecs()
	if err != nil {
		r.failf(exitFailure, "jobgen: jobgen's own specs: %v", err)
		return nil, false
	}
	v, err := factspec.New(append(specs, own...)...)
	if err != nil {
		r.err(err)
		return nil, false
	}
	return v, true
}

// ownSpecs are jobgen's own vocabularies, as built into this program.
func ownSpecs() ([]*gen.Resolved, error) {
	var out []*gen.Resolved
	for _, name := range spec.Names() {
		data, err := fs.ReadFile(spec.Files(), name)
		if err != nil {
			return nil, err
		}
		r, err := gen.LoadFS(spec.Files(), "jobgen:spec/"+name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// errOtherVocabulary is what intervals' decoder returns for a fact of a
// vocabulary it knows that is not a job fact: skipped, like an unknown fact,
// but not counted as one.
var errOtherVocabulary = fmt.Errorf("a fact of another vocabulary: %w", codec.ErrUnknownFact)

// projectable reads a fact for the intervals projection, tolerantly: a job
// fact with this build's job vocabulary, which the projection reads (one a
// newer build wrote, a version or value this build does not know, as an
// UnknownFact the projection shows in part, counted in unknown); any other
// with the vocabulary, loaded when the first such fact is read. Facts none
// of them knows are counted in unknown too; a damaged fact of any
// vocabulary is an error.
func projectable(vocabulary func() (*factspec.Vocabulary, error), unknown *codec.UnknownFacts) func([]byte) (jobs.Fact, error) {
	return func(data []byte) (jobs.Fact, error) {
		f, err := jobs.ReadFact(data)
		u, isUnknown := f.(jobs.UnknownFact)
		switch {
		case err != nil:
			return nil, err
		case !isUnknown:
			return f, nil
		case u.Why != codec.UnknownType:
			unknown.Keep(u.Unknown)
			return f, nil
		}
		v, verr := vocabulary()
		if verr != nil {
			return nil, verr
		}
		other, err := v.ReadFact(data)
		switch {
		case err != nil:
			return nil, err
		case other.Unknown != nil:
			unknown.Keep(*other.Unknown)
			return f, nil
		}
		return nil, errOtherVocabulary
	}
}
