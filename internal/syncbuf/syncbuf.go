// Package syncbuf is a bytes buffer safe for concurrent writers and
// readers, for capturing the logs and output of components under test.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer collects writes; String may be called while writes go on.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
