package s3local

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// tmpDir is the folder under the root where objects are written before
// they are renamed into place; bucket names cannot start with ".".
const tmpDir = ".incoming"

// maxKeyLength is S3's limit on a key, in bytes.
const maxKeyLength = 1024

// store keeps buckets and objects as folders and files under root.
// Writes are atomic (a file is renamed into place); mu orders the
// operations that create or remove folders.
type store struct {
	root string
	mu   sync.RWMutex
}

// object is what S3 reports of an object.
type object struct {
	Key          string
	Size         int64
	LastModified time.Time
	ETag         string // quoted, as S3 sends it
}

// s3Error is an error S3 answers with its code and status.
type s3Error struct {
	Status  int
	Code    string
	Message string
}

func (e *s3Error) Error() string { return e.Code + ": " + e.Message }

func errorf(status int, code, format string, args ...any) *s3Error {
	return &s3Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

var (
	errNoSuchBucket = errorf(404, "NoSuchBucket", "The specified bucket does not exist")
	errNoSuchKey    = errorf(404, "NoSuchKey", "The specified key does not exist.")
)

func newStore(root string) (*store, error) {
	if err := os.MkdirAll(filepath.Join(root, tmpDir), 0o755); err != nil {
		return nil, fmt.Errorf("s3local: prepare %s: %w", root, err)
	}
	return &store{root: root}, nil
}

// checkBucketName applies S3's bucket naming rules.
func checkBucketName(name string) *s3Error {
	bad := errorf(400, "InvalidBucketName", "The specified bucket is not valid: %q (3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit).", name)
	if len(name) < 3 || len(name) > 63 {
		return bad
	}
	for i, r := range name {
		alnum := r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
		if !alnum && r != '.' && r != '-' || (i == 0 || i == len(name)-1) && !alnum {
			return bad
		}
	}
	if strings.Contains(name, "..") {
		return bad
	}
	return nil
}

// checkKey refuses a key that does not map onto a file.
func checkKey(key string) *s3Error {
	switch {
	case key == "":
		return errorf(400, "InvalidArgument", "The object key must not be empty.")
	case len(key) > maxKeyLength:
		return errorf(400, "KeyTooLongError", "Your key is too long (%d bytes; at most %d).", len(key), maxKeyLength)
	case !utf8.ValidString(key) || strings.ContainsRune(key, 0):
		return errorf(400, "InvalidArgument", "The object key must be UTF-8 without NUL characters.")
	case strings.HasSuffix(key, "/"):
		return errorf(400, "InvalidArgument", "This local S3 keeps objects as files, so a key cannot end with \"/\" (a folder marker): %q.", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errorf(400, "InvalidArgument", "This local S3 keeps objects as files, so a key cannot have an empty, \".\" or \"..\" segment: %q.", key)
		}
	}
	return nil
}

func (s *store) bucketPath(bucket string) string { return filepath.Join(s.root, bucket) }

func (s *store) objectPath(bucket, key string) string {
	return filepath.Join(s.root, bucket, filepath.FromSlash(key))
}

func (s *store) bucketExists(bucket string) bool {
	if checkBucketName(bucket) != nil {
		return false
	}
	fi, err := os.Stat(s.bucketPath(bucket))
	return err == nil && fi.IsDir()
}

// buckets lists the buckets with their creation (folder) times, by name.
func (s *store) buckets() ([]object, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	entries, err := os.ReadDir(s.root)
	if err != nil {
		return nil, err
	}
	var out []object
	for _, e := range entries {
		if !e.IsDir() || checkBucketName(e.Name()) != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, object{Key: e.Name(), LastModified: fi.ModTime()})
	}
	return out, nil
}

// createBucket creates a bucket; S3 in us-east-1 answers success for a
// bucket the caller already owns.
func (s *store) createBucket(bucket string) error {
	if err := checkBucketName(bucket); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Mkdir(s.bucketPath(bucket), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// deleteBucket removes an empty bucket.
func (s *store) deleteBucket(bucket string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.bucketExists(bucket) {
		return errNoSuchBucket
	}
	entries, err := os.ReadDir(s.bucketPath(bucket))
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return errorf(409, "BucketNotEmpty", "The bucket you tried to delete is not empty")
	}
	return os.Remove(s.bucketPath(bucket))
}

// put stores body as the object, atomically.
func (s *store) put(bucket, key string, body io.Reader) (object, error) {
	if err := checkKey(key); err != nil {
		return object{}, err
	}
	tmp, err := os.CreateTemp(filepath.Join(s.root, tmpDir), "put-*")
	if err != nil {
		return object{}, err
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing left to remove
	h := md5.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), body); err != nil {
		tmp.Close()
		return object{}, err
	}
	if err := tmp.Close(); err != nil {
		return object{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.bucketExists(bucket) {
		return object{}, errNoSuchBucket
	}
	dst := s.objectPath(bucket, key)
	if err := s.makeParents(bucket, key); err != nil {
		return object{}, err
	}
	if fi, err := os.Stat(dst); err == nil && fi.IsDir() {
		return object{}, errorf(400, "InvalidArgument", "This local S3 keeps objects as files, and %q is already the prefix of other keys, so it cannot also be an object.", key)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return object{}, err
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return object{}, err
	}
	return object{Key: key, Size: fi.Size(), LastModified: fi.ModTime(), ETag: `"` + hex.EncodeToString(h.Sum(nil)) + `"`}, nil
}

// makeParents creates the folders of key's prefix, refusing when one of
// them is an object.
func (s *store) makeParents(bucket, key string) error {
	dir := s.bucketPath(bucket)
	segs := strings.Split(key, "/")
	for i, seg := range segs[:len(segs)-1] {
		dir = filepath.Join(dir, seg)
		fi, err := os.Stat(dir)
		switch {
		case err == nil && !fi.IsDir():
			return errorf(400, "InvalidArgument", "This local S3 keeps objects as files, and %q is an object, so it cannot also be the prefix of %q.", strings.Join(segs[:i+1], "/"), key)
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
		case err != nil:
			return err
		}
	}
	return nil
}

// open opens an object for reading, with its metadata; the caller closes
// the file.
func (s *store) open(bucket, key string) (*os.File, object, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.bucketExists(bucket) {
		return nil, object{}, errNoSuchBucket
	}
	if checkKey(key) != nil {
		return nil, object{}, errNoSuchKey
	}
	f, err := os.Open(s.objectPath(bucket, key))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
		return nil, object{}, errNoSuchKey
	}
	if err != nil {
		return nil, object{}, err
	}
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		f.Close()
		if err == nil {
			err = errNoSuchKey
		}
		return nil, object{}, err
	}
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		f.Close()
		return nil, object{}, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, object{}, err
	}
	return f, object{Key: key, Size: fi.Size(), LastModified: fi.ModTime(), ETag: `"` + hex.EncodeToString(h.Sum(nil)) + `"`}, nil
}

// remove deletes an object and the prefix folders it leaves empty; S3
// answers success for a key that does not exist.
func (s *store) remove(bucket, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.bucketExists(bucket) {
		return errNoSuchBucket
	}
	if checkKey(key) != nil {
		return nil
	}
	p := s.objectPath(bucket, key)
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		return nil
	}
	if err := os.Remove(p); err != nil {
		return err
	}
	top := s.bucketPath(bucket)
	for dir := filepath.Dir(p); dir != top; dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty
			break
		}
	}
	return nil
}

// list returns the bucket's objects whose keys start with prefix, sorted
// by key as S3 sorts them (UTF-8 byte order). ETags are computed for the
// objects returned only.
func (s *store) list(bucket, prefix string) ([]object, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.bucketExists(bucket) {
		return nil, errNoSuchBucket
	}
	top := s.bucketPath(bucket)
	var out []object
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(top, p)
			if rel != "." && !keyMayMatch(filepath.ToSlash(rel)+"/", prefix) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(top, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) || checkKey(key) != nil || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed meanwhile
		}
		out = append(out, object{Key: key, Size: fi.Size(), LastModified: fi.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// keyMayMatch reports whether keys under the folder dir ("a/b/") can
// start with prefix.
func keyMayMatch(dir, prefix string) bool {
	return strings.HasPrefix(dir, prefix) || strings.HasPrefix(prefix, dir)
}

// etag computes an object's ETag for a listing.
func (s *store) etag(bucket, key string) string {
	f, err := os.Open(s.objectPath(bucket, key))
	if err != nil {
		return `""`
	}
	defer f.Close()
	h := md5.New()
	if _, err := io.Copy(h, f); err != nil {
		return `""`
	}
	return `"` + hex.EncodeToString(h.Sum(nil)) + `"`
}

// contentType is what GetObject answers as Content-Type: the key's
// extension's type, else S3's default.
func contentType(key string) string {
	if t := mime.TypeByExtension(path.Ext(key)); t != "" {
		return t
	}
	return "binary/octet-stream"
}
