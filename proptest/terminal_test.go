package proptest

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/jobgen/jobgen/generated/jobs"
)

// terminalInput is the producer's terminal, for a terminal job: it keeps
// what it is sent.
func (p *producer) terminalInput() jobs.TerminalInput {
	return jobs.TerminalInput{
		Send: func(text string) error {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.typed = append(p.typed, text)
			return nil
		},
		Resize: func(jobs.TerminalSize) error { return nil },
	}
}

func (p *producer) typedTexts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.typed)
}

// send types text into a job: by id as a caller, fenced as reads are, or
// through the TerminalJob StartTerminal returned. Only a live terminal job's
// producer may receive it, and only from its own session or its handle;
// afterwards every producer has received exactly what the model says.
func (h *machine) send(rt *rapid.T) {
	text := rapid.SampledFrom([]string{"ls\n", "y", "\x03"}).Draw(rt, "input")
	var j *modelJob
	var want errKind
	var err error
	var call string
	if held := h.pick(rt, "terminal handle", func(j *modelJob) bool { return j.term != nil }); held != nil && rapid.Bool().Draw(rt, "viaHandle") {
		j, want = held, h.m.sendHandle(held)
		note("send: through the handle, %s", want)
		call, err = held.name+"'s TerminalJob.Send", held.term.Send(text)
	} else {
		caller, id := h.drawTarget(rt, false)
		// Half the time, a terminal job the registry holds, from its owner:
		// most targets have no terminal, and input that lands is the point.
		if own := h.pick(rt, "terminal job", func(j *modelJob) bool { return j.plan.terminal && j.seq > 0 && !j.removed }); own != nil && rapid.Bool().Draw(rt, "ownTerminal") {
			caller, id = own.plan.owner, own.id
		}
		j, want = h.m.send(caller, id)
		note("send: by id, %s", want)
		call, err = fmt.Sprintf("Send(%q, %s)", caller, h.idName(id)), h.reg.Send(caller, id, text)
	}
	if got := classify(err); got != want {
		rt.Fatalf("%s = %v (%s), want %s", call, err, got, want)
	}
	if want == errNone {
		j.typed = append(j.typed, text)
	}
	for _, s := range h.m.starts {
		if got := s.prod.typedTexts(); !slices.Equal(got, s.typed) {
			rt.Fatalf("the terminal of %s (%s) was sent %q, want %q", s.name, s.plan.owner, got, s.typed)
		}
	}
}

// send predicts Send by id: the fence of every read, then a job without a
// terminal (plain, or recording with Run), then a settled one.
func (m *model) send(caller jobs.SessionID, id jobs.JobID) (*modelJob, errKind) {
	j, ek := m.lookup(caller, id)
	switch {
	case ek != errNone:
		return nil, ek
	case !j.plan.terminal:
		return j, errNoTerminal
	}
	return j, m.sendHandle(j)
}

// sendHandle predicts a Send through a terminal job's TerminalJob: no
// fence, only the settlement.
func (m *model) sendHandle(j *modelJob) errKind {
	if j.state == jobSettled {
		return errSettled
	}
	return errNone
}
