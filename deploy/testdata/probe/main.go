// Command probe makes AWS calls in each of the ways the IAM test must see
// through; TestDerivationSeesEveryKindOfCall checks what it derives.
package main

import (
	"context"
	"net/http"
	"os"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// heartbeater is declared here, as the module's adapters declare theirs.
type heartbeater interface {
	SendTaskHeartbeat(context.Context, *sfn.SendTaskHeartbeatInput, ...func(*sfn.Options)) (*sfn.SendTaskHeartbeatOutput, error)
}

type beat struct{ api heartbeater }

func (b beat) run(ctx context.Context) {
	_, _ = b.api.SendTaskHeartbeat(ctx, &sfn.SendTaskHeartbeatInput{TaskToken: aws.String("t")})
}

// handler is called back by net/http, whose code the test does not see.
type handler struct{ db *dynamodb.Client }

func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = h.db.UpdateItem(r.Context(), &dynamodb.UpdateItemInput{TableName: aws.String("t")})
}

func main() {
	ctx := context.Background()
	cfg, _ := config.LoadDefaultConfig(ctx)
	db := dynamodb.NewFromConfig(cfg)
	if len(os.Args) > 1 {
		_ = dynamo.CreateTable(ctx, db, "t") // operator only: not counted
		return
	}
	go beat{api: sfn.NewFromConfig(cfg)}.run(ctx)
	_, _ = db.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("t"), IndexName: aws.String("execution-index")})
	sync.OnceFunc(func() {
		_, _ = db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String("t")}},
		}})
	})()
	_ = http.ListenAndServe("127.0.0.1:0", handler{db: db})
}
