// The typed client of jobhttp's wire: the roster (as JSON and as a stream),
// one job, the follow stream with resume, kill, input to a terminal job and
// history, with what of it was archived. It reads every
// body with the package's generated decoders, so it refuses what the Go
// side refuses, and it reads event streams over fetch, so it runs alike in
// browsers and in Node 20, which has no EventSource. It is the package's
// module @jobgen/jobgen/client, and the live page's.
import { decodeFollowFrame, decodeJobSnapshot, type FollowFrame, type JobID, type JobSnapshot } from "./jobs.mjs";
import { decodeErrorBody, decodeFleetHost, decodeFleetPlacement, decodeHistory, decodeInputResponse, decodeInterval, decodeKillResponse, decodeSubagentEvent, decodeSubagentNode, encodeInputRequest, encodeKillRequest, type FleetHost, type FleetPlacement, type History, type InputResponse, type Interval, type KillResponse, type SubagentEvent, type SubagentNode } from "./wire.mjs";
import { DecodeError } from "./runtime.mjs";

/**
 * A WireError is a request the server refused: its HTTP status, the error
 * its body says (the server's ErrorBody) and, for a 429 or 503, how many
 * seconds Retry-After asks the client to wait.
 */
export class WireError extends Error {
  /** Status is the HTTP status: 404 for a job that is not the caller's, 429 for too many streams, ... */
  readonly status: number;
  /** Reason is what the server's body says, or the status text when it says nothing. */
  readonly reason: string;
  /** RetryAfter is the seconds the server asks to wait before trying again; undefined when it does not say. */
  readonly retryAfter: number | undefined;

  constructor(status: number, reason: string, retryAfter: number | undefined) {
    super(`jobhttp: ${status}: ${reason}`);
    this.name = "WireError";
    this.status = status;
    this.reason = reason;
    this.retryAfter = retryAfter;
  }
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

/** A ServerEvent is one event of a stream, as Server-Sent Events frame it. */
interface ServerEvent {
  name: string;
  data: string;
}

/**
 * A Client talks to one jobhttp handler as one caller. Its streams reconnect
 * by themselves when a connection drops, as EventSource does, and a follow
 * resumes where it was (sending the last event id as Last-Event-ID), lossy
 * only when the server no longer holds those bytes; a refusal (a 4xx or 5xx
 * answer) ends a stream with a WireError instead.
 */
export class Client {
  private readonly api: URL;
  private readonly headers: Record<string, string>;
  private readonly fetch: typeof fetch;
  private readonly reconnectDelay: number;

  constructor(options: ClientOptions) {
    this.api = new URL("api/", options.base);
    this.headers = { ...options.headers };
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.reconnectDelay = options.reconnectDelay ?? 1000;
  }

  /** Roster returns the caller's jobs, in registration order. */
  async roster(signal?: AbortSignal): Promise<JobSnapshot[]> {
    return decodeList(await this.json("jobs", signal), decodeJobSnapshot);
  }

  /** Job returns one of the caller's jobs; a job that is not the caller's is a WireError of status 404. */
  async job(id: JobID, signal?: AbortSignal): Promise<JobSnapshot> {
    return decodeJobSnapshot(await this.json(`jobs/${encodeURIComponent(id)}`, signal));
  }

  /** History returns the caller's execution intervals, oldest first; a WireError of status 404 when the server keeps none. */
  async history(signal?: AbortSignal): Promise<Interval[]> {
    return decodeList(await this.json("history", signal), decodeInterval);
  }

  /**
   * ArchivedHistory returns the caller's history as the journal holds it: the
   * execution intervals it serves live, oldest first, and the runs of the
   * session's stream that retention archived, each with the archive that
   * holds it; a WireError of status 404 when the server keeps none.
   */
  async archivedHistory(signal?: AbortSignal): Promise<History> {
    return decodeHistory(await this.json("history/archived", signal));
  }

  /** Fleet returns the runs of the hosts of a fleet view; a WireError of status 404 from a handler that serves one host. */
  async fleet(signal?: AbortSignal): Promise<FleetHost[]> {
    return decodeList(await this.json("fleet", signal), decodeFleetHost);
  }

  /** FleetHistory is History from a fleet view: each interval with its placement. */
  async fleetHistory(signal?: AbortSignal): Promise<Placed<Interval>[]> {
    return decodePlaced(await this.json("history", signal), decodeInterval);
  }

  /** RawURL is where a recording job's retained record downloads from, as text/plain. */
  rawURL(id: JobID): URL {
    return new URL(`jobs/${encodeURIComponent(id)}/raw`, this.api);
  }

  /** Subagents returns the continuable children under the caller's roots, parents first; a WireError of status 404 when the server serves none. */
  async subagents(signal?: AbortSignal): Promise<SubagentNode[]> {
    return decodeList(await this.json("subagents", signal), decodeSubagentNode);
  }

  /** SubagentHistory returns one child's history from its stream, oldest first; a child not under the caller's roots is a WireError of status 404. */
  async subagentHistory(child: string, signal?: AbortSignal): Promise<SubagentEvent[]> {
    return decodeList(await this.json(`subagents/${encodeURIComponent(child)}/history`, signal), decodeSubagentEvent);
  }

  /** SubagentEvents yields the tree of continuable children at once and again each time it changes. */
  async *subagentEvents(options: StreamOptions = {}): AsyncGenerator<SubagentNode[], void, undefined> {
    for await (const ev of this.events("subagents/events", options, () => false)) {
      if (ev.name === "tree") yield decodeList(JSON.parse(ev.data), decodeSubagentNode);
    }
  }

  /** Kill asks the job to stop, with a reason recorded beside the kill. */
  async kill(id: JobID, reason?: string, signal?: AbortSignal): Promise<KillResponse> {
    const init: RequestInit = {
      method: "POST",
      headers: { ...this.headers, "Content-Type": "application/json" },
      body: JSON.stringify(encodeKillRequest(reason === undefined ? {} : { reason })),
    };
    if (signal !== undefined) init.signal = signal;
    const res = await this.fetch(new URL(`jobs/${encodeURIComponent(id)}/kill`, this.api), init);
    return decodeKillResponse(await body(res));
  }

  /**
   * Input types text into a terminal job's terminal, as if typed: end a line
   * with "\n" to submit it. A job without a terminal, or one that has
   * settled, is a WireError of status 409.
   */
  async input(id: JobID, text: string, signal?: AbortSignal): Promise<InputResponse> {
    const init: RequestInit = {
      method: "POST",
      headers: { ...this.headers, "Content-Type": "application/json" },
      body: JSON.stringify(encodeInputRequest({ text })),
    };
    if (signal !== undefined) init.signal = signal;
    const res = await this.fetch(new URL(`jobs/${encodeURIComponent(id)}/input`, this.api), init);
    return decodeInputResponse(await body(res));
  }

  /**
   * RosterEvents yields the caller's whole roster at once and again after
   * each lifecycle change (never per append), until the server closes the
   * stream or the signal ends it.
   */
  async *rosterEvents(options: StreamOptions = {}): AsyncGenerator<JobSnapshot[], void, undefined> {
    for await (const ev of this.events("jobs/events", options, () => false)) {
      if (ev.name === "roster") yield decodeList(JSON.parse(ev.data), decodeJobSnapshot);
    }
  }

  /** FleetRosterEvents is RosterEvents from a fleet view: each job with its placement. */
  async *fleetRosterEvents(options: StreamOptions = {}): AsyncGenerator<Placed<JobSnapshot>[], void, undefined> {
    for await (const ev of this.events("jobs/events", options, () => false)) {
      if (ev.name === "roster") yield decodePlaced(JSON.parse(ev.data), decodeJobSnapshot);
    }
  }

  /**
   * Follow yields a recording job's frames: opened, then output as it is
   * appended, then status, after which it returns. After a dropped
   * connection it reconnects and the server sends opened again, from the
   * offset the last output frame ended at. A job that is not the caller's is
   * a WireError of status 404, one that keeps no record of status 409.
   */
  async *follow(id: JobID, options: FollowOptions = {}): AsyncGenerator<FollowFrame, void, undefined> {
    const path = `jobs/${encodeURIComponent(id)}/follow` + (options.from === undefined ? "" : `?from=${options.from}`);
    let done = false;
    for await (const ev of this.events(path, options, () => done)) {
      if (ev.name !== "opened" && ev.name !== "output" && ev.name !== "status") continue;
      const frame = decodeFollowFrame(JSON.parse(ev.data));
      done = frame.frame === "status";
      yield frame;
      if (done) return;
    }
  }

  /** json GETs a JSON document under api/. */
  private async json(path: string, signal: AbortSignal | undefined): Promise<unknown> {
    const init: RequestInit = { headers: this.headers };
    if (signal !== undefined) init.signal = signal;
    return body(await this.fetch(new URL(path, this.api), init));
  }

  /**
   * events yields the events of the stream at path, reconnecting when its
   * connection drops (it ended, or failed, before finished said so, and
   * before a bye event), with the last event id as Last-Event-ID. The
   * server's bye ends it, so does the signal.
   */
  private async *events(path: string, options: StreamOptions, finished: () => boolean): AsyncGenerator<ServerEvent, void, undefined> {
    const { signal } = options;
    const stream = { lastId: "", delay: this.reconnectDelay };
    for (;;) {
      const headers: Record<string, string> = { ...this.headers, Accept: "text/event-stream" };
      if (stream.lastId !== "") headers["Last-Event-ID"] = stream.lastId;
      const init: RequestInit = { headers, cache: "no-store" };
      if (signal !== undefined) init.signal = signal;
      let res: Response;
      try {
        res = await this.fetch(new URL(path, this.api), init);
      } catch (err) {
        if (signal?.aborted) return;
        options.onDrop?.(err);
        await sleep(stream.delay, signal);
        continue;
      }
      if (!res.ok || res.body === null) await body(res); // throws the refusal
      const type = res.headers.get("Content-Type") ?? "";
      if (!type.startsWith("text/event-stream")) {
        // As EventSource fails such a connection: no retry would change it.
        await res.body?.cancel();
        throw new WireError(res.status, `not an event stream but ${type === "" ? "no content type" : type}`, undefined);
      }
      options.onConnect?.();
      try {
        for await (const ev of readEvents(res.body as ReadableStream<Uint8Array>, stream)) {
          if (ev.name === "bye") return;
          yield ev;
          if (finished()) return;
        }
        options.onDrop?.(new Error("the stream ended"));
      } catch (err) {
        if (signal?.aborted) return;
        options.onDrop?.(err);
      }
      if (finished()) return;
      await sleep(stream.delay, signal);
      if (signal?.aborted) return;
    }
  }
}

/** decodeList decodes a JSON array with a decoder for its elements. */
function decodeList<T>(json: unknown, decode: (json: unknown, path?: string) => T): T[] {
  if (!Array.isArray(json)) throw new DecodeError("wrongType", "$", "want an array, got " + (json === null ? "null" : typeof json));
  return json.map((e: unknown, i) => decode(e, `$[${i}]`));
}

/** decodePlaced decodes a fleet view's JSON array: each element once as the item, once as its placement. */
function decodePlaced<T>(json: unknown, decode: (json: unknown, path?: string) => T): Placed<T>[] {
  return decodeList(json, (e, path) => ({ item: decode(e, path), placement: decodeFleetPlacement(e, path) }));
}

/** body reads a response: its JSON when it is a success, else a WireError thrown. */
async function body(res: Response): Promise<unknown> {
  const text = await res.text();
  if (res.ok) return JSON.parse(text);
  let reason = res.statusText;
  try {
    reason = decodeErrorBody(JSON.parse(text)).error;
  } catch {
    // not an ErrorBody: the status text says what there is to say
  }
  const retry = res.headers.get("Retry-After");
  throw new WireError(res.status, reason, retry === null || !/^\d{1,9}$/.test(retry) ? undefined : Number(retry));
}

/**
 * readEvents yields the events of an event stream as the Server-Sent Events
 * standard parses them: lines ended by CR, LF or CRLF, fields data, event,
 * id and retry (the last two kept in stream), comments skipped, an event
 * dispatched at a blank line when it has data. A retry is 1 to 9 ASCII
 * digits, an id printable ASCII, or they are ignored, as the Python client
 * does (spec/testdata/client-hostile.json).
 */
async function* readEvents(body: ReadableStream<Uint8Array>, stream: { lastId: string; delay: number }): AsyncGenerator<ServerEvent, void, undefined> {
  const reader = body.getReader();
  const text = new TextDecoder();
  let buf = "";
  let name = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += text.decode(value, { stream: true });
      for (let end = buf.search(/[\r\n]/); end >= 0; end = buf.search(/[\r\n]/)) {
        if (buf[end] === "\r" && end === buf.length - 1) break; // a CR that may begin a CRLF
        const line = buf.slice(0, end);
        buf = buf.slice(buf[end] === "\r" && buf[end + 1] === "\n" ? end + 2 : end + 1);
        if (line === "") {
          if (data.length > 0) yield { name: name === "" ? "message" : name, data: data.join("\n") };
          name = "";
          data = [];
          continue;
        }
        const colon = line.indexOf(":");
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        switch (field) {
          case "event":
            name = value;
            break;
          case "data":
            data.push(value);
            break;
          case "id":
            // Sent back as Last-Event-ID: only an id a header carries as it came.
            if (/^[\x20-\x7e]*$/.test(value)) stream.lastId = value;
            break;
          case "retry":
            if (/^\d{1,9}$/.test(value)) stream.delay = Number(value);
            break;
        }
      }
    }
  } finally {
    // Cancelling the reader cancels the response body, so a consumer that
    // stops early closes the connection.
    reader.cancel().catch(() => undefined);
  }
}

/** sleep waits ms milliseconds, or until the signal ends it. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done);
  });
}
