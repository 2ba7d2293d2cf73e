// Compiled by tools/ts/page.sh from jobhttp/static/client.mts with the pinned tsc. DO NOT EDIT.
import { type FollowFrame, type JobID, type JobSnapshot } from "./jobs.mjs";
import { type FleetHost, type FleetPlacement, type History, type InputResponse, type Interval, type KillResponse, type SubagentEvent, type SubagentNode } from "./wire.mjs";
/**
 * A WireError is a request the server refused: its HTTP status, the error
 * its body says (the server's ErrorBody) and, for a 429 or 503, how many
 * seconds Retry-After asks the client to wait.
 */
export declare class WireError extends Error {
    /** Status is the HTTP status: 404 for a job that is not the caller's, 429 for too many streams, ... */
    readonly status: number;
    /** Reason is what the server's body says, or the status text when it says nothing. */
    readonly reason: string;
    /** RetryAfter is the seconds the server asks to wait before trying again; undefined when it does not say. */
    readonly retryAfter: number | undefined;
    constructor(status: number, reason: string, retryAfter: number | undefined);
}
/** ClientOptions configure a Client. */
export interface ClientOptions {
    /**
     * Base is the handler's root, under which api/ lies: the page's own URL,
     * or where the runtime mounts the handler, such as http://host/jobs/.
     */
    base: string | URL;
    /** Headers are sent with every request: how the runtime tells who the caller is, when cookies do not. */
    headers?: Record<string, string>;
    /** Fetch is the fetch to use; the global one by default. */
    fetch?: typeof fetch;
    /**
     * ReconnectDelay is how long a stream waits, in milliseconds, before it
     * reconnects after its connection dropped, until the server says otherwise
     * (an SSE retry field). It is 1000 by default.
     */
    reconnectDelay?: number;
}
/** StreamOptions are what one stream of events is told. */
export interface StreamOptions {
    /** Signal ends the stream: its iteration returns, without an error. */
    signal?: AbortSignal;
    /** OnConnect is called each time the stream (re)connects. */
    onConnect?: () => void;
    /** OnDrop is called when the connection drops, before the stream reconnects. */
    onDrop?: (cause: unknown) => void;
}
/** FollowOptions are what a follow is told beside StreamOptions. */
export interface FollowOptions extends StreamOptions {
    /** From is the byte offset to start at; the earliest retained byte by default. */
    from?: number;
}
/**
 * A Placed is one job or interval of a fleet view (jobhttp.Fleet) with its
 * placement: which run of which host registered the job, and whether that
 * host is lost. The server sends both in one JSON object.
 */
export interface Placed<T> {
    item: T;
    placement: FleetPlacement;
}
/**
 * A Client talks to one jobhttp handler as one caller. Its streams reconnect
 * by themselves when a connection drops, as EventSource does, and a follow
 * resumes where it was (sending the last event id as Last-Event-ID), lossy
 * only when the server no longer holds those bytes; a refusal (a 4xx or 5xx
 * answer) ends a stream with a WireError instead.
 */
export declare class Client {
    private readonly api;
    private readonly headers;
    private readonly fetch;
    private readonly reconnectDelay;
    constructor(options: ClientOptions);
    /** Roster returns the caller's jobs, in registration order. */
    roster(signal?: AbortSignal): Promise<JobSnapshot[]>;
    /** Job returns one of the caller's jobs; a job that is not the caller's is a WireError of status 404. */
    job(id: JobID, signal?: AbortSignal): Promise<JobSnapshot>;
    /** History returns the caller's execution intervals, oldest first; a WireError of status 404 when the server keeps none. */
    history(signal?: AbortSignal): Promise<Interval[]>;
    /**
     * ArchivedHistory returns the caller's history as the journal holds it: the
     * execution intervals it serves live, oldest first, and the runs of the
     * session's stream that retention archived, each with the archive that
     * holds it; a WireError of status 404 when the server keeps none.
     */
    archivedHistory(signal?: AbortSignal): Promise<History>;
    /** Fleet returns the runs of the hosts of a fleet view; a WireError of status 404 from a handler that serves one host. */
    fleet(signal?: AbortSignal): Promise<FleetHost[]>;
    /** FleetHistory is History from a fleet view: each interval with its placement. */
    fleetHistory(signal?: AbortSignal): Promise<Placed<Interval>[]>;
    /** RawURL is where a recording job's retained record downloads from, as text/plain. */
    rawURL(id: JobID): URL;
    /** Subagents returns the continuable children under the caller's roots, parents first; a WireError of status 404 when the server serves none. */
    subagents(signal?: AbortSignal): Promise<SubagentNode[]>;
    /** SubagentHistory returns one child's history from its stream, oldest first; a child not under the caller's roots is a WireError of status 404. */
    subagentHistory(child: string, signal?: AbortSignal): Promise<SubagentEvent[]>;
    /** SubagentEvents yields the tree of continuable children at once and again each time it changes. */
    subagentEvents(options?: StreamOptions): AsyncGenerator<SubagentNode[], void, undefined>;
    /** Kill asks the job to stop, with a reason recorded beside the kill. */
    kill(id: JobID, reason?: string, signal?: AbortSignal): Promise<KillResponse>;
    /**
     * Input types text into a terminal job's terminal, as if typed: end a line
     * with "\n" to submit it. A job without a terminal, or one that has
     * settled, is a WireError of status 409.
     */
    input(id: JobID, text: string, signal?: AbortSignal): Promise<InputResponse>;
    /**
     * RosterEvents yields the caller's whole roster at once and again after
     * each lifecycle change (never per append), until the server closes the
     * stream or the signal ends it.
     */
    rosterEvents(options?: StreamOptions): AsyncGenerator<JobSnapshot[], void, undefined>;
    /** FleetRosterEvents is RosterEvents from a fleet view: each job with its placement. */
    fleetRosterEvents(options?: StreamOptions): AsyncGenerator<Placed<JobSnapshot>[], void, undefined>;
    /**
     * Follow yields a recording job's frames: opened, then output as it is
     * appended, then status, after which it returns. After a dropped
     * connection it reconnects and the server sends opened again, from the
     * offset the last output frame ended at. A job that is not the caller's is
     * a WireError of status 404, one that keeps no record of status 409.
     */
    follow(id: JobID, options?: FollowOptions): AsyncGenerator<FollowFrame, void, undefined>;
    /** json GETs a JSON document under api/. */
    private json;
    /**
     * events yields the events of the stream at path, reconnecting when its
     * connection drops (it ended, or failed, before finished said so, and
     * before a bye event), with the last event id as Last-Event-ID. The
     * server's bye ends it, so does the signal.
     */
    private events;
}
