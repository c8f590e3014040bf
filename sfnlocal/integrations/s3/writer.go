package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// The manifest's shape, as Step Functions writes it: the bucket, the Map
// Run, and each status's result files with their sizes.
type manifest struct {
	DestinationBucket string      `json:"DestinationBucket"`
	MapRunArn         string      `json:"MapRunArn"`
	ResultFiles       resultFiles `json:"ResultFiles"`
}

type resultFiles struct {
	Failed    []resultFile `json:"FAILED"`
	Pending   []resultFile `json:"PENDING"`
	Succeeded []resultFile `json:"SUCCEEDED"`
}

type resultFile struct {
	Key  string `json:"Key"`
	Size int64  `json:"Size"`
}

// WriteResults writes each status's results to <Prefix>/<map run
// id>/<STATUS>_0.json (a status without results gets no file), then
// manifest.json beside them, and returns the manifest's location. AWS
// starts a new file past 5 GB; the local engine writes one per status.
func (i *Integration) WriteResults(ctx context.Context, w task.ResultExport) (task.ResultLocation, error) {
	ref, err := parseRef(w.Parameters, task.ErrResultWriterFailed, "ResultWriter", false)
	if err != nil {
		return task.ResultLocation{}, err
	}
	id := w.MapRunARN[strings.LastIndexByte(w.MapRunARN, ':')+1:]
	base := strings.TrimSuffix(ref.Prefix, "/")
	if base != "" {
		base += "/"
	}
	base += id + "/"
	m := manifest{DestinationBucket: ref.Bucket, MapRunArn: w.MapRunARN,
		ResultFiles: resultFiles{Failed: []resultFile{}, Pending: []resultFile{}, Succeeded: []resultFile{}}}
	for _, s := range []struct {
		status  string
		results []json.RawMessage
		files   *[]resultFile
	}{
		{"SUCCEEDED", w.Succeeded, &m.ResultFiles.Succeeded},
		{"FAILED", w.Failed, &m.ResultFiles.Failed},
		{"PENDING", w.Pending, &m.ResultFiles.Pending},
	} {
		if len(s.results) == 0 {
			continue
		}
		body := encodeResults(s.results, w.OutputType)
		key := base + s.status + "_0.json"
		if err := i.put(ctx, ref.Bucket, key, body); err != nil {
			return task.ResultLocation{}, err
		}
		*s.files = append(*s.files, resultFile{Key: key, Size: int64(len(body))})
	}
	body, err := json.Marshal(m)
	if err != nil {
		return task.ResultLocation{}, err
	}
	key := base + "manifest.json"
	if err := i.put(ctx, ref.Bucket, key, body); err != nil {
		return task.ResultLocation{}, err
	}
	return task.ResultLocation{Bucket: ref.Bucket, Key: key}, nil
}

// encodeResults is a JSON array of the results, or JSON Lines.
func encodeResults(results []json.RawMessage, outputType string) []byte {
	var b bytes.Buffer
	if outputType == "JSONL" {
		for _, r := range results {
			b.Write(r)
			b.WriteByte('\n')
		}
		return b.Bytes()
	}
	b.WriteByte('[')
	for i, r := range results {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	b.WriteByte(']')
	return b.Bytes()
}

func (i *Integration) put(ctx context.Context, bucket, key string, body []byte) error {
	_, err := i.client.PutObject(ctx, &awss3.PutObjectInput{
		Bucket:      aws.String(bucket),
		Key:         aws.String(key),
		Body:        bytes.NewReader(body),
		ContentType: aws.String("application/json"),
	})
	if err != nil {
		return failure(ctx, err, task.ErrResultWriterFailed, fmt.Sprintf("Writing %s", s3URI(bucket, key)))
	}
	return nil
}
