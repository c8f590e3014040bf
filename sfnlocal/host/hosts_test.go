package host

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
func TestListensOnLoopback(t *testing.T) {
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
		if got := ListensOnLoopback(addrListener{addr: tt.addr}); got != tt.want {
			t.Errorf("ListensOnLoopback(%v) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}
