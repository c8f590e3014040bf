package jsonata

import (
	"context"
	"fmt"
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// stepFunctionsInput is a Step Functions state input with n items.
func stepFunctionsInput(n int) any {
	items := make([]any, n)
	for i := range items {
		items[i] = jsonvalue.ObjectOf(
			"id", fmt.Sprintf("item-%d", i),
			"price", float64(i%20)+0.5,
			"qty", float64(i%3+1),
		)
	}
	return jsonvalue.ObjectOf("items", items)
}

const benchExpr = `$states.input.items[price > 10].{"id": id, "total": price * qty}`

func benchBindings(input any) map[string]any {
	return map[string]any{"states": jsonvalue.ObjectOf("input", input)}
}

func BenchmarkEvaluate(b *testing.B) {
	expr, err := Parse(benchExpr)
	if err != nil {
		b.Fatal(err)
	}
	bindings := benchBindings(stepFunctionsInput(100))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := expr.Evaluate(Undefined, bindings, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(benchExpr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateStoppable is BenchmarkEvaluate with a context that can
// stop the evaluation, as the engine passes: the checks must cost nothing
// measurable.
func BenchmarkEvaluateStoppable(b *testing.B) {
	expr, err := Parse(benchExpr)
	if err != nil {
		b.Fatal(err)
	}
	bindings := benchBindings(stepFunctionsInput(100))
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	opts := &Options{Context: ctx}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := expr.Evaluate(Undefined, bindings, opts); err != nil {
			b.Fatal(err)
		}
	}
}
