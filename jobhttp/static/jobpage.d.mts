// Compiled by tools/ts/page.sh from jobhttp/static/jobpage.mts with the pinned tsc. DO NOT EDIT.
/** A JobPage is the job page's dialog. */
export declare class JobPage {
    readonly dialog: HTMLDialogElement;
    private readonly title;
    private readonly body;
    constructor(timeline: HTMLElement);
    /** open shows the page of job id. */
    open(id: string): Promise<void>;
    private show;
}
