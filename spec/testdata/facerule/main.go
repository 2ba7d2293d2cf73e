// This program must not compile: a plain job's producer holds a
// jobs.RunningJob, and a RunningJob has no Append. The face rule test builds
// it and expects exactly that error.
package main

import "github.com/jobgen/jobgen/generated/jobs"

func produce(job jobs.RunningJob) {
	job.Append("output a plain job has nowhere to keep", jobs.AppendOptions{})
}

func main() { produce(nil) }
