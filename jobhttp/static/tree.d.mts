// Compiled by tools/ts/page.sh from jobhttp/static/tree.mts with the pinned tsc. DO NOT EDIT.
import type { Client, SubagentNode } from "./wire.mjs";
import type { Watcher } from "./watch.mjs";
/** A SubagentTree shows the tree in its section and one child's history beside it. */
export declare class SubagentTree {
    private readonly section;
    private readonly list;
    private readonly detail;
    private readonly note;
    private readonly client;
    private readonly watcher;
    private nodes;
    private selected;
    private shownActivity;
    /** OnStatus hears a child's state change, for the page's one live region. */
    onStatus: (text: string) => void;
    constructor(section: HTMLElement, client: Client, watcher: Watcher);
    /** Watch follows the tree stream until the server says it serves no subagents. */
    watch(): Promise<void>;
    /** Select shows the history of child id. */
    select(id: string): void;
    /** Node returns child id as the tree last drew it, or undefined when the tree holds no such child. */
    node(id: string): SubagentNode | undefined;
    /** Show selects child id and brings its entry into view, focused (a job page's link to its subagent). */
    show(id: string): void;
    render(nodes: SubagentNode[]): void;
    private nodeButton;
    private loadHistory;
    private showHistory;
}
/** ago writes how long ago t was: 3s ago, 2m ago. */
export declare function ago(t: number): string;
