package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/s3local"
	"github.com/sfnapprovals/approvals/workflow/definitions"
)

// batchBucket is the local S3 bucket of the shipped batch workflows
// (their ${BatchBucket}): the samples' items, and the results under
// batch-results/.
const batchBucket = "approvals-batch"

// startS3 serves the local S3 from <data>/s3, creates the batch bucket
// and puts the samples' items into it, unless they are there already (so
// edits survive a restart).
func (p *product) startS3(ctx context.Context) error {
	ln := p.lns.s3
	p.lns.s3 = nil // the server closes it
	var err error
	if p.s3, err = s3local.Start(s3local.Options{Dir: filepath.Join(p.cfg.Data, "s3"), Listener: ln, Logger: p.log.With(zap.String("service", "s3"))}); err != nil {
		return err
	}
	cfg := awsConfig()
	p.objects = awss3.New(awss3.Options{Region: cfg.Region, Credentials: cfg.Credentials, BaseEndpoint: aws.String(p.s3.URL()), UsePathStyle: true})
	if _, err := p.objects.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: aws.String(batchBucket)}); err != nil {
		return fmt.Errorf("create the local S3 bucket %s: %w", batchBucket, err)
	}
	for key, body := range definitions.SampleObjects() {
		_, err := p.objects.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(batchBucket), Key: aws.String(key)})
		var missing *types.NotFound
		if err == nil {
			continue
		}
		if !errors.As(err, &missing) {
			return fmt.Errorf("look for s3://%s/%s: %w", batchBucket, key, err)
		}
		if _, err := p.objects.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(batchBucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
			return fmt.Errorf("put the sample items s3://%s/%s: %w", batchBucket, key, err)
		}
	}
	return nil
}
