package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// goFamily is the Go runtime's series, under the names Prometheus's Go
// client gives them (go_goroutines, go_memstats_*, go_gc_duration_seconds…),
// so dashboards built for Go services work unchanged.
type goFamily struct{}

// NewGoMetrics returns the Go runtime's families: goroutines, threads,
// version, GC pauses, memory statistics and GC settings.
func NewGoMetrics() Family { return goFamily{} }

var memstats = []struct {
	name, help, kind string
	read             func(*runtime.MemStats) float64
}{
	{"alloc_bytes", "Bytes of allocated heap objects.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.Alloc) }},
	{"alloc_bytes_total", "Total bytes allocated for heap objects, even if freed.", "counter", func(m *runtime.MemStats) float64 { return float64(m.TotalAlloc) }},
	{"sys_bytes", "Bytes of memory obtained from the OS.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.Sys) }},
	{"mallocs_total", "Total heap objects allocated.", "counter", func(m *runtime.MemStats) float64 { return float64(m.Mallocs) }},
	{"frees_total", "Total heap objects freed.", "counter", func(m *runtime.MemStats) float64 { return float64(m.Frees) }},
	{"heap_alloc_bytes", "Bytes of allocated heap objects.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.HeapAlloc) }},
	{"heap_sys_bytes", "Bytes of heap memory obtained from the OS.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.HeapSys) }},
	{"heap_idle_bytes", "Bytes in idle (unused) heap spans.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.HeapIdle) }},
	{"heap_inuse_bytes", "Bytes in in-use heap spans.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.HeapInuse) }},
	{"heap_released_bytes", "Bytes of physical memory returned to the OS.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.HeapReleased) }},
	{"heap_objects", "Number of allocated heap objects.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.HeapObjects) }},
	{"stack_inuse_bytes", "Bytes in stack spans.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.StackInuse) }},
	{"stack_sys_bytes", "Bytes of stack memory obtained from the OS.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.StackSys) }},
	{"mspan_inuse_bytes", "Bytes of allocated mspan structures.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.MSpanInuse) }},
	{"mspan_sys_bytes", "Bytes of memory obtained from the OS for mspan structures.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.MSpanSys) }},
	{"mcache_inuse_bytes", "Bytes of allocated mcache structures.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.MCacheInuse) }},
	{"mcache_sys_bytes", "Bytes of memory obtained from the OS for mcache structures.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.MCacheSys) }},
	{"buck_hash_sys_bytes", "Bytes of memory in profiling bucket hash tables.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.BuckHashSys) }},
	{"gc_sys_bytes", "Bytes of memory in garbage collection metadata.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.GCSys) }},
	{"other_sys_bytes", "Bytes of memory in miscellaneous off-heap runtime allocations.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.OtherSys) }},
	{"next_gc_bytes", "Heap size target for the next GC cycle.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.NextGC) }},
	{"last_gc_time_seconds", "Time the last garbage collection finished, in seconds since 1970.", "gauge", func(m *runtime.MemStats) float64 { return float64(m.LastGC) / 1e9 }},
}

var runtimeSettings = []struct{ name, help, key string }{
	{"go_gc_gogc_percent", "Heap size target percentage configured by GOGC or debug.SetGCPercent.", "/gc/gogc:percent"},
	{"go_gc_gomemlimit_bytes", "Go runtime memory limit configured by GOMEMLIMIT or debug.SetMemoryLimit.", "/gc/gomemlimit:bytes"},
	{"go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting.", "/sched/gomaxprocs:threads"},
}

func (goFamily) names() []string {
	n := []string{"go_goroutines", "go_threads", "go_info", "go_gc_duration_seconds"}
	for _, m := range memstats {
		n = append(n, "go_memstats_"+m.name)
	}
	for _, s := range runtimeSettings {
		n = append(n, s.name)
	}
	return n
}

func (goFamily) write(w *bufio.Writer) {
	gauge := func(name, help string, v float64) {
		desc{name: name, help: help, kind: "gauge"}.header(w)
		sample(w, name, nil, nil, "", "", v)
	}
	gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	gauge("go_threads", "Number of OS threads created.", float64(threads))
	desc{name: "go_info", help: "Information about the Go environment.", kind: "gauge"}.header(w)
	sample(w, "go_info", []string{"version"}, []string{runtime.Version()}, "", "", 1)

	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	desc{name: "go_gc_duration_seconds", help: "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", kind: "summary"}.header(w)
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		sample(w, "go_gc_duration_seconds", nil, nil, "quantile", q, gc.PauseQuantiles[i].Seconds())
	}
	sample(w, "go_gc_duration_seconds_sum", nil, nil, "", "", gc.PauseTotal.Seconds())
	sample(w, "go_gc_duration_seconds_count", nil, nil, "", "", float64(gc.NumGC))

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, m := range memstats {
		name := "go_memstats_" + m.name
		desc{name: name, help: m.help, kind: m.kind}.header(w)
		sample(w, name, nil, nil, "", "", m.read(&ms))
	}

	samples := make([]rtmetrics.Sample, len(runtimeSettings))
	for i, s := range runtimeSettings {
		samples[i].Name = s.key
	}
	rtmetrics.Read(samples)
	for i, s := range runtimeSettings {
		if samples[i].Value.Kind() == rtmetrics.KindUint64 {
			gauge(s.name, s.help, float64(samples[i].Value.Uint64()))
		}
	}
}

// processFamily is the process's own series from /proc/self, under the
// names Prometheus's clients give them. Where /proc cannot be read (not
// Linux), it writes nothing.
type processFamily struct {
	proc string // the /proc folder
}

// NewProcessMetrics returns the process's families: CPU time, memory,
// file descriptors and start time, read from /proc/self.
func NewProcessMetrics() Family { return processFamily{proc: "/proc"} }

func (processFamily) names() []string {
	return []string{"process_cpu_seconds_total", "process_open_fds", "process_max_fds", "process_virtual_memory_bytes",
		"process_virtual_memory_max_bytes", "process_resident_memory_bytes", "process_start_time_seconds"}
}

// userHZ is the unit of the times in /proc/<pid>/stat (USER_HZ, 100 on
// every Linux Go supports).
const userHZ = 100

func (p processFamily) write(w *bufio.Writer) {
	series := func(name, help, kind string, v float64) {
		desc{name: name, help: help, kind: kind}.header(w)
		sample(w, name, nil, nil, "", "", v)
	}
	if st, err := p.stat(); err == nil {
		series("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter", float64(st.ticks)/userHZ)
		series("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge", st.vsize)
		series("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge", st.rss)
		if boot, err := p.bootTime(); err == nil {
			series("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge", boot+st.start)
		}
	}
	if fds, err := os.ReadDir(p.proc + "/self/fd"); err == nil {
		series("process_open_fds", "Number of open file descriptors.", "gauge", float64(len(fds)))
	}
	if lim, err := os.ReadFile(p.proc + "/self/limits"); err == nil {
		if v, ok := softLimit(lim, "Max open files"); ok {
			series("process_max_fds", "Maximum number of open file descriptors.", "gauge", v)
		}
		if v, ok := softLimit(lim, "Max address space"); ok {
			series("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", "gauge", v)
		}
	}
}

type procStat struct {
	ticks             int64 // user and system CPU, in USER_HZ ticks
	vsize, rss, start float64
}

// stat reads /proc/self/stat.
func (p processFamily) stat() (procStat, error) { return readStat(p.proc + "/self/stat") }

// ProcessCPU is the user and system CPU time the process with the PID has
// spent, from /proc/<pid>/stat (Linux only), in USER_HZ ticks (10 ms).
func ProcessCPU(pid int) (time.Duration, error) {
	st, err := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return time.Duration(st.ticks) * time.Second / userHZ, nil
}

// readStat reads a /proc/<pid>/stat file: the fields after the command
// name (which may hold spaces and parentheses, so it is skipped up to its
// last ')').
func readStat(path string) (procStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, os.ErrInvalid
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 22 {
		return procStat{}, os.ErrInvalid
	}
	num := func(field int) float64 {
		v, _ := strconv.ParseFloat(f[field-3], 64)
		return v
	}
	return procStat{
		ticks: int64(num(14) + num(15)),
		start: num(22) / userHZ,
		vsize: num(23),
		rss:   num(24) * float64(os.Getpagesize()),
	}, nil
}

// bootTime reads the boot time (btime) from /proc/stat, in seconds since 1970.
func (p processFamily) bootTime() (float64, error) {
	b, err := os.ReadFile(p.proc + "/stat")
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, os.ErrNotExist
}

// softLimit reads a soft limit from /proc/self/limits; "unlimited" is the
// largest uint64, as Prometheus's clients report it.
func softLimit(limits []byte, name string) (float64, bool) {
	for line := range strings.SplitSeq(string(limits), "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		if f[0] == "unlimited" {
			return float64(^uint64(0)), true
		}
		v, err := strconv.ParseFloat(f[0], 64)
		return v, err == nil
	}
	return 0, false
}
