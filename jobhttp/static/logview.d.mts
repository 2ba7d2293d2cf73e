// Compiled by tools/ts/page.sh from jobhttp/static/logview.mts with the pinned tsc. DO NOT EDIT.
import { type Span, type Style } from "./ansi.mjs";
/** A Line is one line of output: its spans, its plain text, when its first byte was appended, and the group it is in. */
export interface Line {
    spans: Span[];
    text: string;
    at: number;
    channel: string;
    note: boolean;
    group: Group | null;
}
/**
 * A Group is a collapsible section of the output: one opened by a GitHub
 * Actions `::group::NAME` line, or one command's output between the OSC 133
 * marks C and D. Its lines are a Segment of the model's; it runs from its
 * opening until its close, and is shown expanded while it runs, collapsed
 * once it has closed, unless the reader chose otherwise.
 */
export interface Group {
    /** Id numbers the model's groups from 1, for the rows that show them. */
    readonly id: number;
    readonly kind: "actions" | "command";
    readonly name: string;
    /** Seg holds the group's lines. */
    readonly seg: Segment;
    /** StartAt and endAt are the `at` of its first and last line (both 0 while it has none). */
    startAt: number;
    endAt: number;
    /** Exit is a command's exit code from its D mark, when the shell gave one. */
    exit: number | null;
    running: boolean;
    /** Opened is the reader's choice (true opened, false closed), null while they made none. */
    opened: boolean | null;
}
/** Expanded says whether a group's lines are shown: the reader's choice, else while it runs. */
export declare function expanded(g: Group): boolean;
/**
 * A Segment is a run of consecutive lines: a group's, or lines outside any
 * group. The model's segments cover its lines in order, so the rows a view
 * shows are a sum over a few segments, not over every line.
 */
export interface Segment {
    /** First is the number of the segment's first line (1-based, as rows number lines). */
    first: number;
    count: number;
    readonly group: Group | null;
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
 *
 * It also gathers lines into groups. A line `::group::NAME` opens one and
 * `::endgroup::` closes it; both marker lines are taken out of the output,
 * as GitHub Actions takes them (they get no line number). OSC 133 marks
 * make each command a group: its output starts at C, it ends at D (which
 * carries the exit code), and its name is the command's text, what the
 * output held between B and C. Groups do not nest, as Actions' do not: an
 * opening while a group is open closes that group first, and so does a
 * prompt (A) or a command start (B) after a command that never said D.
 */
export declare class LogModel {
    readonly lines: Line[];
    readonly segments: Segment[];
    /** Base is the number of lines dropped from the front: line i is number base+i+1. */
    base: number;
    /**
     * Version changes whenever the segments change in other ways than the
     * last one growing or shrinking (one added or dropped, a group opened or
     * collapsed), so a view rebuilds its row index only then.
     */
    version: number;
    private readonly readers;
    private open;
    private cr;
    private current;
    private groups;
    private command;
    /** Append adds a chunk's text, appended at `at` on channel. */
    append(text: string, at: number, channel: string): void;
    /** Note adds a line of the page's own (a gap, a failure), set apart from the output. */
    note(text: string, at: number): void;
    /** Toggle opens a collapsed group or collapses an expanded one, as the reader asked. */
    toggle(g: Group): void;
    /** SetOpened records the reader's choice for g. */
    setOpened(g: Group, opened: boolean): void;
    private addSpan;
    /** endLine ends the open line, taking it out again when it is a group marker. */
    private endLine;
    /** mark applies one OSC 133 mark. */
    private mark;
    private openGroup;
    private closeGroup;
    private startLine;
    private push;
    /** unpush takes back the last line, a marker the output turned out to hold. */
    private unpush;
    /** drop drops the n oldest lines, and the segments they emptied. */
    private drop;
}
/** A Row is what one row of a view shows: a group's header, or a line (by its index in the model's lines). */
export type Row = {
    readonly header: Group;
} | {
    readonly line: number;
};
/**
 * A RowIndex maps the rows a view shows to the model's lines and groups:
 * each group is a header row, followed by its lines when it is expanded.
 * It keeps the rows before each segment, rebuilt (over the segments, not
 * the lines) only when the model's version changes, so finding the rows in
 * view costs a binary search and the rows themselves, however long the
 * output.
 */
export declare class RowIndex {
    private readonly model;
    private before;
    private version;
    constructor(model: LogModel);
    /** Total is the number of rows. */
    get total(): number;
    /** Rows returns rows first up to (not including) last. */
    rows(first: number, last: number): Row[];
    /** RowOfLine is the row that shows the line at index i, or -1 when its group is collapsed. */
    rowOfLine(i: number): number;
    /** Reveal opens the group the line at index i is in when it is collapsed, and returns the row that shows the line. */
    reveal(i: number): number;
    /** segmentAt is the index of the segment row r falls in. */
    private segmentAt;
    private sync;
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
 * document. A group's header row is a button (aria-expanded) that opens or
 * collapses it; a search match or a linked line inside a collapsed group
 * opens that group.
 */
export declare class LogView {
    readonly root: HTMLElement;
    readonly model: LogModel;
    readonly index: RowIndex;
    readonly pane: HTMLElement;
    private headers;
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
    /** layout sizes the pane for the rows the groups now show, and renders. */
    private layout;
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
    /** reveal opens the group line i is in, when it is collapsed, and scrolls the line into view unless it is in view. */
    private reveal;
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
    /** header is a group's header row: a button with its name, line count, duration and, for a command, its exit. */
    private header;
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
