// A front end of the deployer: it reads the runtime's own facts and jobgen's
// job snapshots, each with the decoders generated from their specs, as one
// package (@example/deployer) importing another (@jobgen/jobgen).
import { decodeFact, type DeployApproved } from "@example/deployer/deploy";
import { decodeJobSnapshot, type JobSnapshot } from "@jobgen/jobgen/jobs";

/** approvalOf returns the approval a journal line's fact holds, if it is one. */
export function approvalOf(line: string): DeployApproved | undefined {
  const fact = decodeFact(JSON.parse(line));
  return fact.type === "deploy/approved" ? fact.data : undefined;
}

/** jobOf reads a job snapshot from the wire, typed by jobgen's own vocabulary. */
export function jobOf(body: string): JobSnapshot {
  return decodeJobSnapshot(JSON.parse(body));
}
