// Compiled by tools/ts/page.sh from jobhttp/static/ansi.mts with the pinned tsc. DO NOT EDIT.
/**
 * A Color is one of the 16 terminal colours by index (0–7 normal, 8–15
 * bright), which the page's theme defines, or a CSS colour "#rrggbb" for
 * the 256-colour cube and grey ramp and for true colour.
 */
export type Color = number | string;
/** A Style is what SGR codes set; an absent field is the terminal's default. */
export interface Style {
    readonly fg?: Color;
    readonly bg?: Color;
    readonly bold?: true;
    readonly dim?: true;
    readonly italic?: true;
    readonly underline?: true;
    readonly inverse?: true;
    readonly strike?: true;
}
/** A Span is a run of text in one style. */
export interface Span {
    readonly text: string;
    readonly style: Style;
}
/**
 * A PromptMark is one OSC 133 semantic prompt mark, as a shell's terminal
 * integration writes them: A where the prompt starts, B where the command
 * the user types starts, C where its output starts, D where it ended (with
 * its exit code when the shell gave one). Each is ESC ] 133 ; LETTER, D's
 * optionally followed by ; CODE, ended by BEL or ST.
 */
export interface PromptMark {
    readonly mark: "A" | "B" | "C" | "D";
    readonly exit?: number;
}
/** PLAIN is the default style, shared by every span that has no other. */
export declare const PLAIN: Style;
/**
 * An SGRReader reads one stream of terminal output, chunk by chunk. An
 * escape sequence split across chunks is held until its end arrives; the
 * style carries over from one chunk to the next, as a terminal's does.
 */
export declare class SGRReader {
    private style;
    private pending;
    /** Feed reads the next chunk and returns its text as spans; an empty chunk yields none. */
    feed(chunk: string): Span[];
    /**
     * Read reads the next chunk as Feed does, and also returns the OSC 133
     * prompt marks in it, each where it stood among the spans. A mark split
     * across chunks is held, as any escape is, and returned whole with the
     * chunk that ends it.
     */
    read(chunk: string): (Span | PromptMark)[];
    /** Current is the style in force, for a reader that starts a new line. */
    get current(): Style;
    /**
     * sequence reads the escape sequence at text[i] (an ESC), applies it when
     * it is an SGR, appends it to out when it is a prompt mark, and returns
     * the index after it, or -1 when the text ends first. A malformed sequence
     * ends at the offending character, which is then read as text.
     */
    private sequence;
    /** apply applies the parameters of one SGR sequence. */
    private apply;
}
/** color256 is colour n of the 256-colour palette: 0–15 by index, then the 6×6×6 cube and the grey ramp. */
export declare function color256(n: number): Color;
/** stripControls removes what is left of control characters in text, tab and newline aside, so none reaches the page. */
export declare function stripControls(text: string): string;
