//go:build unix && !linux

package dynamolocal

import "syscall"

// procAttr puts the server in its own process group, so Close can stop it
// and anything it starts.
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
