package metrics

import (
	"bufio"
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape writes r and parses it with Prometheus's own text parser, strict
// about names: what a Prometheus server reads.
func scrape(t *testing.T, r *Registry) map[string]*dto.MetricFamily {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(bufio.NewWriter(&b)); err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatalf("Prometheus cannot parse what was written: %v\n%s", err, b.String())
	}
	return fams
}

func labelsOf(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func TestCountersGaugesAndFuncsAsPrometheusReadsThem(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	plain := NewCounter("test_plain_total", "A counter.\nWith a second line and a \\ backslash.")
	byKind := NewCounterVec("test_by_kind_total", "By kind.", "kind", "result")
	open := NewGaugeVec("test_open", "Open things.", "age")
	reads := 0
	ready := NewGaugeFunc("test_ready", "Read when written.", func() float64 { reads++; return 1 })
	calls := NewCounterFuncVec("test_calls_total", "Read when written, by op.", "operation", func() map[string]float64 {
		return map[string]float64{"PutItem": 3, "GetItem": 2}
	})
	if err := r.Register(plain, byKind, open, ready, calls); err != nil {
		t.Fatal(err)
	}
	plain.Inc()
	plain.Add(2.5)
	plain.Add(-7) // ignored: counters only go up
	byKind.With("click", "ok").Inc()
	byKind.With("click", "ok").Inc()
	byKind.With(`quote " back \ line`+"\n", "failed").Add(4)
	byKind.With("idle", "ok") // exists at 0 from first use
	open.With("under_1h").Set(5)
	open.With("under_1h").Set(3)

	fams := scrape(t, r)
	if got := fams["test_plain_total"]; got.GetType() != dto.MetricType_COUNTER || got.GetMetric()[0].GetCounter().GetValue() != 3.5 ||
		got.GetHelp() != "A counter.\nWith a second line and a \\ backslash." {
		t.Errorf("plain counter = %v", got)
	}
	want := map[string]float64{"click/ok": 2, "quote \" back \\ line\n/failed": 4, "idle/ok": 0}
	got := map[string]float64{}
	for _, m := range fams["test_by_kind_total"].GetMetric() {
		l := labelsOf(m)
		got[l["kind"]+"/"+l["result"]] = m.GetCounter().GetValue()
	}
	if len(got) != len(want) {
		t.Errorf("counter vec = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("counter %q = %v, want %v", k, got[k], v)
		}
	}
	if m := fams["test_open"].GetMetric(); len(m) != 1 || m[0].GetGauge().GetValue() != 3 {
		t.Errorf("gauge vec = %v", m)
	}
	if m := fams["test_ready"].GetMetric(); len(m) != 1 || m[0].GetGauge().GetValue() != 1 || reads != 1 {
		t.Errorf("gauge func = %v after %d reads", m, reads)
	}
	ops := map[string]float64{}
	for _, m := range fams["test_calls_total"].GetMetric() {
		ops[labelsOf(m)["operation"]] = m.GetCounter().GetValue()
	}
	if ops["PutItem"] != 3 || ops["GetItem"] != 2 || len(ops) != 2 || fams["test_calls_total"].GetType() != dto.MetricType_COUNTER {
		t.Errorf("counter funcs = %v", ops)
	}
}

func TestHistogramBucketsAreCumulativeAndInclusive(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	h := NewHistogram("test_seconds", "Durations.", []float64{0.0005, 0.01, 1, 86400})
	if err := r.Register(h); err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{0.0001, 0.0005, 0.002, 1, 2, 100000} {
		h.Observe(v)
	}
	got := scrape(t, r)["test_seconds"].GetMetric()[0].GetHistogram()
	want := map[float64]uint64{0.0005: 2, 0.01: 3, 1: 4, 86400: 5, math.Inf(1): 6}
	if len(got.GetBucket()) != len(want) {
		t.Fatalf("buckets = %v", got.GetBucket())
	}
	for _, b := range got.GetBucket() {
		if b.GetCumulativeCount() != want[b.GetUpperBound()] {
			t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want[b.GetUpperBound()])
		}
	}
	if got.GetSampleCount() != 6 || math.Abs(got.GetSampleSum()-100003.0026) > 1e-6 || h.Count() != 6 {
		t.Errorf("count %d sum %v", got.GetSampleCount(), got.GetSampleSum())
	}
}

func TestRegisterRefusesADuplicateAndAddsNothing(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	if err := r.Register(NewCounter("test_a_total", "A.")); err != nil {
		t.Fatal(err)
	}
	err := r.Register(NewCounter("test_b_total", "B."), NewGaugeVec("test_a_total", "A again.", "x"))
	if err == nil || !strings.Contains(err.Error(), "test_a_total is already registered") {
		t.Errorf("duplicate = %v", err)
	}
	if err := r.Register(NewCounter("test_b_total", "B.")); err != nil {
		t.Errorf("test_b_total was half-registered by the refused call: %v", err)
	}
	if err := r.Register(NewGoMetrics(), NewGoMetrics()); err == nil {
		t.Error("two Go families registered")
	}
}

func TestInvalidNamesAndLabelCountsPanic(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"metric name":       func() { NewCounter("2bad", "") },
		"label name":        func() { NewCounterVec("ok_total", "", "bad-label") },
		"reserved label":    func() { NewCounterVec("ok_total", "", "le") },
		"unsorted buckets":  func() { NewHistogram("ok_seconds", "", []float64{1, 0.5}) },
		"infinite bucket":   func() { NewHistogram("ok_seconds", "", []float64{1, math.Inf(1)}) },
		"too few values":    func() { NewCounterVec("ok_total", "", "a", "b").With("x") },
		"too many values":   func() { NewGaugeVec("ok", "", "a").With("x", "y") },
		"double underscore": func() { NewGaugeVec("ok", "", "__a") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestConcurrentUpdatesAndScrapes(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	c := NewCounterVec("test_total", "T.", "worker")
	h := NewHistogram("test_seconds", "T.", []float64{1})
	if err := r.Register(c, h); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for range 1000 {
				c.With(string(rune('a' + w%2))).Inc()
				h.Observe(0.5)
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			scrape(t, r)
		}
	})
	wg.Wait()
	fams := scrape(t, r)
	var total float64
	for _, m := range fams["test_total"].GetMetric() {
		total += m.GetCounter().GetValue()
	}
	if total != 8000 || fams["test_seconds"].GetMetric()[0].GetHistogram().GetSampleCount() != 8000 {
		t.Errorf("total %v, histogram %v", total, fams["test_seconds"])
	}
}

func TestGoAndProcessMetrics(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	if err := r.Register(NewGoMetrics(), NewProcessMetrics()); err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, r)
	gauge := func(name string) float64 {
		f, ok := fams[name]
		if !ok || len(f.GetMetric()) != 1 {
			t.Fatalf("%s missing: %v", name, f)
		}
		m := f.GetMetric()[0]
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue()
		}
		return math.NaN()
	}
	for _, name := range append((goFamily{}).names(), (processFamily{}).names()...) {
		if _, ok := fams[name]; !ok {
			t.Errorf("%s not written", name)
		}
	}
	if g := gauge("go_goroutines"); g < 1 {
		t.Errorf("go_goroutines = %v", g)
	}
	if v := gauge("go_memstats_heap_alloc_bytes"); v <= 0 {
		t.Errorf("heap = %v", v)
	}
	if v := gauge("go_sched_gomaxprocs_threads"); v < 1 {
		t.Errorf("gomaxprocs = %v", v)
	}
	if s := fams["go_gc_duration_seconds"]; s.GetType() != dto.MetricType_SUMMARY || len(s.GetMetric()[0].GetSummary().GetQuantile()) != 5 {
		t.Errorf("go_gc_duration_seconds = %v", s)
	}
	if rss := gauge("process_resident_memory_bytes"); rss < 1<<20 || rss > 1<<34 {
		t.Errorf("rss = %v", rss)
	}
	if start := gauge("process_start_time_seconds"); math.Abs(float64(time.Now().Unix())-start) > 3600 {
		t.Errorf("start time %v is not within an hour of now", start)
	}
	if fds := gauge("process_open_fds"); fds < 3 || fds > gauge("process_max_fds") {
		t.Errorf("open fds %v, max %v", fds, gauge("process_max_fds"))
	}
}

func TestProcessStatWithAnAwkwardCommandName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "self", "fd"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Fields 3..24 after a command name holding ") (" and spaces.
	stat := "42 (a) (b c) S 1 42 42 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 7 0 1000 123456789 300 18446744073709551615\n"
	files := map[string]string{
		"self/stat":   stat,
		"stat":        "cpu  1 2 3\nbtime 1700000000\nprocesses 9\n",
		"self/limits": "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\nMax address space         unlimited            unlimited            bytes\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := NewRegistry()
	if err := r.Register(processFamily{proc: dir}); err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, r)
	want := map[string]float64{
		"process_cpu_seconds_total":        4,
		"process_start_time_seconds":       1700000010,
		"process_virtual_memory_bytes":     123456789,
		"process_resident_memory_bytes":    300 * float64(os.Getpagesize()),
		"process_open_fds":                 0,
		"process_max_fds":                  1024,
		"process_virtual_memory_max_bytes": float64(^uint64(0)),
	}
	for name, v := range want {
		f := fams[name]
		if f == nil {
			t.Errorf("%s missing", name)
			continue
		}
		m := f.GetMetric()[0]
		got := m.GetGauge().GetValue() + m.GetCounter().GetValue()
		if got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
}

func TestNoProcWritesNoProcessSeries(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	if err := r.Register(processFamily{proc: filepath.Join(t.TempDir(), "missing")}, NewCounter("test_total", "T.")); err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, r)
	if len(fams) != 1 || fams["test_total"] == nil {
		t.Errorf("families = %v", fams)
	}
}

// TestProcessCPU runs alone: getrusage, read just after, must see the
// same process with no other test burning CPU in between.
func TestProcessCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	got, err := ProcessCPU(os.Getpid())
	var ru syscall.Rusage
	if rerr := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); rerr != nil {
		t.Fatal(rerr)
	}
	want := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	// The kernel's ticks are 10 ms; getrusage, read just after, is exact.
	if err != nil || got > want+10*time.Millisecond || got < want-30*time.Millisecond {
		t.Errorf("ProcessCPU(self) = %v, %v; getrusage says %v", got, err, want)
	}
	if _, err := ProcessCPU(-1); err == nil {
		t.Error("ProcessCPU(-1) returned no error")
	}
}

func TestServeHTTP(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	c := NewCounter("test_total", "T.")
	if err := r.Register(c); err != nil {
		t.Fatal(err)
	}
	c.Inc()
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); ct != ContentType {
		t.Errorf("content type %q", ct)
	}
	if want := "# HELP test_total T.\n# TYPE test_total counter\ntest_total 1\n"; rec.Body.String() != want {
		t.Errorf("body %q, want %q", rec.Body.String(), want)
	}
}
