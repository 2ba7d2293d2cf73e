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
    private items;
    private zoom;
    private now;
    constructor(root: HTMLElement);
    /** Draw shows intervals (those with a registration time), as of now. */
    /** lost are the jobs whose host a fleet view says is lost: a bar that ends where it began, never one growing with the clock. */
    private lost;
    private legend;
    /** lostEntry is the legend's entry for lost jobs, there only while some are drawn (a fleet view). */
    private readonly lostEntry;
    draw(intervals: Interval[], now?: number, lost?: ReadonlySet<string>): void;
    /** Zoomed is the range in view, or null for all of it. */
    get range(): [number, number] | null;
    setZoom(z: [number, number] | null): void;
    private full;
    private scale;
    private redraw;
    private describe;
    private showTip;
    /** dragZoom lets a drag across the plot choose the range to zoom to. */
    private dragZoom;
}
