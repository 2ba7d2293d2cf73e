// Compiled by tools/ts/page.sh from jobhttp/static/jobpage.mts with the pinned tsc. DO NOT EDIT.
import { type JobExited } from "./jobs.mjs";
/** A Subagent is what the job page links to: a child of the subagent tree. */
export interface Subagent {
    id: string;
    label: string;
}
/** A JobPage is the job page's dialog. */
export declare class JobPage {
    readonly dialog: HTMLDialogElement;
    private readonly title;
    private readonly body;
    /** subagentOf names the subagent a session is, if the tree holds it. */
    subagentOf: (session: string) => Subagent | undefined;
    /** showSubagent opens subagent id in the tree. */
    showSubagent: (id: string) => void;
    constructor(timeline: HTMLElement);
    /** open shows the page of job id. */
    open(id: string): Promise<void>;
    private show;
}
/** exitText says how a process ended: exit 0, exit 3, killed by SIGTERM. */
export declare function exitText(e: JobExited): string;
/**
 * shellQuote writes one argument as a POSIX shell reads it back: as it is
 * when it holds only safe characters, in single quotes otherwise, and as
 * $'…' with escapes when it holds a control character, so nothing in it
 * is invisible or runs when pasted.
 */
export declare function shellQuote(arg: string): string;
