package jsonata

import (
	"encoding/json"
	"sync"
	"testing"
)

// TestConcurrentEvaluate evaluates one parsed expression from many
// goroutines at once (run with -race): every evaluation must give the
// same answer.
func TestConcurrentEvaluate(t *testing.T) {
	t.Parallel()
	expr, err := Parse(`(
		$total := function($xs){ $xs ~> $map(function($x){ $x.price * $x.qty }) ~> $sum() };
		{
			"cheap": $states.input.items[price <= 10].id,
			"dear": $states.input.items[price > 10]{id: price * qty},
			"total": $total($states.input.items),
			"order": $states.input.items^(>price, id)[[0..2]].id,
			"ranked": $states.input.items#$i[$i < 3].{"i": $i, "id": id}
		}
	)`)
	if err != nil {
		t.Fatal(err)
	}
	bindings := benchBindings(stepFunctionsInput(50))
	first, err := expr.Evaluate(Undefined, bindings, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	const workers, rounds = 16, 20
	var wg sync.WaitGroup
	errs := make(chan string, workers*rounds)
	for range workers {
		wg.Go(func() {
			for range rounds {
				got, err := expr.Evaluate(Undefined, bindings, nil)
				if err != nil {
					errs <- err.Error()
					return
				}
				b, err := json.Marshal(got)
				if err != nil {
					errs <- err.Error()
					return
				}
				if string(b) != string(want) {
					errs <- "got " + string(b)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent evaluation: %s; want %s", e, want)
	}
}
