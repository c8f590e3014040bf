// Package logging builds the one zap logger each binary uses: JSON lines
// with fixed keys, so operators can query approval_id, execution_arn,
// slack_user and envelope_id across replicas.
package logging

import (
	"fmt"
	"io"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// New returns a JSON logger writing to w at the given level.
func New(w io.Writer, level zapcore.Level) *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey = "time"
	enc.EncodeTime = zapcore.RFC3339NanoTimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(zapcore.AddSync(w)), level)
	return zap.New(core, zap.ErrorOutput(zapcore.Lock(zapcore.AddSync(w))))
}

// ParseLevel reads a LOG_LEVEL value: debug, info, warn or error.
func ParseLevel(s string) (zapcore.Level, error) {
	switch s {
	case "debug":
		return zapcore.DebugLevel, nil
	case "info":
		return zapcore.InfoLevel, nil
	case "warn":
		return zapcore.WarnLevel, nil
	case "error":
		return zapcore.ErrorLevel, nil
	}
	return zapcore.InfoLevel, fmt.Errorf("LOG_LEVEL %q is not one of debug, info, warn, error", s)
}
