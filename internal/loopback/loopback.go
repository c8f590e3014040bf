// Package loopback tells whether a listener or a request's Host belongs to
// this machine only. The local stack's servers (the Slack stand-in, its
// page, the Step Functions API) listen on loopback addresses and check
// Host too: a web page open in this machine's browser could otherwise
// reach them through DNS rebinding, a name of the page's own that
// resolves to 127.0.0.1.
package loopback

import (
	"net"
	"strings"
)

// Host reports whether a Host header value, with or without a port, is
// localhost or a loopback IP address (127.0.0.0/8, ::1).
func Host(host string) bool {
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

// Listener reports whether ln listens on a loopback address, so only this
// machine can connect.
func Listener(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}
