// Compiled by tools/ts/page.sh from jobhttp/static/waiting.mts with the pinned tsc. DO NOT EDIT.
/** A Waiting is the waiting list's section of the page. */
export declare class Waiting {
    private readonly onError;
    readonly root: HTMLElement;
    private readonly list;
    constructor(onError: (text: string) => void);
    private poll;
    /** load asks for the waiting starts and shows them. */
    load(): Promise<void>;
    private show;
}
