package host

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"

	"go.uber.org/zap"
)

// LoopbackHostsOnly refuses, with 403, a request whose Host header does
// not name this machine by a loopback address or localhost, whatever its
// port. A server listening on a loopback address is meant for this
// machine only: a web page the machine's browser opens could otherwise
// reach it through DNS rebinding (a name of the page's own that resolves
// to 127.0.0.1) and drive an engine that may hold AWS credentials.
func LoopbackHostsOnly(next http.Handler, log *zap.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if LoopbackHost(r.Host) {
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

// LoopbackHost reports whether a Host header value, with or without a
// port, is localhost or a loopback IP address.
func LoopbackHost(host string) bool {
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

// ListensOnLoopback reports whether the listener's address is a loopback
// one, so only this machine can connect.
func ListensOnLoopback(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}
