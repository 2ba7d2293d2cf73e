package launcher

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// ServerGrace is how long StopServer lets requests in flight finish before
// it closes what is left.
const ServerGrace = time.Second

// StopServer returns the disposer of an HTTP server: Shutdown, which stops
// listening and lets requests in flight finish, for at most grace (or until
// ctx ends), then Close for whatever is left. Shutdown alone waits for
// every connection a client opened without sending a request on it yet —
// net/http counts one busy for five seconds, longer than the default
// bound — and an HTTP client's transport leaves such a connection behind
// whenever it dials for a request that an idle connection then serves, so a
// server that shuts down with Shutdown alone misses the bound now and then.
// Register the disposers of long requests (streams, MCP sessions) before
// it, so that nothing worth waiting for is left at the grace. A grace that
// is not positive is ServerGrace.
func StopServer(srv *http.Server, grace time.Duration) Func {
	if grace <= 0 {
		grace = ServerGrace
	}
	return func(ctx context.Context) error {
		shut, cancel := context.WithTimeout(ctx, grace)
		defer cancel()
		err := srv.Shutdown(shut)
		if err == nil {
			return nil
		}
		if cerr := srv.Close(); cerr != nil {
			return errors.Join(err, cerr)
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil // the grace passed; Close ended the rest
		}
		return err
	}
}
