// Package emf writes CloudWatch Embedded Metric Format lines: one JSON
// object per line that CloudWatch Logs turns into metrics when a Lambda
// function prints it, with no CloudWatch API call. Each Lambda invocation
// collects its values in a Metrics and writes them once with Flush.
package emf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// Unit is a CloudWatch metric unit.
type Unit string

// The units the Lambdas use.
const (
	Count        Unit = "Count"
	Milliseconds Unit = "Milliseconds"
)

// Namespace is the CloudWatch namespace of the product's metrics.
const Namespace = "SlackApprovals"

// Dimension is a CloudWatch dimension: a name and its value.
type Dimension struct {
	Name, Value string
}

// maxMetrics is EMF's limit of metrics in one directive.
const maxMetrics = 100

// Logger writes the EMF lines of one function to w. Every line carries the
// Logger's dimensions. It is safe for concurrent use; each line is written
// with one Write call.
type Logger struct {
	namespace string
	dims      []Dimension
	// Now is the clock that stamps the lines; tests replace it.
	Now func() time.Time

	mu sync.Mutex
	w  io.Writer
}

// New returns a Logger writing to w metrics in namespace (such as
// "SlackApprovals") with dims (such as Function=name). Keep dims few: each
// distinct combination of values is a separate CloudWatch metric.
func New(w io.Writer, namespace string, dims ...Dimension) *Logger {
	return &Logger{namespace: namespace, dims: dims, Now: time.Now, w: w}
}

// Begin starts collecting the metrics of one invocation. A nil Logger
// returns a Metrics that records nothing.
func (l *Logger) Begin() *Metrics {
	return &Metrics{l: l}
}

// Metrics collects one invocation's values. It is not safe for concurrent
// use. The methods of a nil or Logger-less Metrics do nothing.
type Metrics struct {
	l      *Logger
	values []value
}

type value struct {
	name  string
	unit  Unit
	v     float64
	extra *Dimension // a dimension of its own beside the Logger's
}

// Count adds n to the count name (0 records a zero, which keeps the
// metric's Sum continuous).
func (m *Metrics) Count(name string, n int) {
	m.add(value{name: name, unit: Count, v: float64(n)})
}

// CountBy adds n to the count name with the extra dimension by, such as
// Reason=TIMED_OUT. Each distinct value of by is written on a line of its
// own.
func (m *Metrics) CountBy(name string, by Dimension, n int) {
	m.add(value{name: name, unit: Count, v: float64(n), extra: &by})
}

// Duration records d in milliseconds under name.
func (m *Metrics) Duration(name string, d time.Duration) {
	m.add(value{name: name, unit: Milliseconds, v: float64(d) / float64(time.Millisecond)})
}

func (m *Metrics) add(v value) {
	if m == nil || m.l == nil {
		return
	}
	for i, old := range m.values {
		if old.name == v.name && old.unit == v.unit && sameDim(old.extra, v.extra) {
			m.values[i].v += v.v
			return
		}
	}
	m.values = append(m.values, v)
}

func sameDim(a, b *Dimension) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// Flush writes the collected values: one line for the values without an
// extra dimension, then one line per extra dimension value, each ending in
// a newline. It returns the first error (a name that is empty or used
// twice on a line, more than 100 metrics on a line, a write error); the
// values are forgotten either way.
func (m *Metrics) Flush() error {
	if m == nil || m.l == nil || len(m.values) == 0 {
		return nil
	}
	values := m.values
	m.values = nil
	now := m.l.Now()
	var groups [][]value
	var keys []*Dimension
	for _, v := range values {
		i := slices.IndexFunc(keys, func(k *Dimension) bool { return sameDim(k, v.extra) })
		if i < 0 {
			keys, groups = append(keys, v.extra), append(groups, nil)
			i = len(keys) - 1
		}
		groups[i] = append(groups[i], v)
	}
	var out bytes.Buffer
	for i, g := range groups {
		line, err := m.l.line(now, keys[i], g)
		if err != nil {
			return err
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	if _, err := m.l.w.Write(out.Bytes()); err != nil {
		return fmt.Errorf("write EMF metrics: %w", err)
	}
	return nil
}

// line renders one EMF document: _aws first, then the dimension values,
// then the metric values, in the order recorded.
func (l *Logger) line(now time.Time, extra *Dimension, values []value) ([]byte, error) {
	dims := slices.Clone(l.dims)
	if extra != nil {
		dims = append(dims, *extra)
	}
	if len(values) > maxMetrics {
		return nil, fmt.Errorf("EMF: %d metrics on one line, at most %d", len(values), maxMetrics)
	}
	seen := map[string]bool{"_aws": true}
	names := make([]string, 0, len(dims))
	for _, d := range dims {
		if d.Name == "" || d.Value == "" || seen[d.Name] {
			return nil, fmt.Errorf("EMF: dimension %q=%q is empty or repeated", d.Name, d.Value)
		}
		seen[d.Name] = true
		names = append(names, d.Name)
	}
	type definition struct {
		Name string `json:"Name"`
		Unit Unit   `json:"Unit"`
	}
	defs := make([]definition, 0, len(values))
	for _, v := range values {
		if v.name == "" || seen[v.name] {
			return nil, fmt.Errorf("EMF: metric name %q is empty or repeated", v.name)
		}
		seen[v.name] = true
		defs = append(defs, definition{Name: v.name, Unit: v.unit})
	}
	type directive struct {
		Namespace  string       `json:"Namespace"`
		Dimensions [][]string   `json:"Dimensions"`
		Metrics    []definition `json:"Metrics"`
	}
	meta := struct {
		Timestamp         int64       `json:"Timestamp"`
		CloudWatchMetrics []directive `json:"CloudWatchMetrics"`
	}{
		Timestamp:         now.UnixMilli(),
		CloudWatchMetrics: []directive{{Namespace: l.namespace, Dimensions: [][]string{names}, Metrics: defs}},
	}
	var b bytes.Buffer
	b.WriteString(`{"_aws":`)
	if err := writeJSON(&b, meta); err != nil {
		return nil, err
	}
	for _, d := range dims {
		if err := member(&b, d.Name, d.Value); err != nil {
			return nil, err
		}
	}
	for _, v := range values {
		if err := member(&b, v.name, v.v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func member(b *bytes.Buffer, name string, v any) error {
	b.WriteByte(',')
	if err := writeJSON(b, name); err != nil {
		return err
	}
	b.WriteByte(':')
	return writeJSON(b, v)
}

func writeJSON(b *bytes.Buffer, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("EMF: %w", err)
	}
	b.Write(raw)
	return nil
}
