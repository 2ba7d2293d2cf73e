package jobhttp

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
)

// The views of a Watch stream as text: the composite resume point that is
// each view frame's SSE id, and the views query a stream opens with
// (decision 0198). One text serves both, so a reconnect's Last-Event-ID
// reopens every view where it was, and a view opened by OpenView after the
// stream began is in it as much as one the stream opened with.

// maxWatchViews is the most views one Watch stream holds.
const maxWatchViews = 64

// viewNameRE is a view's name: what the client calls it.
var viewNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`)

// A watchSpec is one view as its text says it: its name, its route, and for
// a follow the job and the offset it resumes at (hasFrom false: from the
// earliest retained byte).
type watchSpec struct {
	name    string
	route   wire.WatchRoute
	job     jobs.JobID
	from    int64
	hasFrom bool
}

// String writes the view: NAME=ROUTE, or NAME=FollowJob:JOBID[@OFFSET].
func (v watchSpec) String() string {
	if v.route != wire.WatchRouteFollowJob {
		return v.name + "=" + string(v.route)
	}
	s := v.name + "=" + string(v.route) + ":" + v.job.String()
	if v.hasFrom {
		s += "@" + strconv.FormatInt(v.from, 10)
	}
	return s
}

// resumeText is the composite resume point of views: each view's text in
// the order of their names, joined by ";".
func resumeText(views []watchSpec) string {
	sort.Slice(views, func(i, j int) bool { return views[i].name < views[j].name })
	var b strings.Builder
	for i, v := range views {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// parseViews reads the views text: empty is none; a malformed view, a name
// twice or more than maxWatchViews is an error saying which.
func parseViews(text string) ([]watchSpec, error) {
	if text == "" {
		return nil, nil
	}
	parts := strings.Split(text, ";")
	if len(parts) > maxWatchViews {
		return nil, fmt.Errorf("%d views, more than the %d a stream holds", len(parts), maxWatchViews)
	}
	seen := map[string]bool{}
	out := make([]watchSpec, 0, len(parts))
	for _, p := range parts {
		v, err := parseView(p)
		if err != nil {
			return nil, err
		}
		if seen[v.name] {
			return nil, fmt.Errorf("view %q is named twice", v.name)
		}
		seen[v.name] = true
		out = append(out, v)
	}
	return out, nil
}

// parseView reads one view's text.
func parseView(p string) (watchSpec, error) {
	name, rest, ok := strings.Cut(p, "=")
	if !ok || !viewNameRE.MatchString(name) {
		return watchSpec{}, fmt.Errorf("view %q: want NAME=ROUTE, a name of 1 to 32 letters, digits, _ or -", p)
	}
	route, arg, hasArg := strings.Cut(rest, ":")
	v := watchSpec{name: name, route: wire.WatchRoute(route)}
	if !v.route.Valid() {
		return watchSpec{}, fmt.Errorf("view %q: %q is no route a view carries (%v)", name, route, wire.WatchRouteValues())
	}
	if v.route != wire.WatchRouteFollowJob {
		if hasArg {
			return watchSpec{}, fmt.Errorf("view %q: %s takes no parameter", name, route)
		}
		return v, nil
	}
	id, off, hasOff := strings.Cut(arg, "@")
	job, err := jobs.ParseJobID(id)
	if !hasArg || err != nil {
		return watchSpec{}, fmt.Errorf("view %q: FollowJob needs :JOBID, a job's id", name)
	}
	v.job = job
	if hasOff {
		n, err := strconv.ParseInt(off, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != off {
			return watchSpec{}, fmt.Errorf("view %q: offset %q is no byte offset in canonical decimal", name, off)
		}
		v.from, v.hasFrom = n, true
	}
	return v, nil
}

// parseEvent reads back an event a route's stream encoded once for many
// streams: its name, its id and its data, which a view frame carries
// unchanged.
func parseEvent(b []byte) (name, id string, data []byte) {
	var lines [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		switch {
		case bytes.HasPrefix(line, []byte("event: ")):
			name = string(line[len("event: "):])
		case bytes.HasPrefix(line, []byte("id: ")):
			id = string(line[len("id: "):])
		case bytes.HasPrefix(line, []byte("data: ")):
			lines = append(lines, line[len("data: "):])
		}
	}
	return name, id, bytes.Join(lines, []byte("\n"))
}
