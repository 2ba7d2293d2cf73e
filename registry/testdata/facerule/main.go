// Command facerule must not compile: the producer of a plain job holds a
// jobs.RunningJob, which has no Append. TestFaceRuleDoesNotCompile builds it
// and expects the compiler to say so.
package main

import "github.com/jobgen/jobgen/generated/jobs"

func produce(job jobs.RunningJob) {
	job.Append("output the registry has nowhere to keep", jobs.AppendOptions{})
}

func main() { produce(nil) }
