/*
Package httproute is the runtime of the HTTP routes jobgen generates from a
spec's http section (spec/README.md, "Routes"; decision 0168), as package
codec is the runtime of its types: every generated routes file imports it,
and it knows no vocabulary.

A generated package with routes has Routes, its Table (each route's
method, path, parameters, body, answer and refusals, as data); Server, an
interface with one method per route; and NewHandler, which serves a Server
through a Handler of this package. The Handler answers every request, in
this order:

  - a path no route has is a 404, and a method none of the path's routes
    takes a 405 with Allow (GET answers HEAD too); a literal segment wins
    over a parameter, a parameter over a files route, which takes a path
    only where its directory has a file;
  - for a route that is not public, WithCaller decides who calls: its
    refusal, or a 401;
  - for a method other than GET: a route with a body wants Content-Type
    application/json (415), and WithCrossOrigin
    (http.CrossOriginProtection) must let the request through (403), so no
    cross-site form can reach a state change;
  - the generated code parses the path parameters (one that does not parse
    names nothing: 404) and the query parameters (400, and a parameter
    sent twice or a required one missing too), reads the body through the
    route's limit (413) and decodes it with the generated strict decoder
    (400);
  - then the route's method, whose error is its refusal (Refuse, with
    headers such as Retry-After), a decline (Decline: a 404 whose header
    Jobgen-Not-Served names the route), a Handoff to a handler of its own,
    or anything else, a logged 500.

Every refusal, the Handler's own as the method's, is the table's refusal
record as JSON (Table.Refusal), written by an encoding/json Encoder.

Numbers in paths, queries and headers are canonical decimal, as a server
writes them (ParseInt, ParseUint): no sign on a positive number, no leading
zero. A JSON answer is written with no-store and nosniff; a nil list is [].
A media answer carries its declared headers and a sandboxing content
security policy. A files answer serves a directory the method returns (its
index.html at the route's path), under a policy that allows only the
page's own origin and no framing.

# Streams

A stream route's events are Server-Sent Events, each encoded once (Event)
and written to any number of streams. The generated code names each event
(a union variant by its tag) and sets its id from the field the spec's
resume names; a client that reconnects sends the last id as Last-Event-ID,
which the Handler reads in place of the resume query parameter. A stream
starts with its first write, so that its method may still refuse or hand
off before. Events laid back to back in one array (AppendEvent) go out in
one write of the ResponseWriter, however many there are; over HTTP/1.1 a
stream's body is not chunked but runs to the connection's close (decision
0226), so that such a write is one write of the socket. Every write (a
batch of events is one) is bounded by the write timeout (WithWriteTimeout),
a keep-alive comment goes out at every keep-alive interval (WithKeepAlive)
from a timer, and a write that fails ends the method's context. Close ends every stream's context, writes each a final
"bye" event (data {}) once its method has returned, and waits for them.

# Clients

A generated package with routes also has Client (decision 0205), whose
methods take each route's request type and answer what its Server method
returns, over this package's Client: Do sends a request and turns a
refusal into a *WireError (the refusal record's message, Retry-After, and
the route a decline names, which errors.Is finds as ErrNotServed); Stream
reads a stream's events across its connections, resuming with
Last-Event-ID from the last id, after the server's retry or a backoff
(WithSleep sets how it waits), within a budget of reconnections in a row
without progress (decision 0204). Package routetest's Cover says which
routes a client's test reached (decision 0206).
*/
package httproute
