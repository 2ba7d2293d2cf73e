// Compiled by tools/ts/page.sh from jobhttp/static/bulk.mts with the pinned tsc. DO NOT EDIT.
/** A Bulk is the bulk stop's controls on the page. */
export declare class Bulk {
    private readonly roster;
    private readonly say;
    readonly bar: HTMLElement;
    private readonly selectedBtn;
    private readonly matchingBtn;
    private readonly dialog;
    private readonly what;
    private readonly reason;
    private pending;
    constructor(roster: HTMLElement, say: (text: string) => void);
    /** refresh gives each row its checkbox and the buttons their counts. */
    refresh(): void;
    private rows;
    private selected;
    /** matching are the running jobs the filters show. */
    private matching;
    private ask;
    private stop;
}
