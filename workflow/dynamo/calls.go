package dynamo

import (
	"context"
	"maps"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// Calls counts the calls a DynamoDB client makes, by operation (GetItem,
// TransactWriteItems, …), with a middleware on the client's stack: one
// per API call, however many attempts the SDK's retries make. It is safe
// for concurrent use; the zero value counts nothing until Option is
// applied to a client.
type Calls struct {
	mu sync.Mutex
	n  map[string]int64
}

// Option adds the counting middleware to a client, as an option of
// dynamodb.NewFromConfig or dynamodb.New.
func (c *Calls) Option(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
		return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("CountCalls",
			func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
				c.add(awsmiddleware.GetOperationName(ctx))
				return next.HandleInitialize(ctx, in)
			}), middleware.After)
	})
}

func (c *Calls) add(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int64{}
	}
	c.n[op]++
}

// Counts returns the calls made so far, by operation.
func (c *Calls) Counts() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.n)
}

// Since returns the calls made since before (an earlier Counts), by
// operation, leaving out operations not called since.
func (c *Calls) Since(before map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for op, n := range c.Counts() {
		if d := n - before[op]; d > 0 {
			out[op] = d
		}
	}
	return out
}
