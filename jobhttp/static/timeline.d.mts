// Compiled by tools/ts/page.sh from jobhttp/static/timeline.mts with the pinned tsc. DO NOT EDIT.
import type { Interval } from "./wire.mjs";
/** outcome is the class of an interval's bar: its status, timeout when its deadline settled it, incomplete while open. */
export declare function outcome(iv: Interval): string;
/** ticks returns the tick times in [t0, t1] for a plot w pixels wide, and the step. */
export declare function ticks(t0: number, t1: number, w: number): [number[], number];
/** A Timeline draws intervals into its box; Draw again redraws with the zoom kept. */
export declare class Timeline {
    readonly root: HTMLElement;
    private readonly plot;
    private readonly tip;
    private readonly reset;
    /** axis is the time axis above the rows, outside the scroll box so it stays in view. */
    private axis;
    /** box scrolls the rows; spacer is as tall as all of them; rows is the SVG of those in view. */
    private readonly box;
    private readonly spacer;
    private rows;
    private readonly band;
    /** count says how many rows the box holds, and that it scrolls when they are more than it shows. */
    private readonly count;
    private items;
    private zoom;
    private now;
    /** key is what the drawn intervals are made of (ids, ends, statuses, the lost set): the same key draws the same bars. */
    private key;
    /** span is the range the axis shows, width the plot's in pixels, as last laid out; window the rows drawn. */
    private span;
    private width;
    private window;
    private paintDue;
    /** lost are the jobs whose host a fleet view says is lost: a bar that ends where it began, never one growing with the clock. */
    private lost;
    private legend;
    /** lostEntry is the legend's entry for lost jobs, there only while some are drawn (a fleet view). */
    private readonly lostEntry;
    constructor(root: HTMLElement);
    /** Draw shows intervals (those with a registration time), as of now; the same intervals again draw nothing unless the axis moved. */
    draw(intervals: Interval[], now?: number, lost?: ReadonlySet<string>): void;
    /** keyOf says what the bars are drawn from, save the clock: each interval's id, end, status, cause and whether it is lost. */
    private keyOf;
    /** moved says whether the range in view now differs from the drawn one by a pixel or more at either end: a running bar grew. */
    private moved;
    /** open is how many drawn intervals are incomplete (running, or lost with their host): only those change with the clock or a host's lease, with no event of the roster's. */
    get open(): number;
    /** Zoomed is the range in view, or null for all of it. */
    get range(): [number, number] | null;
    setZoom(z: [number, number] | null): void;
    private full;
    private scale;
    /** step moves the keyboard's focus from a bar to the next (ArrowDown) or previous (ArrowUp) row's, scrolling it into the box's view: a row not drawn yet is drawn first. */
    private step;
    /** redraw lays out the axis and the box's height for the range in view, then paints the rows in view. */
    private redraw;
    /** paint draws the rows in the box's view and overscan rows either side, and no others; again only when the window moved, unless forced. */
    private paint;
    private describe;
    private showTip;
    /** dragZoom lets a drag across the plot (the axis or the rows) choose the range to zoom to. */
    private dragZoom;
}
