// Compiled by tools/ts/page.sh from jobhttp/static/logview.mts with the pinned tsc. DO NOT EDIT.
import { type Span, type Style } from "./ansi.mjs";
/** A Line is one line of output: its spans, its plain text, and when its first byte was appended. */
export interface Line {
    spans: Span[];
    text: string;
    at: number;
    channel: string;
    note: boolean;
}
/** maxLines bounds the lines a model keeps; past it the oldest go, and numbering goes on. */
export declare const maxLines = 200000;
/**
 * A LogModel turns a job's chunks into lines: newlines end a line, a
 * carriage return makes the next text overwrite the line in place (a
 * progress bar), each channel keeps its own terminal style, and text of
 * another channel starts a line of its own. Lines of the log channel are
 * the producer's narration for the people watching (never the model's
 * output): the viewer styles them apart.
 */
export declare class LogModel {
    readonly lines: Line[];
    /** Base is the number of lines dropped from the front: line i is number base+i+1. */
    base: number;
    private readonly readers;
    private open;
    private cr;
    /** Append adds a chunk's text, appended at `at` on channel. */
    append(text: string, at: number, channel: string): void;
    /** Note adds a line of the page's own (a gap, a failure), set apart from the output. */
    note(text: string, at: number): void;
    private startLine;
    private push;
}
/** LogViewOptions say what a view shows beside its lines. */
export interface LogViewOptions {
    /** Job is the job's id, for its links. */
    job: string;
    /** Name is the job's display name, for labels. */
    name: string;
    /** StartedAt is the job's start, in Unix milliseconds: timestamps are relative to it. */
    startedAt: number;
    /** RawHref is where the raw record downloads from. */
    rawHref: string;
}
/**
 * A LogView shows a LogModel: a toolbar (search, time mode, follow,
 * download) over a scrolling pane of rows. Only the rows in view are in the
 * document.
 */
export declare class LogView {
    readonly root: HTMLElement;
    readonly model: LogModel;
    readonly pane: HTMLElement;
    private readonly spacer;
    private readonly rows;
    private readonly counter;
    private readonly followBtn;
    private readonly timeBtn;
    private readonly search;
    private readonly opts;
    private following;
    private absolute;
    private query;
    private matches;
    private scanned;
    private current;
    private target;
    private due;
    private savedTop;
    /** The slowest render so far, and the last, in milliseconds from the frame's arrival. */
    maxRenderMs: number;
    lastRenderMs: number;
    constructor(opts: LogViewOptions);
    /** Append adds a chunk; call Flush once a frame's chunks are in. */
    append(text: string, at: number, channel: string): void;
    /** Note adds a line of the page's own. */
    note(text: string): void;
    /** Flush renders what was appended, now, and notes how long it took since arrived (performance.now()). */
    flush(arrived?: number): void;
    /** Hide hides the view, keeping its scroll position: a hidden pane loses it. */
    hide(): void;
    /** Show shows the view where it was, or at the end when following. */
    show(): void;
    /** ScrollToLine brings line number n (1-based, as the rows number it) into view and marks it. */
    scrollToLine(n: number): boolean;
    private setFollowing;
    private schedule;
    private setQuery;
    /** scan searches the lines not searched yet. */
    private scan;
    private count;
    /** step moves to the next (1) or previous (-1) match and scrolls to it. */
    private step;
    /** render puts the rows in view into the document, and no others. */
    private render;
    private row;
}
/** styled is text in a style: a text node when plain, else a span whose classes and colours say the style. */
export declare function styled(text: string, st: Style): Node;
/** relative writes a duration since the job's start as +1.234s, +2m03s, +1h02m. */
export declare function relative(ms: number): string;
/** duration writes ms as 850ms, 12.3s, 2m03s or 1h02m; precise keeps milliseconds under a minute. */
export declare function duration(ms: number, precise?: boolean): string;
/** clock writes a time of day as 14:03:07.250. */
export declare function clock(d: Date): string;
/** h makes an element with attributes and children, text as text nodes. */
export declare function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string>, ...children: (Node | string)[]): HTMLElementTagNameMap[K];
