// Compiled by tools/ts/page.sh from jobhttp/static/watch.mts with the pinned tsc. DO NOT EDIT.
import { type With } from "./runtime.mjs";
import { type FollowFrame, type JobID, type JobSnapshot } from "./jobs.mjs";
import { type Client, type FleetPlacement, type SubagentNode } from "./wire.mjs";
/** A Roster is the roster as the Watch stream and WatchJobs carry it. */
export type Roster = With<JobSnapshot, FleetPlacement>[];
/**
 * ConnectionState is what the page says of its connection: connecting…,
 * live, reconnecting… (it dropped, the client is reconnecting), offline (the
 * server cannot be reached), or not connected: and the server's refusal.
 */
export type ConnectionState = "connecting…" | "live" | "reconnecting…" | "offline" | `not connected: ${string}`;
/**
 * A Watcher is a page's one Watch stream and the views on it. Each reader
 * (roster, subagents, follow) is an AsyncGenerator like the client's own
 * streams, so the page reads a view as it read a route.
 */
export declare class Watcher {
    private readonly client;
    private readonly onState;
    private readonly views;
    private serial;
    /** stream is the server's name of the connection; "" while there is none. */
    private stream;
    /** resume is the last resume point the server sent: each view's text. */
    private resume;
    private mode;
    private setMode;
    constructor(client: Client, onState: (state: ConnectionState) => void);
    /** Multiplexed resolves to whether the server serves Watch: false for a fleet view, whose page reads each route. */
    multiplexed(): Promise<boolean>;
    /** Roster yields the caller's roster at once and after each lifecycle change. */
    roster(signal: AbortSignal): AsyncGenerator<Roster, void, undefined>;
    /** Subagents yields the subagent tree at once and each time it changes; a WireError of 404 when none is served. */
    subagents(signal: AbortSignal): AsyncGenerator<SubagentNode[], void, undefined>;
    /** Follow yields a recording job's frames until its status frame, resumed where it was after a drop. */
    follow(id: JobID, signal: AbortSignal): AsyncGenerator<FollowFrame, void, undefined>;
    /** view opens a view and yields its decoded frames until it ends, is refused or the signal aborts it. */
    private view;
    /** open asks the server for a view on the stream; a stream that is gone meanwhile is synced again at its reconnect. */
    private open;
    /**
     * sync makes the server's views of a (re)connected stream the page's:
     * those the page opened while it was down are opened, those it closed
     * meanwhile are closed.
     */
    private sync;
    /**
     * run keeps the stream open: the client reconnects a dropped stream by
     * itself with the last resume point; a refusal (a 429 when the session is
     * at its cap) is retried after its Retry-After, from the last resume point
     * the page has.
     */
    private run;
}
