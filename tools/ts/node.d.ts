// The little of Node's API harness.ts and bench.ts use, declared here so that
// the tool directory needs no package beyond typescript.
declare module "node:fs" {
  export function readFileSync(fd: number | string, encoding: "utf8"): string;
}
declare const process: {
  argv: string[];
  stdout: { write(s: string): boolean };
  hrtime: { bigint(): bigint };
};
