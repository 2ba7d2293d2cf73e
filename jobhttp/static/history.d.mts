// Compiled by tools/ts/page.sh from jobhttp/static/history.mts with the pinned tsc. DO NOT EDIT.
/** A HistoryView is the history section of the page. */
export declare class HistoryView {
    readonly root: HTMLElement;
    private readonly kind;
    private readonly status;
    private readonly label;
    private readonly all;
    private readonly host;
    private readonly hostLabel;
    private readonly allLabel;
    private readonly body;
    private readonly note;
    private readonly newer;
    private readonly older;
    private cursor;
    private next;
    /** onOpen is called with a job's id when its row's name is chosen: the page opens the job's page. */
    onOpen: (id: string) => void;
    /** painted is called after each page is drawn, with how long it took from the request. */
    onPaint: (ms: number) => void;
    constructor();
    /** load shows the page of the history that starts at cursor. */
    load(cursor: number): Promise<void>;
    /**
     * fleetMode makes the section a fleet view's: a Host filter, and no
     * "every session" (a fleet searches the caller's own jobs).
     */
    fleetMode(): void;
    /** setHosts offers hosts in the Host filter, keeping the one chosen. */
    setHosts(hosts: Set<string>): void;
    private show;
}
