package jobhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
)

// followersEnv, when set, makes the test binary a process of benchmark
// followers instead of running tests (see followerProcess): "MODE N TARGET",
// MODE sse (follow TARGET, a URL, over HTTP) or raw (read TCP address
// TARGET).
const followersEnv = "JOBHTTP_BENCH_FOLLOWERS"

func TestMain(m *testing.M) {
	if spec := os.Getenv(followersEnv); spec != "" {
		os.Exit(runFollowers(spec, os.Stdin, os.Stdout))
	}
	code := m.Run()
	closeBrowser()
	os.Exit(code)
}

// A followerProcess is a child process holding n streams to the server, as
// browsers on other machines would: its reads cost the server's process no
// goroutines and no scheduler turns, only the machine's cores.
type followerProcess struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// startFollowerProcess starts n followers of target in a child process and
// returns once each has read its first bytes.
func startFollowerProcess(b *testing.B, mode, target string, n int) *followerProcess {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %s", followersEnv, mode, n, target))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &followerProcess{cmd: cmd, in: in, out: bufio.NewReader(out)}
	b.Cleanup(p.stop)
	if line, err := p.out.ReadString('\n'); err != nil || line != "ready\n" {
		b.Fatalf("follower process: %q %v", line, err)
	}
	return p
}

// counts returns the events and bytes the followers have read so far.
func (p *followerProcess) counts(b *testing.B) (events, read int64) {
	events, read, _ = p.countsCPU(b)
	return events, read
}

// countsCPU is counts with the CPU time the follower process has used so
// far (user and system, in nanoseconds).
func (p *followerProcess) countsCPU(b *testing.B) (events, read, cpu int64) {
	if _, err := io.WriteString(p.in, "count\n"); err != nil {
		b.Fatal(err)
	}
	line, err := p.out.ReadString('\n')
	if _, err2 := fmt.Sscan(line, &events, &read, &cpu); err != nil || err2 != nil {
		b.Fatalf("follower process counts %q: %v %v", line, err, err2)
	}
	return events, read, cpu
}

func (p *followerProcess) stop() {
	p.in.Close() // the child ends when its stdin does
	p.cmd.Wait()
}

// runFollowers is the child: it opens the streams, says "ready" once each
// has read something, answers every "count" line with the events and bytes
// read so far, and ends when its input does.
func runFollowers(spec string, in io.Reader, out io.Writer) int {
	var mode, target string
	var n int
	if _, err := fmt.Sscan(spec, &mode, &n, &target); err != nil {
		fmt.Fprintln(os.Stderr, "followers:", err)
		return 2
	}
	var events, read atomic.Int64
	var ready sync.WaitGroup
	ready.Add(n)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n + 1, ReadBufferSize: 64 << 10}}
	for range n {
		go func() {
			var once sync.Once
			defer once.Do(ready.Done)
			body, err := openFollower(ctx, client, mode, target)
			if err != nil {
				fmt.Fprintln(os.Stderr, "followers:", err)
				return
			}
			defer body.Close()
			// An event ends with a blank line; JSON data never holds a raw
			// newline, so every "\n\n" (also across reads) ends one event.
			buf := make([]byte, 64<<10)
			var last byte
			for {
				k, err := body.Read(buf)
				if k > 0 {
					ends := int64(bytes.Count(buf[:k], blankLine))
					if last == '\n' && buf[0] == '\n' {
						ends++
					}
					last = buf[k-1]
					events.Add(ends)
					read.Add(int64(k))
					once.Do(ready.Done)
				}
				if err != nil {
					return
				}
			}
		}()
	}
	ready.Wait()
	fmt.Fprintln(out, "ready")
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		fmt.Fprintln(out, events.Load(), read.Load(), processCPU())
	}
	return 0
}

// openFollower opens one stream: a follow over HTTP, or a TCP connection.
func openFollower(ctx context.Context, client *http.Client, mode, target string) (io.ReadCloser, error) {
	if mode == "raw" {
		return net.Dial("tcp", target)
	}
	req, err := http.NewRequestWithContext(ctx, "GET", target, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(sessionHeader, "alice")
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("follow: %s", res.Status)
	}
	return res.Body, nil
}
