package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthcheckTimeout bounds the whole probe; the ECS health check gives it
// 5 s.
const healthcheckTimeout = 3 * time.Second

// healthcheck asks this container's bot, on the port of addr
// (APPROVALS_HTTP_ADDR), whether it is ready: nil when /readyz answers 200,
// otherwise an error whose one line says why. It needs no token.
func healthcheck(ctx context.Context, addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("APPROVALS_HTTP_ADDR %q: %w", addr, err)
	}
	if port == "0" {
		return errors.New("APPROVALS_HTTP_ADDR has port 0 (any free port); -healthcheck needs a fixed port")
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	target := net.JoinHostPort(host, port)
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+target+"/readyz", nil)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	client := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("not ready: no answer: %w", err)
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(io.LimitReader(resp.Body, 512)).ReadString('\n')
	line = strings.TrimSpace(line)
	if resp.StatusCode != http.StatusOK {
		if !strings.HasPrefix(line, "not ready") {
			line = "not ready: " + resp.Status
		}
		return errors.New(line)
	}
	return nil
}
