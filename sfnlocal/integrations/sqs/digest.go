package sqs

import (
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// attributesDigest is MD5OfMessageAttributes as SQS computes it ("Calculating
// the MD5 message digest for message attributes" in the SQS Developer
// Guide): the attributes sorted by name, each encoded as its name, its
// data type (each a 4-byte big-endian length then the UTF-8 bytes), one
// transport byte (1 for String and Number types, 2 for Binary) and its
// value (length then bytes), all hashed with MD5. Empty when there are no
// attributes.
func attributesDigest(attrs map[string]types.MessageAttributeValue) string {
	if len(attrs) == 0 {
		return ""
	}
	names := make([]string, 0, len(attrs))
	for name := range attrs {
		names = append(names, name)
	}
	sort.Strings(names)
	h := md5.New()
	field := func(b []byte) {
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	for _, name := range names {
		a := attrs[name]
		dataType := ""
		if a.DataType != nil {
			dataType = *a.DataType
		}
		field([]byte(name))
		field([]byte(dataType))
		if strings.HasPrefix(dataType, "Binary") {
			h.Write([]byte{2})
			field(a.BinaryValue)
			continue
		}
		h.Write([]byte{1})
		value := ""
		if a.StringValue != nil {
			value = *a.StringValue
		}
		field([]byte(value))
	}
	return hex.EncodeToString(h.Sum(nil))
}
