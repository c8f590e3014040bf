package jsonata

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

// Many goroutines evaluate the same cached expressions with their own
// variables, as Map iterations do; each must see only its own values.
func TestConcurrentEvaluation(t *testing.T) {
	t.Parallel()
	template := decode(t, `{
		"item": "{% $states.input.n %}",
		"double": "{% $states.input.n * 2 %}",
		"names": "{% $states.input.names.$uppercase() %}",
		"chunks": "{% $count($partition($range(1, $states.input.n % 10 + 2, 1), 2)) %}",
		"who": "{% $worker %}",
		"positions": "{% $states.input.names#$i.$i %}",
		"random": "{% $random() >= 0 and $random() < 1 %}",
		"now": "{% $now() = $now() %}"
	}`)
	const workers, iterations = 64, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range iterations {
				n := w*iterations + i
				vars := Vars{
					"states": jsonvalue.ObjectOf("input", jsonvalue.ObjectOf(
						"n", json.Number(strconv.Itoa(n)),
						"names", []any{fmt.Sprintf("w%d", w), fmt.Sprintf("i%d", i)},
					)),
					"worker": json.Number(strconv.Itoa(w)),
				}
				got, err := Template(t.Context(), template, Env{Vars: vars})
				if err != nil {
					errs <- err
					return
				}
				m := got.(*jsonvalue.Object)
				want := map[string]any{
					"item":      json.Number(strconv.Itoa(n)),
					"double":    json.Number(strconv.Itoa(2 * n)),
					"names":     []any{fmt.Sprintf("W%d", w), fmt.Sprintf("I%d", i)},
					"chunks":    json.Number(strconv.Itoa((n%10 + 3) / 2)),
					"who":       json.Number(strconv.Itoa(w)),
					"positions": []any{json.Number("0"), json.Number("1")},
					"random":    true,
					"now":       true,
				}
				for k, v := range want {
					if got, _ := m.Get(k); fmt.Sprint(got) != fmt.Sprint(v) {
						errs <- fmt.Errorf("worker %d iteration %d: %s = %v, want %v", w, i, k, got, v)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
