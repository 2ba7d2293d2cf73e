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
// It reports the sum over the documents at their newest version of each
// side's median (µs per set of documents, one of each), the worst of their
// ratios, and apart from them what an older fact's upcast costs against
// json.loads of it, so that make scoreboard can set the decoders against
// the parser in the same run.
// One op is one run of the script; run it with -benchtime 1x.
func BenchmarkPythonDecode(b *testing.B) {
	py := requirePython(b)
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	var loads, generated, worst, upLoads, upGenerated float64
	for range b.N {
		cmd := exec.Command(py, filepath.Join(root, "tools/python/bench.py"))
		cmd.Env = append(os.Environ(),
			"PYTHONPATH="+filepath.Join(root, "generated/python"),
			"PYTHONDONTWRITEBYTECODE=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("bench.py: %v\n%s", err, out)
		}
		p := parsePyBench(out)
		if p.documents == 0 || p.upcasts == 0 {
			b.Fatalf("bench.py printed %d documents' and %d upcasts' figures:\n%s", p.documents, p.upcasts, out)
		}
		loads, generated, worst = loads+p.loads, generated+p.generated, max(worst, p.worst)
		upLoads, upGenerated = upLoads+p.upcastLoads, upGenerated+p.upcastGenerated
	}
	b.ReportMetric(loads/float64(b.N), "loads-us/set")
	b.ReportMetric(generated/float64(b.N), "generated-us/set")
	b.ReportMetric(worst, "worst-ratio")
	b.ReportMetric(upLoads/float64(b.N), "upcast-loads-us")
	b.ReportMetric(upGenerated/float64(b.N), "upcast-generated-us")
}

// pyBench is what one run of bench.py printed.
type pyBench struct {
	loads, generated float64 // sums of the medians, µs, over the newest versions' documents
	worst            float64 // the largest of their ratios
	documents        int
	// upcastLoads and upcastGenerated sum the rows of older fact versions,
	// whose names say "upcast".
	upcastLoads, upcastGenerated float64
	upcasts                      int
}

// parsePyBench reads bench.py's table, a line per document ending
// "<json.loads>µs <generated>µs <ratio>x".
func parsePyBench(out []byte) pyBench {
	var p pyBench
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasSuffix(f[len(f)-1], "x") {
			continue
		}
		l, err1 := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-3], "µs"), 64)
		g, err2 := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-2], "µs"), 64)
		r, err3 := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-1], "x"), 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		if strings.Contains(sc.Text(), "upcast") {
			p.upcastLoads, p.upcastGenerated, p.upcasts = p.upcastLoads+l, p.upcastGenerated+g, p.upcasts+1
			continue
		}
		p.loads, p.generated, p.worst, p.documents = p.loads+l, p.generated+g, max(p.worst, r), p.documents+1
	}
	return p
}

func TestParsePyBench(t *testing.T) {
	out := []byte("load average 0.10; 7 interleaved runs of 2000 decodes each; medians\n" +
		"document                               json.loads    generated   ratio\n" +
		"opened frame                                3.0µs        5.1µs    1.7x\n" +
		"output frame, 32 chunks                    40.0µs       76.0µs    1.9x\n" +
		"job/settled v2 fact, upcast to v3           9.0µs       63.0µs    7.0x\n")
	got := parsePyBench(out)
	want := pyBench{loads: 43, generated: 81.1, worst: 1.9, documents: 2, upcastLoads: 9, upcastGenerated: 63, upcasts: 1}
	if got != want {
		t.Fatalf("parsePyBench = %+v; want %+v", got, want)
	}
}
