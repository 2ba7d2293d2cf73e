// Compiled by tools/ts/page.sh from jobhttp/static/history.mts with the pinned tsc. DO NOT EDIT.
/** A HistoryView is the history section of the page. */
export declare class HistoryView {
    readonly root: HTMLElement;
    private readonly kind;
    private readonly status;
    private readonly label;
    private readonly all;
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
    private show;
}
