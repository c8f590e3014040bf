package jsonata_test

import (
	"fmt"

	"github.com/sfnapprovals/approvals/jsonata"
	"github.com/sfnapprovals/approvals/jsonata/jsonvalue"
)

func Example() {
	expr, err := jsonata.Parse(`$sum(orders[status = "open"].amount)`)
	if err != nil {
		panic(err)
	}
	// Numbers are float64 and objects *jsonvalue.Object, members in order.
	input := jsonvalue.ObjectOf("orders", []any{
		jsonvalue.ObjectOf("status", "open", "amount", 2.5),
		jsonvalue.ObjectOf("status", "shipped", "amount", 4.0),
		jsonvalue.ObjectOf("status", "open", "amount", 1.0),
	})
	result, err := expr.Evaluate(input, nil, nil)
	fmt.Println(result, err)

	_, err = jsonata.Parse(`orders[`)
	fmt.Println(err)
	// Output:
	// 3.5 <nil>
	// S0203: Expected "]" before end of expression
}
