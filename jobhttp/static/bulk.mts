// Stopping many jobs at once: a checkbox on each running row, "Stop
// selected" and "Stop all matching" (every running job the roster's
// filters show), one reason and one confirmation for the lot, sent as one
// bulk stop (POST api/jobs/kill, Registry.KillAll on the server), whose
// answer says what happened to each job. It reads the roster from the
// document app.mts keeps (li.job rows with data-job and data-status, hidden
// when filtered out), so the roster's own code needs no change.
import { decodeKillAllResponse } from "./wire.mjs";
import { h } from "./logview.mjs";

const api = new URL("api/", document.baseURI);

/** A Bulk is the bulk stop's controls on the page. */
export class Bulk {
  readonly bar: HTMLElement;
  private readonly selectedBtn: HTMLButtonElement;
  private readonly matchingBtn: HTMLButtonElement;
  private readonly dialog: HTMLDialogElement;
  private readonly what: HTMLElement;
  private readonly reason: HTMLInputElement;
  private pending: string[] = [];

  constructor(
    private readonly roster: HTMLElement,
    private readonly say: (text: string) => void,
  ) {
    this.selectedBtn = h("button", { type: "button", id: "bulk-selected", class: "danger" }, "Stop selected (0)");
    this.matchingBtn = h("button", { type: "button", id: "bulk-matching" }, "Stop all matching (0)");
    this.bar = h("div", { class: "bulk", role: "group", "aria-label": "Stop many jobs" }, this.selectedBtn, this.matchingBtn);
    this.what = h("span", { id: "bulk-what" });
    this.reason = h("input", { id: "bulk-reason", name: "reason", type: "text", maxlength: "200" });
    const cancel = h("button", { type: "button", id: "bulk-cancel" }, "Cancel");
    const confirm = h("button", { type: "submit", value: "stop", class: "danger", id: "bulk-confirm" }, "Stop them");
    const form = h("form", { method: "dialog" },
      h("h2", { id: "bulk-title" }, "Stop ", this.what, "?"),
      h("p", {}, "Each job is asked to stop; the one reason is recorded with every kill."),
      h("label", {}, "Reason ", this.reason),
      h("div", { class: "actions" }, cancel, confirm));
    this.dialog = h("dialog", { id: "bulk-dialog", "aria-labelledby": "bulk-title" }, form);
    document.body.append(this.dialog);
    cancel.addEventListener("click", () => this.dialog.close());
    form.addEventListener("submit", () => void this.stop());
    this.selectedBtn.addEventListener("click", () => this.ask(this.selected()));
    this.matchingBtn.addEventListener("click", () => this.ask(this.matching()));
    this.roster.addEventListener("change", (e) => {
      if ((e.target as HTMLElement).classList.contains("select")) this.refresh();
    });
    new MutationObserver(() => this.refresh()).observe(roster, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-status", "hidden"] });
    this.refresh();
  }

  /** refresh gives each row its checkbox and the buttons their counts. */
  refresh(): void {
    if (this.bar.hidden) { // a fleet view: each host stops its own
      for (const box of this.roster.querySelectorAll("input.select")) box.remove();
      return;
    }
    for (const li of this.rows()) {
      const head = li.querySelector<HTMLElement>(".job-head");
      if (head === null) continue;
      let box = head.querySelector<HTMLInputElement>("input.select");
      if (box === null) {
        const name = head.querySelector(".name")?.textContent ?? "job";
        box = h("input", { type: "checkbox", class: "select", "aria-label": `Select ${name}` });
        head.prepend(box);
      }
      const live = li.dataset["status"] === "running";
      if (box.disabled === live) box.disabled = !live;
      if (!live && box.checked) box.checked = false;
    }
    const sel = this.selected().length, match = this.matching().length;
    setText(this.selectedBtn, `Stop selected (${sel})`);
    setText(this.matchingBtn, `Stop all matching (${match})`);
    this.selectedBtn.disabled = sel === 0;
    this.matchingBtn.disabled = match === 0;
  }

  private rows(): HTMLLIElement[] {
    return [...this.roster.querySelectorAll<HTMLLIElement>("li.job[data-job]")];
  }

  private selected(): string[] {
    return this.rows().filter((li) => li.querySelector<HTMLInputElement>("input.select")?.checked === true).map((li) => li.dataset["job"] ?? "");
  }

  /** matching are the running jobs the filters show. */
  private matching(): string[] {
    return this.rows().filter((li) => !li.hidden && li.dataset["status"] === "running").map((li) => li.dataset["job"] ?? "");
  }

  private ask(ids: string[]): void {
    if (ids.length === 0) return;
    this.pending = ids;
    this.what.textContent = ids.length === 1 ? "1 job" : `${ids.length} jobs`;
    this.reason.value = "";
    this.dialog.showModal();
    this.reason.focus();
  }

  private async stop(): Promise<void> {
    const ids = this.pending;
    this.pending = [];
    const reason = this.reason.value.trim();
    try {
      const res = await fetch(new URL("jobs/kill", api), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ ids, reason }),
      });
      if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
      const answer = decodeKillAllResponse(await res.json());
      const failed = answer.results.filter((r) => r.error !== undefined && r.error !== "").length;
      for (const li of this.rows()) {
        const box = li.querySelector<HTMLInputElement>("input.select");
        if (box !== null) box.checked = false;
      }
      this.refresh();
      this.say(failed === 0 ? `Asked ${answer.results.length} jobs to stop` : `Asked ${answer.results.length - failed} jobs to stop; ${failed} could not be`);
    } catch (err) {
      this.say(`The bulk stop failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

function setText(e: HTMLElement, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}
