package s3local

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"
)

// maxListKeys is S3's largest page of ListObjectsV2.
const maxListKeys = 1000

const xmlns = "http://s3.amazonaws.com/doc/2006-03-01/"

// handler answers the S3 REST API, path-style.
type handler struct {
	store *store
	log   *zap.Logger
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := requestID()
	w.Header().Set("x-amz-request-id", id)
	w.Header().Set("x-amz-id-2", id)
	w.Header().Set("Server", "s3local")
	if !loopbackHost(r.Host) {
		h.log.Warn("request refused: its Host is not a loopback name", zap.String("host", r.Host), zap.String("remote", r.RemoteAddr))
		h.fail(w, r, errorf(403, "AccessDenied", "This S3 listens on a loopback address and answers only path-style requests for 127.0.0.1, [::1] or localhost, not for Host %q (virtual-hosted addressing is not supported; DNS rebinding protection).", r.Host), "", "")
		return
	}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	var err error
	switch {
	case bucket == "" && r.Method == http.MethodGet:
		err = h.listBuckets(w)
	case bucket == "":
		err = errorf(405, "MethodNotAllowed", "The specified method is not allowed against this resource.")
	case key == "":
		err = h.bucket(w, r, bucket)
	default:
		err = h.object(w, r, bucket, key)
	}
	if err != nil {
		h.fail(w, r, err, bucket, key)
	}
}

func (h *handler) bucket(w http.ResponseWriter, r *http.Request, bucket string) error {
	switch r.Method {
	case http.MethodPut:
		if err := h.store.createBucket(bucket); err != nil {
			return err
		}
		w.Header().Set("Location", "/"+bucket)
		w.WriteHeader(http.StatusOK)
		return nil
	case http.MethodHead:
		if !h.store.bucketExists(bucket) {
			return errNoSuchBucket
		}
		w.Header().Set("x-amz-bucket-region", "us-east-1")
		w.WriteHeader(http.StatusOK)
		return nil
	case http.MethodDelete:
		if err := h.store.deleteBucket(bucket); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	case http.MethodGet:
		q := r.URL.Query()
		if q.Get("list-type") != "2" {
			return errorf(501, "NotImplemented", "This local S3 lists objects with ListObjectsV2 (list-type=2) only.")
		}
		return h.listObjects(w, bucket, q)
	}
	return errorf(405, "MethodNotAllowed", "The specified method is not allowed against this resource.")
}

func (h *handler) object(w http.ResponseWriter, r *http.Request, bucket, key string) error {
	switch r.Method {
	case http.MethodPut:
		if r.Header.Get("x-amz-copy-source") != "" {
			return errorf(501, "NotImplemented", "This local S3 does not copy objects (CopyObject).")
		}
		if r.URL.Query().Has("uploadId") || r.URL.Query().Has("partNumber") {
			return errorf(501, "NotImplemented", "This local S3 does not do multipart uploads.")
		}
		var body io.Reader = r.Body
		if isChunked(r) {
			body = newChunkedReader(r.Body)
		}
		o, err := h.store.put(bucket, key, body)
		if err != nil {
			return err
		}
		w.Header().Set("ETag", o.ETag)
		w.WriteHeader(http.StatusOK)
		return nil
	case http.MethodGet, http.MethodHead:
		if r.URL.Query().Has("uploads") || r.URL.Query().Has("uploadId") {
			return errorf(501, "NotImplemented", "This local S3 does not do multipart uploads.")
		}
		f, o, err := h.store.open(bucket, key)
		if err != nil {
			return err
		}
		defer f.Close()
		hd := w.Header()
		hd.Set("ETag", o.ETag)
		hd.Set("Last-Modified", o.LastModified.UTC().Format(http.TimeFormat))
		hd.Set("Content-Type", contentType(key))
		hd.Set("Content-Length", strconv.FormatInt(o.Size, 10))
		hd.Set("Accept-Ranges", "bytes")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = io.Copy(w, f)
		}
		return nil
	case http.MethodDelete:
		if err := h.store.remove(bucket, key); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	return errorf(405, "MethodNotAllowed", "The specified method is not allowed against this resource.")
}

// isChunked reports whether the body is aws-chunked encoded.
func isChunked(r *http.Request) bool {
	for _, enc := range strings.Split(r.Header.Get("Content-Encoding"), ",") {
		if strings.TrimSpace(enc) == "aws-chunked" {
			return true
		}
	}
	return strings.HasPrefix(r.Header.Get("x-amz-content-sha256"), "STREAMING-")
}

type listAllMyBucketsResult struct {
	XMLName xml.Name    `xml:"ListAllMyBucketsResult"`
	Xmlns   string      `xml:"xmlns,attr"`
	Owner   owner       `xml:"Owner"`
	Buckets []bucketXML `xml:"Buckets>Bucket"`
}

type owner struct {
	ID          string `xml:"ID"`
	DisplayName string `xml:"DisplayName"`
}

type bucketXML struct {
	Name         string `xml:"Name"`
	CreationDate string `xml:"CreationDate"`
}

func (h *handler) listBuckets(w http.ResponseWriter) error {
	buckets, err := h.store.buckets()
	if err != nil {
		return err
	}
	res := listAllMyBucketsResult{Xmlns: xmlns, Owner: owner{ID: "local", DisplayName: "local"}}
	for _, b := range buckets {
		res.Buckets = append(res.Buckets, bucketXML{Name: b.Key, CreationDate: s3Time(b.LastModified)})
	}
	return writeXML(w, http.StatusOK, res)
}

type listBucketResult struct {
	XMLName               xml.Name       `xml:"ListBucketResult"`
	Xmlns                 string         `xml:"xmlns,attr"`
	Name                  string         `xml:"Name"`
	Prefix                string         `xml:"Prefix"`
	Delimiter             string         `xml:"Delimiter,omitempty"`
	StartAfter            string         `xml:"StartAfter,omitempty"`
	ContinuationToken     string         `xml:"ContinuationToken,omitempty"`
	NextContinuationToken string         `xml:"NextContinuationToken,omitempty"`
	KeyCount              int            `xml:"KeyCount"`
	MaxKeys               int            `xml:"MaxKeys"`
	EncodingType          string         `xml:"EncodingType,omitempty"`
	IsTruncated           bool           `xml:"IsTruncated"`
	Contents              []contentsXML  `xml:"Contents"`
	CommonPrefixes        []commonPrefix `xml:"CommonPrefixes"`
}

type contentsXML struct {
	Key          string `xml:"Key"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         int64  `xml:"Size"`
	StorageClass string `xml:"StorageClass"`
}

type commonPrefix struct {
	Prefix string `xml:"Prefix"`
}

// listObjects answers ListObjectsV2: keys after StartAfter or the
// continuation token, rolled up at Delimiter into CommonPrefixes, at most
// MaxKeys of both together.
func (h *handler) listObjects(w http.ResponseWriter, bucket string, q url.Values) error {
	prefix, delim, startAfter, token := q.Get("prefix"), q.Get("delimiter"), q.Get("start-after"), q.Get("continuation-token")
	encoding := q.Get("encoding-type")
	if encoding != "" && encoding != "url" {
		return errorf(400, "InvalidArgument", "Invalid Encoding Method specified in Request")
	}
	maxKeys := maxListKeys
	if s := q.Get("max-keys"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return errorf(400, "InvalidArgument", "Provided max-keys not an integer or within integer range")
		}
		maxKeys = min(n, maxListKeys)
	}
	after := startAfter
	if token != "" {
		b, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil {
			return errorf(400, "InvalidArgument", "The continuation token provided is incorrect")
		}
		after = string(b)
	}
	objects, err := h.store.list(bucket, prefix)
	if err != nil {
		return err
	}
	enc := func(s string) string {
		if encoding == "url" {
			return strings.ReplaceAll(url.QueryEscape(s), "%2F", "/")
		}
		return s
	}
	res := listBucketResult{Xmlns: xmlns, Name: bucket, Prefix: enc(prefix), Delimiter: enc(delim), StartAfter: enc(startAfter),
		ContinuationToken: token, MaxKeys: maxKeys, EncodingType: encoding}
	seen := map[string]bool{}
	last := ""
	for _, o := range objects {
		if o.Key <= after {
			continue
		}
		entry := o.Key
		if delim != "" {
			if i := strings.Index(o.Key[len(prefix):], delim); i >= 0 {
				entry = o.Key[:len(prefix)+i+len(delim)]
				if seen[entry] || entry <= after {
					continue
				}
			}
		}
		if res.KeyCount == maxKeys {
			res.IsTruncated = true
			res.NextContinuationToken = base64.RawURLEncoding.EncodeToString([]byte(last))
			break
		}
		if entry != o.Key {
			seen[entry] = true
			res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: enc(entry)})
			// Keys under a common prefix sort after it: skip them all.
			last = entry + "\U0010FFFF"
		} else {
			res.Contents = append(res.Contents, contentsXML{Key: enc(o.Key), LastModified: s3Time(o.LastModified),
				ETag: h.store.etag(bucket, o.Key), Size: o.Size, StorageClass: "STANDARD"})
			last = o.Key
		}
		res.KeyCount++
	}
	return writeXML(w, http.StatusOK, res)
}

type errorXML struct {
	XMLName    xml.Name `xml:"Error"`
	Code       string   `xml:"Code"`
	Message    string   `xml:"Message"`
	BucketName string   `xml:"BucketName,omitempty"`
	Key        string   `xml:"Key,omitempty"`
	Resource   string   `xml:"Resource,omitempty"`
	RequestID  string   `xml:"RequestId"`
}

// fail answers err as S3 does: its status, and for any method but HEAD
// the XML error document.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error, bucket, key string) {
	var se *s3Error
	if !errors.As(err, &se) {
		h.log.Error("s3 request failed", zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.Error(err))
		se = errorf(500, "InternalError", "We encountered an internal error. Please try again. (%v)", err)
	}
	doc := errorXML{Code: se.Code, Message: se.Message, Resource: r.URL.Path, RequestID: w.Header().Get("x-amz-request-id")}
	switch se.Code {
	case "NoSuchBucket", "BucketNotEmpty", "InvalidBucketName":
		doc.BucketName = bucket
	case "NoSuchKey":
		doc.Key = key
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(se.Status)
		return
	}
	_ = writeXML(w, se.Status, doc)
}

func writeXML(w http.ResponseWriter, status int, v any) error {
	body, err := xml.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(body)
	return nil
}

// s3Time is S3's XML timestamp, to the millisecond.
func s3Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func requestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// loopbackHost reports whether a Host header names this machine by
// localhost or a loopback address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
