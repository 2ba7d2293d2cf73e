// client.mjs drives jobgen's MCP server with the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json and package-lock.json),
// as a client nobody here wrote: examples/mcpjobs's clients_test.go runs it
// against the example server over streamable HTTP and stdio and reads the
// JSON lines it prints, one per check (the same checks as
// tools/python/mcp_client.py).
//
// The SDK's newest protocol version is 2025-11-25, and it implements that
// version's tasks in its experimental API (client.experimental.tasks:
// callToolStream creates a task for a tool whose execution.taskSupport
// allows one and polls it; getTask, getTaskResult, listTasks, cancelTask).
// It does not know 2026-07-28 or its tasks extension, so that form is not
// driven from here (the Python SDK drives it).
//
// Usage:
//   node client.mjs http URL TOKEN OTHER_TOKEN SCENARIO [TASKFILE]
//   node client.mjs stdio COMMAND... -- SCENARIO [TASKFILE]
//
// SCENARIO is main, before-restart (finish a task, write its id to
// TASKFILE) or after-restart (read it back from a new server).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import Ajv2020 from "ajv/dist/2020.js";
import { readFileSync, writeFileSync } from "node:fs";

const emit = (check, fields = {}) => console.log(JSON.stringify({ check, ...fields }));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const argv = process.argv.slice(2);
const kind = argv[0];
let url, token, other, command, scenario;
if (kind === "http") {
  [url, token, other, scenario] = argv.slice(1);
} else {
  const cut = argv.indexOf("--");
  command = argv.slice(1, cut);
  scenario = argv[cut + 1];
}

// negotiated is the protocol version the last connect settled on: the SDK
// hands it to its transport, when the transport takes it.
let negotiated = null;

async function connect(who = token) {
  const client = new Client({ name: "jobgen-typescript-test", version: "v0" });
  const transport =
    kind === "http"
      ? new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${who}` } } })
      : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "inherit" });
  const set = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    negotiated = v;
    set?.(v);
  };
  await client.connect(transport);
  return client;
}

const SLOW = 'for i in 1 2 3; do echo "progress: step $i of 3"; sleep 0.7; done; echo done';

async function main() {
  const c = await connect();
  emit("version", { mode: "auto", negotiated, instructions: Boolean(c.getInstructions()) });

  const ajv = new Ajv2020({ strict: false, logger: false });
  const { tools } = await c.listTools();
  for (const tool of tools) {
    ajv.compile(tool.inputSchema);
    if (tool.outputSchema) ajv.compile(tool.outputSchema);
    emit("tool", {
      name: tool.name,
      title: tool.title ?? null,
      strict: tool.inputSchema.additionalProperties === false,
      annotations: tool.annotations ?? null,
      taskSupport: tool.execution?.taskSupport ?? null,
    });
  }
  const bogus = await c.callTool({ name: "job_list", arguments: { bogus: 1 } });
  emit("bogus", { isError: bogus.isError === true, text: bogus.content?.[0]?.text ?? "" });

  // A task through the SDK's experimental API: created because shell says
  // taskSupport "optional", polled to its end, its result validated
  // against shell's output schema by the SDK.
  const statuses = [];
  let taskId, result;
  for await (const msg of c.experimental.tasks.callToolStream({ name: "shell", arguments: { command: SLOW, label: "a task" } }, CallToolResultSchema, { pollInterval: 100 })) {
    if (msg.type === "taskCreated") taskId = msg.task.taskId;
    if (msg.type === "taskStatus") {
      const s = [msg.task.status, msg.task.statusMessage ?? null];
      const last = statuses[statuses.length - 1];
      if (!last || last[0] !== s[0] || last[1] !== s[1]) statuses.push(s);
    }
    if (msg.type === "result") result = msg.result;
    if (msg.type === "error") throw msg.error;
  }
  const payload = await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  const listed = await c.experimental.tasks.listTasks();
  emit("task-2025", {
    taskId,
    statuses,
    structured: result?.structuredContent ?? null,
    output: (payload.content ?? []).slice(1).map((b) => b.text),
    listed: listed.tasks.map((t) => t.taskId),
  });

  // A cancel: create the task with the SDK's request API, cancel it.
  const created = await c.request({ method: "tools/call", params: { name: "shell", arguments: { command: "sleep 30", label: "to be cancelled" }, task: {} } }, CreateTaskResultSchema);
  const doomed = created.task.taskId;
  const answered = await c.experimental.tasks.cancelTask(doomed);
  let after;
  for (let i = 0; i < 50; i++) {
    after = await c.experimental.tasks.getTask(doomed);
    if (after.status !== "working") break;
    await sleep(100);
  }
  emit("cancel-2025", { taskId: doomed, answered: answered.status, after: after.status });

  if (kind === "http") {
    const bob = await connect(other);
    const refusal = async (id) => {
      try {
        await bob.experimental.tasks.getTask(id);
        return "";
      } catch (e) {
        return String(e.message).replaceAll(id, taskId);
      }
    };
    emit("foreign-task", { foreign: await refusal(taskId), unknown: await refusal("0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f") });
    await bob.close();
  }

  // A subagent: start it, read its report, send it more work, read again.
  const notices = async (child, n) => {
    const got = [];
    for (let i = 0; i < 100 && got.length < n; i++) {
      const res = await c.callTool({ name: "notices", arguments: {} });
      got.push(...res.structuredContent.notices.filter((x) => x.includes(child)));
      if (got.length < n) await sleep(100);
    }
    return got;
  };
  const started = await c.callTool({ name: "subagent_start", arguments: { label: "check the build", prompt: "look at the build log" } });
  const child = started.structuredContent.childId;
  const first = await notices(child, 2);
  await c.callTool({ name: "send_message", arguments: { to: child, message: "and the test log?" } });
  const second = await notices(child, 2);
  emit("subagent", { child, first, second });
  await c.close();
}

// beforeRestart finishes a task that fails and writes its id to file;
// afterRestart, against a new server over the same journal, reads it back.
async function beforeRestart(file) {
  const c = await connect();
  const created = await c.request({ method: "tools/call", params: { name: "shell", arguments: { command: "echo failing; exit 3", label: "fails" }, task: {} } }, CreateTaskResultSchema);
  const taskId = created.task.taskId;
  for (let i = 0; i < 100 && (await c.experimental.tasks.getTask(taskId)).status === "working"; i++) await sleep(100);
  writeFileSync(file, taskId);
  emit("before-restart", { taskId });
  await c.close();
}

async function afterRestart(file) {
  const taskId = readFileSync(file, "utf8").trim();
  const c = await connect();
  const got = await c.experimental.tasks.getTask(taskId);
  const result = await c.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  let cancel = "";
  try {
    await c.experimental.tasks.cancelTask(taskId);
  } catch (e) {
    cancel = String(e.message);
  }
  emit("after-restart", { taskId, status: got.status, statusMessage: got.statusMessage ?? null, structured: result.structuredContent ?? null, cancel });
  await c.close();
}

const scenarios = { main, "before-restart": beforeRestart, "after-restart": afterRestart };
if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
await scenarios[scenario](kind === "http" ? argv[5] : argv[argv.indexOf("--") + 2]);
emit("done");
