package host

import (
	"encoding/json"
	"fmt"
	"net/http"

	"go.uber.org/zap"

	"github.com/sfnapprovals/approvals/internal/loopback"
)

// LoopbackHostsOnly refuses, with 403, a request whose Host header does
// not name this machine by a loopback address or localhost, whatever its
// port. A server listening on a loopback address is meant for this
// machine only: a web page the machine's browser opens could otherwise
// reach it through DNS rebinding (a name of the page's own that resolves
// to 127.0.0.1) and drive an engine that may hold AWS credentials.
func LoopbackHostsOnly(next http.Handler, log *zap.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loopback.Host(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		log.Warn("request refused: its Host is not a loopback name", zap.String("host", r.Host), zap.String("remote", r.RemoteAddr))
		msg := fmt.Sprintf("this Step Functions API listens on a loopback address and answers only requests for 127.0.0.1, [::1] or localhost, not for Host %q (DNS rebinding protection)", r.Host)
		body, _ := json.Marshal(map[string]string{"__type": "AccessDeniedException", "message": msg})
		w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write(body)
	})
}
