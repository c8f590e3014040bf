package s3local

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// maxChunkLine bounds a chunk header or trailer line of an aws-chunked
// body.
const maxChunkLine = 4096

// chunkedReader decodes a body sent with Content-Encoding aws-chunked, as
// the AWS SDKs send PutObject with a streaming signature or a trailing
// checksum: "<hex size>[;chunk-signature=…]\r\n<data>\r\n" repeated, a
// chunk of size 0, then trailer lines ("x-amz-checksum-crc32:…") and an
// empty line. Signatures and checksums are not checked.
type chunkedReader struct {
	r    *bufio.Reader
	left int64 // bytes left in the current chunk
	done bool
	err  error
}

func newChunkedReader(r io.Reader) *chunkedReader {
	return &chunkedReader{r: bufio.NewReader(r)}
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	for c.left == 0 && !c.done && c.err == nil {
		c.err = c.nextChunk()
	}
	if c.err != nil {
		return 0, c.err
	}
	if c.done {
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		err = c.expectCRLF()
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

func (c *chunkedReader) nextChunk() error {
	line, err := c.line()
	if err != nil {
		return err
	}
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i]
	}
	size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
	if err != nil || size < 0 {
		return fmt.Errorf("aws-chunked body: bad chunk size %q", line)
	}
	if size > 0 {
		c.left = size
		return nil
	}
	for { // trailers, up to the empty line or the end of the body
		t, err := c.line()
		if err == io.EOF || err == nil && len(t) == 0 {
			c.done = true
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// line reads one CRLF-terminated line without its end.
func (c *chunkedReader) line() ([]byte, error) {
	var buf []byte
	for {
		part, isPrefix, err := c.r.ReadLine()
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				return buf, nil
			}
			return nil, err
		}
		buf = append(buf, part...)
		if len(buf) > maxChunkLine {
			return nil, fmt.Errorf("aws-chunked body: a line is longer than %d bytes", maxChunkLine)
		}
		if !isPrefix {
			return buf, nil
		}
	}
}

func (c *chunkedReader) expectCRLF() error {
	var crlf [2]byte
	if _, err := io.ReadFull(c.r, crlf[:]); err != nil {
		return fmt.Errorf("aws-chunked body: %w", err)
	}
	if crlf != [2]byte{'\r', '\n'} {
		return fmt.Errorf("aws-chunked body: a chunk does not end with CRLF")
	}
	return nil
}
