// The little of Node's API harness.ts, bench.ts and client_test.ts use,
// declared here so that the tool directory needs no package beyond typescript
// (and the package it tests).
declare module "node:fs" {
  export function readFileSync(fd: number | string, encoding: "utf8"): string;
}
declare const process: {
  argv: string[];
  exit(code: number): never;
  stdout: { write(s: string): boolean };
  hrtime: { bigint(): bigint };
};
