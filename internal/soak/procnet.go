package soak

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// socketOwner finds which of pids holds the TCP connection whose local
// address is local (the bot's end of a Socket Mode connection, as the
// fake Slack saw it) and whose peer port is peerPort, through /proc: the
// connection's inode in /proc/net/tcp, then the process whose open files
// include it. It returns 0 when none does (the process is gone, or this
// is not Linux).
func socketOwner(local string, peerPort int, pids []int) int {
	_, portText, err := net.SplitHostPort(local)
	if err != nil {
		return 0
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return 0
	}
	inode := tcpInode(port, peerPort)
	if inode == "" {
		return 0
	}
	want := "socket:[" + inode + "]"
	for _, pid := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", pid)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if target, err := os.Readlink(dir + "/" + e.Name()); err == nil && target == want {
				return pid
			}
		}
	}
	return 0
}

// tcpInode is the inode of the IPv4 or IPv6 TCP connection from local
// port to peer port, or "".
func tcpInode(port, peerPort int) string {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || hexPort(f[1]) != port || hexPort(f[2]) != peerPort {
				continue
			}
			return f[9]
		}
	}
	return ""
}

// hexPort reads the port of /proc/net/tcp's "0100007F:84DB".
func hexPort(addr string) int {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return -1
	}
	n, err := strconv.ParseInt(addr[i+1:], 16, 32)
	if err != nil {
		return -1
	}
	return int(n)
}
