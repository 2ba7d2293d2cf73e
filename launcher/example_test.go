package launcher_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jobgen/jobgen/launcher"
)

// Shutdown runs in order once main returns: every disposer (a registry
// settling its jobs) before any provider (a journal making the facts
// durable), within the teardown bound. A main exits with ExitCode(err): 0
// here, 130 had SIGINT interrupted the run.
func Example() {
	l := launcher.New(launcher.WithBound(2 * time.Second))
	l.AddProvider("journal", func(ctx context.Context) error {
		fmt.Println("journal: flushed and closed")
		return nil
	})
	l.AddDisposer("registry", func(ctx context.Context) error {
		fmt.Println("registry: every job settled")
		return nil
	})
	err := l.Run(context.Background(), func(ctx context.Context) error {
		fmt.Println("main: work done")
		return nil
	})
	fmt.Println("exit status", launcher.ExitCode(err))
	// Output:
	// main: work done
	// registry: every job settled
	// journal: flushed and closed
	// exit status 0
}
