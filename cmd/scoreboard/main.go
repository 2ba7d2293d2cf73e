// Command scoreboard runs the benchmarks that back each performance goal
// (goals.go holds them) and prints one line per goal: its name, the measured figure, the
// baseline measured in the same run, their ratio, the goal, and whether it
// is met. It runs every benchmark once per round, -count rounds, so that a
// figure and its baseline are taken close together; figures are medians
// over the rounds, and a ratio is the median of the rounds' ratios, which a
// load burst on a shared machine sways less. `make scoreboard` runs it;
// `make bench` runs every benchmark.
//
//	go run ./cmd/scoreboard [-count 3] [-go go]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// A series is one metric of one benchmark: "BenchmarkX/sub" (without the
// -GOMAXPROCS suffix) in a package, and a unit such as ns/op or B/job.
type series struct {
	pkg, bench, metric string
}

type comparison int

const (
	atMost comparison = iota
	atLeast
)

// A limit bounds one metric of the measured benchmark (or, as a goal's
// ratio, the ratio to the baseline).
type limit struct {
	metric string
	cmp    comparison
	value  float64
	text   string
}

func (l limit) holds(v float64) bool {
	if l.cmp == atMost {
		return v <= l.value
	}
	return v >= l.value
}

// A goal is one row of the scoreboard.
type goal struct {
	name     string
	measured series
	baseline series
	limits   []limit // on metrics of the measured benchmark
	ratio    *limit  // on measured/baseline (baseline/measured when inverse)
	inverse  bool    // the ratio is a throughput: baseline time over measured time
	needs    string  // an environment variable the row's benchmarks need, such as JOBGEN_TEST_POSTGRES
}

// A run is one go test invocation.
type run struct {
	pkg, bench, benchtime string
	// module is the directory of the module pkg is in, when it is not
	// jobgen's own: the peers' module, bench/peers, whose dependencies
	// jobgen's go.mod never holds. pkg is still written from the root.
	module string
	// needs names an environment variable without which the run is
	// skipped: JOBGEN_TEST_POSTGRES for the PostgreSQL rows.
	needs string
}

// skipped reports why r does not run in this environment, or "".
func (r run) skipped() string {
	if r.needs != "" && os.Getenv(r.needs) == "" {
		return r.needs + " is not set"
	}
	return ""
}

// results holds every figure of a run, by package, benchmark and metric.
type results map[series][]float64

func main() {
	count := flag.Int("count", 3, "runs per benchmark; each figure is their median")
	goBin := flag.String("go", "go", "the go command")
	flag.Parse()
	res := results{}
	fmt.Fprintf(os.Stdout, "load average at start: %s\n", loadAverage())
	for _, r := range runs {
		if why := r.skipped(); why != "" {
			fmt.Fprintf(os.Stderr, "scoreboard: skipping %s %s: %s\n", r.pkg, r.bench, why)
		}
	}
	for range *count {
		for _, r := range runs {
			if r.skipped() != "" {
				continue
			}
			out, err := runBenchmarks(*goBin, r)
			if err != nil {
				fmt.Fprintf(os.Stderr, "scoreboard: %s %s: %v\n%s", r.pkg, r.bench, err, out)
			}
			res.parse(r.pkg, bytes.NewReader(out))
		}
	}
	fmt.Fprintf(os.Stdout, "load average at end: %s\n", loadAverage())
	missed := print(os.Stdout, goals, res)
	if missed > 0 {
		fmt.Fprintf(os.Stdout, "%d of %d goals missed or not measured\n", missed, len(goals))
	}
}

func runBenchmarks(goBin string, r run) ([]byte, error) {
	pkg := r.pkg
	if r.module != "" {
		rel, err := filepath.Rel(r.module, pkg)
		if err != nil {
			return nil, err
		}
		pkg = "./" + filepath.ToSlash(rel)
	}
	cmd := exec.Command(goBin, "test", "-run", "^$", "-bench", r.bench, "-benchmem",
		"-benchtime", r.benchtime, "-count", "1", "-timeout", "10m", pkg)
	cmd.Dir = r.module
	cmd.Stderr = os.Stderr
	return cmd.Output()
}

// loadAverage is the machine's load average over 1, 5 and 15 minutes, or
// what kept it from being read: every figure moves with it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// parse reads go test -bench output and adds its figures to res.
func (res results) parse(pkg string, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			k := series{pkg, name, f[i+1]}
			res[k] = append(res[k], v)
		}
	}
}

// median returns the median of s's figures and whether there are any.
func (res results) median(s series) (float64, bool) {
	v := slices.Clone(res[s])
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

// pairedRatio is the median, over the rounds, of a's figure over b's in the
// same round; the ratio of the medians when the rounds do not pair up.
func (res results) pairedRatio(a, b series) float64 {
	av, bv := res[a], res[b]
	if len(av) != len(bv) || len(av) == 0 {
		ma, _ := res.median(a)
		mb, _ := res.median(b)
		return ma / mb
	}
	ratios := make([]float64, len(av))
	for i := range av {
		ratios[i] = av[i] / bv[i]
	}
	k := series{metric: "ratio"}
	return results{k: ratios}.mustMedian(k)
}

func (res results) mustMedian(s series) float64 {
	m, _ := res.median(s)
	return m
}

// print writes the scoreboard and returns how many goals are missed or not
// measured.
func print(w io.Writer, goals []goal, res results) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "goal\tmeasured\tbaseline\tratio\tgoal\tresult")
	missed := 0
	for _, g := range goals {
		line, met := g.evaluate(res)
		if !met {
			missed++
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	return missed
}

// evaluate returns the goal's line and whether it is met.
func (g goal) evaluate(res results) (string, bool) {
	m, ok := res.median(g.measured)
	if !ok && g.needs != "" && os.Getenv(g.needs) == "" {
		return fmt.Sprintf("%s\tnot measured: %s is not set\t\t\t%s\tmissed", g.name, g.needs, g.goalText()), false
	}
	if !ok {
		return fmt.Sprintf("%s\tnot measured in this build (%s %s)\t\t\t%s\tmissed", g.name, g.measured.pkg, g.measured.bench, g.goalText()), false
	}
	measured := []string{format(m, g.measured.metric)}
	met := true
	for _, l := range g.limits {
		s := g.measured
		s.metric = l.metric
		v, ok := res.median(s)
		if !ok {
			met = false
			continue
		}
		if l.metric != g.measured.metric {
			measured = append(measured, format(v, l.metric))
		}
		met = met && l.holds(v)
	}
	base, ratio := "-", "-"
	if b, ok := res.median(g.baseline); ok {
		base = format(b, g.baseline.metric)
		r := res.pairedRatio(g.measured, g.baseline)
		if g.inverse {
			r = 1 / r
		}
		ratio = fmt.Sprintf("%.2f×", r)
		if g.ratio != nil {
			met = met && g.ratio.holds(r)
		}
	} else if g.ratio != nil {
		met = false
	}
	result := "met"
	switch {
	case !met:
		result = "missed"
	case g.ratio == nil && len(g.limits) == 0:
		result = "-" // a peer's figure beside ours, with no goal
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s", g.name, strings.Join(measured, ", "), base, ratio, g.goalText(), result), met
}

func (g goal) goalText() string {
	var parts []string
	for _, l := range g.limits {
		parts = append(parts, l.text)
	}
	if g.ratio != nil {
		parts = append(parts, g.ratio.text)
	}
	return strings.Join(parts, ", ")
}

// format renders a figure in its unit.
func format(v float64, metric string) string {
	switch {
	case strings.HasSuffix(metric, "µs"):
		v, metric = v*1e3, "ns/op"
	case strings.HasSuffix(metric, "MB-rss"):
		return fmt.Sprintf("%.1f MB RSS", v)
	case strings.HasSuffix(metric, "-cores"):
		return fmt.Sprintf("%.2f cores", v)
	case strings.HasSuffix(metric, "facts/s"):
		return fmt.Sprintf("%.0f facts/s", v)
	}
	switch {
	case metric == "ns/op" || strings.Contains(metric, "ns/"):
		switch {
		case v >= 1e9:
			return fmt.Sprintf("%.2f s", v/1e9)
		case v >= 1e6:
			return fmt.Sprintf("%.2f ms", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.2f µs", v/1e3)
		}
		return fmt.Sprintf("%.1f ns", v)
	case metric == "allocs/op":
		return fmt.Sprintf("%.0f allocs", v)
	case metric == "B/job":
		return fmt.Sprintf("%.0f B/job", v)
	case metric == "%core":
		return fmt.Sprintf("%.2f%% core", v)
	case metric == "ms-to-output":
		return fmt.Sprintf("%.0f ms to output", v)
	}
	return fmt.Sprintf("%g %s", v, metric)
}
