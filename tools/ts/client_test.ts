// The Node side of jobhttp's client test (jobhttp/client_node_test.go): it
// drives the client jobgen generates from spec/wire.yaml's routes (Client of
// @jobgen/jobgen/wire), every route of it, against a real
// jobhttp handler, whose URL is its first argument. The Go test serves, under
// test/, what the script asks of the server: start, append to and finish a
// job, drop every follow connection. It prints "ok - NAME" or
// "not ok - NAME: WHY" per case and exits 1 when any failed.
import { Client } from "@jobgen/jobgen/wire";
import { decodeFollowFrame, type FollowFrame, type JobID, type JobSnapshot, type SessionID } from "@jobgen/jobgen/jobs";
import { DecodeError, WireError } from "@jobgen/jobgen/runtime";
import { readFileSync } from "node:fs";

const base = process.argv[2] ?? "";

/**
 * hostile is spec/testdata/client-hostile.json, whose path is the second
 * argument: the input the Python client's tests read alike.
 */
const hostile = JSON.parse(readFileSync(process.argv[3] ?? "", "utf8")) as {
  events: { why: string; lines: string[]; lastEventId: string | null; retryMs: number | null }[];
  retryAfter: { why: string; header: string; seconds: number | null }[];
};

/** latin1 is text as fetch reads a header sent as its UTF-8 bytes. */
function latin1(text: string): string {
  return Array.from(new TextEncoder().encode(text), (b) => String.fromCharCode(b)).join("");
}

/**
 * reconnect serves one connection of lines to a follow, then refuses the
 * next, and returns the Last-Event-ID the follow sent again and the delay
 * it slept before (the timers it set, called at once).
 */
async function reconnect(lines: string[]): Promise<{ lastEventId: string | null; delays: number[] }> {
  const sent: Headers[] = [];
  const fake: typeof fetch = async (_input, init) => {
    sent.push(new Headers(init?.headers));
    if (sent.length === 1) return new Response(lines.join("\n") + "\n\n", { headers: { "Content-Type": "text/event-stream" } });
    return new Response(JSON.stringify({ error: "no such job" }), { status: 404 });
  };
  // The first timer set after the drop is the follow's sleep: it fires at once.
  const delays: number[] = [];
  const real = globalThis.setTimeout;
  let dropped = false;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    if (!dropped || delays.length > 0) return real(fn, ms);
    delays.push(ms ?? 0);
    return real(fn, 0);
  }) as typeof setTimeout;
  try {
    const c = new Client({ base: "http://127.0.0.1:1/", fetch: fake, reconnectDelay: 1234 });
    await refusal(async () => {
      for await (const _ of c.followJob("6ba7b810-9dad-11d1-80b4-00c04fd430c8" as JobID, { onDrop: () => (dropped = true) })) {
        // the stream carries no frame
      }
    });
  } finally {
    globalThis.setTimeout = real;
  }
  return { lastEventId: sent[1]?.get("Last-Event-ID") ?? null, delays };
}

function client(session: string, headers: Record<string, string> = {}): Client {
  return new Client({ base, headers: { "X-Test-Session": session, ...headers }, reconnectDelay: 20 });
}

/** control asks the Go test to act on the server and returns its JSON answer. */
async function control(action: string, params: Record<string, string>): Promise<unknown> {
  const res = await fetch(new URL(`test/${action}?` + new URLSearchParams(params).toString(), base), { method: "POST" });
  if (!res.ok) throw new Error(`test/${action}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function start(session: string, label: string, record = true): Promise<JobSnapshot> {
  return (await control("start", { session, label, record: String(record) })) as JobSnapshot;
}

async function append(id: JobID, text: string): Promise<void> {
  await control("append", { job: id, text });
}

async function finish(id: JobID): Promise<void> {
  await control("finish", { job: id });
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(what);
}

/** refusal runs fn and returns the WireError it throws. */
async function refusal(fn: () => Promise<unknown>): Promise<WireError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof WireError) return err;
    throw err;
  }
  throw new Error("no WireError was thrown");
}

/** text is the output of the frames, in order. */
function text(frames: FollowFrame[]): string {
  return frames.map((f) => (f.frame === "output" ? f.chunks.map((c) => c.text).join("") : "")).join("");
}

const cases: [string, () => Promise<void>][] = [
  ["the roster and one job are the caller's alone", async () => {
    const a = await start("alice", "one");
    const b = await start("alice", "two");
    const theirs = await start("bob", "theirs");
    const roster = await (await client("alice").listJobs()).map((p) => p.item);
    check(roster.map((j) => j.id).join() === [a.id, b.id].join(), `roster ${JSON.stringify(roster)}`);
    check((await client("alice").getJob(a.id)).item.label === "one", "job(a)");
    const foreign = await refusal(() => client("alice").getJob(theirs.id));
    check(foreign.status === 404 && foreign.reason === "no such job", `foreign job: ${foreign.message}`);
    const unknown = await refusal(() => client("alice").getJob("6ba7b810-9dad-11d1-80b4-00c04fd430c8" as JobID));
    check(unknown.status === 404 && unknown.reason === foreign.reason, "an unknown job answers as a foreign one does");
    const none = await refusal(() => client("").listJobs());
    check(none.status === 401, `no session: ${none.message}`);
  }],
  ["a follow yields opened, output as it comes and status, then ends", async () => {
    const job = await start("alice", "follow");
    await append(job.id, "a");
    const frames: FollowFrame[] = [];
    for await (const frame of client("alice").followJob(job.id)) {
      frames.push(frame);
      if (frame.frame === "output" && text(frames) === "a") await append(job.id, "b");
      if (frame.frame === "output" && text(frames) === "ab") await finish(job.id);
    }
    check(frames[0]?.frame === "opened" && frames.at(-1)?.frame === "status", `frames ${frames.map((f) => f.frame).join()}`);
    check(text(frames) === "ab", `output ${JSON.stringify(text(frames))}`);
  }],
  ["a follow resumes after a dropped connection, without loss or repeat", async () => {
    const job = await start("alice", "drop");
    await append(job.id, "one\n");
    let connects = 0;
    let drops = 0;
    const frames: FollowFrame[] = [];
    const follow = client("alice").followJob(job.id, { onConnect: () => connects++, onDrop: () => drops++ });
    for await (const frame of follow) {
      frames.push(frame);
      if (text(frames) === "one\n" && drops === 0) {
        await control("drop", {});
        await append(job.id, "two\n");
      }
      if (text(frames) === "one\ntwo\n" && frame.frame === "output") await finish(job.id);
    }
    check(text(frames) === "one\ntwo\n", `output ${JSON.stringify(text(frames))}`);
    check(drops >= 1 && connects === drops + 1, `connects ${connects}, drops ${drops}`);
    const reopened = frames.filter((f) => f.frame === "opened");
    check(reopened.length === connects && reopened[1]?.frame === "opened" && reopened[1].from === 4, `opened frames ${JSON.stringify(reopened.map((f) => f.frame === "opened" && f.from))}`);
    check(!frames.some((f) => f.frame === "output" && f.lossy === true), "the resume was lossy");
  }],
  ["a follow from an offset starts there", async () => {
    const job = await start("alice", "offset");
    await append(job.id, "0123456789");
    const frames: FollowFrame[] = [];
    for await (const frame of client("alice").followJob(job.id, { from: 6 })) {
      frames.push(frame);
      if (frame.frame === "output") await finish(job.id);
    }
    check(text(frames) === "6789", `output ${JSON.stringify(text(frames))}`);
  }],
  ["a follow of a plain job is a 409, of another's a 404", async () => {
    const plain = await start("alice", "plain", false);
    const conflict = await refusal(async () => {
      for await (const _ of client("alice").followJob(plain.id)) void _;
    });
    check(conflict.status === 409, `plain: ${conflict.message}`);
    const theirs = await start("bob", "theirs");
    const notFound = await refusal(async () => {
      for await (const _ of client("alice").followJob(theirs.id)) void _;
    });
    check(notFound.status === 404, `foreign: ${notFound.message}`);
  }],
  ["roster events yield the roster, again after a change, until aborted", async () => {
    const abort = new AbortController();
    const seen: number[] = [];
    let added: JobSnapshot | undefined;
    for await (const ev of client("dave").watchJobs({ signal: abort.signal })) {
      const roster = ev.data.map((p) => p.item);
      seen.push(roster.length);
      if (seen.length === 1) added = await start("dave", "new");
      if (roster.some((j) => j.id === added?.id)) abort.abort();
    }
    check(seen[0] === 0 && seen.at(-1) === 1, `roster sizes ${seen.join()}`);
  }],
  ["kill asks a job to stop; a finished one was already finished; another's is a 404", async () => {
    const job = await start("erin", "victim");
    const res = await client("erin").killJob(job.id, { reason: "from the client test" });
    check(res.result === "requested" && res.job.id === job.id && res.job.status !== "running", `kill: ${JSON.stringify(res)}`);
    const again = await client("erin").killJob(job.id);
    check(again.result === "alreadyFinished", `second kill: ${again.result}`);
    const theirs = await start("bob", "theirs");
    check((await refusal(() => client("erin").killJob(theirs.id))).status === 404, "kill of another's job");
  }],
  ["a kill from another origin is a 403", async () => {
    const job = await start("erin", "guarded");
    const forbidden = await refusal(() => client("erin", { Origin: "http://evil.example" }).killJob(job.id));
    check(forbidden.status === 403, `cross-origin kill: ${forbidden.message}`);
    check((await client("erin").getJob(job.id)).item.status === "running", "the job was killed anyway");
  }],
  ["a stream past the session's cap is a 429 that says when to retry", async () => {
    const abort = new AbortController();
    const held: Promise<unknown>[] = [];
    for (let i = 0; i < 2; i++) {
      const opened = new Promise<void>((resolve) => {
        held.push((async () => {
          for await (const _ of client("frank").watchJobs({ signal: abort.signal, onConnect: resolve })) void _;
        })());
      });
      await opened;
    }
    const tooMany = await refusal(async () => {
      for await (const _ of client("frank").watchJobs()) void _;
    });
    abort.abort();
    await Promise.all(held);
    check(tooMany.status === 429, `third stream: ${tooMany.message}`);
    check(tooMany.retryAfter === 5 && tooMany.reason.includes("MaxStreamsPerSession"), `Retry-After ${tooMany.retryAfter}, reason ${tooMany.reason}`);
  }],
  ["history is the session's intervals", async () => {
    const job = await start("gina", "history");
    await finish(job.id);
    await control("wait", { job: job.id });
    const intervals = (await client("gina").listHistory()).map((p) => p.item);
    check(intervals.length === 1 && intervals[0]?.jobId === job.id && intervals[0].complete && intervals[0].status === "completed", `intervals ${JSON.stringify(intervals)}`);
  }],
  ["input, the record, the archived history, the subagents, the fleet and the page answer as the handler serves them", async () => {
    const job = await start("hana", "raw");
    await append(job.id, "line one\n");
    const raw = await client("hana").downloadRecord(job.id);
    check(raw.text === "line one\n" && raw.xRecordEarliest === 0 && raw.xRecordNext === 9 && raw.contentDisposition.startsWith("attachment"), `raw ${JSON.stringify(raw)}`);
    const href = client("hana").downloadRecordURL(job.id).href;
    check(href === new URL(`api/jobs/${job.id}/raw`, base).href, `raw URL ${href}`);
    const noTerminal = await refusal(() => client("hana").sendInput(job.id, { text: "y\n" }));
    check(noTerminal.status === 409, `input to a job without a terminal: ${noTerminal.message}`);
    const empty = await refusal(() => client("hana").sendInput(job.id, { text: "" }));
    check(empty.status === 400, `empty input: ${empty.message}`);
    await finish(job.id);
    await control("wait", { job: job.id });
    const history = await client("hana").archivedHistory();
    check(history.intervals.some((i) => i.jobId === job.id) && history.archived.length === 0, `archived history ${JSON.stringify(history)}`);
    // This handler has no Subagents: each of their routes is a 404.
    check((await refusal(() => client("hana").listSubagents())).status === 404, "subagents without Subagents");
    check((await refusal(() => client("hana").subagentHistory(job.id as unknown as SessionID))).status === 404, "a subagent's history without Subagents");
    const tree = await refusal(async () => {
      for await (const _ of client("hana").watchSubagents()) void _;
    });
    check(tree.status === 404, `subagent events without Subagents: ${tree.message}`);
    // One host's handler declines the fleet's own route by name.
    const fleet = await refusal(() => client("hana").listFleetHosts());
    check(fleet.status === 404 && fleet.notServed === "ListFleetHosts", `fleet: ${fleet.message}, not served ${String(fleet.notServed)}`);
    const page = await fetch(client("hana").page("index.html"));
    check(page.ok && (await page.text()).includes("<html"), `page ${page.status}`);
  }],
  ["one watch stream carries the roster and follows, opened and closed by the control routes, and resumes each follow", async () => {
    const a = await start("ivan", "a");
    const b = await start("ivan", "b");
    await append(a.id, "a1\n");
    await append(b.id, "b1\n");
    const abort = new AbortController();
    let lastId = "";
    let name = "";
    const out: Record<string, string> = {};
    const events: string[] = [];
    for await (const ev of client("ivan").watch({ views: `r=WatchJobs;fa=FollowJob:${a.id}`, signal: abort.signal, onId: (id) => (lastId = id) })) {
      if (ev.event === "watch") {
        name = ev.data.stream;
        continue;
      }
      const f = ev.data;
      events.push(`${f.view}:${f.event}`);
      if (f.event === "output") {
        const frame = decodeFollowFrame(f.data);
        if (frame.frame === "output") out[f.view] = (out[f.view] ?? "") + text([frame]);
      }
      if (f.view === "fa" && out["fa"] === "a1\n" && out["fb"] === undefined && !events.includes("fb:opened")) {
        check((await client("ivan").openView(name, { view: "fb", route: "FollowJob", id: b.id })).view === "fb", "openView");
      }
      if (f.view === "fb" && f.event === "output" && out["fb"] === "b1\n") {
        check((await client("ivan").closeView(name, "fb")).view === "fb", "closeView");
      }
      if (f.view === "fb" && f.event === "closed") {
        check(!f.resume.includes("fb="), `closed view still resumes: ${f.resume}`);
        abort.abort();
      }
    }
    check(out["fa"] === "a1\n" && out["fb"] === "b1\n" && events.includes("r:roster"), `views read ${JSON.stringify(out)} ${events.join()}`);
    check(lastId.includes(`fa=FollowJob:${a.id}@3`), `resume point ${lastId}`);
    // Resuming from the last id carries on from fa's offset: nothing twice.
    await append(a.id, "a2\n");
    await finish(a.id);
    let resumed = "";
    for await (const ev of client("ivan").watch({ lastEventId: lastId })) {
      if (ev.event !== "view" || ev.data.view !== "fa") continue;
      const frame = decodeFollowFrame(ev.data.data);
      if (frame.frame === "output") resumed += text([frame]);
      if (frame.frame === "status") break;
    }
    check(resumed === "a2\n", `resumed ${JSON.stringify(resumed)}`);
    const gone = await refusal(() => client("ivan").openView(name, { view: "x", route: "WatchJobs" }));
    check(gone.status === 404, `a view of an ended stream: ${gone.message}`);
  }],
  ["the bulk stop, the waiting starts and the history search answer as the handler serves them", async () => {
    const job = await start("jane", "bulk");
    const stopped = await client("jane").killJobs({ ids: [job.id], reason: "from the client test" });
    check(stopped.results.length === 1, `killJobs ${JSON.stringify(stopped)}`);
    const none = await refusal(() => client("jane").killJobs({}));
    check(none.status === 400, `killJobs of nothing: ${none.message}`);
    check(Array.isArray(await client("jane").listWaiting()), "listWaiting");
    await control("wait", { job: job.id });
    const page = await client("jane").searchHistory({ limit: 10 });
    check(page.intervals.some((i) => i.jobId === job.id), `searchHistory ${JSON.stringify(page)}`);
    const jobPage = await client("jane").jobHistory(job.id);
    check(jobPage.interval.jobId === job.id && jobPage.facts.length >= 2, `jobHistory ${JSON.stringify(jobPage)}`);
    const foreign = await refusal(() => client("ivan").jobHistory(job.id));
    check(foreign.status === 404, `another session's job page: ${foreign.message}`);
  }],
  ["a stream that is not an event stream is refused, not retried", async () => {
    const bogus = new Client({ base: new URL("test/bogus/", base) });
    const refused = await refusal(async () => {
      for await (const _ of bogus.watchJobs()) void _;
    });
    check(refused.status === 200 && refused.reason.startsWith("not an event stream"), `refusal ${refused.message}`);
  }],
  ["a body the decoders refuse is the package's DecodeError", async () => {
    const bogus = new Client({ base: new URL("test/bogus/", base) });
    try {
      await bogus.listJobs();
      throw new Error("a malformed roster was accepted");
    } catch (err) {
      check(err instanceof DecodeError && err.kind === "invalidID" && err.path === "$[0].id", `refusal ${String(err)}`);
    }
  }],
  ...hostile.events.map((row): [string, () => Promise<void>] => [`hostile event fields: ${row.why}`, async () => {
    const got = await reconnect(row.lines);
    check(got.lastEventId === row.lastEventId, `Last-Event-ID ${JSON.stringify(got.lastEventId)}, want ${JSON.stringify(row.lastEventId)}`);
    const want = row.retryMs ?? 1234;
    check(got.delays.length === 1 && got.delays[0] === want, `slept ${JSON.stringify(got.delays)} ms, want ${want}`);
  }]),
  ...hostile.retryAfter.map((row): [string, () => Promise<void>] => [`hostile Retry-After: ${row.why}`, async () => {
    const fake: typeof fetch = async () => new Response(JSON.stringify({ error: "busy" }), { status: 503, headers: { "Retry-After": latin1(row.header) } });
    const err = await refusal(() => new Client({ base: "http://127.0.0.1:1/", fetch: fake }).listJobs());
    check(err.retryAfter === (row.seconds ?? undefined), `retryAfter ${String(err.retryAfter)}, want ${String(row.seconds)}`);
  }]),
];

/** within fails a case that has not ended after ms milliseconds. */
function within(ms: number, run: () => Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not end within ${ms} ms`)), ms);
  });
  return Promise.race([run(), late]).finally(() => clearTimeout(timer));
}

let failed = 0;
for (const [name, run] of cases) {
  const began = Date.now();
  try {
    await within(10_000, run);
    process.stdout.write(`ok - ${name} (${Date.now() - began} ms)\n`);
  } catch (err) {
    failed++;
    process.stdout.write(`not ok - ${name}: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  }
}
// A case that timed out may leave a stream open: exit without waiting on it.
process.exit(failed === 0 ? 0 : 1);
