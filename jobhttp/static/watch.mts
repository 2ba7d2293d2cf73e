// The page's one streaming connection (decision 0198): every live view the
// page has open (the roster, the subagent tree, each open output pane) is a
// view of one Watch stream of the generated client, opened and closed by
// its control routes, so that a tab holds one connection however many
// panes it opens, and the browser's six connections per host serve six
// tabs. The stream's resume point names every view with its offset, so a
// reconnect resumes each pane where it was. A server that declines Watch
// (a fleet view) is read through the per-view routes instead.
import { WireError, type With } from "./runtime.mjs";
import { decodeFollowFrame, decodeJobSnapshot, type FollowFrame, type JobID, type JobSnapshot } from "./jobs.mjs";
import { decodeErrorBody, decodeFleetPlacement, decodeSubagentNode, type Client, type FleetPlacement, type SubagentNode, type WatchFrame, type WatchRoute } from "./wire.mjs";

/** A Roster is the roster as the Watch stream and WatchJobs carry it. */
export type Roster = With<JobSnapshot, FleetPlacement>[];

/**
 * ConnectionState is what the page says of its connection: connecting…,
 * live, reconnecting… (it dropped, the client is reconnecting), offline (the
 * server cannot be reached), or not connected: and the server's refusal.
 */
export type ConnectionState = "connecting…" | "live" | "reconnecting…" | "offline" | `not connected: ${string}`;

/** A View is one open view: what it carries and where its frames go. */
interface View {
  route: WatchRoute;
  id?: JobID;
  frame: (f: WatchFrame) => void;
}

/**
 * A Queue hands the frames of one view to the generator that reads them:
 * pushed by the stream's reader, taken in order, ended once.
 */
class Queue<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | null = null;
  private over = false;
  private error: unknown = undefined;

  push(v: T): void {
    this.items.push(v);
    this.wake?.();
  }

  end(error?: unknown): void {
    this.over = true;
    this.error = error;
    this.wake?.();
  }

  async *drain(signal: AbortSignal): AsyncGenerator<T, void, undefined> {
    const stop = (): void => this.end();
    signal.addEventListener("abort", stop);
    try {
      for (;;) {
        const v = this.items.shift();
        if (v !== undefined) {
          yield v;
          continue;
        }
        if (this.over) {
          if (this.error !== undefined) throw this.error;
          return;
        }
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = null;
      }
    } finally {
      signal.removeEventListener("abort", stop);
    }
  }
}

/**
 * A Watcher is a page's one Watch stream and the views on it. Each reader
 * (roster, subagents, follow) is an AsyncGenerator like the client's own
 * streams, so the page reads a view as it read a route.
 */
export class Watcher {
  private readonly client: Client;
  private readonly onState: (state: ConnectionState) => void;
  private readonly views = new Map<string, View>();
  private serial = 0;
  /** stream is the server's name of the connection; "" while there is none. */
  private stream = "";
  /** resume is the last resume point the server sent: each view's text. */
  private resume = new Map<string, string>();
  private mode: Promise<"watch" | "routes">;
  private setMode: (m: "watch" | "routes") => void = () => undefined;

  constructor(client: Client, onState: (state: ConnectionState) => void) {
    this.client = client;
    this.onState = onState;
    this.mode = new Promise((resolve) => (this.setMode = resolve));
    onState("connecting…");
    void this.run();
  }

  /** Multiplexed resolves to whether the server serves Watch: false for a fleet view, whose page reads each route. */
  async multiplexed(): Promise<boolean> {
    return (await this.mode) === "watch";
  }

  /** Roster yields the caller's roster at once and after each lifecycle change. */
  async *roster(signal: AbortSignal): AsyncGenerator<Roster, void, undefined> {
    if ((await this.mode) === "routes") {
      for await (const ev of this.client.watchJobs({ signal, onConnect: () => this.onState("live"), onDrop: () => this.onState("reconnecting…") })) yield ev.data;
      return;
    }
    yield* this.view({ route: "WatchJobs" }, signal, (data) => decodeRoster(data));
  }

  /** Subagents yields the subagent tree at once and each time it changes; a WireError of 404 when none is served. */
  async *subagents(signal: AbortSignal): AsyncGenerator<SubagentNode[], void, undefined> {
    if ((await this.mode) === "routes") {
      for await (const ev of this.client.watchSubagents({ signal })) yield ev.data;
      return;
    }
    yield* this.view({ route: "WatchSubagents" }, signal, (data) => decodeList(data, decodeSubagentNode));
  }

  /** Follow yields a recording job's frames until its status frame, resumed where it was after a drop. */
  async *follow(id: JobID, signal: AbortSignal): AsyncGenerator<FollowFrame, void, undefined> {
    if ((await this.mode) === "routes") {
      yield* this.client.followJob(id, { signal });
      return;
    }
    yield* this.view({ route: "FollowJob", id }, signal, (data) => decodeFollowFrame(data));
  }

  /** view opens a view and yields its decoded frames until it ends, is refused or the signal aborts it. */
  private async *view<T>(spec: { route: WatchRoute; id?: JobID }, signal: AbortSignal, decode: (data: unknown) => T): AsyncGenerator<T, void, undefined> {
    const name = `v${++this.serial}`;
    const q = new Queue<T>();
    const view: View = {
      ...spec,
      frame: (f) => {
        switch (f.event) {
          case "refused":
            q.end(new WireError(f.status ?? 500, decodeErrorBody(f.data).error, undefined));
            return;
          case "closed":
            q.end();
            return;
        }
        try {
          q.push(decode(f.data));
        } catch (err) {
          q.end(err);
          return;
        }
        if (f.event === "status") q.end();
      },
    };
    this.views.set(name, view);
    if (this.stream !== "") void this.open(this.stream, name, view);
    try {
      yield* q.drain(signal);
    } finally {
      this.views.delete(name);
      if (this.stream !== "" && this.resume.has(name)) this.client.closeView(this.stream, name).catch(() => undefined);
    }
  }

  /** open asks the server for a view on the stream; a stream that is gone meanwhile is synced again at its reconnect. */
  private async open(stream: string, name: string, v: View): Promise<void> {
    try {
      await this.client.openView(stream, v.id === undefined ? { view: name, route: v.route } : { view: name, route: v.route, id: v.id });
    } catch {
      // the stream dropped: its reconnect opens what the server lacks
    }
  }

  /**
   * sync makes the server's views of a (re)connected stream the page's:
   * those the page opened while it was down are opened, those it closed
   * meanwhile are closed.
   */
  private sync(resume: string): void {
    this.resume = parseResume(resume);
    for (const [name, v] of this.views) if (!this.resume.has(name)) void this.open(this.stream, name, v);
    for (const name of this.resume.keys()) if (!this.views.has(name)) this.client.closeView(this.stream, name).catch(() => undefined);
  }

  /**
   * run keeps the stream open: the client reconnects a dropped stream by
   * itself with the last resume point; a refusal (a 429 when the session is
   * at its cap) is retried after its Retry-After, from the last resume point
   * the page has.
   */
  private async run(): Promise<void> {
    let drops = 0;
    for (;;) {
      try {
        const views = [...this.views].map(([name, v]) => this.resume.get(name) ?? viewText(name, v)).join(";");
        for await (const ev of this.client.watch({
          views,
          onDrop: () => {
            this.stream = "";
            drops++;
            this.onState(drops > 1 ? "offline" : "reconnecting…");
          },
        })) {
          if (ev.event === "watch") {
            this.stream = ev.data.stream;
            drops = 0;
            this.setMode("watch");
            this.onState("live");
            this.sync(ev.data.resume);
            continue;
          }
          this.resume = parseResume(ev.data.resume);
          this.views.get(ev.data.view)?.frame(ev.data);
        }
        this.stream = "";
        this.onState("reconnecting…"); // the server said bye: it is going away
      } catch (err) {
        this.stream = "";
        if (err instanceof WireError && err.notServed === "Watch") {
          this.setMode("routes");
          return;
        }
        // A refusal says why (a 429 at the session's cap); anything else is
        // a server that cannot be reached.
        this.onState(err instanceof WireError ? `not connected: ${err.reason}` : "offline");
        const wait = err instanceof WireError && err.retryAfter !== undefined ? err.retryAfter : 2;
        await new Promise((resolve) => setTimeout(resolve, Math.min(60, Math.max(1, wait)) * 1000));
      }
    }
  }
}

/** viewText is a view as a resume point writes it, without an offset. */
function viewText(name: string, v: View): string {
  return v.id === undefined ? `${name}=${v.route}` : `${name}=${v.route}:${v.id}`;
}

/** parseResume reads a resume point: each view's text by its name. */
function parseResume(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text === "" ? [] : text.split(";")) out.set(part.slice(0, part.indexOf("=")), part);
  return out;
}

function decodeList<T>(json: unknown, decode: (json: unknown, path?: string) => T): T[] {
  if (!Array.isArray(json)) throw new TypeError("want an array");
  return json.map((e: unknown, i) => decode(e, `$[${i}]`));
}

function decodeRoster(json: unknown): Roster {
  return decodeList(json, (e, path) => ({ item: decodeJobSnapshot(e, path), with: decodeFleetPlacement(e, path) }));
}
