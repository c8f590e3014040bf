package loopback

import (
	"net"
	"testing"
)

// addrListener is a listener that only has an address.
type addrListener struct {
	net.Listener
	addr net.Addr
}

func (l addrListener) Addr() net.Addr { return l.addr }

// Hosts are checked only on a loopback address: on another, the operator
// chose to serve the network.
func TestListener(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8083}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8083}, true},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8083}, false},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8083}, false},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8083}, false},
		{&net.UnixAddr{Name: "/tmp/sock", Net: "unix"}, false},
	}
	for _, tt := range tests {
		if got := Listener(addrListener{addr: tt.addr}); got != tt.want {
			t.Errorf("Listener(%v) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

func TestHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1:8081", true},
		{"127.0.0.1", true},
		{"127.1.2.3:80", true},
		{"localhost:8080", true},
		{"LOCALHOST", true},
		{"[::1]:8083", true},
		{"[::1]", true},
		{"::1", true},
		{"", false},
		{"evil.example:8081", false},
		{"localhost.evil.example", false},
		{"192.0.2.1:8081", false},
		{"0.0.0.0:8081", false},
		{"[::]:8081", false},
	}
	for _, tt := range tests {
		if got := Host(tt.host); got != tt.want {
			t.Errorf("Host(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}
