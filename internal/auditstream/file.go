package auditstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sfnapprovals/approvals/lambdas/archive"
)

// maxLine bounds an archive line: an entry holds at most two images of a
// DynamoDB item (400 KB each) as JSON.
const maxLine = 2 << 20

// LastArchived is the stream and sequence number of the last line of the
// archive file at path, for Follower.After; "" when the file is missing
// or empty. A last line cut short (the process stopped mid-write) is
// passed over for the one before it.
func LastArchived(path string) (stream, sequence string, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", "", err
	}
	start := max(info.Size()-maxLine, 0)
	tail := make([]byte, info.Size()-start)
	if _, err := f.ReadAt(tail, start); err != nil && !errors.Is(err, io.EOF) {
		return "", "", err
	}
	lines := bytes.Split(bytes.TrimRight(tail, "\n"), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var e archive.Entry
		if json.Unmarshal(lines[i], &e) == nil && e.Sequence != "" {
			return e.Stream, e.Sequence, nil
		}
	}
	if len(bytes.TrimSpace(tail)) > 0 {
		return "", "", fmt.Errorf("the audit archive %s ends without a line it can read", path)
	}
	return "", "", nil
}

// OpenArchive opens the archive file at path for appending, creating it,
// and returns the stream and sequence number of its last line (see
// LastArchived). A file whose last line was cut short gets a line break
// first, so the next line stands on its own.
func OpenArchive(path string) (_ *os.File, stream, sequence string, err error) {
	if stream, sequence, err = LastArchived(path); err != nil {
		return nil, "", "", err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, "", "", err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	info, err := f.Stat()
	if err != nil {
		return nil, "", "", err
	}
	if info.Size() > 0 {
		end := make([]byte, 1)
		if _, err := f.ReadAt(end, info.Size()-1); err != nil {
			return nil, "", "", err
		}
		if end[0] != '\n' {
			if _, err := f.Write([]byte{'\n'}); err != nil {
				return nil, "", "", err
			}
		}
	}
	return f, stream, sequence, nil
}
