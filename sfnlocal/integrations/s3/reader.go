package s3

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/sfnapprovals/approvals/sfnlocal/integrations/internal/awstask"
	"github.com/sfnapprovals/approvals/sfnlocal/task"
)

// maxObjectBytes bounds an object the reader loads: a local stand-in for
// AWS's own limits, far above any local data set.
const maxObjectBytes = 1 << 30

// Causes AWS records for items it cannot read (LocalStack's AWS-validated
// snapshots, test_base_scenarios).
const (
	causeNotIterable    = "Attempting to map over non-iterable node."
	causeDuplicateNames = "CSV headers cannot contain duplicates."
)

func readerFailure(format string, args ...any) error {
	return &task.Failure{Name: task.ErrItemReaderFailed, Cause: fmt.Sprintf(format, args...)}
}

// ReadItems reads the items a distributed Map iterates over, as a JSON
// array.
func (i *Integration) ReadItems(ctx context.Context, r task.ItemRead) (json.RawMessage, error) {
	res, ok := awstask.ParseResource(r.Resource)
	if !ok || !i.ReadsItems(r.Resource) {
		return nil, readerFailure("The ItemReader resource %s is not s3:getObject or s3:listObjectsV2.", r.Resource)
	}
	if res.Action == "listObjectsV2" {
		ref, err := parseRef(r.Parameters, task.ErrItemReaderFailed, "ItemReader", false)
		if err != nil {
			return nil, err
		}
		return i.listItems(ctx, ref, r.Config.MaxItems)
	}
	ref, err := parseRef(r.Parameters, task.ErrItemReaderFailed, "ItemReader", true)
	if err != nil {
		return nil, err
	}
	body, err := i.load(ctx, ref)
	if err != nil {
		return nil, err
	}
	items := &itemList{max: r.Config.MaxItems}
	switch r.Config.InputType {
	case "JSON":
		err = jsonItems(body, items)
	case "JSONL":
		err = jsonlItems(body, items)
	case "CSV":
		err = csvItems(body, r.Config, items)
	case "MANIFEST":
		err = i.manifestItems(ctx, body, r.Config.MaxItems, items)
	case "":
		return nil, readerFailure("The ItemReader reads %s with s3:getObject but its ReaderConfig has no InputType (CSV, JSON, JSONL or MANIFEST).", s3URI(ref.Bucket, ref.Key))
	default:
		return nil, readerFailure("The ItemReader's InputType %s is not supported by the local engine (it reads CSV, JSON, JSONL and MANIFEST).", r.Config.InputType)
	}
	if err != nil && !errors.Is(err, errEnough) {
		return nil, err
	}
	return items.json(), nil
}

// load reads a whole object.
func (i *Integration) load(ctx context.Context, ref objectRef) ([]byte, error) {
	in := &awss3.GetObjectInput{Bucket: aws.String(ref.Bucket), Key: aws.String(ref.Key)}
	if ref.VersionId != "" {
		in.VersionId = aws.String(ref.VersionId)
	}
	out, err := i.client.GetObject(ctx, in)
	if err != nil {
		return nil, failure(ctx, err, task.ErrItemReaderFailed, "Reading "+s3URI(ref.Bucket, ref.Key))
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, maxObjectBytes+1))
	if err != nil {
		return nil, failure(ctx, err, task.ErrItemReaderFailed, "Reading "+s3URI(ref.Bucket, ref.Key))
	}
	if len(b) > maxObjectBytes {
		return nil, readerFailure("%s is larger than the local engine reads (%d bytes).", s3URI(ref.Bucket, ref.Key), maxObjectBytes)
	}
	return b, nil
}

// errEnough stops reading once MaxItems items are in.
var errEnough = errors.New("enough items")

// itemList collects items as JSON texts, up to max (0: no limit).
type itemList struct {
	items []json.RawMessage
	max   int
}

func (l *itemList) add(item json.RawMessage) error {
	l.items = append(l.items, item)
	if l.max > 0 && len(l.items) >= l.max {
		return errEnough
	}
	return nil
}

func (l *itemList) json() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range l.items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// jsonItems reads a JSON array; anything else is not iterable.
func jsonItems(body []byte, items *itemList) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		if !json.Valid(trimmed) {
			return readerFailure("The object is not valid JSON.")
		}
		return readerFailure(causeNotIterable)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(trimmed, &elems); err != nil {
		return readerFailure("The object is not valid JSON: %v", err)
	}
	for _, e := range elems {
		if err := items.add(e); err != nil {
			return err
		}
	}
	return nil
}

// jsonlItems reads one JSON value per line, skipping blank lines.
func jsonlItems(body []byte, items *itemList) error {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64*1024), maxObjectBytes)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			return readerFailure("Line %d of the JSON Lines object is not valid JSON.", n)
		}
		if err := items.add(append(json.RawMessage(nil), line...)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return readerFailure("Reading the JSON Lines object: %v", err)
	}
	return nil
}

// delimiters are CSVDelimiter's values.
var delimiters = map[string]rune{"": ',', "COMMA": ',', "PIPE": '|', "SEMICOLON": ';', "SPACE": ' ', "TAB": '\t'}

// csvItems reads CSV rows as objects of strings keyed by the header, as
// AWS recorded them: a row with fewer fields than the header gets ""
// for the rest, a row with more has them dropped, duplicate header names
// are refused, and a row of only spaces is a row.
func csvItems(body []byte, cfg task.ReaderConfig, items *itemList) error {
	delim, ok := delimiters[cfg.CSVDelimiter]
	if !ok {
		return readerFailure("The CSVDelimiter %s is not one of COMMA, PIPE, SEMICOLON, SPACE and TAB.", cfg.CSVDelimiter)
	}
	rd := csv.NewReader(bytes.NewReader(body))
	rd.Comma = delim
	rd.FieldsPerRecord = -1
	headers := cfg.CSVHeaders
	switch cfg.CSVHeaderLocation {
	case "", "FIRST_ROW":
		first, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readerFailure("The CSV object cannot be read: %v", err)
		}
		headers = first
	case "GIVEN":
	default:
		return readerFailure("The CSVHeaderLocation %s is not FIRST_ROW or GIVEN.", cfg.CSVHeaderLocation)
	}
	seen := make(map[string]bool, len(headers))
	for _, h := range headers {
		if seen[h] {
			return readerFailure(causeDuplicateNames)
		}
		seen[h] = true
	}
	for {
		row, err := rd.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return readerFailure("The CSV object cannot be read: %v", err)
		}
		if err := items.add(csvObject(headers, row)); err != nil {
			return err
		}
	}
}

// csvObject is a row as a JSON object in header order.
func csvObject(headers, row []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, h := range headers {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(h)
		v := ""
		if i < len(row) {
			v = row[i]
		}
		val, _ := json.Marshal(v)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// inventoryManifest is an S3 Inventory manifest.json.
type inventoryManifest struct {
	DestinationBucket string `json:"destinationBucket"`
	FileFormat        string `json:"fileFormat"`
	FileSchema        string `json:"fileSchema"`
	Files             []struct {
		Key string `json:"key"`
	} `json:"files"`
}

// manifestItems reads the CSV files an S3 Inventory manifest lists (gzip
// compressed, as S3 Inventory writes them, or plain), each row an object
// keyed by the manifest's fileSchema.
func (i *Integration) manifestItems(ctx context.Context, body []byte, maxItems int, items *itemList) error {
	var m inventoryManifest
	if err := json.Unmarshal(body, &m); err != nil {
		return readerFailure("The S3 inventory manifest is not valid JSON: %v", err)
	}
	if !strings.EqualFold(m.FileFormat, "CSV") {
		return readerFailure("The S3 inventory manifest's fileFormat is %q: the local engine reads CSV inventories only.", m.FileFormat)
	}
	bucket := m.DestinationBucket
	if k := strings.LastIndex(bucket, ":::"); k >= 0 {
		bucket = bucket[k+3:]
	}
	if bucket == "" {
		return readerFailure("The S3 inventory manifest names no destinationBucket.")
	}
	var schema []string
	for _, f := range strings.Split(m.FileSchema, ",") {
		schema = append(schema, strings.TrimSpace(f))
	}
	for _, f := range m.Files {
		data, err := i.load(ctx, objectRef{Bucket: bucket, Key: f.Key})
		if err != nil {
			return err
		}
		if len(data) > 1 && data[0] == 0x1f && data[1] == 0x8b {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return readerFailure("%s is not valid gzip: %v", s3URI(bucket, f.Key), err)
			}
			data, err = io.ReadAll(io.LimitReader(zr, maxObjectBytes))
			if err != nil {
				return readerFailure("%s is not valid gzip: %v", s3URI(bucket, f.Key), err)
			}
		}
		cfg := task.ReaderConfig{CSVHeaderLocation: "GIVEN", CSVHeaders: schema, MaxItems: maxItems}
		if err := csvItems(data, cfg, items); err != nil {
			return err
		}
	}
	return nil
}

// listItems lists the objects under Prefix, each {"Etag", "Key",
// "LastModified" (Unix seconds), "Size", "StorageClass"}, following
// continuation tokens.
func (i *Integration) listItems(ctx context.Context, ref objectRef, maxItems int) (json.RawMessage, error) {
	items := &itemList{max: maxItems}
	in := &awss3.ListObjectsV2Input{Bucket: aws.String(ref.Bucket)}
	if ref.Prefix != "" {
		in.Prefix = aws.String(ref.Prefix)
	}
	for {
		out, err := i.client.ListObjectsV2(ctx, in)
		if err != nil {
			return nil, failure(ctx, err, task.ErrItemReaderFailed, "Listing "+s3URI(ref.Bucket, ref.Prefix))
		}
		for _, o := range out.Contents {
			var modified int64
			if o.LastModified != nil {
				modified = o.LastModified.Unix()
			}
			item, _ := json.Marshal(struct {
				Etag         string
				Key          string
				LastModified int64
				Size         int64
				StorageClass string
			}{aws.ToString(o.ETag), aws.ToString(o.Key), modified, aws.ToInt64(o.Size), string(o.StorageClass)})
			if items.add(item) != nil {
				return items.json(), nil
			}
		}
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil {
			return items.json(), nil
		}
		in.ContinuationToken = out.NextContinuationToken
	}
}
