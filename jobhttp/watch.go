package jobhttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
	"github.com/jobgen/jobgen/generated/wire"
	"github.com/jobgen/jobgen/httproute"
)

// Watch implements wire.Server: one stream carrying every view a client
// has open (decision 0198). It counts once against the session's cap,
// whatever its views; each view runs as the route it carries would, and
// writes its events through the stream's one writer, which gives each
// frame the composite resume point of the views open after it.
func (h *Handler) Watch(ctx context.Context, req wire.WatchRequest, stream wire.WatchStream) error {
	session, err := sessionOf(ctx)
	if err != nil {
		return err
	}
	var text string
	if req.Views != nil {
		text = *req.Views
	}
	specs, err := parseViews(text)
	if err != nil {
		return httproute.Refuse(http.StatusBadRequest, err.Error())
	}
	release, err := h.streams.open(session)
	if err != nil {
		return err
	}
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	w := &watch{h: h, name: newStreamName(), session: session, ctx: ctx, items: make(chan watchItem), views: map[string]*watchView{}}
	defer w.running.Wait()
	defer cancel()
	h.addWatch(w)
	defer h.dropWatch(w)
	if stream.Retry(2*time.Second) != nil {
		return nil
	}
	w.mu.Lock()
	for _, sp := range specs {
		w.start(sp)
	}
	resume := w.resumeLocked()
	w.mu.Unlock()
	if stream.SendWatch(wire.WatchOpened{Stream: w.name, Resume: resume}) != nil {
		return nil
	}
	var batch []wire.WatchEvent
	for {
		select {
		case it := <-w.items:
			// Every item that is ready goes out under one write and flush,
			// as a share writes a follower's frames.
			batch = batch[:0]
			for more := true; more; {
				if frame, ok := w.accept(it); ok {
					batch = append(batch, viewEvent(frame))
				}
				select {
				case it = <-w.items:
				default:
					more = false
				}
			}
			if len(batch) > 0 && stream.Write(batch...) != nil {
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// viewEvent encodes a view frame as wire.NewWatchViewEvent does, without
// encoding/json: Data is the viewed route's event data, which its own
// encoder wrote and which Marshal would only validate and copy again, and
// the strings are a view name, an event name and a resume point, which
// need no escapes (the tests decode every frame with the generated
// decoder).
func viewEvent(f wire.WatchFrame) wire.WatchEvent {
	b := make([]byte, 0, len(f.Data)+len(f.Resume)+len(f.View)+len(f.Event)+64)
	b = append(b, `{"view":`...)
	b = strconv.AppendQuote(b, f.View)
	b = append(b, `,"event":`...)
	b = strconv.AppendQuote(b, f.Event)
	b = append(b, `,"data":`...)
	b = append(b, f.Data...)
	if f.Status != 0 {
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(f.Status), 10)
	}
	b = append(b, `,"resume":`...)
	b = strconv.AppendQuote(b, f.Resume)
	b = append(b, '}')
	return wire.WatchEvent{Event: httproute.NewEvent("view", f.Resume, b)}
}

// OpenView implements wire.Server: a view more on an open Watch stream of
// the caller's. Its first event, or its refusal, follows on the stream.
func (h *Handler) OpenView(ctx context.Context, req wire.OpenViewRequest) (wire.WatchViewResponse, error) {
	w, err := h.watchOf(ctx, req.Stream)
	if err != nil {
		return wire.WatchViewResponse{}, err
	}
	b := req.Body
	sp := watchSpec{name: b.View, route: b.Route, job: b.ID, from: b.From, hasFrom: b.From != 0}
	if !viewNameRE.MatchString(sp.name) {
		return wire.WatchViewResponse{}, httproute.Refusef(http.StatusBadRequest, "view %q: want a name of 1 to 32 letters, digits, _ or -", sp.name)
	}
	if (sp.route == wire.WatchRouteFollowJob) != (sp.job != jobs.JobID{}) || sp.route != wire.WatchRouteFollowJob && sp.hasFrom {
		return wire.WatchViewResponse{}, httproute.Refusef(http.StatusBadRequest, "view %q: a FollowJob view, and only one, names a job (id) and may start at an offset (from)", sp.name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.views[sp.name] != nil:
		return wire.WatchViewResponse{}, httproute.Refusef(http.StatusBadRequest, "view %q is open already: close it first", sp.name)
	case len(w.views) >= maxWatchViews:
		return wire.WatchViewResponse{}, httproute.Refusef(http.StatusBadRequest, "the stream holds %d views, as many as it may", maxWatchViews)
	}
	w.start(sp)
	return wire.WatchViewResponse{View: sp.name}, nil
}

// CloseView implements wire.Server: a view of an open Watch stream of the
// caller's closed. A closed frame, whose resume point leaves the view out,
// ends it on the stream.
func (h *Handler) CloseView(ctx context.Context, req wire.CloseViewRequest) (wire.WatchViewResponse, error) {
	w, err := h.watchOf(ctx, req.Stream)
	if err != nil {
		return wire.WatchViewResponse{}, err
	}
	w.mu.Lock()
	v := w.views[req.View]
	if v == nil || v.closing {
		w.mu.Unlock()
		return wire.WatchViewResponse{}, httproute.Refusef(http.StatusNotFound, "no such view")
	}
	v.closing = true
	v.cancel()
	w.mu.Unlock()
	w.running.Add(1)
	go func() {
		defer w.running.Done()
		w.send(w.ctx, watchItem{view: v, event: "closed", data: []byte("{}"), end: true})
	}()
	return wire.WatchViewResponse{View: req.View}, nil
}

// watchOf is the caller's open Watch stream of that name, or the 404 that
// says there is none, a stream of another session's alike.
func (h *Handler) watchOf(ctx context.Context, name string) (*watch, error) {
	session, err := sessionOf(ctx)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	w := h.watches[name]
	h.mu.Unlock()
	if w == nil || w.session != session {
		return nil, httproute.Refuse(http.StatusNotFound, "no such stream")
	}
	return w, nil
}

func (h *Handler) addWatch(w *watch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.watches == nil {
		h.watches = map[string]*watch{}
	}
	h.watches[w.name] = w
}

func (h *Handler) dropWatch(w *watch) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.watches, w.name)
}

// newStreamName is a Watch stream's name: 128 random bits, so that one
// session cannot guess another's (which is refused anyway).
func newStreamName() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// A watch is one open Watch stream: its views and the channel their
// events reach its writer by.
type watch struct {
	h       *Handler
	name    string
	session jobs.SessionID
	ctx     context.Context // ends with the stream
	items   chan watchItem
	running sync.WaitGroup // the views' goroutines

	mu    sync.Mutex
	views map[string]*watchView
}

// A watchView is one open view: what it carries and where it is, and how
// to stop it.
type watchView struct {
	spec    watchSpec
	cancel  context.CancelFunc
	closing bool // CloseView ended it; its closed frame is on its way
}

// A watchItem is one event of a view on its way to the writer: the viewed
// route's event name, id and data, or a refusal's status; end says the
// view is over after it.
type watchItem struct {
	view   *watchView
	event  string
	id     string
	data   []byte
	status int
	end    bool
}

// start opens the view sp under w.mu.
func (w *watch) start(sp watchSpec) {
	ctx, cancel := context.WithCancel(w.ctx)
	v := &watchView{spec: sp, cancel: cancel}
	w.views[sp.name] = v
	w.running.Add(1)
	go func() {
		defer w.running.Done()
		w.run(ctx, v)
	}()
}

// resumeLocked is the composite resume point of the open views, under w.mu.
func (w *watch) resumeLocked() string {
	specs := make([]watchSpec, 0, len(w.views))
	for _, v := range w.views {
		specs = append(specs, v.spec)
	}
	return resumeText(specs)
}

// accept takes one item into the stream: it moves the view's offset to
// the event's id, drops a view that ended, and answers the frame to write
// with the resume point after it; false for an item of a view that is no
// longer open (closed or reopened under its name meanwhile).
func (w *watch) accept(it watchItem) (wire.WatchFrame, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v := w.views[it.view.spec.name]
	if v != it.view || v.closing && !it.end {
		return wire.WatchFrame{}, false
	}
	if it.id != "" && v.spec.route == wire.WatchRouteFollowJob {
		if n, err := parseOffset(it.id); err == nil {
			v.spec.from, v.spec.hasFrom = n, true
		}
	}
	if it.end {
		delete(w.views, v.spec.name)
		v.cancel()
	}
	return wire.WatchFrame{View: v.spec.name, Event: it.event, Data: it.data, Status: it.status, Resume: w.resumeLocked()}, true
}

// send hands an item to the writer, or reports that the view or the stream
// ended first.
func (w *watch) send(ctx context.Context, it watchItem) error {
	select {
	case w.items <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// refused ends a view with its refusal, as the route it carries would
// have answered it.
func (w *watch) refused(ctx context.Context, v *watchView, err error) {
	status, msg := http.StatusInternalServerError, "the view failed"
	var r *httproute.Refusal
	if errors.As(err, &r) {
		status, msg = r.Status, r.Message
	}
	data, _ := json.Marshal(wire.ErrorBody{Error: msg})
	w.send(ctx, watchItem{view: v, event: "refused", data: data, status: status, end: true})
}

// run is one view: the route it carries, written to the stream's writer.
func (w *watch) run(ctx context.Context, v *watchView) {
	h := w.h
	switch v.spec.route {
	case wire.WatchRouteWatchJobs:
		w.onChange(ctx, v, 0, "roster", func() ([]byte, error) { return httproute.EncodeJSON(plain(h.reg.List(w.session))) })
	case wire.WatchRouteListHistory:
		if h.opts.History == nil {
			w.refused(ctx, v, httproute.Refuse(http.StatusNotFound, "no history is kept"))
			return
		}
		w.onChange(ctx, v, historyPoll, "answer", func() ([]byte, error) {
			list, err := h.ListHistory(ctx, wire.ListHistoryRequest{})
			if err != nil {
				return nil, err
			}
			return httproute.EncodeJSON(list)
		})
	case wire.WatchRouteWatchSubagents:
		if h.opts.Subagents == nil {
			w.refused(ctx, v, httproute.Refuse(http.StatusNotFound, "no subagents are served"))
			return
		}
		w.onChange(ctx, v, subagentPoll, "tree", func() ([]byte, error) {
			tree, err := h.opts.Subagents.Tree(ctx, w.session)
			if err != nil {
				return nil, err
			}
			return httproute.EncodeJSON(tree)
		})
	case wire.WatchRouteFollowJob:
		req := wire.FollowJobRequest{ID: v.spec.job}
		if v.spec.hasFrom {
			from := v.spec.from
			req.From = &from
		}
		session, snap, cursor, earliest, total, err := h.followable(ctx, req)
		if err != nil {
			w.refused(ctx, v, err)
			return
		}
		h.follow(ctx, session, snap, cursor, earliest, total, viewSink{w: w, v: v, ctx: ctx})
	}
}

// historyPoll is how often a ListHistory view reads the history again
// beside each lifecycle change: an interval's end is written to the
// journal after the change that settles it.
const historyPoll = time.Second

// onChange writes what read answers, named event, at once and again after
// each lifecycle change of the session's jobs (and each poll, when poll is
// set) when it is not what was written last.
func (w *watch) onChange(ctx context.Context, v *watchView, poll time.Duration, event string, read func() ([]byte, error)) {
	changed := make(chan struct{}, 1)
	changed <- struct{}{}
	unsubscribe := w.h.reg.OnJobsChanged(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	defer unsubscribe()
	var tick <-chan time.Time
	if poll > 0 {
		t := time.NewTicker(poll)
		defer t.Stop()
		tick = t.C
	}
	var last []byte
	for {
		select {
		case <-changed:
		case <-tick:
		case <-ctx.Done():
			return
		}
		data, err := read()
		if err != nil {
			if ctx.Err() == nil {
				w.refused(ctx, v, err)
			}
			return
		}
		if bytes.Equal(data, last) {
			continue
		}
		if w.send(ctx, watchItem{view: v, event: event, data: data}) != nil {
			return
		}
		last = data
	}
}

// A viewSink is a FollowJob view as a follower's sink: each frame the
// follower writes, read back into its name, id and data, goes to the
// stream's writer; the status frame ends the view.
type viewSink struct {
	w   *watch
	v   *watchView
	ctx context.Context
}

func (s viewSink) Write(events ...wire.FollowJobEvent) error {
	for _, ev := range events {
		name, id, data := parseEvent(ev.Bytes())
		if err := s.w.send(s.ctx, watchItem{view: s.v, event: name, id: id, data: data, end: name == "status"}); err != nil {
			return err
		}
	}
	return nil
}

// parseOffset reads a follow event's id, a byte offset.
func parseOffset(id string) (int64, error) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("jobhttp: %q is no byte offset", id)
	}
	return n, nil
}
