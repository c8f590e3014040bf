package auditstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sfnapprovals/approvals/workflow/dynamo"
)

// TableAPI is the part of the DynamoDB API CreateTable uses;
// *dynamodb.Client implements it.
type TableAPI interface {
	dynamo.TableAPI
	UpdateTable(context.Context, *dynamodb.UpdateTableInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
}

// CreateTable creates the approvals table as deployed, with the stream the
// archive reads (dynamo.AuditStream), unless it exists, turns the stream
// on for a table that exists without it, and returns the stream's ARN.
func CreateTable(ctx context.Context, client TableAPI, table string) (string, error) {
	in := dynamo.TableSchema(table)
	in.StreamSpecification = dynamo.AuditStream()
	var inUse *types.ResourceInUseException
	if _, err := client.CreateTable(ctx, in); err != nil && !errors.As(err, &inUse) {
		return "", fmt.Errorf("create table %s: %w", table, err)
	}
	if err := dynamo.CreateTable(ctx, client, table); err != nil {
		return "", err
	}
	desc, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return "", fmt.Errorf("describe table %s: %w", table, err)
	}
	if spec := desc.Table.StreamSpecification; spec != nil && aws.ToBool(spec.StreamEnabled) {
		if spec.StreamViewType != types.StreamViewTypeNewAndOldImages {
			return "", fmt.Errorf("table %s streams %s; the audit archive needs %s", table, spec.StreamViewType, types.StreamViewTypeNewAndOldImages)
		}
		return aws.ToString(desc.Table.LatestStreamArn), nil
	}
	up, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), StreamSpecification: dynamo.AuditStream()})
	if err != nil {
		return "", fmt.Errorf("turn on the stream of table %s: %w", table, err)
	}
	arn := aws.ToString(up.TableDescription.LatestStreamArn)
	if arn == "" {
		return "", fmt.Errorf("table %s has no stream after turning it on", table)
	}
	return arn, nil
}
