package pyclient_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkPythonDecode runs tools/python/bench.py, which decodes each
// follow frame and fact the wire and the journal carry with the generated
// Python package and parses it with json.loads alone, in interleaved runs.
// It reports the sum over the documents of each side's median (µs per set
// of documents, one of each) and the worst document's ratio, so that
// make scoreboard can set the decoders against the parser in the same run.
// One op is one run of the script; run it with -benchtime 1x.
func BenchmarkPythonDecode(b *testing.B) {
	py := requirePython(b)
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	var loads, generated, worst float64
	for range b.N {
		cmd := exec.Command(py, filepath.Join(root, "tools/python/bench.py"))
		cmd.Env = append(os.Environ(),
			"PYTHONPATH="+filepath.Join(root, "generated/python"),
			"PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("bench.py: %v\n%s", err, out)
		}
		l, g, w, n := parsePyBench(out)
		if n == 0 {
			b.Fatalf("bench.py printed no document's figures:\n%s", out)
		}
		loads, generated, worst = loads+l, generated+g, max(worst, w)
	}
	b.ReportMetric(loads/float64(b.N), "loads-us/set")
	b.ReportMetric(generated/float64(b.N), "generated-us/set")
	b.ReportMetric(worst, "worst-ratio")
}

// parsePyBench reads bench.py's table, a line per document ending
// "<json.loads>µs <generated>µs <ratio>x", and returns the sums of the two
// columns, the largest ratio and how many documents it read.
func parsePyBench(out []byte) (loads, generated, worst float64, n int) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || !strings.HasSuffix(f[len(f)-1], "x") {
			continue
		}
		l, err1 := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-3], "µs"), 64)
		g, err2 := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-2], "µs"), 64)
		r, err3 := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-1], "x"), 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		loads, generated, worst, n = loads+l, generated+g, max(worst, r), n+1
	}
	return loads, generated, worst, n
}

func TestParsePyBench(t *testing.T) {
	out := []byte("load average 0.10; 7 interleaved runs of 2000 decodes each; medians\n" +
		"document                               json.loads    generated   ratio\n" +
		"opened frame                                3.0µs        5.1µs    1.7x\n" +
		"output frame, 32 chunks                    40.0µs       76.0µs    1.9x\n")
	l, g, w, n := parsePyBench(out)
	if n != 2 || l != 43 || g != 81.1 || w != 1.9 {
		t.Fatalf("parsePyBench = %v, %v, %v, %d; want 43, 81.1, 1.9, 2", l, g, w, n)
	}
}
