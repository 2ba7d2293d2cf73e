/*
Package jobhttp serves a job registry over HTTP: the roster of the caller's
session, a roster event stream, the follow stream of a recording job as
Server-Sent Events, its raw record, kill, the history of the session from a
journal, the continuable subagents under the session's roots, and a console
page that renders all of it.

The caller's session comes from a function the runtime supplies (New's
second argument); there is no default, and nothing trusts a header or a query
parameter on its own. Every route is fenced by that session exactly as the
registry fences reads: a job of another session and a job that does not exist
answer the same 404, so a remote client cannot probe for ids.

Before the session is asked, the request's Host header must be one of the
names the server answers for (WithHosts; by default the loopback names
localhost, 127.0.0.1 and [::1]); any other Host is a 403 for every route.
This is the defence against DNS rebinding: a page on attacker.example whose
name is re-pointed at this server is same-origin with it as far as the
browser knows, Origin and Sec-Fetch-Site included, but its requests still
say Host: attacker.example. A list replaces the default rather than adding to
it, so a deployment behind a proxy answers for localhost only if it says so.
The names are listed, not guessed from the listen address: a Handler may be
mounted behind any server or proxy, and the connection's local address says
nothing of the names clients use. An IP literal is refused unless listed, as
a name is, since a proxy forwarding Host: 127.0.0.1 would otherwise open a
deployment meant for its listed names; and there are no wildcard entries:
one entry per name is short, and a wildcard is easy to get wrong.

# Routes

The routes are spec/wire.yaml's: their table is generated, as wire.Routes
(whose doc lists each route's method, path and answer) and as the Markdown
reference's Routes section (docs/reference/wire.md), with each route's
parameters, body, events and refusals. Handler and Fleet implement
wire.Server, one method per route, and serve it through the adapter
generated from the same table (wire.NewHandler, on package httproute), so
the table, the servers and the clients cannot drift: a route the spec adds
does not compile until both serve it or decline it by name. Paths are under
the handler's root (mount it with http.StripPrefix to serve it below a
path); the page is the route Page, GET / and each file below it.

Watch (GET /api/watch) is one stream carrying every live view a client has
open: the roster, the subagent tree, the intervals and any number of
follows, each a view the client names, opened and closed by OpenView and
CloseView without another connection. Each view frame's id is the
composite resume point of every open view, NAME=ROUTE[:JOBID[@OFFSET]]
joined by ";", so one Last-Event-ID reopens each follow from its own
offset; the stream counts once against MaxStreamsPerSession whatever its
views (decision 0198). A Fleet declines the three routes by name.

Every refusal answers a wire.ErrorBody with its status: a route's own, and
the adapter's, for a path no route has (404), a method the path does not
take (405 with Allow), a path parameter that does not parse (404, the same
"no such job" as an unknown id), a malformed query parameter, Last-Event-ID
or body (400), a body over its limit (413). A route a server does not serve
is a 404 whose header Jobgen-Not-Served names it: the fleet declines the
subagent routes and the bulk stop, one host declines the fleet's hosts,
and a Handler without WithHistory or WithSubagents declines those.
The wire's own bodies are the vocabulary of spec/wire.yaml (generated/wire),
and its routes are the http section of that spec: the TypeScript client
the page uses (Client of @jobgen/jobgen/wire) is generated from them too.

# The console

The page is a log viewer and a console: terminal colours rendered as styled
text (never as markup: output cannot inject HTML), numbered and timestamped
lines of which only those in view are in the document, search, auto-scroll,
filters and counts, permalinks in the URL fragment, a kill that asks first,
a timeline with an axis, and the subagent tree; a bulk stop of selected
rows or of every running job the filters show (bulk.mts), the starts
waiting for a slot with their place in line (waiting.mts), each job's
labels, a History section that pages and filters the journal's intervals
(SearchHistory; every session's for a session WithOperator allows;
in a fleet, by host too, history.mts), and a job's page opened from its
timeline bar or history row with its facts in journal order, what a
command ran (procjob's job/command and job/exited facts) and a link to
the subagent whose session owns it (JobHistory, WithJobFacts,
jobpage.mts; a Fleet given WithJobFacts over the shared history serves any
host's job's page, fenced the same way). A Fleet marks the page it serves (data-view="fleet"), so
one host's page never asks api/fleet (decision 0235). jobgen
console serves the same page read-only over a journal, an archive or a
PostgreSQL history. Its TypeScript is compiled
into static/ (tools/ts/page.sh) and embedded: users need no build step.

# Subagents

WithSubagents serves a runtime's continuable children (package
subagent). NewJournalSubagents reads them from the journal the manager
writes, so settled children stay listed and a restart loses none; it folds
only what was appended since its last call. A session sees the children
whose lineage starts at it: a child of a child of its root is its, a child
under another session's root answers 404 like one that does not exist.

# Follow

Each follow event is one jobs.FollowFrame in its generated JSON, with the
event name set to its frame ("opened", "output", "status") and, for output
frames, the SSE id set to the frame's Next: the byte offset to resume from.
A client that reconnects sends it back as Last-Event-ID (browsers' EventSource
does this by itself) or as ?from=OFFSET; an offset that fell out of the
retained window resumes lossy (the first output frame says lossy). The stream
ends after the status frame. A negative, malformed or future offset is a 400.

Every follower of one job shares one read of it: the handler follows the
job in the registry once, encodes each frame once with the generated encoder,
and writes those same bytes to every follower at that frame's cursor, so the
producer sees one follower however many there are. A follower elsewhere (a
resume, or one that joined in the middle of a frame) reads the record itself
up to the next shared frame. A slow client never blocks the producer and
never grows the server's memory: the shared frames are bounded by the job's
record, and a client that falls behind the record's window resumes lossy.
A client that stops reading for the write timeout (WithWriteTimeout) is dropped.

# Kill

Kill is a POST whose Content-Type must be application/json. No HTML form and
no other "simple" cross-site request can send that, so a page on another site
cannot make a browser kill a job. What http.CrossOriginProtection refuses is
refused as well (403): a Sec-Fetch-Site other than same-origin or none, or,
without one, an Origin that names another host than the request's. Both
rest on the Host check above, and the adapter applies both to every route
whose method is not GET. Input to a terminal job is fenced the same way: it
types into a shell as its owner.

A bulk stop (KillJobs, POST /api/jobs/kill) is Registry.KillAll behind the
same guards: the jobs of a list of ids, or every live job of the caller a
match selects (kind, status, text), stopped with one reason, each job's
outcome answered in order. An id the caller may not see answers "no such
job" in its place, as one kill's 404 does; a body that names no jobs (no
ids, an empty match without all) is a 400, so an empty request stops
nothing.

# History a newer build wrote

Hosts of two builds share one history during a rolling upgrade, and every
reader of it here follows one rule (decision 0174): what this build does
not know is kept, counted and read around, never dropped in silence.
StoreHistory and a Fleet read job facts with jobs.ReadFact: a registration
or settlement a newer build wrote (a version, or a settlement cause, this
build does not know) shows its job with every field this build can read
(jobhistory.Readable), the interval marked partial; a Fleet counts each such
fact, and each fact of a type no vocabulary of this build knows, in
Fleet.Unknown, and logs the first of each kind. Facts of other vocabularies
are skipped.

# Limits and shutdown

A session may hold at most 8 event streams at once (WithMaxStreamsPerSession;
roster and follow together); one more is a 429 with Retry-After and a body
that says which limit it hit and what to do, and the page shows that and
retries. Close ends every open stream cleanly (a final "bye" event, which
the adapter writes once the stream's method has returned) and waits for
their handlers to return; it is a disposer for launcher.Run, to run before
the registry and the journal close.

The http.Server in front of a Handler should set ReadHeaderTimeout (a few
seconds: clients that trickle headers), IdleTimeout (tens of seconds: idle
keep-alive connections otherwise hold a descriptor and buffers for good),
ReadTimeout and WriteTimeout (bounds on plain requests and responses).
None of them cuts an event stream in use: a stream sets its own write
deadline before each write, replacing WriteTimeout for it, and writes a
keep-alive comment every 15 s (WithKeepAlive), so a client that stops reading
or vanishes loses its stream after the write timeout and frees its slot.
Over HTTP/1.1 a stream's body runs to its connection's close (decision
0226), so a connection that carried a stream carries nothing after it.
examples/jobsweb shows the values.
*/
package jobhttp
