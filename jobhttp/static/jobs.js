export function decodeFollowFrame(v) { return v; } export function decodeJobSnapshot(v) { return v; }
