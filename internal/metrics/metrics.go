// Package metrics keeps counters, gauges and histograms and serves them in
// the Prometheus text exposition format (version 0.0.4), with the Go
// runtime's and the process's own series: what the bot's /metrics needs,
// without a client library's code and memory in the binary.
package metrics

import (
	"bufio"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// ContentType is the media type of what a Registry writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Family is one or more metric families a Registry writes together.
// NewCounter, NewGaugeFunc, NewHistogram and the others make them.
type Family interface {
	names() []string
	write(w *bufio.Writer)
}

// Registry writes the families registered with it, in the order they were
// registered. It is safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	families []Family
	names    map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

// Register adds families. It refuses, adding none of them, a family whose
// name is already registered.
func (r *Registry) Register(fs ...Family) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, f := range fs {
		for _, n := range f.names() {
			if r.names[n] || seen[n] {
				return fmt.Errorf("metric %s is already registered", n)
			}
			seen[n] = true
		}
	}
	for n := range seen {
		r.names[n] = true
	}
	r.families = append(r.families, fs...)
	return nil
}

// Write writes every registered family to w in the text format.
func (r *Registry) Write(w *bufio.Writer) error {
	r.mu.Lock()
	fs := slices.Clone(r.families)
	r.mu.Unlock()
	for _, f := range fs {
		f.write(w)
	}
	return w.Flush()
}

// ServeHTTP answers with every registered family in the text format.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	_ = r.Write(bufio.NewWriter(w))
}

var (
	validName  = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	validLabel = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// desc is what every family has: its name, help, type and label names.
type desc struct {
	name, help, kind string
	labels           []string
}

func newDesc(name, help, kind string, labels []string) desc {
	if !validName.MatchString(name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", name))
	}
	for _, l := range labels {
		if !validLabel.MatchString(l) || strings.HasPrefix(l, "__") || l == "le" || l == "quantile" {
			panic(fmt.Sprintf("metrics: invalid label name %q for %s", l, name))
		}
	}
	return desc{name: name, help: help, kind: kind, labels: labels}
}

func (d desc) names() []string { return []string{d.name} }

func (d desc) header(w *bufio.Writer) {
	w.WriteString("# HELP ")
	w.WriteString(d.name)
	w.WriteByte(' ')
	w.WriteString(helpEscaper.Replace(d.help))
	w.WriteString("\n# TYPE ")
	w.WriteString(d.name)
	w.WriteByte(' ')
	w.WriteString(d.kind)
	w.WriteByte('\n')
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// sample writes one line: name{labels="values",extra="value"} v.
func sample(w *bufio.Writer, name string, labels, values []string, extra, extraValue string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 || extra != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l)
			w.WriteString(`="`)
			w.WriteString(labelEscaper.Replace(values[i]))
			w.WriteByte('"')
		}
		if extra != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(extra)
			w.WriteString(`="`)
			w.WriteString(extraValue)
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, +1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// value is a float64 updated atomically.
type value struct{ bits atomic.Uint64 }

func (v *value) load() float64   { return math.Float64frombits(v.bits.Load()) }
func (v *value) store(f float64) { v.bits.Store(math.Float64bits(f)) }
func (v *value) add(f float64) {
	for {
		old := v.bits.Load()
		if v.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+f)) {
			return
		}
	}
}

// Counter is a value that only goes up: a family of its own (NewCounter)
// or one series of a CounterVec.
type Counter struct {
	desc
	v value
}

// NewCounter returns a counter family without labels.
func NewCounter(name, help string) *Counter {
	return &Counter{desc: newDesc(name, help, "counter", nil)}
}

// Inc adds 1.
func (c *Counter) Inc() { c.v.add(1) }

// Add adds n, which must not be negative: a negative n is ignored.
func (c *Counter) Add(n float64) {
	if n > 0 {
		c.v.add(n)
	}
}

// Value is the counter's value.
func (c *Counter) Value() float64 { return c.v.load() }

func (c *Counter) write(w *bufio.Writer) {
	c.header(w)
	sample(w, c.name, nil, nil, "", "", c.Value())
}

// Gauge is a value that goes up and down: one series of a GaugeVec.
type Gauge struct{ v value }

// Set sets the gauge to f.
func (g *Gauge) Set(f float64) { g.v.store(f) }

// Value is the gauge's value.
func (g *Gauge) Value() float64 { return g.v.load() }

// vec keeps one series of T per combination of label values, and writes
// each with the value value reads from it.
type vec[T any] struct {
	desc
	value  func(*T) float64
	mu     sync.RWMutex
	series map[string]*T
	keys   map[string][]string
}

func newVec[T any](d desc, value func(*T) float64) *vec[T] {
	return &vec[T]{desc: d, value: value, series: map[string]*T{}, keys: map[string][]string{}}
}

// with returns the series for values, creating it on first use. It panics
// when the number of values is not the number of labels (a programming
// error, as in any Prometheus client).
func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metrics: %s has %d labels, got %d values", v.name, len(v.labels), len(values)))
	}
	key := strings.Join(values, "\xff")
	v.mu.RLock()
	s := v.series[key]
	v.mu.RUnlock()
	if s != nil {
		return s
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s = v.series[key]; s == nil {
		s = new(T)
		v.series[key] = s
		v.keys[key] = slices.Clone(values)
	}
	return s
}

func (v *vec[T]) write(w *bufio.Writer) {
	v.mu.RLock()
	keys := make([]string, 0, len(v.series))
	for k := range v.series {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	values := make([][]string, len(keys))
	series := make([]*T, len(keys))
	for i, k := range keys {
		values[i], series[i] = v.keys[k], v.series[k]
	}
	v.mu.RUnlock()
	v.header(w)
	for i := range keys {
		sample(w, v.name, v.labels, values[i], "", "", v.value(series[i]))
	}
}

// CounterVec is a counter per combination of label values.
type CounterVec struct{ *vec[Counter] }

// NewCounterVec returns a counter family with the given label names. It
// panics on a name Prometheus would refuse.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{newVec(newDesc(name, help, "counter", labels), (*Counter).Value)}
}

// With returns the counter of these label values, in the order of the
// label names, creating it (at 0) on first use.
func (c *CounterVec) With(values ...string) *Counter { return c.with(values) }

// GaugeVec is a gauge per combination of label values.
type GaugeVec struct{ *vec[Gauge] }

// NewGaugeVec returns a gauge family with the given label names.
func NewGaugeVec(name, help string, labels ...string) *GaugeVec {
	return &GaugeVec{newVec(newDesc(name, help, "gauge", labels), (*Gauge).Value)}
}

// With returns the gauge of these label values, creating it (at 0) on
// first use.
func (g *GaugeVec) With(values ...string) *Gauge { return g.with(values) }

// funcFamily is a family whose values are read when it is written.
type funcFamily struct {
	desc
	read func() map[string]float64 // by the value of the one label, or "" without labels
}

func (f funcFamily) write(w *bufio.Writer) {
	f.header(w)
	got := f.read()
	keys := make([]string, 0, len(got))
	for k := range got {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if len(f.labels) == 0 {
			sample(w, f.name, nil, nil, "", "", got[k])
		} else {
			sample(w, f.name, f.labels, []string{k}, "", "", got[k])
		}
	}
}

// NewGaugeFunc returns a gauge whose value is read from read each time it
// is written.
func NewGaugeFunc(name, help string, read func() float64) Family {
	return funcFamily{newDesc(name, help, "gauge", nil), func() map[string]float64 { return map[string]float64{"": read()} }}
}

// NewCounterFuncVec returns a counter family with one label whose series
// and values, by label value, are read from read each time it is written.
func NewCounterFuncVec(name, help, label string, read func() map[string]float64) Family {
	return funcFamily{newDesc(name, help, "counter", []string{label}), read}
}

// Histogram counts observations in buckets.
type Histogram struct {
	desc
	upper []float64 // bucket upper bounds, ascending, without +Inf

	mu     sync.Mutex
	counts []uint64 // per bucket, the last one +Inf
	sum    float64
	count  uint64
}

// NewHistogram returns a histogram with the given bucket upper bounds,
// which must ascend (+Inf is added).
func NewHistogram(name, help string, buckets []float64) *Histogram {
	if !slices.IsSorted(buckets) || slices.ContainsFunc(buckets, func(b float64) bool { return math.IsNaN(b) || math.IsInf(b, 0) }) {
		panic(fmt.Sprintf("metrics: %s buckets must ascend and be finite: %v", name, buckets))
	}
	return &Histogram{
		desc:   newDesc(name, help, "histogram", nil),
		upper:  slices.Clone(buckets),
		counts: make([]uint64, len(buckets)+1),
	}
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.upper, v) // the first bound ≥ v: le is inclusive
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.count++
	h.mu.Unlock()
}

// Count is the number of observations.
func (h *Histogram) Count() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count
}

func (h *Histogram) write(w *bufio.Writer) {
	h.mu.Lock()
	counts, sum, count := slices.Clone(h.counts), h.sum, h.count
	h.mu.Unlock()
	h.header(w)
	var cumulative uint64
	for i, n := range counts {
		cumulative += n
		le := "+Inf"
		if i < len(h.upper) {
			le = formatFloat(h.upper[i])
		}
		sample(w, h.name+"_bucket", nil, nil, "le", le, float64(cumulative))
	}
	sample(w, h.name+"_sum", nil, nil, "", "", sum)
	sample(w, h.name+"_count", nil, nil, "", "", float64(count))
}

// Compile-time checks that every family type can be registered.
var (
	_ Family = (*Counter)(nil)
	_ Family = (*CounterVec)(nil)
	_ Family = (*GaugeVec)(nil)
	_ Family = (*Histogram)(nil)
	_ Family = funcFamily{}
)
