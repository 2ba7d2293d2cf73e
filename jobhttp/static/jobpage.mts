// A job's page: what its history says of it, opened by a click (or Enter)
// on its timeline bar: its name, label, owner and labels, for a command
// what ran (argv, working directory, exit code or signal, from procjob's
// job/command and job/exited facts), its absolute start and end, how it
// settled and why (the cause), the subagent it belongs to when its owner is
// one, and its facts from the journal in order (GET api/history/jobs/{id}).
import { decodeJobHistory, type JobFact, type JobHistory } from "./wire.mjs";
import { decodeJobCommand, decodeJobExited, type JobCommand, type JobExited } from "./jobs.mjs";
import { duration, h } from "./logview.mjs";

/** A Subagent is what the job page links to: a child of the subagent tree. */
export interface Subagent {
  id: string;
  label: string;
}

const api = new URL("api/", document.baseURI);

/** A JobPage is the job page's dialog. */
export class JobPage {
  readonly dialog: HTMLDialogElement;
  private readonly title: HTMLElement;
  private readonly body: HTMLElement;

  /** subagentOf names the subagent a session is, if the tree holds it. */
  subagentOf: (session: string) => Subagent | undefined = () => undefined;
  /** showSubagent opens subagent id in the tree. */
  showSubagent: (id: string) => void = () => undefined;

  constructor(timeline: HTMLElement) {
    this.title = h("h2", { id: "job-page-title" }, "Job");
    this.body = h("div", { class: "job-page-body" });
    const close = h("button", { type: "button", id: "job-page-close" }, "Close");
    close.addEventListener("click", () => this.dialog.close());
    this.dialog = h("dialog", { id: "job-page", class: "job-page", "aria-labelledby": "job-page-title" }, this.title, this.body, h("div", { class: "actions" }, close));
    document.body.append(this.dialog);
    const open = (e: Event): void => {
      // The timeline captures the pointer for its zoom band, which retargets
      // a click to itself: find the bar under the pointer instead.
      const under = e instanceof MouseEvent ? document.elementFromPoint(e.clientX, e.clientY) : null;
      const bar = (under ?? (e.target as Element)).closest("[data-job]");
      if (bar !== null && timeline.contains(bar)) void this.open(bar.getAttribute("data-job") ?? "");
    };
    timeline.addEventListener("click", open);
    timeline.addEventListener("keydown", (e) => { if (e.key === "Enter") open(e); });
  }

  /** open shows the page of job id. */
  async open(id: string): Promise<void> {
    this.title.textContent = "Loading the job…";
    this.body.replaceChildren();
    if (!this.dialog.open) this.dialog.showModal();
    try {
      const res = await fetch(new URL(`history/jobs/${encodeURIComponent(id)}`, api));
      // A server that declines the route (a fleet, one with no history)
      // names it in Jobgen-Not-Served: that is no missing job.
      const declined = res.headers.get("Jobgen-Not-Served") !== null;
      if (!res.ok) throw new Error(declined ? "this server keeps no job pages (open it on its host's own page)" : res.status === 404 ? "no such job in this history" : `${res.status} ${res.statusText}`);
      this.show(decodeJobHistory(await res.json()));
    } catch (err) {
      this.title.textContent = "Job";
      this.body.replaceChildren(h("p", {}, `The job's page could not be read: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  private show(page: JobHistory): void {
    const iv = page.interval;
    this.title.textContent = `${iv.kind}-${iv.ordinal} ${iv.label}`;
    const when = (ms: number): string => new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC");
    const labels = Object.entries(iv.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(" ");
    const status = iv.complete ? (iv.status ?? "") : "incomplete";
    const rows: [string, string][] = [
      ["Owner", iv.owner === "" ? "(unowned)" : iv.owner],
      ["Labels", labels === "" ? "none" : labels],
      ["Started", when(iv.registeredAt)],
      ["Ended", iv.complete && iv.settledAt !== undefined ? `${when(iv.settledAt)} (after ${duration(iv.settledAt - iv.registeredAt)})` : "not settled in this history"],
      ["Status", status],
      ["Cause", iv.cause ?? ""],
      ["Detail", iv.detail ?? ""],
    ];
    if (iv.toolCall !== undefined && iv.toolCall !== "") rows.push(["Tool call", iv.toolCall]);
    const dl = h("dl", { class: "job-facts-summary" }, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
    const parent = this.subagentOf(iv.owner);
    if (parent !== undefined) {
      const link = h("a", { href: `#subagent=${encodeURIComponent(parent.id)}`, id: "job-page-subagent" }, parent.label);
      link.addEventListener("click", (e) => {
        e.preventDefault();
        this.dialog.close();
        this.showSubagent(parent.id);
      });
      dl.append(h("dt", {}, "Subagent"), h("dd", {}, link));
    }
    const ran = commandOf(page.facts);
    if (ran !== null) dl.prepend(...ran);
    const facts = h("ol", { class: "job-facts", "aria-label": "Facts, oldest first" },
      ...page.facts.map((f) => h("li", {},
        h("span", { class: "fact-type" }, `${f.type} v${f.version}`), " ",
        h("time", { datetime: new Date(f.at).toISOString() }, when(f.at)),
        h("pre", { class: "fact-data" }, f.data))));
    this.body.replaceChildren(dl, h("h3", {}, "Facts"), facts);
  }
}

/**
 * commandOf renders what a command job ran, from its job/command and
 * job/exited facts: the command line (each argument quoted for a POSIX
 * shell, so it pastes back as the same argv), a button that copies it, the
 * working directory and how the process ended. Null when the job recorded
 * no command.
 */
function commandOf(facts: JobFact[]): HTMLElement[] | null {
  let cmd: JobCommand | undefined;
  let exited: JobExited | undefined;
  for (const f of facts) {
    try {
      if (f.type === "job/command" && f.version === 1) cmd = decodeJobCommand(JSON.parse(f.data));
      if (f.type === "job/exited" && f.version === 1) exited = decodeJobExited(JSON.parse(f.data));
    } catch {
      // a fact that does not decode is shown as it is, among the facts
    }
  }
  if (cmd === undefined) return null;
  const line = cmd.argv.map(shellQuote).join(" ");
  const code = h("code", { id: "job-page-argv", class: "argv" }, line);
  const copy = h("button", { type: "button", id: "job-page-copy", class: "copy", "aria-label": "Copy the command line" }, "Copy");
  copy.addEventListener("click", () => {
    navigator.clipboard.writeText(line).then(() => { copy.textContent = "Copied"; }, () => { copy.textContent = "Select and copy"; });
  });
  const command = h("dd", { class: "command" }, code, " ", copy);
  if (cmd.truncated === true) command.append(h("span", { class: "muted" }, " (cut to the recorded bound)"));
  return [
    h("dt", {}, "Command"), command,
    h("dt", {}, "Directory"), h("dd", { id: "job-page-dir" }, cmd.dir === undefined || cmd.dir === "" ? "(the runtime's own)" : cmd.dir),
    h("dt", {}, "Exit"), h("dd", { id: "job-page-exit" }, exited === undefined ? "not recorded (still running, or its host stopped)" : exitText(exited)),
  ];
}

/** exitText says how a process ended: exit 0, exit 3, killed by SIGTERM. */
export function exitText(e: JobExited): string {
  return e.signal !== undefined && e.signal !== "" ? `killed by ${e.signal}` : `exit ${e.exitCode}`;
}

/**
 * shellQuote writes one argument as a POSIX shell reads it back: as it is
 * when it holds only safe characters, in single quotes otherwise, and as
 * $'…' with escapes when it holds a control character, so nothing in it
 * is invisible or runs when pasted.
 */
export function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  if (!/[\x00-\x1f\x7f]/.test(arg)) return `'${arg.replaceAll("'", `'\\''`)}'`;
  let out = "$'";
  for (const ch of arg) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === "'" || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + "'";
}
